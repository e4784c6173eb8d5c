package features

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// growTemplate reads every kind of rule the cache treats apart: one macro
// (a slice), two and three (a table), none, four (always the string path),
// adjacent macros (a name with several tuples: "ab"+"c" and "a"+"bc"), a
// boundary three rows out, a derived column, a repeated name, and pair
// rules.
const growTemplate = `U00:%x[0,0]
U01:%x[-1,0]/%x[0,0]
U02:%x[0,0]%x[1,0]
U03:%x[-2,1]/%x[-1,1]/%x[0,1]
U04:%x[0,0]/%x[0,1]/%x[1,0]/%x[1,1]
U05:constant
U06:%l[0,0]
U07:%x[-3,0]
U00:%x[0,0]
U08:%x[1,0]%x[2,0]%x[3,1]
B
B01:%x[0,1]/%x[-1,1]
B02:%x[0,0]
`

// growCells are the cell values of the test: prefixes of each other, a
// literal of the template inside, boundary strings, letter case, empty.
var growCells = []string{"a", "b", "ab", "bc", "c", "a/b", "_B-1", "_B+1", "_B+2", "_B-2", "_B+0", "A", "", "x%"}

// TestGrowIndexMatchesStrings encodes random sequences with a growing
// encoder (the cache) and checks every row, the names and the counts of
// both dictionaries against a reference built from Template.Expand's
// strings and a plain map in first-seen order; then sequences with
// grow=false (unknown names skipped, nothing added or counted), and with
// the cache's tables over many keys (so they grow).
func TestGrowIndexMatchesStrings(t *testing.T) {
	tm := MustCompile(growTemplate)
	rng := rand.New(rand.NewPCG(40, 44))
	e := NewTemplateEncoder(tm)
	ref := [2]*refDict{newRefDict(), newRefDict()}
	var c sparse.Corpus
	var want [2][][]int32
	for i := range 2000 {
		grow := i%5 != 4
		cols := make([][]string, 1+rng.IntN(6))
		for k := range cols {
			cols[k] = []string{growCells[rng.IntN(len(growCells))], growCells[rng.IntN(len(growCells))]}
			if i >= 1000 { // many distinct values: the tables grow
				cols[k][0] += string(rune('a' + rng.IntN(26)))
			}
		}
		if err := e.Encode(&c, Columns(cols), nil, grow); err != nil {
			t.Fatal(err)
		}
		for pos := range cols {
			u, p, err := tm.Expand(cols, pos)
			if err != nil {
				t.Fatal(err)
			}
			want[0] = append(want[0], ref[0].row(u, grow))
			if pos > 0 {
				want[1] = append(want[1], ref[1].row(p, grow))
			} else {
				want[1] = append(want[1], nil)
			}
		}
	}
	for set, m := range []*sparse.Matrix{&c.Unary, &c.Pair} {
		for r := range want[set] {
			if got, _ := m.Row(r); !slices.Equal(got, want[set][r]) {
				t.Fatalf("set %d row %d: %v, want %v", set, r, got, want[set][r])
			}
		}
		checkRefDict(t, e, ref, set)
	}
}

// refDict is the reference dictionary: names in first-seen order, and
// their counts (once per row).
type refDict struct {
	ids    map[string]int32
	names  []string
	counts []int64
}

func newRefDict() *refDict { return &refDict{ids: map[string]int32{}} }

