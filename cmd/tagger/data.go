package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// example is one sequence of any input format, as read from a file.
type example struct {
	tokens [][]string  // column formats and raw text
	names  [][]string  // CRFsuite attribute files
	values [][]float64 // parallel to names
	pixels [][]byte    // OCR
	labels []string    // nil when unlabeled
	text   []string    // the words to print back (first column, or letters)
	line   int         // line of the first position in its file
}

// maxSequenceLen bounds the length of one sequence: a file whose blank
// separator lines are missing would otherwise become one huge lattice.
const maxSequenceLen = 100000

func (e *example) len() int {
	switch {
	case e.tokens != nil:
		return len(e.tokens)
	case e.names != nil:
		return len(e.names)
	}
	return len(e.pixels)
}

// dataFlags are the input options shared by train, tag, eval and path.
type dataFlags struct {
	format string
	folds  string
}

const embeddedPrefix = "embedded:"

// openInput opens a file, "-" for stdin, or "embedded:NAME" for a corpus
// embedded in the binary (see corpora.EmbeddedNames).
func openInput(path string, stdin io.Reader) (io.ReadCloser, error) {
	switch {
	case path == "-":
		return io.NopCloser(stdin), nil
	case strings.HasPrefix(path, embeddedPrefix):
		return corpora.OpenEmbedded(strings.TrimPrefix(path, embeddedPrefix))
	}
	return os.Open(path)
}

// maxFold bounds fold numbers (the OCR data has folds 0-9).
const maxFold = 1000

// checkFormat reports an error when input of the given format cannot feed
// a model whose encoder is of kind k (e.g. CRFsuite attributes for a
// template model), instead of tagging it as empty sequences.
func checkFormat(format string, k features.Kind) error {
	want := map[string]features.Kind{"conll": features.KindTemplate, "conllu": features.KindTemplate,
		"text": features.KindTemplate, "crfsuite": features.KindAttributes, "ocr": features.KindPixels}
	if w, ok := want[format]; ok && w != k {
		return usagef("--format %s does not fit this model, which reads %v input", format, k)
	}
	return nil
}

// parseFolds parses "1-9" or "0,2,4" into fold numbers; "" means all.
func parseFolds(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		var lo, hi int
		if n, err := fmt.Sscanf(part, "%d-%d", &lo, &hi); err == nil && n == 2 {
			if lo > hi || lo < 0 || hi >= maxFold {
				return nil, fmt.Errorf("bad fold range %q (want lo-hi with 0 <= lo <= hi < %d)", part, maxFold)
			}
			for f := lo; f <= hi; f++ {
				out = append(out, f)
			}
			continue
		}
		var f int
		if _, err := fmt.Sscanf(part, "%d", &f); err != nil || fmt.Sprint(f) != strings.TrimSpace(part) || f < 0 || f >= maxFold {
			return nil, fmt.Errorf("bad fold %q (want e.g. 0, 1-9 or 0,2,4; folds are below %d)", part, maxFold)
		}
		out = append(out, f)
	}
	return out, nil
}

// readExamples reads all sequences of path in the given format. labeled
// selects whether the input carries labels.
func readExamples(path string, df dataFlags, labeled bool, stdin io.Reader) ([]example, error) {
	rc, err := openInput(path, stdin)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	name := path
	if path == "-" {
		name = "stdin"
	}
	var out []example
	switch df.format {
	case "conll":
		r := corpora.NewCoNLLReader(name, rc, corpora.CoNLLOptions{Unlabeled: !labeled})
		for r.Next() {
			out = append(out, fromColumns(r.Sequence()))
		}
		err = r.Err()
	case "conllu":
		r := corpora.NewCoNLLUReader(name, rc, corpora.CoNLLUOptions{Unlabeled: !labeled})
		for r.Next() {
			out = append(out, fromColumns(r.Sequence()))
		}
		err = r.Err()
	case "text":
		if labeled {
			return nil, errors.New("format text is unlabeled: it can be tagged, not used for training or evaluation")
		}
		r := corpora.NewTextReader(name, rc, corpora.TextOptions{})
		for r.Next() {
			out = append(out, fromColumns(r.Sequence()))
		}
		err = r.Err()
	case "crfsuite":
		r := corpora.NewCRFsuiteReader(name, rc, corpora.CRFsuiteOptions{Unlabeled: !labeled})
		for r.Next() {
			s := r.Sequence()
			ex := example{labels: s.Labels, names: make([][]string, len(s.Attrs)), values: make([][]float64, len(s.Attrs)), line: s.Line}
			for t, attrs := range s.Attrs {
				for _, a := range attrs {
					ex.names[t] = append(ex.names[t], a.Name)
					ex.values[t] = append(ex.values[t], a.Value)
				}
				if len(attrs) > 0 {
					ex.text = append(ex.text, attrs[0].Name)
				} else {
					ex.text = append(ex.text, "_")
				}
			}
			out = append(out, ex)
		}
		err = r.Err()
	case "ocr":
		folds, ferr := parseFolds(df.folds)
		if ferr != nil {
			return nil, ferr
		}
		words, rerr := corpora.ReadOCR(name, rc, corpora.OCROptions{Folds: folds})
		if rerr != nil {
			return nil, rerr
		}
		for _, w := range words {
			out = append(out, example{pixels: w.Pixels, labels: w.Labels, text: w.Labels, line: w.Line})
		}
	default:
		return nil, fmt.Errorf("unknown format %q (want conll, crfsuite, conllu, ocr or text)", df.format)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sequences found", name)
	}
	for i := range out {
		if n := out[i].len(); n > maxSequenceLen {
			return nil, fmt.Errorf("%s:%d: sequence of %d positions, more than the limit %d (missing blank lines between sentences?)", name, out[i].line, n, maxSequenceLen)
		}
	}
	return out, nil
}

