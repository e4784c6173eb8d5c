package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// This file holds README.md and the pages of docs/ to the tool: every tagger
// command of their code blocks runs (on small data where the full run is
// too slow), every flag they name in prose exists, and the figures cheap
// enough to recompute are recomputed. The figures of the long runs were
// checked by hand when they were written; the commands beside them are
// checked here.

// documentation returns the files this test holds to the tool, README.md
// first, then docs/*.md in name order, with their contents.
func documentation(t *testing.T) (names []string, texts []string) {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files, "docs/*.md")
	sort.Strings(files)
	for _, f := range append([]string{"../../README.md"}, files...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		names = append(names, strings.TrimPrefix(f, "../../"))
		texts = append(texts, string(b))
	}
	return names, texts
}

// readmeInputs are the input files of README commands that the test replaces
// by small ones written into its directory.
var readmeInputs = []struct {
	arg   string // the argument as the README writes it
	file  string // what the test passes instead
	split string // CoNLL-2000 split the small file is cut from
	n     int    // its first n sentences
	why   string
}{
	{"embedded:conll2000/train.txt.gz", "conll-train-60.txt", "train", 60,
		"8,936 sentences, 7.4 M features with the chunking template: minutes and gigabytes per training"},
	{"embedded:conll2000/test.txt.gz", "conll-test-20.txt", "test", 20,
		"2,012 sentences: 20 keep eval, explain and --select-eval quick"},
	{"train.txt", "conll-train-60.txt", "train", 60,
		"the user's own training file; the first CoNLL-2000 sentences stand in"},
	{"train9.txt", "conll-train-60.txt", "train", 60,
		"cut from CoNLL-2000 train by the awk line of docs/results.md (8,043 sentences)"},
	{"dev.txt", "conll-test-20.txt", "test", 20,
		"the user's own development file, or the 893 sentences cut by that awk line"},
	{"split/A.txt", "conll-train-60.txt", "train", 60,
		"half of CoNLL-2000 train, cut by examples/splitconll (docs/prior.md)"},
	{"split/B.txt", "conll-train-60.txt", "train", 60,
		"another 10% of CoNLL-2000 train, cut by examples/splitconll (docs/prior.md)"},
	{"splitB/T.txt", "conll-train-60.txt", "train", 60,
		"80% of split/B.txt, cut by examples/splitconll (docs/prior.md)"},
	{"splitB/D.txt", "conll-test-20.txt", "test", 20,
		"the other 20% of split/B.txt, the development file of --select (docs/prior.md)"},
	{"h1/hidden.txt", "conll-train-60.txt", "train", 60,
		"CoNLL-2000 train with half of the tokens of half of the sentences hidden by examples/splitconll (docs/partial-labels.md)"},
	{"h1/labeled.txt", "conll-train-60.txt", "train", 60,
		"the fully labelled half of CoNLL-2000 train, cut by examples/splitconll (docs/partial-labels.md)"},
	{"h2/hidden.txt", "conll-train-60.txt", "train", 60,
		"CoNLL-2000 train with half of all tokens hidden by examples/splitconll (docs/partial-labels.md)"},
	{"pp/pp-partial.txt", "conll-train-60.txt", "train", 60,
		"CoNLL-2000 train merged from two annotations by examples/splitconll (docs/partial-labels.md)"},
	{"pp/pp-naive.txt", "conll-train-60.txt", "train", 60,
		"the same, the missing PP read as O (docs/partial-labels.md)"},
	{"pp/pp-full.txt", "conll-train-60.txt", "train", 60,
		"the fully annotated half of that corpus (docs/partial-labels.md)"},
}

