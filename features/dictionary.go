package features

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
)

// ErrFrozen is returned when an operation would add attributes to a frozen
// Dictionary (for example encoding with grow=true after Freeze).
var ErrFrozen = errors.New("features: dictionary is frozen")

// Dictionary maps attribute strings to dense int32 ids 0..Len()-1 and back,
// in the order the strings were first seen. It grows during training and is
// frozen for tagging: a frozen dictionary never changes, and lookups of
// unknown strings simply fail.
//
// A Dictionary also counts how many times each attribute was added (once per
// position where it occurs), for the minimum-frequency cutoff of Freeze.
//
// A frozen Dictionary is safe for concurrent use by multiple goroutines; a
// growing one is not.
//
// Names are found through a 64-bit hash of them (index: a map without
// pointers, cheaper to grow than a map of strings and nothing for the
// garbage collector to scan) and a comparison with the stored name; the
// rare name whose hash another name has is in clash. Ids do not depend on
// the hash.
type Dictionary struct {
	index  map[uint64]int32 // hash -> id of the first name with that hash
	clash  map[string]int32 // names whose hash an earlier name has (nil: none)
	names  []string         // id -> name
	counts []int64          // id -> occurrences, while growing
	frozen bool
	weak   bool // tests: a hash of the length only, so that names clash
}

// nameSeed seeds the names' hashes (per process: no id depends on it).
var nameSeed = maphash.MakeSeed()

// hash returns the hash of name.
func (d *Dictionary) hash(name string) uint64 {
	if d.weak {
		return uint64(len(name))
	}
	return maphash.String(nameSeed, name)
}

// get returns the id of name, whose hash is h.
func (d *Dictionary) get(h uint64, name string) (int32, bool) {
	id, ok := d.index[h]
	if !ok {
		return 0, false
	}
	if d.names[id] == name {
		return id, true
	}
	id, ok = d.clash[name]
	return id, ok
}

// put records that name, which d does not hold, has id.
func (d *Dictionary) put(name string, id int32) {
	h := d.hash(name)
	if d.index == nil {
		d.index = make(map[uint64]int32)
	}
	if _, taken := d.index[h]; !taken {
		d.index[h] = id
		return
	}
	if d.clash == nil {
		d.clash = make(map[string]int32)
	}
	d.clash[name] = id
}

// reindex rebuilds the index of the names.
func (d *Dictionary) reindex() {
	d.index, d.clash = make(map[uint64]int32, len(d.names)), nil
	for id, name := range d.names {
		d.put(name, int32(id))
	}
}

// NewDictionary returns an empty, growing dictionary. The zero Dictionary is
// also empty and growing.
func NewDictionary() *Dictionary {
	return &Dictionary{index: make(map[uint64]int32)}
}

// NewDictionaryFrom returns a frozen dictionary in which names[i] has id i,
// as stored in a model file. It returns an error if a name occurs twice or
// there are more than math.MaxInt32 names. The slice is copied.
func NewDictionaryFrom(names []string) (*Dictionary, error) {
	if len(names) > math.MaxInt32 {
		return nil, fmt.Errorf("features: NewDictionaryFrom: %d names, more than the limit %d", len(names), math.MaxInt32)
	}
	d := &Dictionary{index: make(map[uint64]int32, len(names)), names: append([]string(nil), names...), frozen: true}
	for i, s := range d.names {
		if j, dup := d.get(d.hash(s), s); dup {
			return nil, fmt.Errorf("features: NewDictionaryFrom: name %q at index %d repeats index %d", s, i, j)
		}
		d.put(s, int32(i))
	}
	return d, nil
}

// Len returns the number of attributes (the next id to be assigned).
func (d *Dictionary) Len() int { return len(d.names) }

// Frozen reports whether the dictionary is frozen.
func (d *Dictionary) Frozen() bool { return d.frozen }

// ID returns the id of name and whether it is known.
func (d *Dictionary) ID(name string) (int32, bool) {
	return d.get(d.hash(name), name)
}

// Name returns the string of id. It panics if id is out of range.
func (d *Dictionary) Name(id int32) string { return d.names[id] }

// Names returns a copy of all names in id order (what NewDictionaryFrom takes).
func (d *Dictionary) Names() []string { return append([]string(nil), d.names...) }

// Count returns how many times id was added while the dictionary was growing
// (0 for dictionaries made by NewDictionaryFrom, and after a Freeze that did
// not prune).
func (d *Dictionary) Count(id int32) int64 {
	if int(id) < len(d.counts) {
		return d.counts[id]
	}
	return 0
}

