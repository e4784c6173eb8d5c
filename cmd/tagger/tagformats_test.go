package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
)

// writeTemp writes content to a file named name in a new temporary
// directory and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// trainFileModel trains a model on file with the extra train flags and returns
// its path.
func trainFileModel(t *testing.T, file string, flags ...string) string {
	t.Helper()
	model := filepath.Join(t.TempDir(), "m.model")
	args := append([]string{"train", "--quiet", "--model", model}, flags...)
	mustRun(t, append(args, file)...)
	return model
}

// TestTagTextPTB: tag --format text gives the model the tokens of the Penn
// Treebank conventions (corpora.TestTokenizePTB has the rules and their
// sources): numbers, times and acronyms whole, $ and % split off,
// contractions split (ca n't, 's), quotes as doubled backquotes and
// apostrophes, the final period split off, in every output format.
func TestTagTextPTB(t *testing.T) {
	model := trainTagModel(t) // default template: words only
	in := `At 9:30 John's e-mail said "I can't pay $5.50, 1.8% more in the U.S."` + "\n"
	want := []string{"At", "9:30", "John", "'s", "e-mail", "said", "``", "I", "ca", "n't", "pay", "$", "5.50", ",",
		"1.8", "%", "more", "in", "the", "U.S.", ".", "''"}

	stdout, stderr, code := tagRun(t, model, in, "tag", "--model", "$MODEL", "--format", "text", "--output", "slash")
	require.Equal(t, 0, code, stderr)
	var words []string
	for _, wt := range strings.Fields(stdout) {
		i := strings.LastIndexByte(wt, '/')
		require.Positive(t, i, "word/TAG %q", wt)
		words = append(words, wt[:i])
	}
	assert.Equal(t, want, words, "slash output")

	stdout, stderr, code = tagRun(t, model, in, "tag", "--model", "$MODEL", "--format", "text", "--output", "json")
	require.Equal(t, 0, code, stderr)
	var js struct{ Tokens []string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &js))
	assert.Equal(t, want, js.Tokens, "json output")

	stdout, stderr, code = tagRun(t, model, in, "tag", "--model", "$MODEL", "--format", "text")
	require.Equal(t, 0, code, stderr)
	var first []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		first = append(first, strings.Fields(line)[0])
	}
	assert.Equal(t, want, first, "conll output")
}

// TestTagTextNeedsColumns: a model whose template reads more token columns
// than the input gives is refused before any input is read, with the
// reason in plain words: the README's chunking model (POS tags in column 2)
// on raw text, a template reading column 5 on CoNLL-U (4 token columns);
// CoNLL input with too few columns fails at its first sequence with the
// reason added to the template's error.
func TestTagTextNeedsColumns(t *testing.T) {
	chunk := trainFileModel(t, filepath.Join(tagData, "train.txt"), "--format", "conll", "--template", "embedded:conll2000/chunking.template")
	_, stderr, code := tagRun(t, chunk, "The dog runs.\n", "tag", "--model", "$MODEL", "--format", "text")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "model $MODEL reads 2 token columns, but gets the words of --format text. Give CoNLL input (--format conll, one token per line) with the columns the model was trained on")
	assert.Contains(t, stderr, "e.g. for English chunks of plain text: --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model")

	tmpl := writeTemp(t, "feats.template", "U00:%x[0,0]\nU01:%x[0,4]\nB\n")
	data := writeTemp(t, "six.txt", "a b c d e X\nf g h i j Y\n")
	five := trainFileModel(t, data, "--format", "conll", "--template", tmpl)
	conllu := "1\tDogs\tdog\t_\tNNS\t_\t0\troot\t_\t_\n"
	_, stderr, code = tagRun(t, five, conllu, "tag", "--model", "$MODEL", "--format", "conllu")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "model $MODEL reads 5 token columns, but gets the 4 of --format conllu (FORM, LEMMA, the other POS tag, FEATS)")

	_, stderr, code = tagRun(t, chunk, "The\ndog\n", "tag", "--model", "$MODEL", "--format", "conll")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "tagger tag: stdin:1: sequence 1: model $MODEL reads 2 token columns, but gets the input's 1. Give CoNLL input")
}

