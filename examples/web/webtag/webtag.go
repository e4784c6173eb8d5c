// Package webtag is what the WebAssembly build of the tagger (package
// examples/web/wasm) exposes to JavaScript, written as plain Go so that it
// is tested natively: load a model from the bytes of its file (ours,
// CRFsuite's, CRF++'s or Wapiti's, gzipped or not; tagging.Read), tag
// one sequence (raw text, token columns or OCR letters) or every sequence of
// a file's contents in any input format of package dataset, and return the
// labels, the node marginals, the n-best list and, for the OCR letters, the
// labels read one position at a time (the chain's transitions zeroed), as
// values that encode to JSON and so become plain JavaScript values.
//
// A Session is not safe for concurrent use (a WebAssembly module runs on the
// page's one thread).
package webtag

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/tagging"
)

// MaxNBest bounds the n-best lists a page may ask for.
const MaxNBest = 100

// Input kinds of Info.Input.
const (
	InputColumns    = "columns"    // token columns (CRF++ templates); raw text when the model reads column 0 alone
	InputAttributes = "attributes" // CRFsuite attribute files
	InputPixels     = "pixels"     // OCR letters, 16×8 binary images
)

// Info describes a loaded model.
type Info struct {
	ID     int      `json:"id"`
	Name   string   `json:"name"`
	Format string   `json:"format"` // "sparsetag", "CRFsuite", "CRF++ binary", "CRF++ text" or "Wapiti"
	Input  string   `json:"input"`  // InputColumns, InputAttributes or InputPixels
	Labels []string `json:"labels"`
	// Columns is the number of token columns a model of ours reads (0 when
	// unknown: peer models apply their own templates).
	Columns int `json:"columns"`
	// Text reports whether raw text can be tagged: the model reads the
	// words alone (column 0).
	Text bool `json:"text"`
	// Independent reports whether Options.Independent is available: models
	// that explain their labels (tagging.Explanation), whose explanations
	// give the state scores.
	Independent bool `json:"independent"`
	// Bytes is the size of the file as given; LoadMillis the time to parse it.
	Bytes      int     `json:"bytes"`
	LoadMillis float64 `json:"loadMillis"`
}

// Input is one sequence to tag: exactly one of its fields is set.
type Input struct {
	// Text is one sentence of raw text, split into tokens by
	// corpora.Tokenize (Penn Treebank conventions) whose forms are the
	// words of a one-column sequence.
	Text string `json:"text,omitempty"`
	// Tokens holds the token columns of each position.
	Tokens [][]string `json:"tokens,omitempty"`
	// Pixels holds one OCR letter per position: 128 values 0 or 1, 16 rows
	// of 8, row-major.
	Pixels [][]byte `json:"pixels,omitempty"`
}

// Options selects what Tag computes besides the labels and marginals.
type Options struct {
	// NBest is the length of the n-best list, 0 or 1 for the best path
	// alone; at most MaxNBest.
	NBest int `json:"nbest,omitempty"`
	// Independent also decodes every position on its own: the model with
	// its transition (and pair) weights zeroed, so that each label is the
	// argmax of its state scores and each marginal a softmax of them.
	Independent bool `json:"independent,omitempty"`
}

// Path is one entry of an n-best list.
type Path struct {
	Labels []string `json:"labels"`
	Score  float64  `json:"score"`
	Prob   float64  `json:"prob"` // exp(Score - LogZ)
}

// Independent is the decoding of every position on its own.
type Independent struct {
	Labels    []string    `json:"labels"`
	Marginals [][]float64 `json:"marginals"`
}

// Result is the decoding of one sequence.
type Result struct {
	// Tokens is what each position shows: the word (column 0), the first
	// attribute, or for OCR letters the position's number from 1.
	Tokens []string `json:"tokens"`
	// Start and End are the UTF-16 offsets of each token in Input.Text
	// (JavaScript string indices), for text input only.
	Start  []int    `json:"start,omitempty"`
	End    []int    `json:"end,omitempty"`
	Labels []string `json:"labels"` // the best (Viterbi) path
	Score  float64  `json:"score"`
	Prob   float64  `json:"prob"` // probability of the best path
	LogZ   float64  `json:"logZ"`
	// Marginals[t][y] = P(y_t = y | x), y indexing Info.Labels.
	Marginals   [][]float64  `json:"marginals"`
	NBest       []Path       `json:"nbest"` // best first; the first is Labels
	Independent *Independent `json:"independent,omitempty"`
	// Millis is the time spent decoding (Go's clock), without the
	// conversion to JavaScript.
	Millis float64 `json:"millis"`
}

// Session holds the loaded models.
type Session struct {
	models map[int]*model
	next   int
}