// row returns the sorted distinct ids of names, adding and counting them
// when grow (else skipping unknown ones).
func (d *refDict) row(names []string, grow bool) []int32 {
	var ids []int32
	for _, n := range names {
		id, ok := d.ids[n]
		if !ok {
			if !grow {
				continue
			}
			id = int32(len(d.names))
			d.ids[n] = id
			d.names = append(d.names, n)
			d.counts = append(d.counts, 0)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if grow {
		for _, id := range ids {
			d.counts[id]++
		}
	}
	return ids
}

// TestGrowTable checks the cache's hash table against a map over keys of
// the full 63 bits, including 0, through several doublings.
func TestGrowTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	var tab growTable
	ref := map[uint64]int32{}
	for i := range 5000 {
		key := rng.Uint64() >> 1
		if i%7 == 0 {
			key = uint64(i % 50) // small keys, 0 among them
		}
		if _, ok := ref[key]; !ok {
			tab.put(key, int32(i))
			ref[key] = int32(i)
		}
		probe := rng.Uint64() >> 1
		if id, ok := tab.get(probe); ok != (ref[probe] != 0 || hasKey(ref, probe)) || (ok && id != ref[probe]) {
			t.Fatalf("get(%d) = %d, %v", probe, id, ok)
		}
	}
	for key, want := range ref {
		if id, ok := tab.get(key); !ok || id != want {
			t.Fatalf("get(%d) = %d, %v, want %d", key, id, ok, want)
		}
	}
}

func hasKey(m map[uint64]int32, k uint64) bool {
	_, ok := m[k]
	return ok
}

// freshTemplate has rules whose prefixes are prefixes of each other ("U:"
// and "U:a": cell "ab" of the first and "b" of the second give one name),
// rules with prefixes apart ("Ub:", "B03:" and "B0:"), and rules of two
// macros and of none.
const freshTemplate = `U:%x[0,0]
U:a%x[0,0]
Ub:%x[0,1]
Uc:%x[0,1]/%x[1,0]
Ud:x
B03:%x[0,0]
B0:%x[0,1]
`

// TestFreshRules checks which rules add a new tuple's name without a
// look-up, and that the names, rows and counts are the string path's
// (Template.Expand and a plain map) with them: in one encoder, and in one
// that goes on growing after merging a part (whose names its cache has
// not seen), where no rule may skip the look-up any more.
func TestFreshRules(t *testing.T) {
	tm := MustCompile(freshTemplate)
	if got := freshRules(tm.unary); !slices.Equal(got, []bool{false, false, true, false, false}) {
		t.Fatalf("unary rules fresh %v", got)
	}
	if got := freshRules(tm.pair); !slices.Equal(got, []bool{true, true}) {
		t.Fatalf("pair rules fresh %v", got)
	}
	cells := []string{"a", "b", "ab", "a/b", "_B+1", "x", "ax", ""}
	rng := rand.New(rand.NewPCG(40, 47))
	ref := [2]*refDict{newRefDict(), newRefDict()}
	var want, got [2][][]int32
	// encode encodes n random sequences with enc, appends their rows (ids
	// mapped by remap, nil: none) to got and the reference's to want.
	encode := func(enc *Encoder, n int, remap [2][]int32) {
		var c sparse.Corpus
		for range n {
			cols := make(Columns, 1+rng.IntN(5))
			for k := range cols {
				cols[k] = []string{cells[rng.IntN(len(cells))], cells[rng.IntN(len(cells))] + string(rune('a'+rng.IntN(20)))}
			}
			if err := enc.Encode(&c, cols, nil, true); err != nil {
				t.Fatal(err)
			}
			appendWant(t, tm, ref, &want, cols)
		}
		for set, m := range []*sparse.Matrix{&c.Unary, &c.Pair} {
			for r := range m.Rows() {
				ids, _ := m.Row(r)
				row := slices.Clone(ids)
				if remap[set] != nil {
					for k, id := range row {
						row[k] = remap[set][id]
					}
					slices.Sort(row)
				}
				got[set] = append(got[set], row)
			}
		}
	}
	e := NewTemplateEncoder(tm)
	encode(e, 300, [2][]int32{})
	if e.gidx.own[0] != e.Unary().Len() || e.gidx.own[1] != e.Pair().Len() {
		t.Fatalf("the cache added %v names of %d and %d", e.gidx.own, e.Unary().Len(), e.Pair().Len())
	}
	p, _ := e.Part()
	var pending [2][][]int32
	saved := got
	got = pending
	encode(p, 100, [2][]int32{})
	pending, got = got, saved
	ru, rp, err := e.MergePart(p)
	if err != nil {
		t.Fatal(err)
	}
	for set, remap := range [2][]int32{ru, rp} {
		for _, row := range pending[set] {
			for k, id := range row {
				row[k] = remap[id]
			}
			slices.Sort(row)
			got[set] = append(got[set], row)
		}
	}
	encode(e, 300, [2][]int32{}) // names the cache has not seen are in the dictionary now
	for set := range 2 {
		if len(got[set]) != len(want[set]) {
			t.Fatalf("set %d: %d rows, want %d", set, len(got[set]), len(want[set]))
		}
		for r := range want[set] {
			if !slices.Equal(got[set][r], want[set][r]) {
				t.Fatalf("set %d row %d: %v, want %v", set, r, got[set][r], want[set][r])
			}
		}
		checkRefDict(t, e, ref, set)
	}
}

// appendWant appends the reference rows of cols (Template.Expand's names
// through ref, growing) to want.
func appendWant(t *testing.T, tm *Template, ref [2]*refDict, want *[2][][]int32, cols Columns) {
	t.Helper()
	for pos := range cols {
		u, p, err := tm.Expand(cols, pos)
		if err != nil {
			t.Fatal(err)
		}
		want[0] = append(want[0], ref[0].row(u, true))
		var pr []int32
		if pos > 0 {
			pr = ref[1].row(p, true)
		}
		want[1] = append(want[1], pr)
	}
}

// checkRefDict fails t unless e's dictionary of set (0 unary, 1 pair)
// has the names and counts of the reference ref[set].
func checkRefDict(t *testing.T, e *Encoder, ref [2]*refDict, set int) {
	t.Helper()
	d := []*Dictionary{e.Unary(), e.Pair()}[set]
	if !slices.Equal(d.Names(), ref[set].names) {
		t.Fatalf("set %d: names %q, want %q", set, d.Names(), ref[set].names)
	}
	for id, n := range ref[set].counts {
		if d.Count(int32(id)) != n {
			t.Fatalf("set %d: count of %q %d, want %d", set, ref[set].names[id], d.Count(int32(id)), n)
		}
	}
}
