package webtag_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/examples/web/webtag"
	"github.com/sparsetag/sparsetag/examples/web/webtag/webtagtest"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/tagging"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json")

// root is the repository root, seen from this package's directory.
const root = "../../.."

// cases returns the fixtures without results: every embedded model and the
// peer fixtures (CRFsuite, CRF++ binary and text, Wapiti) on a few
// sequences each, with n-best lists, and the OCR models with independent
// decoding.
func cases(t *testing.T) []*webtagtest.Case {
	t.Helper()
	var cs []*webtagtest.Case
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"ocr.model.gz", "ocr-pixels.model.gz"} {
		for _, i := range distinctWords(words, 2) {
			w := words[i]
			cs = append(cs, &webtagtest.Case{
				Name:    fmt.Sprintf("%s, OCR fold 0 word %d %q", model, i, strings.Join(w.Labels, "")),
				Model:   "examples/web/models/" + model,
				Options: webtag.Options{NBest: 3, Independent: true},
				Input:   &webtag.Input{Pixels: w.Pixels},
			})
		}
	}
	test, err := corpora.EmbeddedCoNLL2000("test")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1} {
		var words []string
		for _, tok := range test[i].Tokens {
			words = append(words, tok[0])
		}
		cs = append(cs, &webtagtest.Case{
			Name:    fmt.Sprintf("chunk-words.model.gz, CoNLL-2000 test sentence %d as text", i),
			Model:   "examples/web/models/chunk-words.model.gz",
			Options: webtag.Options{NBest: 3},
			Input:   &webtag.Input{Text: strings.Join(words, " ")},
		})
	}
	cs = append(cs, &webtagtest.Case{
		Name:    "chunk-words.model.gz, text with quotes, accents and an emoji (UTF-16 offsets)",
		Model:   "examples/web/models/chunk-words.model.gz",
		Options: webtag.Options{NBest: 2},
		Input:   &webtag.Input{Text: `Zoë said "the café 🍰 costs $5.50" (really).`},
	})
	for _, p := range []struct{ model, format, data string }{
		{"conll.crfsuite.gz", "crfsuite", "test.crfsuite.gz"},
		{"conll.crfpp.gz", "conll", "test.txt.gz"},
		{"conll.crfpp.txt.gz", "conll", "test.txt.gz"},
		{"conll.wapiti.gz", "conll", "test.txt.gz"},
	} {
		cs = append(cs, &webtagtest.Case{
			Name:    p.model + ", the first sentence of " + p.data,
			Model:   "peer/testdata/" + p.model,
			Options: webtag.Options{NBest: 3},
			Format:  p.format,
			Data:    firstSequences(t, filepath.Join(root, "peer/testdata", p.data), 1),
		})
	}
	return cs
}

// distinctWords returns the indices of the first n words that differ from
// each other.
func distinctWords(words []corpora.Word, n int) []int {
	var out []int
	seen := map[string]bool{}
	for i, w := range words {
		s := strings.Join(w.Labels, "")
		if !seen[s] && len(out) < n {
			seen[s] = true
			out = append(out, i)
		}
	}
	return out
}