type model struct {
	info   Info
	m      tagging.Tagger
	format dataset.Format
}

// NewSession returns a Session with no model.
func NewSession() *Session { return &Session{models: make(map[int]*model), next: 1} }

// Load parses the bytes of a model file and returns its Info, whose ID
// names it in Tag and Unload.
func (s *Session) Load(name string, data []byte) (*Info, error) {
	t0 := time.Now()
	tm, err := tagging.Read(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	e := &model{m: tm, info: Info{Name: name, Format: tm.Format(), Labels: tm.Labels(), Bytes: len(data)}}
	r := tm.Reads()
	e.format = r.DefaultFormat()
	switch r.Kind {
	case features.KindTemplate:
		e.info.Input = InputColumns
		if r.Template != nil {
			e.info.Columns = r.Template.Columns()
			e.info.Text = e.info.Columns <= 1
		}
	case features.KindAttributes:
		e.info.Input = InputAttributes
	case features.KindPixels:
		e.info.Input = InputPixels
	case 0:
		return nil, fmt.Errorf("%s: %w", name, chain.ErrNoEncoder)
	default:
		return nil, fmt.Errorf("%s: unknown input kind %v", name, r.Kind)
	}
	e.info.Independent = tm.Supports(tagging.Explanation)
	e.info.LoadMillis = millis(time.Since(t0))
	e.info.ID = s.next
	s.next++
	s.models[e.info.ID] = e
	info := e.info
	return &info, nil
}

// Unload forgets model id; it reports whether there was one.
func (s *Session) Unload(id int) bool {
	_, ok := s.models[id]
	delete(s.models, id)
	return ok
}

// Info returns the Info of model id.
func (s *Session) Info(id int) (*Info, error) {
	e, err := s.model(id)
	if err != nil {
		return nil, err
	}
	info := e.info
	return &info, nil
}

func (s *Session) model(id int) (*model, error) {
	e, ok := s.models[id]
	if !ok {
		return nil, fmt.Errorf("no model %d (load one first)", id)
	}
	return e, nil
}

// Tag decodes one sequence with model id.
func (s *Session) Tag(id int, in *Input, opt Options) (*Result, error) {
	e, err := s.model(id)
	if err != nil {
		return nil, err
	}
	if opt.NBest < 0 || opt.NBest > MaxNBest {
		return nil, fmt.Errorf("nbest %d: want 0 to %d", opt.NBest, MaxNBest)
	}
	ex, start, end, err := e.example(in)
	if err != nil {
		return nil, err
	}
	r, err := e.decode(ex, opt)
	if err != nil {
		return nil, err
	}
	r.Start, r.End = start, end
	return r, nil
}

// TagData decodes every sequence of data, the contents of an input file in
// format ("conll", "crfsuite", "conllu", "ocr" or "text"; "" is the format
// the model reads), unlabeled as `tagger tag` reads it.
func (s *Session) TagData(id int, format, data string, opt Options) ([]*Result, error) {
	e, err := s.model(id)
	if err != nil {
		return nil, err
	}
	f := e.format
	if format != "" {
		f = dataset.Format(format)
	}
	exs, err := dataset.Read("input", strings.NewReader(data), dataset.Options{Format: f})
	if err != nil {
		return nil, err
	}
	out := make([]*Result, len(exs))
	for i := range exs {
		if out[i], err = e.decode(&exs[i], opt); err != nil {
			return nil, fmt.Errorf("sequence %d: %w", i+1, err)
		}
	}
	return out, nil
}

// example turns in into the example a model of e reads, with the UTF-16
// offsets of text tokens.
func (e *model) example(in *Input) (ex *dataset.Example, start, end []int, err error) {
	set := 0
	for _, b := range []bool{in.Text != "", in.Tokens != nil, in.Pixels != nil} {
		if b {
			set++
		}
	}
	if set != 1 {
		return nil, nil, nil, errors.New("input: give exactly one of text, tokens and pixels")
	}
	ex = &dataset.Example{File: "input", Line: 1}
	switch {
	case in.Pixels != nil:
		if e.info.Input != InputPixels {
			return nil, nil, nil, fmt.Errorf("this model reads %s, not OCR letters", e.info.Input)
		}
		ex.Pixels = in.Pixels
		ex.Text = make([]string, len(in.Pixels))
		for t := range ex.Text {
			ex.Text[t] = fmt.Sprint(t + 1)
		}
	case in.Text != "":
		if e.info.Input != InputColumns {
			return nil, nil, nil, fmt.Errorf("this model reads %s, not text", e.info.Input)
		}
		if e.info.Columns > 1 {
			return nil, nil, nil, fmt.Errorf("this model reads %d token columns; text gives the words alone", e.info.Columns)
		}
		toks, err := corpora.Tokenize(in.Text)
		if err != nil {
			return nil, nil, nil, err
		}
		u := newUTF16Index(in.Text)
		for _, tok := range toks {
			ex.Tokens = append(ex.Tokens, []string{tok.Word})
			ex.Text = append(ex.Text, tok.Word)
			start = append(start, u.offset(tok.Start))
			end = append(end, u.offset(tok.End))
		}
	default:
		if e.info.Input != InputColumns {
			return nil, nil, nil, fmt.Errorf("this model reads %s, not token columns", e.info.Input)
		}
		for t, cols := range in.Tokens {
			if len(cols) == 0 || len(cols) < e.info.Columns {
				return nil, nil, nil, fmt.Errorf("token %d has %d columns; this model reads %d", t+1, len(cols), max(e.info.Columns, 1))
			}
		}
		ex.Tokens = in.Tokens
		ex.Text = make([]string, len(in.Tokens))
		for t, cols := range in.Tokens {
			ex.Text[t] = cols[0]
		}
	}
	if ex.Len() == 0 {
		return nil, nil, nil, errors.New("input: empty sequence")
	}
	if ex.Len() > dataset.MaxSequenceLen {
		return nil, nil, nil, fmt.Errorf("input: %d positions, more than %d", ex.Len(), dataset.MaxSequenceLen)
	}
	return ex, start, end, nil
}

// decode decodes ex as `tagger tag --marginals --nbest N` does.
func (e *model) decode(ex *dataset.Example, opt Options) (*Result, error) {
	t0 := time.Now()
	var d chain.Decoding
	if opt.Independent && !e.info.Independent {
		return nil, fmt.Errorf("independent decoding needs a model that explains its labels, not a %s model", e.info.Format)
	}
	if err := e.m.Decode(&d, ex, chain.DecodeOptions{N: opt.NBest, Posterior: true}); err != nil {
		return nil, err
	}
	labels := e.info.Labels
	r := &Result{
		Tokens:    ex.Text,
		Labels:    names(labels, d.Paths[0]),
		Score:     d.Scores[0],
		Prob:      d.Probs[0],
		LogZ:      d.LogZ,
		Marginals: rows(d.Marginal, len(labels)),
	}
	for k, p := range d.Paths {
		r.NBest = append(r.NBest, Path{Labels: names(labels, p), Score: d.Scores[k], Prob: d.Probs[k]})
	}
	if opt.Independent {
		var err error
		if r.Independent, err = e.independent(ex, d.Paths[0]); err != nil {
			return nil, err
		}
	}
	r.Millis = millis(time.Since(t0))
	return r, nil
}

// independent decodes every position of ex on its own, as the model with
// its transition and pair weights zeroed: each label is the argmax of the
// position's state scores (the first among ties) and the marginals their
// softmax. The state scores come from the explanation of path.
func (e *model) independent(ex *dataset.Example, path []int) (*Independent, error) {
	exp, err := e.m.Explain(ex, path)
	if err != nil {
		return nil, err
	}
	ind := &Independent{Labels: make([]string, len(exp)), Marginals: make([][]float64, len(exp))}
	for t := range exp {
		state := exp[t].State
		best := 0
		for y, s := range state {
			if s > state[best] {
				best = y
			}
		}
		ind.Labels[t] = e.info.Labels[best]
		ind.Marginals[t] = softmax(state, state[best])
	}
	return ind, nil
}

// softmax returns exp(x - max) normalised to sum 1.
func softmax(x []float64, max float64) []float64 {
	out := make([]float64, len(x))
	var sum float64
	for y, v := range x {
		out[y] = math.Exp(v - max)
		sum += out[y]
	}
	for y := range out {
		out[y] /= sum
	}
	return out
}

func names(labels []string, ids []int) []string {
	out := make([]string, len(ids))
	for t, y := range ids {
		out[t] = labels[y]
	}
	return out
}

// rows splits a T×L row-major matrix into T rows.
func rows(m []float64, L int) [][]float64 {
	out := make([][]float64, len(m)/L)
	for t := range out {
		out[t] = m[t*L : (t+1)*L : (t+1)*L]
	}
	return out
}

func millis(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// utf16Index maps the byte offsets of a string to UTF-16 offsets (the
// string indices of JavaScript).
type utf16Index []int

func newUTF16Index(s string) utf16Index {
	u := make(utf16Index, len(s)+1)
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		for j := i; j < i+size; j++ {
			u[j] = n
		}
		n += utf16.RuneLen(r)
		i += size
	}
	u[len(s)] = n
	return u
}

func (u utf16Index) offset(i int) int { return u[i] }
