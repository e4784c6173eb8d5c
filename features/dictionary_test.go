package features

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// refNames is the reference of a dictionary: a map of strings and the
// names in id order.
type refNames struct {
	ids   map[string]int32
	names []string
}

func (r *refNames) add(name string) int32 {
	if id, ok := r.ids[name]; ok {
		return id
	}
	r.ids[name] = int32(len(r.names))
	r.names = append(r.names, name)
	return r.ids[name]
}

// checkNames checks every name of ref and some unknown ones against d's
// ID and lookup.
func checkNames(t *testing.T, what string, d *Dictionary, ref *refNames) {
	t.Helper()
	if !slices.Equal(d.names, ref.names) {
		t.Fatalf("%s: names differ from the reference's", what)
	}
	for name, want := range ref.ids {
		if id, ok := d.ID(name); !ok || id != want {
			t.Fatalf("%s: ID(%q) = %d, %v; want %d", what, name, id, ok, want)
		}
		if id, ok := d.lookup([]byte(name)); !ok || id != want {
			t.Fatalf("%s: lookup(%q) = %d, %v; want %d", what, name, id, ok, want)
		}
	}
	for _, name := range []string{"", "zz", "unknown name", "a-b-c-d-e"} {
		if _, known := ref.ids[name]; known {
			continue
		}
		if id, ok := d.ID(name); ok {
			t.Fatalf("%s: ID(%q) = %d for an unknown name", what, name, id)
		}
		if id, ok := d.lookup([]byte(name)); ok {
			t.Fatalf("%s: lookup(%q) = %d for an unknown name", what, name, id)
		}
	}
}

// TestDictionaryHashed runs the dictionary's operations (Add, addBytes,
// insert, a pruning Freeze, Subset, Merge, NewDictionaryFrom) against a
// map of strings, with the real hash and with a hash of the length only,
// under which most names clash (the side map).
func TestDictionaryHashed(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 49))
	for _, weak := range []bool{false, true} {
		what := fmt.Sprintf("weak %v", weak)
		d := NewDictionary()
		d.weak = weak
		ref := &refNames{ids: map[string]int32{}}
		counts := map[string]int64{}
		for range 3000 {
			name := fmt.Sprintf("n%d", rng.IntN(900))
			if rng.IntN(4) == 0 {
				name = strings.Repeat("x", rng.IntN(8)) // short names, the empty one among them
			}
			var id int32
			var err error
			switch rng.IntN(3) {
			case 0:
				id, err = d.Add(name)
				counts[name]++
			case 1:
				id, err = d.addBytes([]byte(name))
			default:
				var ok bool
				if id, ok = d.ID(name); !ok {
					id, err = d.insert(name)
				}
			}
			if err != nil || id != ref.add(name) {
				t.Fatalf("%s: %q got id %d (%v), want %d", what, name, id, err, ref.ids[name])
			}
		}
		if weak && len(d.clash) == 0 {
			t.Fatalf("%s: no name clashed", what)
		}
		checkNames(t, what, d, ref)

		// Merge a second dictionary's names: some known, some new.
		src := NewDictionary()
		src.weak = weak
		for i := range 400 {
			src.Add(fmt.Sprintf("n%d", 700+i))
		}
		remap, err := d.Merge(src)
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range src.names {
			if remap[i] != ref.add(name) {
				t.Fatalf("%s: Merge mapped %q to %d, want %d", what, name, remap[i], ref.ids[name])
			}
			counts[name]++
		}
		checkNames(t, what+", merged", d, ref)

		// A subset, and a pruning freeze: renumbered, found again.
		sub, _ := d.Subset(func(id int32) bool { return id%3 != 1 })
		sref := &refNames{ids: map[string]int32{}}
		for id, name := range ref.names {
			if id%3 != 1 {
				sref.add(name)
			}
		}
		checkNames(t, what+", subset", sub, sref)
		d.Freeze(2)
		fref := &refNames{ids: map[string]int32{}}
		for _, name := range ref.names {
			if counts[name] >= 2 {
				fref.add(name)
			}
		}
		checkNames(t, what+", frozen with min-freq 2", d, fref)

		from, err := NewDictionaryFrom(ref.names)
		if err != nil {
			t.Fatal(err)
		}
		checkNames(t, what+", from names", from, ref)
	}
	if _, err := NewDictionaryFrom([]string{"a", "b", "a"}); err == nil {
		t.Fatal("NewDictionaryFrom: no error for a repeated name")
	}
}

// TestDictionaryLookupNoAllocs checks that looking a long name up in bytes,
// known or not, clashing or not, allocates nothing.
func TestDictionaryLookupNoAllocs(t *testing.T) {
	for _, weak := range []bool{false, true} {
		d := NewDictionary()
		d.weak = weak
		long := strings.Repeat("attribute/", 10)
		for i := range 5 {
			if _, err := d.insert(long + fmt.Sprint(i)); err != nil {
				t.Fatal(err)
			}
		}
		known, unknown := []byte(long+"3"), []byte(long+"9")
		allocs := testing.AllocsPerRun(100, func() {
			if _, ok := d.lookup(known); !ok {
				t.Fatal("known name not found")
			}
			if _, ok := d.lookup(unknown); ok {
				t.Fatal("unknown name found")
			}
		})
		if allocs != 0 {
			t.Fatalf("weak %v: %v allocations per look-up", weak, allocs)
		}
	}
}

// TestEncodeClashingHashes encodes with dictionaries whose names all clash
// but by length: the rows, names and counts are the string path's.
func TestEncodeClashingHashes(t *testing.T) {
	tm := MustCompile(growTemplate)
	rng := rand.New(rand.NewPCG(40, 50))
	e := NewTemplateEncoder(tm)
	e.unary.weak, e.pair.weak = true, true
	ref := [2]*refDict{newRefDict(), newRefDict()}
	var c sparse.Corpus
	var want [2][][]int32
	for range 400 {
		cols := make(Columns, 1+rng.IntN(6))
		for k := range cols {
			cols[k] = []string{growCells[rng.IntN(len(growCells))], growCells[rng.IntN(len(growCells))]}
		}
		if err := e.Encode(&c, cols, nil, true); err != nil {
			t.Fatal(err)
		}
		appendWant(t, tm, ref, &want, cols)
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
