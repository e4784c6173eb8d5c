package features

import (
	"math/bits"
	"strconv"
	"strings"
)

// growIndex caches, while a template encoder's dictionaries grow
// (training), the attribute id of a rule at a tuple of cell values, so
// that an attribute seen before is found without building its string,
// hashing it and comparing it with the stored name (the string path of
// expand, which BenchmarkEncodeCoNLL2000Floor bounds from below).
//
// Every cell a macro reads is turned once per token into a value id of its
// column (one look-up in a map of the column's distinct values, far
// smaller than the dictionary); a boundary cell (_B-1, _B+1, ...) is the
// value of its string in the same map. A rule's attribute at a position is
// then the tuple of its macros' value ids: an index into a slice for a
// rule with one macro, a 63-bit key of an open-addressing table for up to
// three (21 bits each). Value ids and strings are one-to-one per column,
// so a tuple determines the rule's expansion, and the cache maps it to the
// dictionary's id of that string, found or added by the string path on
// the tuple's first occurrence. Ids never change while a dictionary grows
// (only a pruning Freeze renumbers, and a frozen dictionary never uses the
// cache), so the ids, rows and counts are the string path's exactly. A
// rule of more macros, or a tuple with a value id of 2^21 or more, takes
// the string path every time.
type growIndex struct {
	own   [2]int             // by rule set: the names this cache added to the set's dictionary
	vocab []map[string]int32 // by column of the rows the macros read: value ids (nil: unread)
	bnd   []map[int]int32    // by column: value id of the boundary cell at offset k (<0: _B-k, >0: _B+k)
	rules [2][]growRule      // by rule set (0 unary, 1 pair) and rule
	cells []int32            // value ids of a sequence's cells, token-major, width per token
	width int                // the template's row width
	read  []int              // the columns macros read
}

// growRule is the cache of one rule.
type growRule struct {
	macros []growMacro
	direct []int32   // one macro: id by value id, -1 unknown
	table  growTable // no macro, two or three: id by key
	string bool      // more than three macros: always the string path
	fresh  bool      // a new tuple is a new name (freshRules)
}

// growMacro is one macro of a rule: the row offset and column it reads.
type growMacro struct{ row, col int }

// keyBits is the width of one value id in a table key.
const keyBits = 21

// newGrowIndex returns the empty cache of template t.
func newGrowIndex(t *Template) *growIndex {
	g := &growIndex{width: t.width(), vocab: make([]map[string]int32, t.width()), bnd: make([]map[int]int32, t.width())}
	for set, rules := range [2][]rule{t.unary, t.pair} {
		g.rules[set] = make([]growRule, len(rules))
		for k := range rules {
			r := &g.rules[set][k]
			for _, s := range rules[k].segs {
				if !s.macro {
					continue
				}
				r.macros = append(r.macros, growMacro{row: s.row, col: s.col})
				if g.vocab[s.col] == nil {
					g.vocab[s.col], g.bnd[s.col] = map[string]int32{}, map[int]int32{}
					g.read = append(g.read, s.col)
				}
			}
			r.string = len(r.macros) > 3
		}
		for k, fresh := range freshRules(rules) {
			g.rules[set][k].fresh = fresh
		}
	}
	return g
}

// freshRules reports, rule by rule, whether a tuple the rule's cache has
// not seen is a name its dictionary does not hold, so that the string
// path may add it without looking it up: a rule of one macro, whose name
// is prefix + cell + suffix (one name per cell value, and value ids and
// cells are one-to-one), and whose prefix (its text before the macro) is
// not a prefix of another rule's, nor another's of it: a name of such a
// rule differs from every other rule's within both prefixes. It holds
// while every name of the dictionary was added through the cache (own;
// expand checks it).
func freshRules(rules []rule) []bool {
	prefix := make([]string, len(rules))
	for k := range rules {
		for _, s := range rules[k].segs {
			if s.macro {
				break
			}
			prefix[k] += s.lit
		}
	}
	fresh := make([]bool, len(rules))
	for k := range rules {
		macros := 0
		for _, s := range rules[k].segs {
			if s.macro {
				macros++
			}
		}
		fresh[k] = macros == 1
		for q := range rules {
			if q != k && (strings.HasPrefix(prefix[q], prefix[k]) || strings.HasPrefix(prefix[k], prefix[q])) {
				fresh[k] = false
			}
		}
	}
	return fresh
}

// intern returns the value id of s in column col, adding it (a copy: the
// caller's cells may live in a reused buffer).
func (g *growIndex) intern(col int, s string) int32 {
	m := g.vocab[col]
	v, ok := m[s]
	if !ok {
		v = int32(len(m))
		m[strings.Clone(s)] = v
	}
	return v
}