// readmeBounds holds the flags appended to a README command (a later flag
// wins over an earlier one) so that it runs in about a second; the first
// entry whose pattern matches the command (its arguments joined by spaces)
// applies.
var readmeBounds = []struct {
	match string
	add   []string
	why   string
}{
	{`^demo `, []string{"--train-folds", "0", "--test-folds", "1", "--betas", "2", "--min-ratio", "0.05", "--show", "1"},
		"about a minute on 6,251 words and 7 betas; 626 words and 2 betas take a second"},
	{`^train --format ocr --folds 0 `, nil,
		"the OCR table's second row trains on 626 words in about a second: it runs as printed and its figures are checked (readmeFigures)"},
	{`^train .*--select `, []string{"--betas", "3", "--max-iter", "5"},
		"the README's path solves 31 betas on 8,043 sentences (200 s); 3 betas print the same table"},
	{`^train --format ocr --folds 1-9 --beta-ratio 0.01 --model ocr\.model `, nil,
		"the README's OCR model at the default stop trains on 6,251 words in about 5 s: it runs as printed and its figures are checked (readmeFigures)"},
	{`^train .*--format ocr `, []string{"--max-iter", "5"},
		"6,251 words to a gap of 1e-6: 159 iterations, about 20 s"},
	{`^train `, []string{"--max-iter", "5"},
		"hundreds of iterations on the full corpus; five reach every step that writes the model"},
	{`^path `, []string{"--scale", "0.01", "--betas", "3"},
		"a 20-beta path on a tenth of syn1; 1% and 3 betas run the same code"},
	{`^bench paper `, []string{"--data", "syn1,ocr-letters", "--scale", "0.01", "--betas", "2"},
		"the full table takes about 15 minutes, the quick one 12 s"},
	{`^bench screen `, []string{"--scale", "0.01", "--ratios", "0.5", "--max-iter", "200"},
		"four penalties on the full OCR set, each to a gap of 1e-6"},
	{`^bench train `, []string{"--data", "syn1", "--scale", "0.01", "--threads", "1", "--budget", "5s", "--max-iter", "300"},
		"conll has no --scale (its solves take minutes and gigabytes) and the OCR solves run to their 5-minute budget; syn1 at 1% runs the same two solvers"},
}

// readmeSkip lists the commands of README.md and docs/ that the test does
// not run, and why: they read files that are not in the repository.
var readmeSkip = []struct {
	match string
	why   string
}{
	{`(^| )(pos|ner)\.[a-z.]+ `,
		"docs/default-penalty.md's POS files (cut by awk) and CoNLL-2002 Spanish NER, which is not freely licensed and never in the repository"},
	{`(^| )vectors/`,
		"docs/vectors.md's vectors and template, written by go run ./examples/vectors and printf; cmd/tagger/valued_test.go runs --embeddings and --value-columns on small files"},
}

// readmeFigures are figures of README.md and docs/ that the test recomputes
// in full: the command matching the pattern (in the file named, or in any
// when file is "") runs unbounded (see readmeBounds), the text must be in
// README.md or docs/ (line breaks count as spaces) and each regular
// expression must match the command's output.
var readmeFigures = []struct {
	match  string
	file   string
	readme string
	out    []string
}{
	{`^eval --format ocr --folds 1-9 --model ocr0\.model `, "",
		"| 0 (626 words) | 1-9 (6,251 words) | 0.7532 | 0.2964 |",
		[]string{`(?m)^accuracy: 0\.7532$`, `\(sequence accuracy 0\.2964\)`}},
	{`^eval --format ocr --folds 0 --model ocr\.model `, "README.md",
		"rows read 0.7927 / 0.3546",
		[]string{`(?m)^accuracy: 0\.7927$`, `\(sequence accuracy 0\.3546\)`}},
	{`^eval --format crfsuite --model conll-from-crfsuite\.model `, "",
		"prints the same accuracy (0.9443) and f1 (0.9129)",
		[]string{`(?m)^accuracy: 0\.9443$`, `(?m)^f1: 0\.9129$`}},
}

// readmeConditional lists printed output lines that appear only in some
// runs, and why; their shape is not required.
var readmeConditional = map[string]string{
	"note:": "printed only when the best dev score is at the smallest penalty",
}

// readmeCmd is a tagger command line of a README code block.
type readmeCmd struct {
	line    int      // README line where it starts
	args    []string // after "tagger"
	comment string   // its trailing "# ..." comment
	stdin   string   // what "echo 'TEXT' | tagger ..." pipes in: TEXT and a line break
}

// echoRE matches a command that pipes one line of text into tagger.
var echoRE = regexp.MustCompile(`^echo '([^']*)' \| (?:go run \./cmd/)?(tagger .*)$`)