// conlluTrain is a toy CoNLL-U training corpus (UPOS labels).
const conlluTrain = `# sent_id = t1
1	The	the	DET	DT	_	2	det	_	_
2	dog	dog	NOUN	NN	_	3	nsubj	_	_
3	runs	run	VERB	VBZ	_	0	root	_	SpaceAfter=No
4	.	.	PUNCT	.	_	3	punct	_	_

1	A	a	DET	DT	_	2	det	_	_
2	cat	cat	NOUN	NN	_	3	nsubj	_	_
3	does	do	AUX	VBZ	_	5	aux	_	_
4	n't	not	PART	RB	_	5	advmod	_	_
5	sleep	sleep	VERB	VB	_	0	root	_	_

1	Dogs	dog	NOUN	NNS	_	2	nsubj	_	_
2	sleep	sleep	VERB	VBP	_	0	root	_	SpaceAfter=No
3	.	.	PUNCT	.	_	2	punct	_	_
`

// conlluInput has what the reader skips and a writer must give back:
// comments, a multiword-token range, an empty node, a MISC value, and UPOS
// left empty ("_") for the tagger.
const conlluInput = `# newdoc id = d1
# sent_id = s1
# text = The cat doesn't run.
1	The	the	_	DT	_	2	det	_	_
2	cat	cat	_	NN	_	5	nsubj	_	_
2.1	cat	cat	_	_	_	_	_	5:nsubj	_
3-4	doesn't	_	_	_	_	_	_	_	_
3	does	do	_	VBZ	_	5	aux	_	_
4	n't	not	_	RB	_	5	advmod	_	_
5	run	run	_	VB	_	0	root	_	SpaceAfter=No
6	.	.	_	.	_	5	punct	_	_

# sent_id = s2
1	Dogs	dog	_	NNS	_	2	nsubj	_	_
2	sleep	sleep	_	VBP	_	0	root	_	_
`

// TestTagConlluValid: tag --format conllu writes valid CoNLL-U (checked by
// validateCoNLLU, a strict reading of
// https://universaldependencies.org/format.html), which is the input line
// for line with the UPOS column set to the prediction: the labels of the
// JSON output; with --marginals the marginal is a MISC entry and the
// sequence probability a comment; with --nbest each of the N blocks is a
// whole sentence.
func TestTagConlluValid(t *testing.T) {
	model := trainFileModel(t, writeTemp(t, "train.conllu", conlluTrain), "--format", "conllu")
	m, err := chain.LoadFile(model)
	require.NoError(t, err)
	in := writeTemp(t, "in.conllu", conlluInput)
	stdout, stderr, code := tagRun(t, model, "", "tag", "--model", "$MODEL", "--format", "conllu", "--output", "json", "--nbest", "2", in)
	require.Equal(t, 0, code, stderr)
	var best [][]string   // best labels of each sentence
	var second [][]string // second-best labels
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var js struct {
			Labels []string
			NBest  []struct{ Labels []string }
		}
		require.NoError(t, json.Unmarshal([]byte(line), &js))
		require.Len(t, js.NBest, 2)
		best = append(best, js.Labels)
		second = append(second, js.NBest[1].Labels)
	}
	require.Len(t, best, 2)

	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"plain", nil},
		{"marginals", []string{"--marginals"}},
		{"nbest", []string{"--nbest", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"tag", "--model", "$MODEL", "--format", "conllu"}, tc.flags...)
			stdout, stderr, code := tagRun(t, model, "", append(args, in)...)
			require.Equal(t, 0, code, stderr)
			sents := validateCoNLLU(t, stdout, m.Labels)
			var want []conlluSent
			for _, s := range parseSentences(conlluInput) {
				switch tc.name {
				case "nbest":
					want = append(want, withComment(s, "# nbest 1 prob *"), withComment(s, "# nbest 2 prob *"))
				case "marginals":
					want = append(want, withComment(s, "# prob *"))
				default:
					want = append(want, s)
				}
			}
			require.Len(t, sents, len(want))
			for k, s := range sents {
				var labels []string
				if tc.name == "nbest" {
					labels = [][]string{best[k/2], second[k/2]}[k%2]
				} else {
					labels = best[k]
				}
				sameSentence(t, want[k], s, labels, tc.name == "marginals")
			}
		})
	}
}

