package beamtag

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/tagging"
)

func init() {
	register.DoFn5x1[context.Context, fileio.ReadableFile, []byte, func(string), func(string, int), error](&tagFileFn{})
	register.DoFn3x1[context.Context, fileio.ReadableFile, func([]byte), error](&readFileFn{})
	register.Function2x1[string, int, string](formatCount)
	register.Emitter1[string]()
	register.Emitter1[[]byte]()
	register.Emitter2[string, int]()
}

// TagConfig configures Tag.
type TagConfig struct {
	Input      string // glob of input files (any Beam filesystem)
	Model      string // model file (ours, CRFsuite, CRF++ or Wapiti; gzip or not)
	Output     string // directory: one output file per input, named as the input without .gz
	Format     string // input format: conll, crfsuite, conllu or text ("": conll, or the peer model's format)
	OutFormat  string // output format: conll, slash or json ("": conll)
	Marginals  bool   // also write marginals and sequence probabilities (json)
	NBest      int    // n-best lists (json), 0 or 1: the best sequence only
	DeadLetter string // file of the records that could not be tagged ("": Output/dead-letter.txt)
	Labels     string // file of label frequencies ("": Output/labels.tsv)
}

// Tag adds the batch tagging pipeline to s and returns its dead-letter
// collection (one "file:line: reason" string per bad record) and the
// label frequencies (KV<string, int>). Both are also written to files.
func Tag(s beam.Scope, cfg TagConfig) (dead, labels beam.PCollection) {
	s = s.Scope("sparsetag.Tag")
	if cfg.OutFormat == "" {
		cfg.OutFormat = tagging.CoNLL
	}
	model := beam.ParDo(s, &readFileFn{}, fileio.ReadMatches(s, fileio.MatchFiles(s, cfg.Model), fileio.ReadUncompressed()))
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, cfg.Input))
	dead, counts := beam.ParDo2(s, &tagFileFn{Output: cfg.Output, Format: cfg.Format, OutFormat: cfg.OutFormat,
		Marginals: cfg.Marginals, NBest: cfg.NBest}, files, beam.SideInput{Input: model})
	labels = stats.SumPerKey(s, counts)
	if cfg.DeadLetter == "" {
		cfg.DeadLetter = strings.TrimSuffix(cfg.Output, "/") + "/dead-letter.txt"
	}
	if cfg.Labels == "" {
		cfg.Labels = strings.TrimSuffix(cfg.Output, "/") + "/labels.tsv"
	}
	textio.Write(s, cfg.DeadLetter, dead)
	textio.Write(s, cfg.Labels, beam.ParDo(s, formatCount, labels))
	return dead, labels
}

func formatCount(label string, n int) string { return fmt.Sprintf("%s\t%d", label, n) }

// readFileFn emits the whole content of a file (the model, read once).
type readFileFn struct{}

func (fn *readFileFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, emit func([]byte)) error {
	b, err := f.Read(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Metadata.Path, err)
	}
	emit(b)
	return nil
}

var (
	tokensCounter    = beam.NewCounter("sparsetag", "tokens")
	sequencesCounter = beam.NewCounter("sparsetag", "sequences")
	badCounter       = beam.NewCounter("sparsetag", "bad_records")
)

// models caches the loaded models of a worker by the digest of their bytes:
// a model is parsed once per worker process, whatever the bundles.
var models struct {
	sync.Mutex
	m map[[32]byte]*tagging.Model
}

func cachedModel(data []byte) (*tagging.Model, error) {
	key := sha256.Sum256(data)
	models.Lock()
	defer models.Unlock()
	if m, ok := models.m[key]; ok {
		return m, nil
	}
	m, err := tagging.LoadBytes("model", data)
	if err != nil {
		return nil, err
	}
	if models.m == nil {
		models.m = make(map[[32]byte]*tagging.Model)
	}
	models.m[key] = m
	return m, nil
}

// tagFileFn tags one input file into its output file.
type tagFileFn struct {
	Output, Format, OutFormat string
	Marginals                 bool
	NBest                     int
}