// readmeBlock is a fenced code block of the README.
type readmeBlock struct {
	line     int      // README line of the opening fence
	lines    []string // its content
	cmds     []readmeCmd
	adjacent bool // only blank lines since the previous block
}

var fenceRE = regexp.MustCompile("^```")

// parseREADME splits the README into its code blocks and its prose (the
// text outside them, without the section on Apache Beam, whose commands and
// flags are beamtag's and Beam's).
func parseREADME(text string) (blocks []readmeBlock, prose string) {
	var (
		in        bool
		cur       *readmeBlock
		blank     = true // only blank lines since the last block closed
		skipBeam  bool
		proseText strings.Builder
	)
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if fenceRE.MatchString(line) {
			if !in {
				blocks = append(blocks, readmeBlock{line: i + 1, adjacent: blank && len(blocks) > 0})
				cur = &blocks[len(blocks)-1]
			} else {
				cur.cmds = readmeCommands(cur.lines, cur.line+1)
				blank = true
			}
			in = !in
			continue
		}
		if in {
			cur.lines = append(cur.lines, line)
			continue
		}
		if strings.TrimSpace(line) != "" {
			blank = false
		}
		if strings.HasPrefix(line, "#") {
			skipBeam = strings.Contains(line, "Apache Beam")
		}
		if !skipBeam {
			proseText.WriteString(line)
			proseText.WriteByte('\n')
		}
	}
	return blocks, proseText.String()
}

// readmeCommands returns the tagger command lines of a code block: lines
// that start with "tagger " or "go run ./cmd/tagger ", or "echo 'TEXT' |
// tagger " (TEXT is the command's standard input), with backslash
// continuations joined, the trailing comment split off and a pipe cut.
func readmeCommands(lines []string, first int) []readmeCmd {
	var out []readmeCmd
	var cur, stdin string
	start := 0
	for i, line := range lines {
		line = strings.TrimSpace(line)
		switch {
		case cur != "":
			cur += " " + line
		case echoRE.MatchString(line):
			m := echoRE.FindStringSubmatch(line)
			stdin, cur, start = m[1]+"\n", m[2], first+i
		case strings.HasPrefix(line, "tagger "):
			cur, start = line, first+i
		case strings.HasPrefix(line, "go run ./cmd/tagger "):
			cur, start = "tagger "+strings.TrimPrefix(line, "go run ./cmd/tagger "), first+i
		default:
			continue
		}
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\")
			continue
		}
		var comment string
		if i := strings.Index(cur, " #"); i >= 0 {
			cur, comment = cur[:i], strings.TrimSpace(cur[i+2:])
		}
		if i := strings.Index(cur, " |"); i >= 0 {
			cur = cur[:i]
		}
		out = append(out, readmeCmd{line: start, args: strings.Fields(cur)[1:], comment: comment, stdin: stdin})
		cur, stdin = "", ""
	}
	return out
}

// taggerFlags returns the commands of the tool ("bench paper" for the bench
// suites) and the flags of each, read from their -h output.
func taggerFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	listed := func(help, section string) []string {
		var names []string
		in := false
		for _, line := range strings.Split(help, "\n") {
			switch {
			case line == section:
				in = true
			case in && strings.HasPrefix(line, "  "):
				names = append(names, strings.Fields(line)[0])
			case in:
				in = false
			}
		}
		return names
	}
	_, help, code := runTagger(t, "-h")
	require.Equal(t, 0, code, help)
	cmds := listed(help, "commands:")
	require.Contains(t, cmds, "train", "tagger -h: commands:\n%s", help)
	var names []string
	for _, c := range cmds {
		if c != "bench" {
			names = append(names, c)
			continue
		}
		_, help, code := runTagger(t, "bench", "-h")
		require.Equal(t, 0, code, help)
		suites := listed(help, "suites:")
		require.NotEmpty(t, suites, "tagger bench -h: suites:\n%s", help)
		for _, s := range suites {
			names = append(names, "bench "+s)
		}
	}
	flagRE := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	all := map[string]map[string]bool{}
	for _, name := range names {
		_, help, code := runTagger(t, append(strings.Fields(name), "-h")...)
		require.Equal(t, 0, code, "tagger %s -h:\n%s", name, help)
		all[name] = map[string]bool{}
		for _, m := range flagRE.FindAllStringSubmatch(help, -1) {
			all[name][m[1]] = true
		}
	}
	return all
}