// conlluSent is one sentence of a CoNLL-U file: its comment lines and its
// token lines split into their 10 columns.
type conlluSent struct {
	comments []string
	rows     [][]string
}

// parseSentences splits CoNLL-U text (assumed valid) into sentences.
func parseSentences(text string) []conlluSent {
	var out []conlluSent
	var s conlluSent
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "":
			if s.rows != nil {
				out = append(out, s)
			}
			s = conlluSent{}
		case strings.HasPrefix(line, "#"):
			s.comments = append(s.comments, line)
		default:
			s.rows = append(s.rows, strings.Split(line, "\t"))
		}
	}
	if s.rows != nil {
		out = append(out, s)
	}
	return out
}

// requireProb checks that s is prefix followed by a probability.
func requireProb(t *testing.T, s, prefix string) {
	t.Helper()
	rest, ok := strings.CutPrefix(s, prefix)
	p, err := strconv.ParseFloat(rest, 64)
	require.True(t, ok && err == nil && p >= 0 && p <= 1, "%q is not %q and a probability", s, prefix)
}

func withComment(s conlluSent, c string) conlluSent {
	s.comments = append([]string{c}, s.comments...)
	return s
}

// isWordID reports whether a CoNLL-U ID is a word's (an integer), not a
// multiword-token range or an empty node.
func isWordID(id string) bool { return !strings.ContainsAny(id, "-.") }

// sameSentence checks that got is want with the UPOS of its words set to
// labels (and, with marginals, a Marginal=P entry added to their MISC); a
// comment of want ending with * matches any comment that ends with a
// probability P (0 <= P <= 1) instead.
func sameSentence(t *testing.T, want, got conlluSent, labels []string, marginals bool) {
	t.Helper()
	require.Len(t, got.comments, len(want.comments))
	for i, c := range want.comments {
		if prefix, ok := strings.CutSuffix(c, "*"); ok {
			requireProb(t, got.comments[i], prefix)
			continue
		}
		require.Equal(t, c, got.comments[i])
	}
	require.Len(t, got.rows, len(want.rows))
	w := 0
	for i, row := range want.rows {
		exp := slices.Clone(row)
		if isWordID(row[0]) {
			require.Less(t, w, len(labels))
			exp[3] = labels[w]
			w++
			if marginals {
				prefix := "Marginal="
				if row[9] != "_" {
					prefix = row[9] + "|" + prefix
				}
				requireProb(t, got.rows[i][9], prefix)
				exp[9] = got.rows[i][9]
			}
		}
		require.Equal(t, exp, got.rows[i], "row %d", i+1)
	}
	require.Equal(t, len(labels), w)
}

// validateCoNLLU parses out as CoNLL-U, strictly, after
// https://universaldependencies.org/format.html: LF line ends; sentences of
// comment lines (only before the first token line) then token lines, each
// followed by one blank line (the file ends with one); token lines of 10
// TAB-separated non-empty columns, no space outside FORM, LEMMA and MISC;
// word IDs 1, 2, 3, ...; a multiword-token range a-b (a < b) just before
// word a, its words following; empty nodes i.1, i.2, ... right after word
// i (or 0.k first); HEAD an integer or _; UPOS of every word one of the
// model's labels; MISC _ or |-separated non-empty entries. It returns the
// sentences.
func validateCoNLLU(t *testing.T, out string, labels []string) []conlluSent {
	t.Helper()
	require.NotContains(t, out, "\r")
	require.True(t, strings.HasSuffix(out, "\n\n"), "the output must end with a blank line")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var v conlluValidator
	for n, line := range lines {
		if err := v.line(line, labels); err != nil {
			t.Fatalf("output line %d %q: %v\n%s", n+1, line, err, out)
		}
	}
	require.Zero(t, v.words, "the last sentence is not closed by a blank line")
	return parseSentences(out)
}

// conlluValidator holds the state of validateCoNLLU within a sentence.
type conlluValidator struct {
	words    int // ID of the last word
	rangeEnd int // last word of the pending multiword token, 0 if none
	empty    int // k of the last empty node after word `words`
	tokens   bool
}