func fromColumns(s corpora.Sequence) example {
	ex := example{tokens: s.Tokens, labels: s.Labels, text: make([]string, len(s.Tokens)), line: s.Line}
	for t, cols := range s.Tokens {
		if len(cols) > 0 {
			ex.text[t] = cols[0]
		}
	}
	return ex
}

// newEncoder returns a growing feature encoder for the format.
func newEncoder(format, templatePath string) (*features.Encoder, error) {
	switch format {
	case "conll", "conllu", "text":
		src := defaultTemplate
		if templatePath != "" {
			b, err := readMaybeGzip(templatePath)
			if err != nil {
				return nil, err
			}
			src = string(b)
		}
		t, err := features.Compile(src)
		if err != nil {
			if templatePath != "" {
				return nil, fmt.Errorf("%s: %w", templatePath, err)
			}
			return nil, err
		}
		return features.NewTemplateEncoder(t), nil
	case "crfsuite":
		if templatePath != "" {
			return nil, errors.New("--template applies to column formats, not to crfsuite attribute files")
		}
		return features.NewAttributeEncoder(), nil
	case "ocr":
		if templatePath != "" {
			return nil, errors.New("--template applies to column formats, not to ocr")
		}
		return features.NewPixelEncoder(0), nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// defaultTemplate is used for column formats when no --template is given:
// the words in a +-2 window, every column at the current position, and
// label bigrams.
const defaultTemplate = `# default template: words in a +-2 window, all columns at 0, label bigrams
U00:%x[-2,0]
U01:%x[-1,0]
U02:%x[0,0]
U03:%x[1,0]
U04:%x[2,0]
U05:%x[-1,0]/%x[0,0]
U06:%x[0,0]/%x[1,0]
B
`

func readMaybeGzip(path string) ([]byte, error) {
	rc, err := openInput(path, nil)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return io.ReadAll(zr)
	}
	return io.ReadAll(br)
}

// encodeOne appends one example to c with enc.
func encodeOne(enc *features.Encoder, c *sparse.Corpus, ex *example, labels []int32, grow bool) error {
	switch enc.Kind() {
	case features.KindTemplate:
		return enc.EncodeColumns(c, ex.tokens, labels, grow)
	case features.KindAttributes:
		return enc.EncodeAttributes(c, ex.names, ex.values, labels, grow)
	case features.KindPixels:
		return enc.EncodePixels(c, ex.pixels, labels, grow)
	}
	return fmt.Errorf("encoder kind %v cannot encode this input", enc.Kind())
}

// trainingSet encodes labeled examples: it builds the label set (in order of
// first appearance) and grows enc's dictionaries, applying the frequency
// cutoff when minFreq > 1.
func trainingSet(enc *features.Encoder, exs []example, minFreq int) (*sparse.Corpus, []string, error) {
	labelID := map[string]int32{}
	var labels []string
	ids := make([][]int32, len(exs))
	for i := range exs {
		ex := &exs[i]
		if ex.labels == nil {
			return nil, nil, fmt.Errorf("sequence %d has no labels", i+1)
		}
		ids[i] = make([]int32, len(ex.labels))
		for t, l := range ex.labels {
			id, ok := labelID[l]
			if !ok {
				id = int32(len(labels))
				labelID[l] = id
				labels = append(labels, l)
			}
			ids[i][t] = id
		}
	}
	grow := true
	if minFreq > 1 {
		for i := range exs {
			ex := &exs[i]
			var err error
			switch enc.Kind() {
			case features.KindTemplate:
				err = enc.CountColumns(ex.tokens)
			case features.KindAttributes:
				err = enc.CountAttributes(ex.names, ex.values)
			case features.KindPixels:
				err = enc.CountPixels(ex.pixels)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("sequence %d: %w", i+1, err)
			}
		}
		enc.Freeze(minFreq)
		grow = false
	}
	c := &sparse.Corpus{}
	for i := range exs {
		if err := encodeOne(enc, c, &exs[i], ids[i], grow); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i+1, err)
		}
	}
	if grow {
		enc.Freeze(0)
	}
	return c, labels, nil
}

// tagAll tags every example with tg on all cores (a Tagger is safe for
// concurrent use; results are stored by index, so the output order is the
// input order) and returns the predicted label names.
func tagAll(tg *chain.Tagger, exs []example) ([][]string, error) {
	enc := tg.Model().Encoder
	if enc == nil {
		return nil, chain.ErrNoEncoder
	}
	out := make([][]string, len(exs))
	errs := make([]error, len(exs))
	workers := min(runtime.NumCPU(), len(exs))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var path []int
			for i := w; i < len(exs); i += workers {
				ex := &exs[i]
				var err error
				switch enc.Kind() {
				case features.KindTemplate:
					path, err = tg.Tag(path, ex.tokens)
				case features.KindAttributes:
					path, err = tg.TagAttributes(path, ex.names, ex.values)
				case features.KindPixels:
					path, err = tg.TagPixels(path, ex.pixels)
				}
				if err != nil {
					errs[i] = fmt.Errorf("sequence %d: %w", i+1, err)
					continue
				}
				out[i] = tg.Labels(nil, path)
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
