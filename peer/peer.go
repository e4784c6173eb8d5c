package peer

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/inference"
)

// Format names a model file format.
type Format int

// The model formats Read recognises.
const (
	FormatUnknown     Format = iota
	FormatCRFsuite           // CRFsuite 0.12 crf1d model ("lCRF" magic, FOMC type)
	FormatCRFPPBinary        // CRF++ 0.5x binary model (double-array, little-endian)
	FormatCRFPPText          // CRF++ text model (crf_learn -t, "version: ..." header)
	FormatWapiti             // Wapiti 1.x text model ("#mdl#" header)
)

func (f Format) String() string {
	switch f {
	case FormatCRFsuite:
		return "CRFsuite"
	case FormatCRFPPBinary:
		return "CRF++ binary"
	case FormatCRFPPText:
		return "CRF++ text"
	case FormatWapiti:
		return "Wapiti"
	}
	return "unknown"
}

// Model is a linear-chain CRF read from a file written by another toolkit.
// Its methods decode as the toolkit's own tagger does (see the package
// documentation for what "as" means for each format). A Model is immutable
// and safe for concurrent use by multiple goroutines.
type Model interface {
	// Format reports the file format the model was read from.
	Format() Format
	// Labels returns the label names; label ids index this slice. The slice
	// must not be modified.
	Labels() []string
	// Tag writes the label sequence the toolkit's tagger outputs for seq
	// into dst[:T] (append-style: dst's capacity is reused) and returns it.
	Tag(dst []int, seq corpora.Sequence) ([]int, error)
	// NBest returns up to n best label sequences in the toolkit's order,
	// with the toolkit's path scores.
	NBest(seq corpora.Sequence, n int) ([]Path, error)
	// Marginals writes the T×L node marginals of seq into dst (row-major,
	// dst[t*L+y] = P(y_t = y), append-style) and returns them with log Z,
	// so that the probability of a path is exp(path.Score - logZ).
	Marginals(dst []float64, seq corpora.Sequence) (node []float64, logZ float64, err error)
	// Decode decodes seq on the model's score lattice as this toolkit
	// decodes its own models (chain.DecodeLattice): constraints, fixed
	// labels, posterior decoding, span confidences.
	Decode(d *chain.Decoding, seq corpora.Sequence, opt chain.DecodeOptions) error
	// Weights calls fn for each weight stored in the model (see
	// CRFsuiteModel.Weights), read-only.
	Weights(fn func(Weight) error) error
	// Explain explains the labels path assigns to seq (see
	// CRFsuiteModel.Explain), read-only.
	Explain(seq corpora.Sequence, path []int) ([]chain.TokenExplanation, error)
}

// Path is one decoded label sequence.
type Path struct {
	// Labels[t] is the label id at position t.
	Labels []int
	// Score is the unnormalised log-space score of the path as the
	// toolkit computes it (CRF++: minus its cost; Wapiti: the -s score).
	Score float64
	// Local[t] is the per-position score Wapiti prints with -s (the label's
	// unigram sum plus the bigram sum of the incoming transition); nil for
	// the other formats.
	Local []float64
}

// Errors. Loaders wrap ErrFormat in a *FormatError naming the section and
// offset; taggers wrap ErrInput. Test with errors.Is.
var (
	// ErrFormat: the model file is malformed, truncated or of an unknown
	// format.
	ErrFormat = errors.New("peer: malformed model")
	// ErrUnsupported: a well-formed model uses a feature this package does
	// not implement (for example a Wapiti MEMM).
	ErrUnsupported = errors.New("peer: unsupported model")
	// ErrInput: a sequence does not fit the model (CRFsuite models need
	// Sequence.Attrs, column models need Sequence.Tokens with enough
	// columns).
	ErrInput = errors.New("peer: bad input sequence")
)

// FormatError reports a malformed model file: the format, the section being
// read and the byte offset (or, for text formats, the 1-based line) where the
// problem was found.
type FormatError struct {
	Format  Format
	Section string // e.g. "header", "FEAT chunk", "weights"
	Offset  int64  // byte offset in the (decompressed) file; -1 if Line is set
	Line    int    // 1-based line for text formats; 0 if Offset is set
	Msg     string
	Err     error // ErrFormat or ErrUnsupported
}