// commandName returns the name under which taggerFlags lists the command
// of args ("bench train" for bench suites).
func commandName(args []string) string {
	if len(args) > 1 && args[0] == "bench" {
		return "bench " + args[1]
	}
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

var flagNameRE = regexp.MustCompile(`(?:^|[\s(/,])--([a-z][a-z0-9-]*)`)

// TestREADMEFlags checks every flag that README.md and docs/ name outside
// the code blocks:
// in a `tagger CMD ...` span it must be a flag of CMD, anywhere else a flag
// of some command. A renamed or removed flag fails here.
// otherProgramRE matches a command of another program, whose flags are
// its own: the Python package's benchmarks and tests.
var otherProgramRE = regexp.MustCompile(`^(/usr/bin/)?python3 `)

func TestREADMEFlags(t *testing.T) {
	_, texts := documentation(t)
	var blocks []readmeBlock
	var prose string
	for _, text := range texts {
		bl, pr := parseREADME(text)
		blocks, prose = append(blocks, bl...), prose+pr
	}
	flags := taggerFlags(t)
	anyFlag := map[string]bool{"version": true} // tagger --version
	for _, fs := range flags {
		for f := range fs {
			anyFlag[f] = true
		}
	}
	spans := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose, -1)
	// The comments of code-block commands name flags too ("or --select-folds 5").
	for _, bl := range blocks {
		for _, c := range bl.cmds {
			spans = append(spans, []string{"", c.comment})
		}
	}
	ncmd := 0
	for _, m := range spans {
		span := strings.Join(strings.Fields(m[1]), " ")
		if otherProgramRE.MatchString(span) {
			continue // another program's flags (the Python benchmarks)
		}
		i := strings.Index(span, "tagger ")
		if i == 0 || (i > 0 && strings.HasSuffix(span[:i], "| ")) {
			args := strings.Fields(span[i:])[1:]
			name := commandName(args)
			fs, ok := flags[name]
			if !ok {
				t.Errorf("README `%s`: no command %q", span, name)
				continue
			}
			ncmd++
			for _, f := range flagNameRE.FindAllStringSubmatch(span, -1) {
				if !fs[f[1]] {
					t.Errorf("README `%s`: tagger %s has no flag --%s", span, name, f[1])
				}
			}
			continue
		}
		for _, f := range flagNameRE.FindAllStringSubmatch(span, -1) {
			if !anyFlag[f[1]] {
				t.Errorf("README `%s`: no command has a flag --%s", span, f[1])
			}
		}
	}
	require.GreaterOrEqual(t, ncmd, 10, "tagger commands in the prose of README.md and docs/")
}

