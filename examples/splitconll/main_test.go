package main

import (
	"strings"
	"testing"
)

// TestMergePP: in the relabelled sentences PP chunks become O, and the
// partial version declares every O token O|B-PP|I-PP; other sentences are
// untouched and listed as fully annotated.
func TestMergePP(t *testing.T) {
	sents := []string{"in IN B-PP\nthe DT B-NP\nend NN I-NP\n. . O\n", "of IN B-PP\nus PRP B-NP\n"}
	p, n, f := mergePP(sents, 1, 1)
	if want := "in IN O|B-PP|I-PP\nthe DT B-NP\nend NN I-NP\n. . O|B-PP|I-PP\n"; p[0] != want {
		t.Errorf("partial:\n%s\nwant:\n%s", p[0], want)
	}
	if want := "in IN O\nthe DT B-NP\nend NN I-NP\n. . O\n"; n[0] != want {
		t.Errorf("naive:\n%s\nwant:\n%s", n[0], want)
	}
	if len(f) != 0 {
		t.Errorf("fully annotated: %d sentences, want 0", len(f))
	}
	p, _, f = mergePP(sents, 1, 0)
	if len(f) != 2 || p[0] != sents[0] {
		t.Errorf("fraction 0 changed a sentence")
	}
}

// TestHideLabels: hidden tokens get "?" as their label and keep their
// other columns; the fraction is about the one asked for; the untouched
// sentences are returned as labeled.
func TestHideLabels(t *testing.T) {
	var sents []string
	for range 200 {
		sents = append(sents, "a DT B-NP\nb NN I-NP\nc VBZ B-VP\nd . O\n")
	}
	out, full := hideLabels(sents, 1, 0.5, 0.5)
	hidden, tokens := 0, 0
	for _, s := range out {
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			tokens++
			if strings.HasSuffix(l, " ?") {
				hidden++
			}
			if f := strings.Fields(l); len(f) != 3 {
				t.Fatalf("line %q lost a column", l)
			}
		}
	}
	if frac := float64(hidden) / float64(tokens); frac < 0.2 || frac > 0.3 {
		t.Errorf("%d of %d tokens hidden, want about a quarter", hidden, tokens)
	}
	if len(full) < 80 || len(full) > 120 {
		t.Errorf("%d untouched sentences of 200, want about half", len(full))
	}
}
