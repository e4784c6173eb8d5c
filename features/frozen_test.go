package features

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// referenceRows returns the unary and pair rows of cols as the string path
// defines them: every rule expanded to its string (Template.Expand), looked
// up in the dictionaries, unknown strings skipped, sorted and deduplicated.
func referenceRows(t *testing.T, e *Encoder, cols [][]string) (unary, pair [][]int32) {
	t.Helper()
	for pos := range cols {
		us, ps, err := e.Template().Expand(cols, pos)
		if err != nil {
			t.Fatal(err)
		}
		unary = append(unary, knownIDs(e.Unary(), us))
		if e.Template().NumPair() > 0 {
			pair = append(pair, knownIDs(e.Pair(), ps))
		}
	}
	return unary, pair
}

func knownIDs(d *Dictionary, names []string) []int32 {
	ids := []int32{}
	for _, s := range names {
		if id, ok := d.ID(s); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// checkFrozen encodes cols with the frozen encoder e (the frozen index)
// and compares every row with referenceRows.
func checkFrozen(t *testing.T, e *Encoder, cols [][]string) {
	t.Helper()
	if e.frozen() == nil {
		t.Fatal("the frozen index is not in use: the test would compare the string path with itself")
	}
	var c sparse.Corpus
	if err := e.Encode(&c, Columns(cols), nil, false); err != nil {
		t.Fatal(err)
	}
	wantU, wantP := referenceRows(t, e, cols)
	for pos := range cols {
		got, _ := c.Unary.Row(pos)
		if !slices.Equal(nonNil(got), wantU[pos]) {
			t.Fatalf("template %q, sentence %q, position %d: unary row %v, want %v", e.Template().Source(), cols, pos, got, wantU[pos])
		}
		if wantP == nil {
			continue
		}
		got, _ = c.Pair.Row(pos)
		if !slices.Equal(nonNil(got), wantP[pos]) {
			t.Fatalf("template %q, sentence %q, position %d: pair row %v, want %v", e.Template().Source(), cols, pos, got, wantP[pos])
		}
	}
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// cellAlphabet holds cell values that collide with template literals and
// boundary strings: a value "_B-1" must give the same attribute as the
// boundary, "a/b" + "/" + "c" the same as "a" + "/" + "b/c".
var cellAlphabet = []string{"", "a", "b", "a/b", "b/", "/", "_B-1", "_B+1", "_B-2", "B", "-1", "_", "x:y", ":", "ab"}

// randomTemplate returns a template of up to 6 U lines and 2 B lines with
// macros (rows in [-3, 3], columns in [0, ncols)), literals from a small
// alphabet (so that names of different lines can coincide), adjacent
// macros, and lines without macros.
func randomTemplate(r *rand.Rand, ncols int) string {
	return randomTemplateOf(r, ncols, func(row, col int) string { return fmt.Sprintf("%%x[%d,%d]", row, col) })
}

// randomDerivedTemplate is randomTemplate with every kind of macro, derived
// ones included.
func randomDerivedTemplate(r *rand.Rand, ncols int) string {
	return randomTemplateOf(r, ncols, func(row, col int) string {
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf("%%l[%d,%d]", row, col)
		case 1:
			return fmt.Sprintf("%%w[%d,%d]", row, col)
		case 2:
			return fmt.Sprintf("%%p[%d,%d,%d]", row, col, 1+r.IntN(2))
		case 3:
			return fmt.Sprintf("%%s[%d,%d,%d]", row, col, 1+r.IntN(2))
		}
		return fmt.Sprintf("%%x[%d,%d]", row, col)
	})
}

// randomTemplateOf is randomTemplate with macro(row, col) writing a macro.
func randomTemplateOf(r *rand.Rand, ncols int, macro func(row, col int) string) string {
	lits := []string{"", "/", "_", "B", "-", "a", ":", "U0:", "x/"}
	var b strings.Builder
	line := func(kind string) {
		b.WriteString(kind)
		if r.IntN(3) > 0 {
			b.WriteString(fmt.Sprint(r.IntN(3)))
		}
		for range r.IntN(4) {
			b.WriteString(lits[r.IntN(len(lits))])
			b.WriteString(macro(r.IntN(7)-3, r.IntN(ncols)))
		}
		b.WriteString(lits[r.IntN(len(lits))])
		b.WriteString("\n")
	}
	for range 1 + r.IntN(6) {
		line("U")
	}
	for range r.IntN(3) {
		line("B")
	}
	return b.String()
}

func randomSentence(r *rand.Rand, ncols int, alphabet []string) [][]string {
	n := 1 + r.IntN(14)
	s := make([][]string, n)
	for i := range s {
		s[i] = make([]string, ncols)
		for c := range s[i] {
			s[i][c] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return s
}

// TestFrozenIndexRandom trains random templates on random sentences and
// checks that the frozen index gives the string path's rows on new random
// sentences (with unknown values and boundary positions), through the
// trained encoder, a clone, one rebuilt from the names (loading a model),
// a restricted one, and after a pruning Freeze.
func TestFrozenIndexRandom(t *testing.T) {
	testFrozenIndexRandom(t, randomTemplate, cellAlphabet)
}

// TestFrozenIndexDerived is TestFrozenIndexRandom with derived macros (%l,
// %w, %p, %s) and cells whose derived values collide with literals and
// with other cells.
func TestFrozenIndexDerived(t *testing.T) {
	testFrozenIndexRandom(t, randomDerivedTemplate, append(slices.Clone(cellAlphabet), "A", "Ab", "aB", "X", "x", "1", "a1", "é", "Éa", "d"))
}

func testFrozenIndexRandom(t *testing.T, template func(*rand.Rand, int) string, alphabet []string) {
	r := rand.New(rand.NewPCG(1, 1))
	unknown := append(slices.Clone(alphabet), "zz", "a/zz", "_B+3", "_B-9")
	for trial := range 300 {
		ncols := 1 + r.IntN(3)
		tm := MustCompile(template(r, ncols))
		e := NewTemplateEncoder(tm)
		for range 20 {
			s := randomSentence(r, ncols, alphabet)
			if err := e.Count(Columns(s)); err != nil {
				t.Fatal(err)
			}
		}
		e.Freeze(1 + trial%3)
		loaded, err := NewEncoderFrom(KindTemplate, tm.Source(), 0, e.Unary().Names(), e.Pair().Names())
		if err != nil {
			t.Fatal(err)
		}
		odd := func(id int32) bool { return id%2 == 1 }
		restricted, _, _ := e.Restrict(odd, odd)
		for _, enc := range []*Encoder{e, e.Clone(), loaded, restricted} {
			for range 10 {
				checkFrozen(t, enc, randomSentence(r, ncols, unknown))
			}
		}
	}
}

// TestFrozenIndexTables checks each kind of rule table against the string
// path: dense arrays, packed and wide hash tables, and the two fallbacks
// (a key over 64 bits, too many parses).
func TestFrozenIndexTables(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	words := make([]string, 300)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	wide := strings.Repeat("%x[0,0]/", 20)
	for _, tc := range []struct {
		name, template string
		alphabet       []string
		check          func(*ruleTable, *ruleGroup) bool
	}{
		{"dense", "U:%x[-1,0]/%x[1,0]\n", []string{"a", "b", "c", "_B-1", ""}, func(_ *ruleTable, g *ruleGroup) bool { return g.dense != nil }},
		{"packed", "U:%x[-1,0]/%x[0,0]/%x[1,0]\n", words, func(_ *ruleTable, g *ruleGroup) bool { return g.slots != nil && g.kw == 1 }},
		{"wide", "U:%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]\n", words, func(_ *ruleTable, g *ruleGroup) bool { return g.slots != nil && g.kw == 2 }},
		{"wide key", "U:" + wide + "\n", words, func(r *ruleTable, _ *ruleGroup) bool { return r.fallback }},
		{"parses", "U:%x[-1,0]%x[0,0]%x[1,0]\n", []string{"", "a", "aa", "aaa", "aaaa"}, func(r *ruleTable, _ *ruleGroup) bool { return r.fallback }},
		{"far rows, no padding", "U:%x[-9,0]/%x[0,0]/%x[2,0]\nU:%x[1,0]/%x[10,0]\n", []string{"a", "b", "_B-1", "_B-9", "_B+1", "_B+9", "_B+10"}, func(_ *ruleTable, g *ruleGroup) bool { return g != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := MustCompile(tc.template)
			e := NewTemplateEncoder(tm)
			for range 200 {
				if err := e.Count(Columns(randomSentence(r, 1, tc.alphabet))); err != nil {
					t.Fatal(err)
				}
			}
			e.Freeze(0)
			rs := &e.frozen().unary
			tb := &rs.tabs[0]
			var g *ruleGroup
			if !tb.fallback {
				g = &rs.groups[tb.group]
			}
			if !tc.check(tb, g) {
				t.Fatalf("rule table: fallback %v, group %+v: not of the kind tested", tb.fallback, g)
			}
			if far := strings.Contains(tc.name, "far"); e.frozen().padded == far {
				t.Fatalf("padded is %v", !far)
			}
			for range 200 {
				checkFrozen(t, e, randomSentence(r, 1, tc.alphabet))
			}
		})
	}
}

// TestFrozenIndexCoNLL checks the frozen index against the string path on
// the CoNLL-2000 training set with the chunking template: every row of
// every sentence, after a frequency cutoff (so that there are unknown
// attributes and unknown cell values).
func TestFrozenIndexCoNLL(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the CoNLL-2000 training set")
	}
	sents, _ := readCoNLL(t, conllTrain)
	tm := readTemplate(t, "testdata/chunking.template")
	e := NewTemplateEncoder(tm)
	for _, s := range sents[:len(sents)/2] {
		if err := e.Count(Columns(s.cols)); err != nil {
			t.Fatal(err)
		}
	}
	e.Freeze(2)
	for _, s := range sents {
		checkFrozen(t, e, s.cols)
	}
}

// TestFrozenIndexEmptyDictionary checks a frozen encoder that knows no
// attribute at all: every row is empty.
func TestFrozenIndexEmptyDictionary(t *testing.T) {
	e, err := NewEncoderFrom(KindTemplate, "U00:%x[0,0]\nB:%x[-1,0]%x[0,0]\n", 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkFrozen(t, e, [][]string{{"a"}, {""}, {"_B-1"}})
}

// TestSortDedup checks sortDedup against slices.Sort and slices.Compact on
// random rows with repeats, short (insertion) and long (slices.Sort).
func TestSortDedup(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 20000 {
		ids := make([]int32, r.IntN(60))
		for i := range ids {
			ids[i] = int32(r.IntN(1 + r.IntN(100)))
		}
		want := slices.Clone(ids)
		slices.Sort(want)
		want = slices.Compact(want)
		if got := sortDedup(slices.Clone(ids)); !slices.Equal(got, want) {
			t.Fatalf("sortDedup(%v) = %v, want %v", ids, got, want)
		}
	}
}