// TestREADMECommands runs every tagger command of the code blocks of
// README.md and then of docs/*.md, in order, in a temporary directory (train writes the models that eval, tag,
// explain and dump read), with the substitutions of readmeInputs and
// readmeBounds, and checks: exit status 0 (an unknown command or flag exits
// 2), the output lines the README prints beside a command (its "# ...
// accuracy: 0.xxxx" comment, or the code block right after it) by their
// shape, the files its output flags name, and the figures of readmeFigures
// exactly.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of README.md and docs/ on small data (about 20 s)")
	}
	names, texts := documentation(t)
	flatDocs := strings.Join(strings.Fields(strings.Join(texts, "\n")), " ")
	peerDir, err := filepath.Abs("../../peer/testdata")
	require.NoError(t, err)

	dir := t.TempDir()
	writeREADMEInputs(t, dir)
	t.Chdir(dir)

	usedInput := map[string]bool{}
	usedBound := map[int]bool{}
	usedFigure := map[int]bool{}
	usedSkip := map[int]bool{}
	ncmd, nstdin := 0, 0
	for fi, text := range texts {
		blocks, _ := parseREADME(text)
		for bi, bl := range blocks {
			for ci, c := range bl.cmds {
				ncmd++
				joined := strings.Join(c.args, " ")
				where := names[fi] + ":" + strconv.Itoa(c.line) + ": tagger " + joined
				skip := -1
				for i, sk := range readmeSkip {
					if regexp.MustCompile(sk.match).MatchString(joined + " ") {
						skip = i
						break
					}
				}
				if skip >= 0 {
					usedSkip[skip] = true
					t.Logf("%s: not run: %s", where, readmeSkip[skip].why)
					continue
				}
				args := make([]string, 0, len(c.args)+12)
				for _, a := range c.args {
					for _, in := range readmeInputs {
						if a == in.arg {
							a = in.file
							usedInput[in.arg] = true
							break
						}
					}
					// The README runs from the repository root, the test elsewhere.
					if strings.HasPrefix(a, "peer/testdata/") {
						a = filepath.Join(peerDir, strings.TrimPrefix(a, "peer/testdata/"))
					}
					args = append(args, a)
				}
				for i, bd := range readmeBounds {
					if regexp.MustCompile(bd.match).MatchString(joined + " ") {
						usedBound[i] = true
						args = append(args, bd.add...)
						t.Logf("%s: adds %q: %s", where, bd.add, bd.why)
						break
					}
				}
				if c.stdin != "" {
					nstdin++
				}
				out, errs, code := runStdin(t, c.stdin, args...)
				if code != 0 {
					t.Errorf("%s\nran: tagger %s\nexit %d\nstdout:\n%s\nstderr:\n%s", where, strings.Join(args, " "), code, out, errs)
					continue
				}
				// Output lines printed in the command's comment, e.g.
				// "# ... accuracy: 0.xxxx / f1: 0.xxxx".
				for _, m := range regexp.MustCompile(`([a-z][a-z0-9 ]*): 0\.x+`).FindAllStringSubmatch(c.comment, -1) {
					re := `(?m)^` + regexp.QuoteMeta(strings.TrimSpace(m[1])) + `: \d\.\d{4}$`
					if !regexp.MustCompile(re).MatchString(out) {
						t.Errorf("%s: the comment shows %q; no line %s in stdout:\n%s", where, m[0], re, out)
					}
				}
				// Output printed in the code block right after the command's.
				if ci == len(bl.cmds)-1 && bi+1 < len(blocks) && blocks[bi+1].adjacent && len(blocks[bi+1].cmds) == 0 {
					checkPrintedOutput(t, where, blocks[bi+1].lines, out)
				}
				checkOutputFlags(t, where, c.args)
				for i, f := range readmeFigures {
					if !regexp.MustCompile(f.match).MatchString(joined+" ") || (f.file != "" && f.file != names[fi]) {
						continue
					}
					usedFigure[i] = true
					if !strings.Contains(flatDocs, f.readme) {
						t.Errorf("readmeFigures[%d]: README.md and docs/ no longer say %q", i, f.readme)
					}
					for _, re := range f.out {
						if !regexp.MustCompile(re).MatchString(out) {
							t.Errorf("%s: the README's figure %q: no %s in stdout:\n%s", where, f.readme, re, out)
						}
					}
				}
			}
		}
	}
	require.GreaterOrEqual(t, ncmd, 20, "tagger commands in the code blocks of README.md and docs/")
	// Quick start's and Command line's echo '...' | tagger tag --format text.
	require.GreaterOrEqual(t, nstdin, 2, "commands of the README's code blocks that tag echoed text")
	// A substitution that matches nothing is stale: the README changed.
	for _, in := range readmeInputs {
		if !usedInput[in.arg] {
			t.Errorf("readmeInputs: no README command reads %s", in.arg)
		}
	}
	for i, bd := range readmeBounds {
		if !usedBound[i] {
			t.Errorf("readmeBounds: no README command matches %s", bd.match)
		}
	}
	for i, f := range readmeFigures {
		if !usedFigure[i] {
			t.Errorf("readmeFigures: no README command matches %s", f.match)
		}
	}
	for i, sk := range readmeSkip {
		if !usedSkip[i] {
			t.Errorf("readmeSkip: no command matches %s", sk.match)
		}
	}
}