func (v *conlluValidator) line(line string, labels []string) error {
	switch {
	case line == "":
		if v.words == 0 {
			return fmt.Errorf("blank line ends a sentence without words")
		}
		if v.rangeEnd > v.words {
			return fmt.Errorf("multiword token up to %d, but the sentence ends at word %d", v.rangeEnd, v.words)
		}
		*v = conlluValidator{}
		return nil
	case strings.HasPrefix(line, "#"):
		if v.tokens {
			return fmt.Errorf("comment after the sentence's token lines")
		}
		return nil
	}
	v.tokens = true
	cols := strings.Split(line, "\t")
	if len(cols) != 10 {
		return fmt.Errorf("want 10 TAB-separated columns, got %d", len(cols))
	}
	for c, cell := range cols {
		if cell == "" {
			return fmt.Errorf("column %d is empty (use _)", c+1)
		}
		if c != 1 && c != 2 && c != 9 && strings.ContainsAny(cell, " ") {
			return fmt.Errorf("column %d holds a space", c+1)
		}
	}
	if cols[6] != "_" {
		if h, err := strconv.Atoi(cols[6]); err != nil || h < 0 {
			return fmt.Errorf("HEAD %q is not an integer >= 0 or _", cols[6])
		}
	}
	if cols[9] != "_" && slices.Contains(strings.Split(cols[9], "|"), "") {
		return fmt.Errorf("MISC %q has an empty entry", cols[9])
	}
	return v.id(cols, labels)
}

// id checks the ID of a token line against the sentence so far.
func (v *conlluValidator) id(cols []string, labels []string) error {
	id := cols[0]
	if a, b, ok := strings.Cut(id, "-"); ok {
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || lo != v.words+1 || hi <= lo || v.rangeEnd > v.words {
			return fmt.Errorf("bad multiword-token range %q after word %d", id, v.words)
		}
		v.rangeEnd = hi
		return nil
	}
	if a, b, ok := strings.Cut(id, "."); ok {
		i, err1 := strconv.Atoi(a)
		k, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || i != v.words || k != v.empty+1 {
			return fmt.Errorf("bad empty node %q after word %d", id, v.words)
		}
		v.empty = k
		return nil
	}
	n, err := strconv.Atoi(id)
	if err != nil || n != v.words+1 {
		return fmt.Errorf("word ID %q, want %d", id, v.words+1)
	}
	if !slices.Contains(labels, cols[3]) {
		return fmt.Errorf("UPOS %q is not a label of the model %v", cols[3], labels)
	}
	v.words, v.empty = n, 0
	return nil
}

// TestValidateCoNLLU: the validator refuses what is not CoNLL-U, so that
// TestTagConlluValid can fail: the space-separated columns tag wrote for
// CoNLL-U input before it wrote CoNLL-U, and each malformed construct.
func TestValidateCoNLLU(t *testing.T) {
	labels := []string{"DET", "NOUN"}
	word := func(id, upos string) string { return id + "\tw\tw\t" + upos + "\t_\t_\t0\troot\t_\t_" }
	ok := word("1", "DET") + "\n" + word("2", "NOUN") + "\n"
	require.Len(t, validateCoNLLU(t, "# c\n"+ok+"\n"+ok+"\n", labels), 2)
	for _, bad := range []string{
		"The the DT _ DET\ndog dog NN _ NOUN\n\n", // the old output
		ok,          // no final blank line
		ok + "\n\n", // a blank line without a sentence
		word("1", "DET") + "\n# late comment\n\n",
		word("2", "DET") + "\n\n",
		word("1", "VERB") + "\n\n",
		"1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n" + word("1", "DET") + "\n\n",
		word("1", "DET") + "\n1.2\tx\tx\t_\t_\t_\t_\t_\t_\t_\n\n",
		strings.Replace(ok, "\t_\t_\n", "\t_\t\n", 1) + "\n",
		strings.Replace(ok, "\troot", "\tro ot", 1) + "\n",
		strings.Replace(ok, "\t0\t", "\tx\t", 1) + "\n",
		strings.Replace(ok, "\n", "\r\n", 1) + "\n",
	} {
		var v conlluValidator
		failed := !strings.HasSuffix(bad, "\n\n") || strings.Contains(bad, "\r")
		for _, line := range strings.Split(strings.TrimSuffix(bad, "\n"), "\n") {
			failed = failed || v.line(line, labels) != nil
		}
		failed = failed || v.words != 0
		assert.True(t, failed, "accepted %q", bad)
	}
}