// firstSequences returns the first n blank-line-separated sequences of a
// gzipped file.
func firstSequences(t *testing.T, path string, n int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sc := bufio.NewScanner(zr)
	for sc.Scan() && n > 0 {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
		if strings.TrimSpace(sc.Text()) == "" {
			n--
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// run tags every case with a Session and stores the results.
func run(t *testing.T, cs []*webtagtest.Case) {
	t.Helper()
	s := webtag.NewSession()
	ids := map[string]int{}
	for _, c := range cs {
		id, ok := ids[c.Model]
		if !ok {
			data, err := os.ReadFile(filepath.Join(root, c.Model))
			if err != nil {
				t.Fatal(err)
			}
			info, err := s.Load(filepath.Base(c.Model), data)
			if err != nil {
				t.Fatal(err)
			}
			id, ids[c.Model] = info.ID, info.ID
		}
		if c.Input != nil {
			r, err := s.Tag(id, c.Input, c.Options)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			c.Results = []*webtag.Result{r}
		} else {
			rs, err := s.TagData(id, c.Format, c.Data, c.Options)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			c.Results = rs
		}
		for _, r := range c.Results {
			r.Millis = 0
		}
	}
}

// TestGolden checks that testdata/golden.json holds the native tagger's
// results on the fixtures (the WebAssembly build is compared with it under
// Node, in examples/web/wasm); -update rewrites it.
func TestGolden(t *testing.T) {
	cs := cases(t)
	run(t, cs)
	if *update {
		// One case a line: a diff shows which cases changed.
		b := []byte("{\"cases\": [\n")
		for i, c := range cs {
			cb, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, cb...)
			if i < len(cs)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, "]}\n"...)
		if err := os.WriteFile(filepath.Join(root, webtagtest.GoldenPath), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	g, err := webtagtest.ReadGolden(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != len(cs) {
		t.Fatalf("golden file has %d cases, the test %d: go test ./examples/web/webtag -update", len(g.Cases), len(cs))
	}
	for i, c := range cs {
		w := g.Cases[i]
		if w.Name != c.Name || len(w.Results) != len(c.Results) {
			t.Fatalf("case %d: golden %q with %d results, test %q with %d: go test ./examples/web/webtag -update", i, w.Name, len(w.Results), c.Name, len(c.Results))
		}
		for k := range c.Results {
			if err := webtagtest.Compare(w.Results[k], c.Results[k]); err != nil {
				t.Errorf("%s, sequence %d: %v", c.Name, k+1, err)
			}
		}
	}
}

// TestMatchesLibrary checks the Session against the library called
// directly (tagging.Tagger.Decode): the same numbers, bit
// for bit; and independent decoding against each letter decoded as a
// sequence of its own, where no transition applies.
func TestMatchesLibrary(t *testing.T) {
	cs := cases(t)
	run(t, cs)
	for _, c := range cs {
		data, err := os.ReadFile(filepath.Join(root, c.Model))
		if err != nil {
			t.Fatal(err)
		}
		m, err := tagging.Read(c.Model, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var exs []dataset.Example
		switch {
		case c.Input == nil:
			if exs, err = dataset.Read("input", strings.NewReader(c.Data), dataset.Options{Format: dataset.Format(c.Format)}); err != nil {
				t.Fatal(err)
			}
		case c.Input.Pixels != nil:
			exs = []dataset.Example{{Pixels: c.Input.Pixels}}
		default:
			toks, err := corpora.Tokenize(c.Input.Text)
			if err != nil {
				t.Fatal(err)
			}
			var cols [][]string
			for _, tok := range toks {
				cols = append(cols, []string{tok.Word})
			}
			exs = []dataset.Example{{Tokens: cols}}
		}
		if len(exs) != len(c.Results) {
			t.Fatalf("%s: %d sequences, %d results", c.Name, len(exs), len(c.Results))
		}
		labels := m.Labels()
		for k := range exs {
			var d chain.Decoding
			if err := m.Decode(&d, &exs[k], chain.DecodeOptions{N: c.Options.NBest, Posterior: true}); err != nil {
				t.Fatal(err)
			}
			r := c.Results[k]
			if len(r.NBest) != len(d.Paths) || r.LogZ != d.LogZ {
				t.Fatalf("%s: %d paths, log Z %v; library %d, %v", c.Name, len(r.NBest), r.LogZ, len(d.Paths), d.LogZ)
			}
			for j, p := range d.Paths {
				if !slices.Equal(r.NBest[j].Labels, names(labels, p)) || r.NBest[j].Score != d.Scores[j] || r.NBest[j].Prob != d.Probs[j] {
					t.Errorf("%s: path %d differs from the library's", c.Name, j+1)
				}
			}
			if !slices.Equal(r.Labels, r.NBest[0].Labels) {
				t.Errorf("%s: labels %q are not the first n-best path", c.Name, r.Labels)
			}
			for pos, row := range r.Marginals {
				if !slices.Equal(row, d.Marginal[pos*len(labels):(pos+1)*len(labels)]) {
					t.Errorf("%s: marginals of position %d differ from the library's", c.Name, pos)
				}
			}
			if c.Options.Independent {
				checkIndependent(t, c.Name, m, exs[k].Pixels, r.Independent)
			}
		}
	}
}

// checkIndependent decodes every letter alone with the full model: a
// sequence of one position has no transition, so its label and marginals
// are those of the independent decoding.
func checkIndependent(t *testing.T, name string, m tagging.Tagger, pixels [][]byte, ind *webtag.Independent) {
	t.Helper()
	if ind == nil || len(ind.Labels) != len(pixels) {
		t.Fatalf("%s: independent decoding missing or of the wrong length", name)
	}
	for pos, im := range pixels {
		var d chain.Decoding
		if err := m.Decode(&d, &dataset.Example{Pixels: [][]byte{im}}, chain.DecodeOptions{Posterior: true}); err != nil {
			t.Fatal(err)
		}
		if got, want := ind.Labels[pos], m.Labels()[d.Paths[0][0]]; got != want {
			t.Errorf("%s: letter %d read alone is %q, independent decoding says %q", name, pos, want, got)
		}
		for y, p := range d.Marginal {
			if !webtagtest.Close(p, ind.Marginals[pos][y]) {
				t.Errorf("%s: letter %d label %d: marginal alone %v, independent %v", name, pos, y, p, ind.Marginals[pos][y])
			}
		}
	}
}

func names(labels []string, ids []int) []string {
	out := make([]string, len(ids))
	for t, y := range ids {
		out[t] = labels[y]
	}
	return out
}

func loadEmbedded(t testing.TB, s *webtag.Session, file string) *webtag.Info {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "examples/web/models", file))
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Load(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestInfo(t *testing.T) {
	s := webtag.NewSession()
	for _, tc := range []struct {
		file, input string
		columns     int
		text, indep bool
		labels      int
	}{
		{"ocr.model.gz", webtag.InputPixels, 0, false, true, 26},
		{"chunk-words.model.gz", webtag.InputColumns, 1, true, true, 20},
	} {
		info := loadEmbedded(t, s, tc.file)
		if info.Format != "sparsetag" || info.Input != tc.input || info.Columns != tc.columns || info.Text != tc.text ||
			info.Independent != tc.indep || len(info.Labels) != tc.labels || info.Name != tc.file {
			t.Errorf("%s: info %+v", tc.file, info)
		}
	}
	data, err := os.ReadFile(filepath.Join(root, "peer/testdata/conll.crfsuite.gz"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Load("crfsuite", data)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != "CRFsuite" || info.Input != webtag.InputAttributes || !info.Independent || info.Text {
		t.Errorf("CRFsuite model: info %+v", info)
	}
	if got, err := s.Info(info.ID); err != nil || got.ID != info.ID {
		t.Errorf("Info(%d) = %+v, %v", info.ID, got, err)
	}
	if !s.Unload(info.ID) || s.Unload(info.ID) {
		t.Error("Unload: want true once, then false")
	}
	if _, err := s.Info(info.ID); err == nil {
		t.Error("Info of an unloaded model: no error")
	}
}

func TestErrors(t *testing.T) {
	s := webtag.NewSession()
	ocr := loadEmbedded(t, s, "ocr.model.gz").ID
	words := loadEmbedded(t, s, "chunk-words.model.gz").ID
	blank := make([]byte, features.PixelLength)
	bad := slices.Clone(blank)
	bad[5] = 2
	for _, tc := range []struct {
		name string
		id   int
		in   webtag.Input
		opt  webtag.Options
		want string
	}{
		{"no model", 99, webtag.Input{Text: "a"}, webtag.Options{}, "no model 99"},
		{"no input", words, webtag.Input{}, webtag.Options{}, "exactly one"},
		{"two inputs", words, webtag.Input{Text: "a", Tokens: [][]string{{"a"}}}, webtag.Options{}, "exactly one"},
		{"text to OCR", ocr, webtag.Input{Text: "a"}, webtag.Options{}, "not text"},
		{"pixels to words", words, webtag.Input{Pixels: [][]byte{blank}}, webtag.Options{}, "not OCR letters"},
		{"short image", ocr, webtag.Input{Pixels: [][]byte{blank[:100]}}, webtag.Options{}, "has 100 pixels"},
		{"bad pixel", ocr, webtag.Input{Pixels: [][]byte{bad}}, webtag.Options{}, "want 0 or 1"},
		{"empty letters", ocr, webtag.Input{Pixels: [][]byte{}}, webtag.Options{}, "empty sequence"},
		{"blank text", words, webtag.Input{Text: "   "}, webtag.Options{}, "empty sequence"},
		{"empty token", words, webtag.Input{Tokens: [][]string{{}}}, webtag.Options{}, "has 0 columns"},
		{"negative n-best", words, webtag.Input{Text: "a"}, webtag.Options{NBest: -1}, "nbest -1"},
		{"huge n-best", words, webtag.Input{Text: "a"}, webtag.Options{NBest: webtag.MaxNBest + 1}, "nbest 101"},
		{"invalid UTF-8", words, webtag.Input{Text: "a\xff"}, webtag.Options{}, "UTF-8"},
	} {
		_, err := s.Tag(tc.id, &tc.in, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := s.Load("junk", []byte("not a model")); err == nil {
		t.Error("Load of junk: no error")
	}
	if _, err := s.TagData(words, "nonsense", "a\n", webtag.Options{}); err == nil {
		t.Error("TagData with an unknown format: no error")
	}
	data, err := os.ReadFile(filepath.Join(root, "peer/testdata/conll.wapiti.gz"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Load("wapiti", data)
	if err != nil {
		t.Fatal(err)
	}
	// A peer model explains its labels, so it decodes independently too.
	r, err := s.Tag(info.ID, &webtag.Input{Tokens: [][]string{{"He", "PRP"}, {"reckons", "VBZ"}}}, webtag.Options{Independent: true})
	if err != nil || !info.Independent || r.Independent == nil || len(r.Independent.Labels) != 2 {
		t.Fatalf("independent decoding of a Wapiti model: %+v, error %v", r, err)
	}
	for _, row := range r.Independent.Marginals {
		sum := 0.0
		for _, p := range row {
			sum += p
		}
		if !webtagtest.Close(sum, 1) {
			t.Errorf("independent marginals of a Wapiti model sum to %v", sum)
		}
	}
}

// TestTextOffsets checks the UTF-16 offsets of text tokens: what
// JavaScript's String.prototype.slice takes.
func TestTextOffsets(t *testing.T) {
	s := webtag.NewSession()
	id := loadEmbedded(t, s, "chunk-words.model.gz").ID
	text := "Zoë 🍰 isn't here."
	r, err := s.Tag(id, &webtag.Input{Text: text}, webtag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 3}, {4, 6}, {7, 9}, {9, 12}, {13, 17}, {17, 18}}
	if len(r.Start) != len(want) {
		t.Fatalf("tokens %q, offsets %v-%v", r.Tokens, r.Start, r.End)
	}
	for i, w := range want {
		if r.Start[i] != w[0] || r.End[i] != w[1] {
			t.Errorf("token %d %q: offsets %d-%d, want %d-%d", i, r.Tokens[i], r.Start[i], r.End[i], w[0], w[1])
		}
	}
	if n := len(utf16.Encode([]rune(text))); r.End[len(want)-1] != n {
		t.Errorf("last token ends at %d, the text has %d UTF-16 units", r.End[len(want)-1], n)
	}
}