// setCells interns the cells of a sequence (rows as derive returns them).
func (g *growIndex) setCells(cols [][]string) {
	g.cells = g.cells[:0]
	for _, tok := range cols {
		for c := range g.width {
			v := int32(-1)
			if g.vocab[c] != nil {
				v = g.intern(c, tok[c])
			}
			g.cells = append(g.cells, v)
		}
	}
}

// value returns the value id of the cell of column col at row i of a
// sequence of n tokens (a boundary cell outside it).
func (g *growIndex) value(col, i, n int) int32 {
	var k int
	switch {
	case i < 0:
		k = i
	case i >= n:
		k = i - n + 1
	default:
		return g.cells[i*g.width+col]
	}
	v, ok := g.bnd[col][k]
	if !ok {
		b := "_B+" + strconv.Itoa(k)
		if k < 0 {
			b = "_B-" + strconv.Itoa(-k)
		}
		v = g.intern(col, b)
		g.bnd[col][k] = v
	}
	return v
}

// key returns the cache key of rule r at position t of a sequence of n
// tokens, and false when the rule has no key there (the string path).
func (g *growIndex) key(r *growRule, t, n int) (uint64, bool) {
	if r.string {
		return 0, false
	}
	var key uint64
	for j, m := range r.macros {
		v := g.value(m.col, t+m.row, n)
		if len(r.macros) > 1 && v >= 1<<keyBits {
			return 0, false
		}
		key |= uint64(v) << (keyBits * j)
	}
	return key, true
}

// get returns the cached id of rule r for key.
func (r *growRule) get(key uint64) (int32, bool) {
	if len(r.macros) == 1 {
		if key < uint64(len(r.direct)) && r.direct[key] >= 0 {
			return r.direct[key], true
		}
		return 0, false
	}
	return r.table.get(key)
}

// put caches id for key.
func (r *growRule) put(key uint64, id int32) {
	if len(r.macros) != 1 {
		r.table.put(key, id)
		return
	}
	for uint64(len(r.direct)) <= key {
		r.direct = append(r.direct, -1)
	}
	r.direct[key] = id
}

// expand is Encoder.expand through the cache: the ids of rule set set
// (rules, dictionary d) at position t of cols, whose cells setCells has
// interned; d must be growing.
func (g *growIndex) expand(e *Encoder, set int, rules []rule, d *Dictionary, cols [][]string, t int, grow bool) ([]int32, error) {
	ids := e.ids[:0]
	for k := range rules {
		r := &g.rules[set][k]
		key, cached := g.key(r, t, len(cols))
		id, ok := int32(0), false
		if cached {
			id, ok = r.get(key)
		}
		if !ok {
			e.buf = appendRule(e.buf[:0], &rules[k], cols, t)
			// A fresh rule's new tuple is a new name while every name came
			// through the cache (freshRules): no look-up.
			if !r.fresh || d.Len() != g.own[set] {
				id, ok = d.lookup(e.buf)
			}
			if !ok {
				if !grow {
					continue
				}
				var err error
				if id, err = d.insert(string(e.buf)); err != nil {
					return nil, err
				}
				g.own[set]++
			}
			if cached {
				r.put(key, id)
			}
		}
		ids = append(ids, id)
	}
	ids = sortDedup(ids)
	e.ids = ids
	if grow {
		count(d, ids)
	}
	return ids, nil
}

// growTable is an open-addressing hash table from 63-bit keys to ids,
// at most 2/3 full (a slot's key is the key + 1; 0 marks an empty slot).
type growTable struct {
	slots []growSlot
	n     int
	shift uint
}

type growSlot struct {
	key uint64
	id  int32
}

// get returns the id of key.
func (t *growTable) get(key uint64) (int32, bool) {
	if t.slots == nil {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := hashKey(key, t.shift); ; i = (i + 1) & mask {
		switch s := &t.slots[i]; s.key {
		case key + 1:
			return s.id, true
		case 0:
			return 0, false
		}
	}
}

// put sets the id of a key the table does not hold.
func (t *growTable) put(key uint64, id int32) {
	if 3*(t.n+1) > 2*len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	i := hashKey(key, t.shift)
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = growSlot{key: key + 1, id: id}
	t.n++
}

// grow doubles the table (to 1024 slots at first).
func (t *growTable) grow() {
	old := t.slots
	size := max(1024, 2*len(old))
	t.slots, t.n = make([]growSlot, size), 0
	t.shift = uint(64 - bits.Len(uint(size-1)))
	for _, s := range old {
		if s.key != 0 {
			t.put(s.key-1, s.id)
		}
	}
}
