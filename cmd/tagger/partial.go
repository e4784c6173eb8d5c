package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// partialNote is what -h, the README and the training output say about
// partial labels.
const partialNote = "partial labels make the objective non-convex: no certified gap and no safe screening; " +
	"training runs the full solver from zero (or --init) and stops on the --delta rule (default 1e-5) or --max-iter; " +
	"the gap it prints is a stationarity measure, not a certificate"

// checkPartial refuses, before any data is read, the flags that --partial
// does not take (a gap target, screening, the working set, a
// certificate), and clears their defaults.
func (tf *trainFlags) checkPartial(fs *flag.FlagSet) error {
	if !tf.partial {
		return nil
	}
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "epsilon", "rel-epsilon", "screen", "solver", "certificate", "select", "select-folds", "resume", "cache", "algorithm", "p", "sequence-weights":
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		return usagef("--partial with %s: %s", strings.Join(bad, ", "), partialNote)
	}
	if tf.unknown == "" || strings.Contains(tf.unknown, "|") {
		return usagef("--unknown-label %q: want a non-empty marker without '|'", tf.unknown)
	}
	tf.op.Screen, tf.op.Solver, tf.op.Certificate = "", "", ""
	tf.op.Epsilon, tf.op.RelEpsilon = 0, 0
	return nil
}

// readPartial reads and encodes the training file of --partial (no
// corpus cache: the cache holds fully labeled corpora).
func (tf *trainFlags) readPartial(e *env, path string) (*chain.Model, *sparse.Corpus, []dataset.Example, *train.LabelSets, error) {
	exs, err := readExamples(path, tf.dataFlags, true, e.stdin)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	enc, err := tf.newEncoder()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var w io.Writer
	if !tf.quiet {
		w = e.stderr
	}
	m, c, allowed, err := partialModel(w, tf, enc, exs)
	return m, c, exs, allowed, err // partialModel's errors name the file and line
}

// partialModel encodes examples whose labels are sets ("A|B": any of
// them) or unknown (the --unknown-label marker: any label) and returns the
// model, the corpus and the allowed labels of every position. A set that
// names an empty label admits no label sequence: an error naming the file
// and line.
func partialModel(w io.Writer, tf *trainFlags, enc *features.Encoder, exs []dataset.Example) (*chain.Model, *sparse.Corpus, *train.LabelSets, error) {
	ps, err := readLabelSets(exs, tf.unknown)
	if err != nil {
		return nil, nil, nil, err
	}
	// The corpus takes one label of each set (the encoder needs one); the
	// objective reads the sets alone.
	enc0 := make([]dataset.Example, len(exs))
	for i := range exs {
		enc0[i] = exs[i]
		enc0[i].Labels = make([]string, len(exs[i].Labels))
		for t, set := range ps.sets[i] {
			if set == nil {
				enc0[i].Labels[t] = ps.names[0]
			} else {
				enc0[i].Labels[t] = set[0]
			}
		}
	}
	c, labels, err := dataset.EncodeTraining(tf.denseVectors(enc), enc0, tf.minFreq)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, n := range ps.names {
		if !contains(labels, n) {
			labels = append(labels, n)
		}
	}
	allowed := ps.allowed(c.Positions(), labels)
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		return nil, nil, nil, err
	}
	if w != nil {
		fmt.Fprintf(w, "partial labels: %d of %d tokens unknown (%q), %d with a set of labels; %s\n", ps.hidden, ps.tokens, tf.unknown, ps.multi, partialNote)
	}
	return m, c, allowed, nil
}

// labelSets is what the labels of partially labelled examples allow: per
// sequence and token the set of label names (nil: unknown), the names in
// order of appearance, and counts for the log.
type labelSets struct {
	sets                  [][][]string
	names                 []string
	hidden, multi, tokens int
}

// readLabelSets reads the label column of exs: a label, a set a|b|c, or
// the marker unknown; an empty name in a set, or the marker inside a set,
// is an error naming file and line.
func readLabelSets(exs []dataset.Example, unknown string) (*labelSets, error) {
	ps := &labelSets{sets: make([][][]string, len(exs))}
	seen := map[string]bool{}
	for i := range exs {
		ex := &exs[i]
		ps.sets[i] = make([][]string, len(ex.Labels))
		for t, l := range ex.Labels {
			ps.tokens++
			if l == unknown {
				ps.hidden++
				continue
			}
			set := strings.Split(l, "|")
			for _, n := range set {
				if n == "" {
					return nil, fmt.Errorf("%s:%d: label set %q names an empty label: no label sequence fits it", ex.File, ex.Line+t, l)
				}
				if n == unknown {
					return nil, fmt.Errorf("%s:%d: label set %q holds the unknown marker %q", ex.File, ex.Line+t, l, unknown)
				}
				if !seen[n] {
					seen[n] = true
					ps.names = append(ps.names, n)
				}
			}
			if len(set) > 1 {
				ps.multi++
			}
			ps.sets[i][t] = set
		}
	}
	if len(ps.names) == 0 {
		return nil, fmt.Errorf("no token has a known label: nothing to learn the label set from")
	}
	return ps, nil
}

// allowed returns the label sets over the corpus's positions, in the
// model's label ids.
func (ps *labelSets) allowed(positions int, labels []string) *train.LabelSets {
	id := make(map[string]int, len(labels))
	for y, n := range labels {
		id[n] = y
	}
	allowed := train.NewLabelSets(positions, len(labels))
	p := 0
	for _, seq := range ps.sets {
		for _, set := range seq {
			if set == nil {
				allowed.AllowAll(p)
			}
			for _, n := range set {
				allowed.Allow(p, id[n])
			}
			p++
		}
	}
	return allowed
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