// ProcessElement tags file f with the model (side input) and writes its
// output file; bad records go to dead, label counts of the file to counts.
func (fn *tagFileFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, model []byte, dead func(string), counts func(string, int)) error {
	m, err := cachedModel(model)
	if err != nil {
		return err
	}
	name := f.Metadata.Path
	opts, err := fn.readOptions(m)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	in, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer in.Close()
	outPath := strings.TrimSuffix(fn.Output, "/") + "/" + strings.TrimSuffix(path.Base(name), ".gz")
	out, err := createFile(ctx, outPath)
	if err != nil {
		return err
	}
	st := &fileTagger{name: name, opts: opts, tw: tagging.NewWriter(m, fn.streamOptions()), labels: m.Labels(),
		w: bufio.NewWriter(out), freq: map[string]int{}, dead: dead}
	rr := newRecordReader(in, opts.Format == dataset.Text)
	for rr.next() {
		st.record(ctx, rr.rec, rr.first)
	}
	if rr.err != nil {
		st.bad(ctx, fmt.Sprintf("%s:%v", name, rr.err))
	}
	if err := st.w.Flush(); err != nil {
		out.abort()
		return fmt.Errorf("%s: %w", outPath, err)
	}
	if err := out.commit(ctx); err != nil {
		return err
	}
	emitCounts(st.freq, counts)
	return nil
}

// readOptions returns how tagger tag reads input for m: a peer model reads
// its own format, with the labels as its tool reads them.
func (fn *tagFileFn) readOptions(m *tagging.Model) (dataset.Options, error) {
	format := dataset.Format(fn.Format)
	if m.Peer != nil {
		want := tagging.PeerFormat(m.Peer)
		if format != "" && format != want {
			return dataset.Options{}, fmt.Errorf("format %s does not fit this %s model, which reads %s input", format, m.Peer.Format(), want)
		}
		return dataset.Options{Format: want, Labeled: tagging.PeerLabeled(m.Peer, false)}, nil
	}
	if format == "" {
		format = dataset.CoNLL
	}
	if format == dataset.OCR {
		return dataset.Options{}, errors.New("ocr input is one file of words with folds, not a sharded format: tag it with tagger tag")
	}
	return dataset.Options{Format: format}, nil
}

func (fn *tagFileFn) streamOptions() tagging.StreamOptions {
	o := tagging.StreamOptions{Output: fn.OutFormat, Marginals: fn.Marginals, Decode: chain.DecodeOptions{N: max(fn.NBest, 1)}}
	o.Decode.Posterior = fn.Marginals
	return o
}

func emitCounts(freq map[string]int, emit func(string, int)) {
	keys := make([]string, 0, len(freq))
	for k := range freq {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		emit(k, freq[k])
	}
}

// fileTagger is the state of tagging one file.
type fileTagger struct {
	name   string
	opts   dataset.Options
	tw     *tagging.Writer
	labels []string
	w      *bufio.Writer
	seq    int
	freq   map[string]int
	dead   func(string)
}

// record tags the sequences of one record starting at line first of the
// file; what cannot be read or tagged goes to the dead letters.
func (ft *fileTagger) record(ctx context.Context, rec []byte, first int) {
	r, err := dataset.NewReader(ft.name, bytes.NewReader(rec), ft.opts)
	if err != nil {
		ft.bad(ctx, fmt.Sprintf("%s:%d: %v", ft.name, first, err))
		return
	}
	for r.Next() {
		ex := r.Example()
		ex.Line += first - 1
		if err := ft.tw.Write(ft.w, &ex, ft.seq); err != nil {
			ft.bad(ctx, fmt.Sprintf("%s:%d: %v", ft.name, ex.Line, err))
			continue
		}
		ft.seq++
		sequencesCounter.Inc(ctx, 1)
		tokensCounter.Inc(ctx, int64(ex.Len()))
		for _, y := range ft.tw.Best() {
			ft.freq[ft.labels[y]]++
		}
	}
	if err := r.Err(); err != nil {
		var pe *corpora.ParseError
		if errors.As(err, &pe) {
			pe.Line += first - 1
		} else {
			err = fmt.Errorf("%s:%d: %w", ft.name, first, err)
		}
		ft.bad(ctx, err.Error())
	}
}

func (ft *fileTagger) bad(ctx context.Context, msg string) {
	badCounter.Inc(ctx, 1)
	ft.dead(msg)
}