// Add returns the id of name, adding it (and counting one occurrence) if the
// dictionary is growing. On a frozen dictionary it returns ErrFrozen for an
// unknown name, and the id without error for a known one.
func (d *Dictionary) Add(name string) (int32, error) {
	if id, ok := d.ID(name); ok {
		if !d.frozen {
			d.counts[id]++
		}
		return id, nil
	}
	if d.frozen {
		return -1, ErrFrozen
	}
	id, err := d.insert(name)
	if err == nil {
		d.counts[id]++
	}
	return id, err
}

// insert adds name with a count of 0; callers count occurrences themselves.
func (d *Dictionary) insert(name string) (int32, error) {
	if len(d.names) >= math.MaxInt32 {
		return -1, fmt.Errorf("features: dictionary full (%d attributes)", len(d.names))
	}
	id := int32(len(d.names))
	d.names = append(d.names, name)
	d.put(name, id)
	d.counts = append(d.counts, 0)
	return id, nil
}

// lookup returns the id of the string in b without allocating.
func (d *Dictionary) lookup(b []byte) (int32, bool) {
	h := uint64(len(b))
	if !d.weak {
		h = maphash.Bytes(nameSeed, b)
	}
	// get's steps, so that string(b) is only compared and used as a map
	// key, which allocates nothing.
	id, ok := d.index[h]
	if !ok {
		return 0, false
	}
	if d.names[id] == string(b) {
		return id, true
	}
	id, ok = d.clash[string(b)]
	return id, ok
}

// addBytes is Add for a byte slice; it allocates only for a new name. It does
// not count: callers count once per position after removing duplicates.
func (d *Dictionary) addBytes(b []byte) (int32, error) {
	if id, ok := d.lookup(b); ok {
		return id, nil
	}
	if d.frozen {
		return -1, ErrFrozen
	}
	return d.insert(string(b))
}

// Freeze stops the dictionary from growing. If minFreq > 1 it first removes
// every attribute counted fewer than minFreq times and renumbers the others
// densely, keeping their first-seen order (so the result is deterministic).
// It returns the map from old to new ids (-1 for removed attributes), or nil
// when no id changed. Calling Freeze on a frozen dictionary does nothing and
// returns nil.
//
// Ids handed out before a pruning Freeze are invalid afterwards: corpora
// encoded with them must be encoded again (or remapped with the returned map).
func (d *Dictionary) Freeze(minFreq int) []int32 {
	if d.frozen {
		return nil
	}
	d.frozen = true
	if minFreq <= 1 {
		return nil
	}
	remap := make([]int32, len(d.names))
	n := int32(0)
	for id, c := range d.counts {
		if c < int64(minFreq) {
			remap[id] = -1
			continue
		}
		remap[id] = n
		d.names[n] = d.names[id]
		d.counts[n] = c
		n++
	}
	clear(d.names[n:])
	d.names = d.names[:n:n]
	d.counts = d.counts[:n:n]
	d.reindex()
	return remap
}

// Subset returns a frozen dictionary holding the names of d whose id
// satisfies keep, renumbered densely in id order, and the map from the ids
// of d to the new ids (-1 for the names left out). Because the order is
// kept, ids that were increasing stay increasing. d is not changed; the
// result has no counts.
func (d *Dictionary) Subset(keep func(id int32) bool) (*Dictionary, []int32) {
	remap := make([]int32, len(d.names))
	var names []string
	for id := range d.names {
		if !keep(int32(id)) {
			remap[id] = -1
			continue
		}
		remap[id] = int32(len(names))
		names = append(names, d.names[id])
	}
	s := &Dictionary{names: names, frozen: true, weak: d.weak}
	s.reindex()
	return s, remap
}

// Merge adds to the growing d the names of src that d does not hold, in
// src's id order, and src's counts to d's, and returns the map from src's
// ids to d's. A name's id is its first occurrence, so growing dictionaries
// over consecutive parts of a corpus, each on its own, and merging them
// into the first in order gives the ids and counts of one dictionary grown
// over the whole corpus.
func (d *Dictionary) Merge(src *Dictionary) ([]int32, error) {
	if d.frozen {
		return nil, ErrFrozen
	}
	remap := make([]int32, len(src.names))
	for i, name := range src.names {
		id, ok := d.ID(name)
		if !ok {
			var err error
			if id, err = d.insert(name); err != nil {
				return nil, err
			}
		}
		remap[i] = id
		d.counts[id] += src.Count(int32(i))
	}
	return remap, nil
}