func (e *FormatError) Error() string {
	pos := fmt.Sprintf("offset %d", e.Offset)
	if e.Line > 0 {
		pos = fmt.Sprintf("line %d", e.Line)
	}
	kind := "malformed"
	if e.Err == ErrUnsupported {
		kind = "unsupported"
	}
	return fmt.Sprintf("peer: %s %s model: %s at %s: %s", kind, e.Format, e.Section, pos, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(f Format, section string, off int64, format string, args ...any) error {
	return &FormatError{Format: f, Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

func lineErr(f Format, section string, line int, format string, args ...any) error {
	return &FormatError{Format: f, Section: section, Offset: -1, Line: line, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// Limits on what a model may declare. They keep a hostile file from making
// the loader or the tagger allocate without bound.
const (
	// MaxLabels is the largest label set accepted. Decoding costs L² per
	// position, so larger label sets are not practical for a linear chain.
	MaxLabels = 1024
	// MaxModelBytes bounds the (decompressed) size of a model file.
	MaxModelBytes = 1 << 31
)

// Open reads the model file at path; see Read.
func Open(path string) (Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads a model from r, detecting the format from its first bytes:
// "lCRF" is a CRFsuite model, "#mdl#" a Wapiti model, "version: " a CRF++
// text model, and a little-endian version number 100..199 followed by a zero
// type field a CRF++ binary model. Gzip-compressed input is decompressed
// first.
func Read(r io.Reader) (Model, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxModelBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxModelBytes {
		return nil, fmt.Errorf("%w: model larger than %d bytes", ErrFormat, MaxModelBytes)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, MaxModelBytes+1))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		if len(data) > MaxModelBytes {
			return nil, fmt.Errorf("%w: model larger than %d bytes", ErrFormat, MaxModelBytes)
		}
	}
	return Parse(data)
}

// Detect reports the format of a (decompressed) model file from its first
// bytes, or FormatUnknown.
func Detect(data []byte) Format {
	switch {
	case bytes.HasPrefix(data, []byte("lCRF")):
		return FormatCRFsuite
	case bytes.HasPrefix(data, []byte("#mdl#")):
		return FormatWapiti
	case bytes.HasPrefix(data, []byte("version: ")), bytes.HasPrefix(data, []byte("version:\t")):
		return FormatCRFPPText
	case len(data) >= 8:
		v := binary.LittleEndian.Uint32(data)
		if v/100 == 1 && binary.LittleEndian.Uint32(data[4:]) == 0 {
			return FormatCRFPPBinary
		}
	}
	return FormatUnknown
}

// Parse reads a model from the bytes of an uncompressed model file. The
// model does not retain data.
func Parse(data []byte) (Model, error) {
	switch Detect(data) {
	case FormatCRFsuite:
		return ParseCRFsuite(data)
	case FormatWapiti:
		return ParseWapiti(data)
	case FormatCRFPPText:
		return ParseCRFPPText(data)
	case FormatCRFPPBinary:
		return ParseCRFPPBinary(data)
	}
	n := min(len(data), 8)
	return nil, fmt.Errorf("%w: unknown model format (first bytes %q)", ErrFormat, data[:n])
}

// scratch is the per-call working memory of the taggers, pooled so that a
// Model can be shared by goroutines.
type scratch struct {
	ws    *inference.Workspace
	nw    inference.NBestWorkspace
	lat   inference.Lattice
	unary []float64
	trans []float64
	at    []float64
}

var scratchPool = sync.Pool{New: func() any { return &scratch{ws: inference.NewWorkspace(0, 0)} }}

func getScratch() *scratch  { return scratchPool.Get().(*scratch) }
func putScratch(s *scratch) { s.lat = inference.Lattice{}; scratchPool.Put(s) }

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growI(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// latticeResults runs the shared decoding steps on a filled lattice.
func viterbiPath(sc *scratch, dst []int) []int {
	dst = growI(dst, sc.lat.T)
	inference.Viterbi(sc.ws, &sc.lat, dst)
	return dst
}

func marginals(sc *scratch, dst []float64) ([]float64, float64) {
	logZ := inference.ForwardBackward(sc.ws, &sc.lat)
	node := sc.ws.Node()
	dst = growF(dst, len(node))
	copy(dst, node)
	return dst, logZ
}

// latticeOf returns a lattice with constant transition scores.
func latticeOf(T, L int, unary, trans []float64) inference.Lattice {
	return inference.Lattice{T: T, L: L, Unary: unary[:T*L], Trans: trans}
}

// viterbiScore runs inference.Viterbi on sc.lat into path[:T] and returns the
// score of the path.
func viterbiScore(sc *scratch, path []int) float64 {
	return inference.Viterbi(sc.ws, &sc.lat, path)
}

// nbestPaths runs inference.NBest on sc.lat.
func nbestPaths(sc *scratch, n int) []Path {
	if n <= 0 {
		return nil
	}
	sc.nw.Reserve(sc.lat.T, sc.lat.L, n)
	paths, scores := inference.NBest(&sc.nw, &sc.lat, n, nil, nil)
	out := make([]Path, len(paths))
	for k := range paths {
		out[k] = Path{Labels: paths[k], Score: scores[k]}
	}
	return out
}