// writeREADMEInputs writes the small inputs of readmeInputs and the
// unlabeled my-sentences.txt the README tags (word and part of speech).
func writeREADMEInputs(t *testing.T, dir string) {
	t.Helper()
	for _, in := range readmeInputs {
		writeCoNLLHead(t, filepath.Join(dir, in.file), in.split, in.n)
	}
	writeMySentences(t, dir)
}

var printedNumberRE = regexp.MustCompile(`[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?`)

// lineShape turns a printed output line into a regular expression that
// matches any line of the same shape: a number stands for any number and a
// run of spaces for any run of spaces.
func lineShape(line string) string {
	var fields []string
	for _, f := range strings.Fields(line) {
		var b strings.Builder
		last := 0
		for _, loc := range printedNumberRE.FindAllStringIndex(f, -1) {
			b.WriteString(regexp.QuoteMeta(f[last:loc[0]]))
			b.WriteString(printedNumberRE.String())
			last = loc[1]
		}
		b.WriteString(regexp.QuoteMeta(f[last:]))
		fields = append(fields, b.String())
	}
	return `(?m)^\s*` + strings.Join(fields, `\s+`) + `\s*$`
}

// checkPrintedOutput checks that every line of a printed output block
// (except "..." and readmeConditional lines) has a line of the same shape in
// stdout.
func checkPrintedOutput(t *testing.T, where string, printed []string, stdout string) {
	t.Helper()
	n := 0
outer:
	for _, line := range printed {
		s := strings.TrimSpace(line)
		if s == "" || s == "..." {
			continue
		}
		for prefix := range readmeConditional {
			if strings.HasPrefix(s, prefix) {
				continue outer
			}
		}
		n++
		if re := lineShape(line); !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("%s: the README prints\n\t%s\nstdout has no line of its shape (%s):\n%s", where, s, re, stdout)
		}
	}
	if n == 0 {
		t.Errorf("%s: the printed output block has no line to check", where)
	}
}

// checkOutputFlags checks the files a README command's output flags name.
func checkOutputFlags(t *testing.T, where string, args []string) {
	t.Helper()
	for i := 0; i+1 < len(args); i++ {
		v := args[i+1]
		switch args[i] {
		case "--report", "--json", "--cpuprofile":
			requireFile(t, where, v)
		case "--model":
			if args[0] == "train" {
				requireFile(t, where, v)
			}
		case "--out":
			if args[0] == "convert" {
				requireFile(t, where, v)
				continue
			}
			pngs, _ := filepath.Glob(filepath.Join(v, "*.png"))
			if len(pngs) == 0 {
				t.Errorf("%s: no figure in %s", where, v)
				continue
			}
			checkPNG(t, pngs[0])
		}
	}
}

func requireFile(t *testing.T, where, path string) {
	t.Helper()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("%s: %s not written (%v)", where, path, err)
	}
}

// TestDocPaths checks that README.md and docs/ cite only files of the
// repository that exist: every relative Markdown link, and every file path
// in backquotes that starts with a top-level directory of the module (such
// as `train/solve.go`). A page that cites a moved or deleted file fails
// here.
func TestDocPaths(t *testing.T) {
	names, texts := documentation(t)
	top := map[string]bool{}
	entries, err := os.ReadDir("../..")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			top[e.Name()] = true
		}
	}
	linkRE := regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)
	pathRE := regexp.MustCompile("`((?:[a-z0-9_]+/)+[A-Za-z0-9_.-]+\\.[a-z0-9]+)`")
	for i, text := range texts {
		dir := filepath.Dir(filepath.Join("../..", names[i]))
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
				t.Errorf("%s: link to %s: %v", names[i], m[1], err)
			}
		}
		for _, m := range pathRE.FindAllStringSubmatch(text, -1) {
			if !top[strings.SplitN(m[1], "/", 2)[0]] {
				continue // an embedded name such as ocr/letter.data.gz, or a path elsewhere
			}
			if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
				t.Errorf("%s: cites %s, which is not in the repository", names[i], m[1])
			}
		}
	}
}
