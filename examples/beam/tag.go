package beamtag

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path"
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
	m map[[32]byte]tagging.Tagger
}

func cachedModel(data []byte) (tagging.Tagger, error) {
	key := sha256.Sum256(data)
	models.Lock()
	defer models.Unlock()
	if m, ok := models.m[key]; ok {
		return m, nil
	}
	m, err := tagging.Read("model", bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if models.m == nil {
		models.m = make(map[[32]byte]tagging.Tagger)
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
		w: bufio.NewWriter(out), freq: make([]int, len(m.Labels())), dead: dead}
	rr := newRecordReader(in, opts.Format == dataset.Text)
	ch := &chunk{sep: opts.Format != dataset.Text}
	for rr.next() {
		if ch.add(rr.rec, rr.first) >= chunkRecords {
			st.chunk(ctx, ch)
			ch.reset()
		}
	}
	st.chunk(ctx, ch)
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
	for y, n := range st.freq {
		if n > 0 {
			counts(st.labels[y], n)
		}
	}
	return nil
}

// readOptions returns how tagger tag reads input for m: the format asked
// for, if m reads it, else the format m reads (tagging.CheckInput).
func (fn *tagFileFn) readOptions(m tagging.Tagger) (dataset.Options, error) {
	format := dataset.Format(fn.Format)
	if format == "" {
		format = m.Reads().DefaultFormat()
	}
	if format == dataset.OCR {
		return dataset.Options{}, errors.New("ocr input is one file of words with folds, not a sharded format: tag it with tagger tag")
	}
	f, err := tagging.CheckInput(m, format, fn.Format != "", false)
	if err != nil {
		return dataset.Options{}, err
	}
	return dataset.Options{Format: f}, nil
}

func (fn *tagFileFn) streamOptions() tagging.StreamOptions {
	o := tagging.StreamOptions{Output: fn.OutFormat, Marginals: fn.Marginals, Decode: chain.DecodeOptions{N: max(fn.NBest, 1)}}
	o.Decode.Posterior = fn.Marginals
	return o
}

// fileTagger is the state of tagging one file.
type fileTagger struct {
	name   string
	opts   dataset.Options
	tw     *tagging.Writer
	labels []string
	w      *bufio.Writer
	seq    int
	freq   []int // tokens tagged with each label
	dead   func(string)
}

// chunk tags the records of ch with one reader; after a record that
// cannot be read it goes on with a new reader at the next record.
func (ft *fileTagger) chunk(ctx context.Context, ch *chunk) {
	for k := 0; k < ch.len(); {
		r, err := dataset.NewReader(ft.name, bytes.NewReader(ch.from(k)), ft.opts)
		if err != nil {
			ft.bad(ctx, fmt.Sprintf("%s:%d: %v", ft.name, ch.firsts[k], err))
			return
		}
		for r.Next() {
			ex := r.Example()
			ex.Line, _ = ch.fileLine(k, ex.Line)
			ft.write(ctx, &ex)
		}
		err = r.Err()
		if err == nil {
			return
		}
		var pe *corpora.ParseError
		if !errors.As(err, &pe) {
			// Not a line's error (a sequence over the length limit): read
			// the rest record by record to find it.
			ft.oneByOne(ctx, ch, k)
			return
		}
		line, bad := ch.fileLine(k, pe.Line)
		pe.Line = line
		ft.bad(ctx, err.Error())
		k = bad + 1
	}
}

// oneByOne tags records k.. of ch with a reader each.
func (ft *fileTagger) oneByOne(ctx context.Context, ch *chunk, k int) {
	for ; k < ch.len(); k++ {
		r, err := dataset.NewReader(ft.name, bytes.NewReader(ch.record(k)), ft.opts)
		if err == nil {
			for r.Next() {
				ex := r.Example()
				ex.Line += ch.firsts[k] - 1
				ft.write(ctx, &ex)
			}
			err = r.Err()
		}
		if err != nil {
			var pe *corpora.ParseError
			if errors.As(err, &pe) {
				pe.Line += ch.firsts[k] - 1
			} else {
				err = fmt.Errorf("%s:%d: %w", ft.name, ch.firsts[k], err)
			}
			ft.bad(ctx, err.Error())
		}
	}
}

// write tags one example into the output, or sends it to the dead letters.
func (ft *fileTagger) write(ctx context.Context, ex *dataset.Example) {
	if err := ft.tw.Write(ft.w, ex, ft.seq); err != nil {
		ft.bad(ctx, fmt.Sprintf("%s:%d: %v", ft.name, ex.Line, err))
		return
	}
	ft.seq++
	sequencesCounter.Inc(ctx, 1)
	tokensCounter.Inc(ctx, int64(ex.Len()))
	for _, y := range ft.tw.Best() {
		ft.freq[y]++
	}
}

func (ft *fileTagger) bad(ctx context.Context, msg string) {
	badCounter.Inc(ctx, 1)
	ft.dead(msg)
}