// TestTagEmptyInput: input without any sequence (empty standard input, an
// empty file, a file of blank lines) gives empty output, nothing on stderr
// and exit status 0 for tag, as for every peer tagger, with models of this
// toolkit in every format they read and with peer models; eval says that
// there is nothing to evaluate and exits 1.
func TestTagEmptyInput(t *testing.T) {
	ours := trainTagModel(t)
	conv := filepath.Join(t.TempDir(), "conv.model")
	mustRun(t, "convert", "--model", filepath.Join(peerData, "conll.crfsuite.gz"), "--out", conv)
	dir := t.TempDir()
	empty, blank := filepath.Join(dir, "empty"), filepath.Join(dir, "blank")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	require.NoError(t, os.WriteFile(blank, []byte("\n \n\t\n"), 0o644))
	models := []struct {
		model  string
		format []string
	}{
		{ours, []string{"--format", "conll"}},
		{ours, []string{"--format", "text"}},
		{ours, []string{"--format", "conllu"}},
		{conv, []string{"--format", "crfsuite"}},
		{filepath.Join(peerData, "conll.crfsuite.gz"), nil},
		{filepath.Join(peerData, "conll.crfpp.gz"), nil},
		{filepath.Join(peerData, "conll.wapiti.gz"), nil},
	}
	for _, mc := range models {
		for _, output := range []string{"conll", "slash", "json"} {
			for _, in := range []string{"-", empty, blank} {
				args := append(append([]string{"tag", "--model", mc.model, "--output", output}, mc.format...), in)
				stdout, stderr, code := tagRun(t, "$NONE", "", args...)
				if code != 0 || stdout != "" || stderr != "" {
					t.Errorf("tagger %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
				}
			}
		}
	}
	for _, in := range []string{"-", empty, blank} {
		stdout, stderr, code := tagRun(t, ours, "", "eval", "--model", "$MODEL", in)
		assert.Equal(t, 1, code, in)
		assert.Empty(t, stdout, in)
		assert.Contains(t, stderr, "nothing to evaluate: the input holds no labeled sequence", in)
	}
}

// TestTagCRFsuiteOneMeaning: a CRFsuite attribute file means the same to a
// CRFsuite model and to the same model after tagger convert: both read the
// first field as the label field and ignore it when tagging, as crfsuite tag
// does (frontend/tag.c sets the instance's label from the first field and
// decodes from the attributes only). So on the fixture's test file as it
// is, with its label fields emptied, and with its label fields removed
// (the first attribute then being the label field), both models print the
// same output, byte for byte; on the first two it is crfsuite tag's own
// labels (crfsuite.tags.gz), since only the ignored field differs.
func TestTagCRFsuiteOneMeaning(t *testing.T) {
	conv := filepath.Join(t.TempDir(), "conv.model")
	mustRun(t, "convert", "--model", filepath.Join(peerData, "conll.crfsuite.gz"), "--out", conv)
	orig := gunzipFile(t, "test.crfsuite.gz")
	crfsuiteLabels := lastFields(gunzipFile(t, "crfsuite.tags.gz"))
	variant := func(f func(label, rest string) string) string {
		var b strings.Builder
		for _, line := range strings.Split(orig, "\n") {
			if label, rest, ok := strings.Cut(line, "\t"); ok {
				line = f(label, rest)
			}
			b.WriteString(line + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, input string
		crfsuite    bool // the labels are crfsuite tag's
	}{
		{"labeled", orig, true},
		{"empty labels", variant(func(_, rest string) string { return "\t" + rest }), true},
		{"no label field", variant(func(_, rest string) string { return rest }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := writeTemp(t, "in.crfsuite", tc.input)
			want, stderr, code := tagRun(t, "$NONE", "", "tag", "--model", filepath.Join(peerData, "conll.crfsuite.gz"), in)
			require.Equal(t, 0, code, stderr)
			got, stderr, code := tagRun(t, "$NONE", "", "tag", "--format", "crfsuite", "--model", conv, in)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, want, got, "the CRFsuite model and the converted model disagree")
			if tc.crfsuite {
				require.Equal(t, crfsuiteLabels, lastFields(got))
			}
		})
	}
}
