package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/corpora"
)

// documentedCommands extracts the tagger command lines of a text: lines that
// start with "$ tagger" (package doc) or "tagger " (README code blocks),
// with backslash continuations joined and trailing "# comments" and pipes
// removed; synopsis lines with <placeholders> are skipped.
func documentedCommands(text string) [][]string {
	var out [][]string
	var cur string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "//")
		line = strings.TrimSpace(line)
		if cur != "" {
			cur += " " + line
		} else if (strings.HasPrefix(line, "$ tagger ") || strings.HasPrefix(line, "tagger ")) && !strings.Contains(line, "<") {
			cur = strings.TrimPrefix(line, "$ ")
		} else {
			continue
		}
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\")
			continue
		}
		if i := strings.Index(cur, " #"); i >= 0 {
			cur = cur[:i]
		}
		if i := strings.Index(cur, " |"); i >= 0 {
			cur = cur[:i]
		}
		out = append(out, strings.Fields(cur)[1:])
		cur = ""
	}
	return out
}

// docInputs replaces the embedded CoNLL-2000 splits (8,936 and 2,012
// sentences: minutes and gigabytes with the chunking template) by their
// first sentences, written into the test's directory. The OCR file stays:
// pixel features are cheap, and --max-iter bounds the training.
var docInputs = map[string]struct {
	file  string
	split string
	n     int
}{
	"embedded:conll2000/train.txt.gz": {"train-small.txt", "train", 60},
	"embedded:conll2000/test.txt.gz":  {"test-small.txt", "test", 20},
	"train.txt":                       {"train.txt", "train", 60},
	"train9.txt":                      {"train9.txt", "train", 60},
	"dev.txt":                         {"dev.txt", "test", 20},
}

// docShrink holds the flags appended to a documented command (a later flag
// wins over an earlier one) so that it runs in about a second on the small
// inputs: fewer iterations, folds, betas and a smaller --scale. The output
// lines that scripts read are the same whatever the size.
var docShrink = map[string][]string{
	"demo":         {"--train-folds", "0", "--test-folds", "1", "--betas", "2", "--min-ratio", "0.05", "--show", "1"},
	"train":        {"--max-iter", "5"},
	"path":         {"--scale", "0.01", "--betas", "3"},
	"bench paper":  {"--data", "syn1,ocr-letters", "--scale", "0.01", "--betas", "2"},
	"bench screen": {"--scale", "0.01", "--ratios", "0.5", "--max-iter", "200"},
	"bench train":  {"--data", "syn1", "--scale", "0.01", "--threads", "1", "--budget", "5s", "--max-iter", "300"},
}

// docChecks are the key output lines of each command (regular expressions
// on stdout).
var docChecks = map[string][]string{
	"demo":         {`(?m)^accuracy: \d\.\d{4}$`, `(?m)^f1: \d\.\d{4}$`, `(?m)^word accuracy: \d\.\d{4}$`},
	"eval":         {`(?m)^accuracy: \d\.\d{4}$`, `(?m)^f1: \d\.\d{4}$`, `(?m)^sequences: \d+, entirely correct: \d+`},
	"explain":      {`(?m)^# sequence 1: `, `(?m)^1\t`},
	"dump":         {`(?m)^state\t\S+\t\S+\t\S+$`},
	"path":         {`(?m)^path: 3 betas, \d+ iterations`},
	"bench paper":  {`\(paper\)`, `(?m)^total \d`},
	"bench screen": {`(?m)^speedup = seconds without screening`},
	"bench train":  {`(?m)^threads 1, target objective`, `(?m)working-set`},
}

// docHelpOnly lists the commands run only with -h appended, and why. Every
// documented command runs cheaply today, so it is empty; a command that
// cannot (e.g. one that needs a network or hours) belongs here with its
// reason.
var docHelpOnly = map[string]string{}

// TestDocumentedCommands runs every tagger command line of the package doc
// and of README.md for real, in order, in a temporary directory (so that
// train writes the model that eval, tag, explain and dump read), on small
// inputs (docInputs, docShrink), and checks exit status 0, that no flag is
// unknown, the key output lines (docChecks) and the files written.
func TestDocumentedCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every documented command (about 10 s)")
	}
	var cmds [][]string
	for _, file := range []string{"main.go", "../../README.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		got := documentedCommands(string(b))
		require.GreaterOrEqual(t, len(got), 5, "%s: tagger command lines", file)
		cmds = append(cmds, got...)
	}
	dir := t.TempDir()
	writeDocInputs(t, dir)
	t.Chdir(dir)

	undefined := regexp.MustCompile(`flag provided but not defined|invalid value|unknown`)
	for _, doc := range cmds {
		name := doc[0]
		if name == "bench" && len(doc) > 1 {
			name += " " + doc[1]
		}
		args := make([]string, 0, len(doc)+10)
		for _, a := range doc {
			if in, ok := docInputs[a]; ok {
				a = in.file
			}
			args = append(args, a)
		}
		if why, ok := docHelpOnly[name]; ok {
			t.Logf("tagger %s: -h only: %s", strings.Join(doc, " "), why)
			args = append(args, "-h")
		} else {
			args = append(args, docShrink[name]...)
		}
		line := "tagger " + strings.Join(doc, " ")
		out, errs, code := runTagger(t, args...)
		if !assert.Equal(t, 0, code, "%s\nran: %v\nstdout:\n%s\nstderr:\n%s", line, args, out, errs) {
			continue
		}
		assert.NotRegexp(t, undefined, errs, line)
		if _, ok := docHelpOnly[name]; ok {
			continue
		}
		for _, re := range docChecks[name] {
			assert.Regexp(t, re, out, "%s: stdout", line)
		}
		checkDocFiles(t, line, doc, out)
	}
}

