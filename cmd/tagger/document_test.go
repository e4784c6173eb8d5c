package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wordsChunker is the words-only CoNLL-2000 chunker of the browser
// example (IOB2 labels).
const wordsChunker = "../../examples/web/models/chunk-words.model.gz"

// docRun runs the tagger with stdin and args.
func docRun(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

type spanDoc struct {
	Line      int    `json:"line"`
	Text      string `json:"text"`
	Sentences []struct {
		Start, End int
		StartByte  int `json:"start_byte"`
		EndByte    int `json:"end_byte"`
	} `json:"sentences"`
	Spans []struct {
		Start, End int
		StartByte  int `json:"start_byte"`
		EndByte    int `json:"end_byte"`
		Label      string
		Text       string
		Confidence float64
	} `json:"spans"`
}

func parseSpans(t *testing.T, out string) []spanDoc {
	var docs []spanDoc
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var d spanDoc
		require.NoError(t, json.Unmarshal([]byte(line), &d), line)
		docs = append(docs, d)
	}
	return docs
}

// TestTagDocumentSpans: the example gives two sentences and spans
// whose offsets (code points and bytes) select their text, with
// confidences in (0, 1].
func TestTagDocumentSpans(t *testing.T) {
	in := "Mr. Smith went to Washington on Tuesday. He paid $5.50 for it.\n\nZoë Müller visited “Café Zürich” in Genève. It was nice.\n"
	stdout, stderr, code := docRun(t, in, "tag", "--format", "document", "--output", "spans", "--model", wordsChunker, "--threads", "2")
	require.Zero(t, code, stderr)
	docs := parseSpans(t, stdout)
	require.Len(t, docs, 2)
	assert.Equal(t, []int{1, 3}, []int{docs[0].Line, docs[1].Line})
	require.Len(t, docs[0].Sentences, 2)
	assert.Equal(t, 41, docs[0].Sentences[1].Start)
	for _, d := range docs {
		runes := []rune(d.Text)
		require.NotEmpty(t, d.Spans)
		for _, sp := range d.Spans {
			assert.Equal(t, sp.Text, d.Text[sp.StartByte:sp.EndByte])
			assert.Equal(t, sp.Text, string(runes[sp.Start:sp.End]))
			assert.Greater(t, sp.Confidence, 0.0)
			assert.LessOrEqual(t, sp.Confidence, 1.0)
			assert.Contains(t, []string{"NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "PRT", "CONJP", "INTJ", "LST", "UCP"}, sp.Label)
		}
	}
	assert.Equal(t, "Mr. Smith", docs[0].Spans[0].Text)
	assert.Equal(t, "Mr. Smith went to Washington on Tuesday.", docs[0].Text[:docs[0].Sentences[0].EndByte])
	assert.Greater(t, docs[1].Spans[0].EndByte, docs[1].Spans[0].End, "byte offsets count UTF-8 bytes")

	// one document per input
	stdout, stderr, code = docRun(t, in, "tag", "--format", "document", "--document-per-file", "--output", "spans", "--model", wordsChunker)
	require.Zero(t, code, stderr)
	docs = parseSpans(t, stdout)
	require.Len(t, docs, 1)
	assert.Len(t, docs[0].Sentences, 4)
}

// TestTagDocumentJSON: json output of a document has one line per
// sentence with the document's line and every token's offsets.
func TestTagDocumentJSON(t *testing.T) {
	stdout, stderr, code := docRun(t, "Zoë paid €5. (Really.)\n", "tag", "--format", "document", "--output", "json", "--model", wordsChunker)
	require.Zero(t, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2)
	var s struct {
		Tokens   []string
		Labels   []string
		Line     int
		Sentence struct{ Start, End int }
		Offsets  []struct {
			Start, End int
			StartByte  int `json:"start_byte"`
			EndByte    int `json:"end_byte"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &s))
	assert.Equal(t, []string{"-LRB-", "Really", ".", "-RRB-"}, s.Tokens)
	assert.Equal(t, 13, s.Sentence.Start)
	require.Len(t, s.Offsets, 4)
	assert.Equal(t, 13, s.Offsets[0].Start)
	assert.Equal(t, 16, s.Offsets[0].StartByte) // ë and € are 2 and 3 bytes
}

// TestTagDocumentErrors: bad input and flags give clear errors, never a
// panic.
func TestTagDocumentErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		args []string
		code int
		msg  string
	}{
		{"invalid UTF-8", "fine.\nbad \xff here\n", nil, 1, "stdin:2: rawtext: invalid text: invalid UTF-8 at byte 4"},
		{"NUL byte", "a\x00b\n", nil, 1, "stdin:1: rawtext: invalid text: NUL byte at byte 1"},
		{"50 MB line", strings.Repeat("word ", 10<<20) + "\n", nil, 1, "stdin:1: rawtext: document too long"},
		{"spans without document", "x\n", []string{"--format", "text", "--output", "spans"}, 2, "--output spans needs --format document"},
		{"scheme that does not fit", "x\n", []string{"--scheme", "iobes"}, 1, "--scheme iobes: the labels of"},
		{"unknown scheme", "x\n", []string{"--scheme", "ioe"}, 2, "unknown label scheme"},
		{"bio and another scheme", "x\n", []string{"--bio", "--scheme", "iobes"}, 2, "--bio is --scheme iob2"},
		{"posterior and nbest", "x\n", []string{"--posterior", "--nbest", "2"}, 2, "--posterior finds one label sequence"},
		{"tokenizer without document", "x\n", []string{"--format", "text", "--output", "conll", "--document-per-file"}, 2, "go with --format document"},
		{"forced on documents", "x\n", []string{"--forced"}, 2, "--forced needs a label column"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"tag", "--model", wordsChunker, "--format", "document", "--output", "spans"}, c.args...)
			_, stderr, code := docRun(t, c.in, args...)
			assert.Equal(t, c.code, code, stderr)
			assert.Contains(t, stderr, c.msg)
		})
	}
}

// TestTagSchemePosterior: --scheme and --posterior on text input and on
// every peer model kind (CRF++, Wapiti, CRFsuite) give valid IOB2
// sequences.
func TestTagSchemePosterior(t *testing.T) {
	for _, args := range [][]string{
		{"tag", "--model", wordsChunker, "--format", "text", "--scheme", "iob2", "--posterior", "--output", "slash"},
		{"tag", "--model", wordsChunker, "--format", "text", "--bio", "--output", "slash"},
		{"tag", "--model", filepath.Join(peerData, "conll.crfpp.gz"), "--scheme", "iob2", "--posterior", "--output", "slash", filepath.Join(peerData, "test.txt.gz")},
		{"tag", "--model", filepath.Join(peerData, "conll.wapiti.gz"), "--scheme", "iob2", "--output", "slash", filepath.Join(peerData, "test.txt.gz")},
		{"tag", "--model", filepath.Join(peerData, "conll.crfsuite.gz"), "--scheme", "iob2", "--posterior", "--output", "slash", filepath.Join(peerData, "test.crfsuite.gz")},
	} {
		stdout, stderr, code := docRun(t, "He reckons the current account deficit will narrow to only 1.8 billion in September.\n", args...)
		require.Zero(t, code, "%v: %s", args, stderr)
		require.Contains(t, stdout, "/B-NP", "%v", args)
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			prev := "O"
			for _, wt := range strings.Fields(line) {
				label := wt[strings.LastIndexByte(wt, '/')+1:]
				if strings.HasPrefix(label, "I-") {
					require.Contains(t, []string{"B-" + label[2:], label}, prev, "%v: %s", args, line)
				}
				prev = label
			}
		}
	}
}

// TestEvalScheme: eval --scheme decodes under the scheme on any model;
// labels that do not fit are refused.
func TestEvalScheme(t *testing.T) {
	model := filepath.Join(peerData, "conll.crfpp.txt.gz")
	data := filepath.Join(peerData, "test.txt.gz")
	for _, extra := range [][]string{nil, {"--scheme", "iob2"}, {"--scheme", "iob2", "--posterior"}} {
		args := append(append([]string{"eval", "--model", model}, extra...), data)
		stdout, stderr, code := docRun(t, "", args...)
		require.Zero(t, code, "%v: %s", extra, stderr)
		assert.Contains(t, stdout, "processed 4916 tokens")
	}
	_, stderr, code := docRun(t, "", "eval", "--model", model, "--scheme", "bilou", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--scheme bilou: the labels of "+model+" do not fit: scheme: the labels cannot mark a bilou chunk of type")
}

// TestTagDocumentHFTokenizer: --tokenizer FILE tokenizes with a
// tokenizer.json (the BERT fixture lowercases and strips accents), the
// spans still select the text as written; unsupported and malformed files
// are refused by name.
func TestTagDocumentHFTokenizer(t *testing.T) {
	fixture := "../../rawtext/hftok/testdata/bert-uncased.json"
	in := "Zoë Müller went to Zürich on Tuesday. He paid 5 francs.\n"
	stdout, stderr, code := docRun(t, in, "tag", "--format", "document", "--output", "spans", "--tokenizer", fixture, "--model", wordsChunker)
	require.Zero(t, code, stderr)
	docs := parseSpans(t, stdout)
	require.Len(t, docs, 1)
	require.Len(t, docs[0].Sentences, 2)
	runes := []rune(docs[0].Text)
	for _, sp := range docs[0].Spans {
		assert.Equal(t, sp.Text, docs[0].Text[sp.StartByte:sp.EndByte])
		assert.Equal(t, sp.Text, string(runes[sp.Start:sp.End]))
	}
	stdout, stderr, code = docRun(t, in, "tag", "--format", "document", "--output", "json", "--tokenizer", fixture, "--model", wordsChunker)
	require.Zero(t, code, stderr)
	assert.Contains(t, stdout, `"tokens":["zoe","muller","went","to","zurich","on","tuesday","."]`)

	dir := t.TempDir()
	bad := filepath.Join(dir, "bytelevel.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"pre_tokenizer":{"type":"ByteLevel"}}`), 0o644))
	_, stderr, code = docRun(t, in, "tag", "--format", "document", "--tokenizer", bad, "--model", wordsChunker)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `--tokenizer: `+bad+`: pre_tokenizer: hftok: unsupported tokenizer.json: pre-tokenizer "ByteLevel"`)
}

