package main

import (
	"math/rand/v2"
	"strings"
)

// hideLabels replaces, in a fraction sentFrac of the sentences (seeded),
// the label (last column) of a fraction tokFrac of their tokens by "?";
// it returns the new sentences and, when keepRest, the sentences left
// untouched (the fully labeled rest).
func hideLabels(sents []string, seed uint64, sentFrac, tokFrac float64) (out, full []string) {
	rng := rand.New(rand.NewPCG(seed, 0x41de))
	for _, s := range sents {
		if rng.Float64() >= sentFrac {
			out = append(out, s)
			full = append(full, s)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i, l := range lines {
			if rng.Float64() < tokFrac {
				lines[i] = setLabel(l, "?")
			}
		}
		out = append(out, strings.Join(lines, "\n")+"\n")
	}
	return out, full
}

// mergePP builds the two-annotation corpus of docs/partial-labels.md: in
// a fraction frac of the sentences (seeded) every PP chunk is relabelled O
// and, in the partial version, every O token of those sentences is
// declared O|B-PP|I-PP; naive keeps them O. full holds the other
// sentences (the fully annotated part).
func mergePP(sents []string, seed uint64, frac float64) (partial, naive, full []string) {
	rng := rand.New(rand.NewPCG(seed, 0x99))
	for _, s := range sents {
		if rng.Float64() >= frac {
			partial, naive, full = append(partial, s), append(naive, s), append(full, s)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		p := make([]string, len(lines))
		n := make([]string, len(lines))
		for i, l := range lines {
			lab := l[strings.LastIndexAny(l, " \t")+1:]
			if lab == "B-PP" || lab == "I-PP" {
				lab = "O"
			}
			n[i] = setLabel(l, lab)
			if lab == "O" {
				lab = "O|B-PP|I-PP"
			}
			p[i] = setLabel(l, lab)
		}
		partial = append(partial, strings.Join(p, "\n")+"\n")
		naive = append(naive, strings.Join(n, "\n")+"\n")
	}
	return partial, naive, full
}

// setLabel replaces the last column of a token line.
func setLabel(line, label string) string {
	return line[:strings.LastIndexAny(line, " \t")+1] + label
}