// writeDocInputs writes the small inputs of docInputs and the unlabeled
// my-sentences.txt of the README (word and part of speech).
func writeDocInputs(t *testing.T, dir string) {
	t.Helper()
	for _, in := range docInputs {
		writeCoNLLHead(t, filepath.Join(dir, in.file), in.split, in.n)
	}
	// The README's peer models and their inputs, at the same relative paths.
	for _, name := range []string{"conll.crfsuite.gz", "test.crfsuite.gz", "conll.crfpp.gz", "conll.wapiti.gz", "test.txt.gz"} {
		b, err := os.ReadFile(filepath.Join("../../peer/testdata", name))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "peer/testdata"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "peer/testdata", name), b, 0o644))
	}
	writeMySentences(t, dir)
}

// writeCoNLLHead writes the first n sentences of a CoNLL-2000 split to path.
func writeCoNLLHead(t *testing.T, path, split string, n int) {
	t.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000(split)
	require.NoError(t, err)
	var b bytes.Buffer
	for _, s := range seqs[:n] {
		require.NoError(t, corpora.WriteCoNLL(&b, s))
	}
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// writeMySentences writes the unlabeled my-sentences.txt the README tags
// (word and part of speech), its plain text my-text.txt (one sentence
// per line), the running text news.txt, the words-only chunker of
// examples/web/models and a tokenizer.json fixture into dir.
func writeMySentences(t *testing.T, dir string) {
	t.Helper()
	const sentences = "He PRP\nreckons VBZ\nthe DT\ncurrent JJ\naccount NN\ndeficit NN\n\nThe DT\npound NN\nfell VBD\n. .\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "my-sentences.txt"), []byte(sentences), 0o644))
	const text = "He reckons the current account deficit will narrow to only # 1.8 billion in September.\nThe pound fell.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "my-text.txt"), []byte(text), 0o644))
	// running text, one document per line, for --format document
	const news = "Mr. Smith went to Washington on Tuesday. He paid $5.50 for it.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "news.txt"), []byte(news), 0o644))
	// the words-only chunker, where the documented commands (run from the
	// repository root) find it
	model, err := os.ReadFile("../../examples/web/models/chunk-words.model.gz")
	require.NoError(t, err)
	models := filepath.Join(dir, "examples", "web", "models")
	require.NoError(t, os.MkdirAll(models, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(models, "chunk-words.model.gz"), model, 0o644))
	// the tokenizer.json fixture docs/raw-text.md tokenizes with
	fixture, err := os.ReadFile("../../rawtext/hftok/testdata/bert-uncased.json")
	require.NoError(t, err)
	fixtures := filepath.Join(dir, "rawtext", "hftok", "testdata")
	require.NoError(t, os.MkdirAll(fixtures, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fixtures, "bert-uncased.json"), fixture, 0o644))
}

// checkDocFiles checks the files a documented command says it writes.
func checkDocFiles(t *testing.T, line string, doc []string, stdout string) {
	t.Helper()
	flagValue := func(name string) string {
		for i, a := range doc {
			if a == name && i+1 < len(doc) {
				return doc[i+1]
			}
		}
		return ""
	}
	switch doc[0] {
	case "train":
		m := flagValue("--model")
		assert.FileExists(t, m, line)
	case "tag":
		if flagValue("--output") == "json" {
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			assert.Len(t, lines, 2, "%s: one JSON line per sentence", line)
			for _, l := range lines {
				var v map[string]any
				if assert.NoError(t, json.Unmarshal([]byte(l), &v), line) {
					assert.Contains(t, v, "labels")
					assert.Contains(t, v, "tokens")
				}
			}
		}
	case "path":
		if rep := flagValue("--report"); rep != "" {
			checkTrainReport(t, line, readJSONMap(t, rep)["path"].([]any)[0].(map[string]any))
		}
		if out := flagValue("--out"); out != "" {
			checkPNG(t, filepath.Join(out, "syn1-pinsker-rejection.png"))
		}
	case "bench":
		if js := flagValue("--json"); js != "" {
			assert.Contains(t, readJSONMap(t, js), "rows", line)
		}
		if out := flagValue("--out"); out != "" {
			checkPNG(t, filepath.Join(out, "syn1-reservation.png"))
		}
	}
}