// TestTagConstraintsFile: --constraints forbids what its file says (here
// every B-NP after O, so NP chunks can only start a sentence or follow
// another chunk), combines with --scheme, and a bad file is an error
// naming its line.
func TestTagConstraintsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "trans.txt")
	require.NoError(t, os.WriteFile(file, []byte("# no NP after O\nforbid O B-NP\n"), 0o644))
	in := "Yesterday , the company said that profits rose , and the shares fell .\n"
	stdout, stderr, code := docRun(t, in, "tag", "--format", "text", "--output", "slash", "--model", wordsChunker)
	require.Zero(t, code, stderr)
	require.Contains(t, stdout, ",/O the/B-NP", "the negative control: O -> B-NP without the file")
	stdout, stderr, code = docRun(t, in, "tag", "--format", "text", "--output", "slash", "--scheme", "iob2", "--constraints", file, "--model", wordsChunker)
	require.Zero(t, code, stderr)
	prev := "" // the start
	for _, wt := range strings.Fields(stdout) {
		label := wt[strings.LastIndexByte(wt, '/')+1:]
		assert.False(t, prev == "O" && label == "B-NP", stdout)
		prev = label
	}
	_, stderr, code = docRun(t, in, "eval", "--constraints", file, "--model", filepath.Join(peerData, "conll.crfpp.txt.gz"), filepath.Join(peerData, "test.txt.gz"))
	assert.Zero(t, code, stderr)

	require.NoError(t, os.WriteFile(file, []byte("forbid O B-NP\nforbid O B-XYZ\n"), 0o644))
	_, stderr, code = docRun(t, in, "tag", "--format", "text", "--constraints", file, "--model", wordsChunker)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--constraints: "+file+`:2: chain: bad constraints file: "B-XYZ" matches no label of the model`)
}

// TestTagTextJSONOffsets: --format text --output json gives each token's
// offsets in its line, code points and bytes, which select the token as
// written even where the model reads a Treebank form.
func TestTagTextJSONOffsets(t *testing.T) {
	line := "Zoë paid €5 (cash)."
	stdout, stderr, code := docRun(t, line+"\n", "tag", "--format", "text", "--output", "json", "--model", wordsChunker)
	require.Zero(t, code, stderr)
	var s struct {
		Tokens  []string
		Offsets []struct {
			Start, End int
			StartByte  int `json:"start_byte"`
			EndByte    int `json:"end_byte"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	require.Len(t, s.Offsets, len(s.Tokens))
	runes := []rune(line)
	var surfaces []string
	for _, o := range s.Offsets {
		assert.Equal(t, line[o.StartByte:o.EndByte], string(runes[o.Start:o.End]))
		surfaces = append(surfaces, line[o.StartByte:o.EndByte])
	}
	assert.Equal(t, []string{"Zoë", "paid", "€5", "(", "cash", ")", "."}, surfaces)
	assert.Equal(t, "-LRB-", s.Tokens[3])
}
