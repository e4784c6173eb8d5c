// Command splitconll writes seeded, disjoint random parts of a column file
// (CoNLL: one token per line, sentences separated by blank lines): the
// subsets of the measurements in docs/prior.md. Sentences are shuffled
// with a PCG generator seeded by -seed, and the parts take consecutive
// runs of the shuffled order, in the order given; each part keeps the
// sentences' original order. gzip input is read as such.
//
//	go run ./examples/splitconll -in embedded:conll2000/train.txt.gz -seed 1 -parts A=0.5,B=0.1 -dir /tmp/split
//
// writes /tmp/split/A.txt (half of the sentences) and /tmp/split/B.txt
// (another, disjoint 10%).
//
// With -hide-sentences S -hide-tokens F it instead writes the whole file
// as hidden.txt with the labels of a fraction F of the tokens of a
// fraction S of the sentences replaced by "?", and the untouched
// sentences as labeled.txt; with -merge-pp S it writes pp-partial.txt
// (in a fraction S of the sentences every PP chunk relabelled O and every
// O token declared O|B-PP|I-PP), pp-naive.txt (the same, the O tokens
// plain O) and pp-full.txt (the other sentences). The measurements of
// docs/partial-labels.md use these files.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
)

func main() {
	in := flag.String("in", "", "column `file` to split (embedded:NAME allowed)")
	seed := flag.Uint64("seed", 1, "seed of the shuffle")
	parts := flag.String("parts", "A=0.5,B=0.1", "`NAME=FRACTION,...`: the parts to write, in order, as fractions of the sentences")
	dir := flag.String("dir", ".", "`directory` to write NAME.txt into")
	hideS := flag.Float64("hide-sentences", 0, "fraction of the sentences whose labels are partly hidden (0: split instead)")
	hideT := flag.Float64("hide-tokens", 0.5, "fraction of the tokens of those sentences whose label becomes ?")
	pp := flag.Float64("merge-pp", 0, "fraction of the sentences annotated without PP chunks (0: split instead)")
	flag.Parse()
	var err error
	switch {
	case *hideS > 0:
		err = hide(*in, *seed, *hideS, *hideT, *dir)
	case *pp > 0:
		err = merge(*in, *seed, *pp, *dir)
	default:
		err = run(*in, *seed, *parts, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "splitconll:", err)
		os.Exit(1)
	}
}

func run(in string, seed uint64, parts, dir string) error {
	sents, err := readSentences(in)
	if err != nil {
		return err
	}
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	next := 0
	for _, part := range strings.Split(parts, ",") {
		name, fs, ok := strings.Cut(part, "=")
		frac, err := strconv.ParseFloat(fs, 64)
		if !ok || err != nil || frac <= 0 {
			return fmt.Errorf("part %q: want NAME=FRACTION", part)
		}
		n := int(frac*float64(len(sents)) + 0.5)
		if next+n > len(sents) {
			return fmt.Errorf("the parts take more than all %d sentences", len(sents))
		}
		pick := slices.Clone(order[next : next+n])
		next += n
		slices.Sort(pick)
		var b strings.Builder
		for _, i := range pick {
			b.WriteString(sents[i])
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d sentences\n", name, n)
	}
	return nil
}

// readSentences returns the sentences of a column file, each as its lines
// with their newlines.
func readSentences(path string) ([]string, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var out []string
	var cur strings.Builder
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out, sc.Err()
}

func hide(in string, seed uint64, sentFrac, tokFrac float64, dir string) error {
	sents, err := readSentences(in)
	if err != nil {
		return err
	}
	out, full := hideLabels(sents, seed, sentFrac, tokFrac)
	fmt.Printf("hidden.txt: %d sentences; labeled.txt: %d untouched\n", len(out), len(full))
	return writeAll(dir, map[string][]string{"hidden.txt": out, "labeled.txt": full})
}

func merge(in string, seed uint64, frac float64, dir string) error {
	sents, err := readSentences(in)
	if err != nil {
		return err
	}
	p, n, f := mergePP(sents, seed, frac)
	fmt.Printf("pp-partial.txt, pp-naive.txt: %d sentences; pp-full.txt: %d fully annotated\n", len(p), len(f))
	return writeAll(dir, map[string][]string{"pp-partial.txt": p, "pp-naive.txt": n, "pp-full.txt": f})
}

func writeAll(dir string, files map[string][]string) error {
	for name, sents := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(sents, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// open opens a file, or "embedded:NAME" for a file embedded in package
// corpora.
func open(path string) (io.ReadCloser, error) {
	if name, ok := strings.CutPrefix(path, "embedded:"); ok {
		return corpora.OpenEmbedded(name)
	}
	return os.Open(path)
}
