package features

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// frozenIndex finds the attribute ids of template rules against frozen
// dictionaries without building attribute strings. It is what tagging uses:
// the growing (training) path keeps the string dictionary, and the ids it
// gives are the string path's, row for row (frozen_test.go checks it).
//
// # Design
//
// Every cell a macro reads is turned once per token into a small value id
// (one map lookup per token and column, see colVocab), and the attribute of
// a rule at a position is then the tuple of the value ids of its macros,
// as a mixed-radix key looked up in the rule's table (ruleTable) of key →
// attribute id: a plain array when the key space is small (a rule with
// one macro, or over a small column such as POS tags), an open-addressing
// hash table otherwise. That is one probe of flat memory instead of
// building a string, hashing it and comparing it with the stored name.
// Boundary cells (_B-1, _B+1, ...) are the strings CRF++ gives them,
// looked up in the same vocabularies once at build time and written
// around each sequence's cells (padding), so that no position needs a
// boundary check.
//
// The tables are built from the dictionary names by parsing every name
// against every rule (parseName): a name can be the expansion of several
// tuples when a cell holds a literal of the rule ("a/b" + "/" + "c" and "a"
// + "/" + "b/c"), so every parse is entered, and the tables hold exactly the
// tuples whose expansion is a name. A cell value that no parse produced for
// its column cannot be part of any known attribute, so it gets value id -1
// and the rules reading it are skipped, as the string path skips unknown
// attributes.
//
// A rule whose key space exceeds 2^64, or whose names have too many parses
// (adjacent macros without a literal between them), keeps the string path
// (fallback).
//
// # Memory
//
// A hash table slot is 8 bytes (key<<32 | id) for keys below 2^32 and 16
// bytes above, and hash tables are at most 2/3 full: 12 to 24 bytes per
// (rule, tuple), in practice one tuple per attribute. A dense array takes 4
// bytes per possible key and is only used when that is at most twice the
// packed hash table's size. The vocabularies hold one map entry per distinct
// cell value per column, whose strings are substrings of the names (no
// copies). For the CoNLL-2000 chunking template and its 338,551 attributes
// (no cutoff) the tables take 5.0 MB (14.8 bytes per attribute), 5.9 MB
// (17.5 bytes per attribute) with the vocabularies' maps (19,475 words and
// 48 POS tags); building it allocates about 24 MB more, garbage once
// built. The Dictionary's own string map stays, for Dictionary.ID and the
// fallback rules.
type frozenIndex struct {
	vocab []colVocab // by template column; nil ids for columns no macro reads
	cols  []int      // the columns macros read, in order; vals has len(cols) per token
	slot  []int      // slot[c]: index of column c in cols, -1 when unread
	unary ruleSet    // the unary rules
	pair  ruleSet    // the pair rules

	// Boundary padding: when the rules read at most maxPad rows before and
	// after the current one, internCells writes padLo virtual positions
	// before the tokens and padHi after them, whose cells are the value
	// ids of _B-padLo.._B-1 and _B+1.._B+padHi (pad holds them, w per
	// position, in that order), so that every position reads its rows
	// without boundary checks. padded is false for larger offsets, which
	// are resolved per macro (macroRef.bnd).
	padded       bool
	padLo, padHi int
	pad          []int32
}

// maxPad is the largest row offset the boundary padding covers: CRF++
// only accepts offsets in [-8, 8].
const maxPad = 8

// ruleSet is the tables of the unary or of the pair rules of a template.
type ruleSet struct {
	tabs     []ruleTable // by rule
	lo, hi   int         // smallest and largest row offset of the tables' macros
	fallback bool        // some rule keeps the string path
}

// colVocab maps the cell values of one column to value ids.
type colVocab struct {
	ids map[string]int32
}

// macroRef is one macro of a rule, ready for key building.
type macroRef struct {
	row    int     // row offset
	slot   int     // index of the macro's column in frozenIndex.cols
	off    int     // row*len(frozenIndex.cols) + slot: the cell from the current token's first
	stride uint64  // weight of the value id in the key
	bnd    []int32 // bnd[k-1]: value id of _B-k (row < 0) or _B+k (row > 0), -1 if unknown
}

// ruleTable maps the keys of one rule to attribute ids. The key of a tuple
// of value ids is their mixed-radix number (Σ v_j·stride_j, stride_j the
// product of the vocabulary sizes of the macros before j), so keys are
// dense in [0, product of the sizes): when that range is small the table
// is a plain array indexed by the key (dense), else an open-addressing
// hash table (packed, or wide for keys of 2^32 and above).
type ruleTable struct {
	fallback bool // use the string path for this rule
	macros   []macroRef
	lo, hi   int         // smallest and largest row offset of the macros: rows t+lo..t+hi are read
	dense    []int32     // dense[key]: attribute id or -1; nil for a hash table
	packed   []uint64    // hash table of keys below 2^32: key<<32 | id, emptySlot when empty
	wide     []tableSlot // hash table of larger keys; empty slots have id -1
	shift    uint        // 64 - log2(len(packed) or len(wide))
}

// tableSlot is a slot of a wide hash table.
type tableSlot struct {
	key uint64
	id  int32
}

// emptySlot marks an empty slot of a packed table (its id part is -1,
// which no attribute has).
const emptySlot = ^uint64(0)

// maxParses bounds the parses of all names of one rule, per name on
// average: beyond it the rule falls back to the string path rather than
// spend quadratic time (adjacent macros split a name at every byte).
const maxParses = 16

// hashKey spreads a key over the table (Fibonacci hashing).
func hashKey(key uint64, shift uint) uint64 { return (key * 0x9E3779B97F4A7C15) >> shift }

// find returns the id of key, or -1.
func (r *ruleTable) find(key uint64) int32 {
	if r.dense != nil {
		if key < uint64(len(r.dense)) {
			return r.dense[key]
		}
		return -1
	}
	return r.findHash(key)
}

// findHash is find in a hash table.
func (r *ruleTable) findHash(key uint64) int32 {
	if r.packed != nil {
		mask := uint64(len(r.packed) - 1)
		for i := hashKey(key, r.shift); ; i = (i + 1) & mask {
			s := r.packed[i]
			if s == emptySlot {
				return -1
			}
			if s>>32 == key {
				return int32(uint32(s))
			}
		}
	}
	mask := uint64(len(r.wide) - 1)
	for i := hashKey(key, r.shift); ; i = (i + 1) & mask {
		s := &r.wide[i]
		if s.id < 0 || s.key == key {
			return s.id
		}
	}
}

// insert enters key → id into an empty table with room for it. A key is
// never entered twice: a tuple has one expansion, and names are distinct.
func (r *ruleTable) insert(key uint64, id int32) {
	switch {
	case r.dense != nil:
		r.dense[key] = id
		return
	case r.packed != nil:
		mask := uint64(len(r.packed) - 1)
		i := hashKey(key, r.shift)
		for r.packed[i] != emptySlot {
			i = (i + 1) & mask
		}
		r.packed[i] = key<<32 | uint64(uint32(id))
		return
	}
	mask := uint64(len(r.wide) - 1)
	i := hashKey(key, r.shift)
	for r.wide[i].id >= 0 {
		i = (i + 1) & mask
	}
	r.wide[i] = tableSlot{key, id}
}

// lazyIndex builds an encoder's frozenIndex once, on first use, and is
// shared by its clones.
type lazyIndex struct {
	once sync.Once
	idx  *frozenIndex
}

// frozen returns the frozen index of e, building it on first use, or nil
// when the dictionaries are still growing (or e reads no template).
func (e *Encoder) frozen() *frozenIndex {
	if e.tmpl == nil || e.lazy == nil || !e.unary.frozen || !e.pair.frozen {
		return nil
	}
	e.lazy.once.Do(func() { e.lazy.idx = newFrozenIndex(e.tmpl, e.unary, e.pair) })
	return e.lazy.idx
}

// parsed holds the parses of the names of one rule: tuples of value ids
// (one per macro) and their attribute ids.
type parsed struct {
	vals []int32
	ids  []int32
	over bool // too many parses: fall back
}

// newFrozenIndex builds the index of template t over the frozen
// dictionaries unary and pair.
func newFrozenIndex(t *Template, unary, pair *Dictionary) *frozenIndex {
	x := &frozenIndex{vocab: make([]colVocab, t.ncols), slot: make([]int, t.ncols)}
	for c := range x.slot {
		x.slot[c] = -1
	}
	for _, rules := range [][]rule{t.unary, t.pair} {
		for k := range rules {
			for _, s := range rules[k].segs {
				if s.macro && x.slot[s.col] < 0 {
					x.slot[s.col] = len(x.cols)
					x.cols = append(x.cols, s.col)
					x.vocab[s.col].ids = make(map[string]int32)
				}
			}
		}
	}
	pu := x.parseAll(t.unary, unary)
	pp := x.parseAll(t.pair, pair)
	x.unary = x.ruleSet(t.unary, pu)
	x.pair = x.ruleSet(t.pair, pp)
	x.padLo, x.padHi = -min(x.unary.lo, x.pair.lo), max(x.unary.hi, x.pair.hi)
	if x.padded = x.padLo <= maxPad && x.padHi <= maxPad; x.padded {
		x.pad = x.boundaryCells()
	} else {
		x.padLo, x.padHi = 0, 0
	}
	return x
}

// boundaryCells returns the cells of the padding positions.
func (x *frozenIndex) boundaryCells() []int32 {
	var pad []int32
	for k := -x.padLo; k <= x.padHi; k++ {
		if k == 0 {
			continue
		}
		for _, c := range x.cols {
			pad = append(pad, x.boundary(c, k)[abs(k)-1])
		}
	}
	return pad
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// parseAll parses every name of d against every rule whose leading
// literal it starts with.
func (x *frozenIndex) parseAll(rules []rule, d *Dictionary) []parsed {
	out := make([]parsed, len(rules))
	budget := make([]int, len(rules))
	byLead := map[string][]int{} // leading literal → rules
	var leadLens []int           // the distinct lengths of leading literals
	for k := range rules {
		budget[k] = maxParses*len(d.names) + 1024
		lead := ""
		if segs := rules[k].segs; len(segs) > 0 && !segs[0].macro {
			lead = segs[0].lit
		}
		if _, ok := byLead[lead]; !ok {
			leadLens = append(leadLens, len(lead))
		}
		byLead[lead] = append(byLead[lead], k)
	}
	slices.Sort(leadLens)
	leadLens = slices.Compact(leadLens)
	pieces := make([]string, 0, 8)
	var k int // the rule being parsed, for emit
	var id int32
	emit := func(pcs []string) {
		p := &out[k]
		for j, s := range macroSegs(rules[k].segs) {
			p.vals = append(p.vals, x.intern(s.col, pcs[j]))
		}
		p.ids = append(p.ids, id)
	}
	for i, name := range d.names {
		id = int32(i)
		for _, n := range leadLens {
			if n > len(name) {
				break
			}
			for _, k = range byLead[name[:n]] {
				if budget[k] >= 0 {
					parseName(name, rules[k].segs, pieces, &budget[k], emit)
				}
			}
		}
	}
	for k := range out {
		if budget[k] < 0 {
			out[k] = parsed{over: true}
		}
	}
	return out
}

// intern returns the value id of cell value s of column col, adding it.
func (x *frozenIndex) intern(col int, s string) int32 {
	m := x.vocab[col].ids
	v, ok := m[s]
	if !ok {
		v = int32(len(m))
		m[s] = v
	}
	return v
}

// macroSegs returns the macro segments of segs, in order (an iterator
// over a slice without allocating).
func macroSegs(segs []segment) func(func(int, *segment) bool) {
	return func(yield func(int, *segment) bool) {
		j := 0
		for k := range segs {
			if segs[k].macro {
				if !yield(j, &segs[k]) {
					return
				}
				j++
			}
		}
	}
}

// parseName calls emit with the pieces (one per macro) of every way name
// is the expansion of segs, appending to pieces. It spends one unit of
// *budget per piece tried and stops when *budget goes negative.
func parseName(name string, segs []segment, pieces []string, budget *int, emit func([]string)) {
	if len(segs) == 0 {
		if name == "" {
			emit(pieces)
		}
		return
	}
	s := &segs[0]
	if !s.macro {
		if strings.HasPrefix(name, s.lit) {
			parseName(name[len(s.lit):], segs[1:], pieces, budget, emit)
		}
		return
	}
	if len(segs) == 1 { // last segment: the piece is the rest
		*budget--
		emit(append(pieces, name))
		return
	}
	next := &segs[1]
	for end := 0; end <= len(name) && *budget >= 0; end++ {
		if !next.macro { // the piece ends where the next literal starts
			i := strings.Index(name[end:], next.lit)
			if i < 0 {
				return
			}
			end += i
		}
		*budget--
		parseName(name[end:], segs[1:], append(pieces, name[:end]), budget, emit)
	}
}

// ruleSet builds the rule tables from the parses.
func (x *frozenIndex) ruleSet(rules []rule, ps []parsed) ruleSet {
	rs := ruleSet{tabs: make([]ruleTable, len(rules))}
	for k := range rules {
		x.table(&rs.tabs[k], &rules[k], &ps[k])
		tb := &rs.tabs[k]
		if tb.fallback {
			rs.fallback = true
			continue
		}
		rs.lo, rs.hi = min(rs.lo, tb.lo), max(rs.hi, tb.hi)
	}
	return rs
}

// table builds the table of rule r from its parses p.
func (x *frozenIndex) table(tb *ruleTable, r *rule, p *parsed) {
	if p.over {
		tb.fallback = true
		return
	}
	space, ok := uint64(1), true // the number of possible keys
	for j, s := range macroSegs(r.segs) {
		size := uint64(len(x.vocab[s.col].ids))
		slot := x.slot[s.col]
		tb.macros = append(tb.macros, macroRef{row: s.row, slot: slot, off: s.row*len(x.cols) + slot, stride: space, bnd: x.boundary(s.col, s.row)})
		if j == 0 || s.row < tb.lo {
			tb.lo = s.row
		}
		if j == 0 || s.row > tb.hi {
			tb.hi = s.row
		}
		hi, lo := bits.Mul64(space, max(size, 1))
		space, ok = lo, ok && hi == 0
	}
	if !ok {
		tb.fallback, tb.macros = true, nil
		return
	}
	tb.alloc(space, len(p.ids))
	n := len(tb.macros)
	for i, id := range p.ids {
		tb.insert(tb.key(p.vals[i*n:i*n+n]), id)
	}
}

// alloc makes the empty table for n keys out of space possible ones: a
// dense array when it takes at most twice the bytes of a packed hash
// table, else a hash table at most 2/3 full.
func (r *ruleTable) alloc(space uint64, n int) {
	size := 1
	for size*2 < n*3 {
		size *= 2
	}
	switch {
	case space <= 4*uint64(size):
		r.dense = fill(make([]int32, space), -1)
	case space <= 1<<32:
		r.packed = fill(make([]uint64, size), emptySlot)
	default:
		r.wide = fill(make([]tableSlot, size), tableSlot{id: -1})
	}
	r.shift = uint(64 - bits.TrailingZeros(uint(size)))
}

func fill[T any](s []T, v T) []T {
	for i := range s {
		s[i] = v
	}
	return s
}

// key returns the key of a tuple of (known) value ids.
func (r *ruleTable) key(vals []int32) uint64 {
	var key uint64
	for j := range r.macros {
		key += uint64(vals[j]) * r.macros[j].stride
	}
	return key
}

// boundary returns the value ids of the boundary strings a macro of row
// offset row can produce in column col: _B-1.._B-(-row) for row < 0,
// _B+1.._B+row for row > 0.
func (x *frozenIndex) boundary(col, row int) []int32 {
	prefix, n := "_B+", row
	if row < 0 {
		prefix, n = "_B-", -row
	}
	out := make([]int32, n)
	m := x.vocab[col].ids
	var buf []byte
	for k := range out {
		buf = strconv.AppendInt(append(buf[:0], prefix...), int64(k+1), 10)
		v, ok := m[string(buf)]
		if !ok {
			v = -1
		}
		out[k] = v
	}
	return out
}

// internCells writes the value ids of the cells macros read into vals,
// len(x.cols) per position (-1 for values no attribute has), with the
// boundary padding around them when x is padded, and returns it.
func (x *frozenIndex) internCells(vals []int32, cols [][]string) []int32 {
	w := len(x.cols)
	vals = append(vals, x.pad[:x.padLo*w]...)
	for _, tok := range cols {
		for _, c := range x.cols {
			v, ok := x.vocab[c].ids[tok[c]]
			if !ok {
				v = -1
			}
			vals = append(vals, v)
		}
	}
	return append(vals, x.pad[x.padLo*w:]...)
}

// lookup returns the id of the attribute of rule r at position t of a
// sequence of n tokens whose cell value ids are vals (not padded), or -1
// when the attribute is unknown. r must not be a fallback rule.
func (r *ruleTable) lookup(vals []int32, w, n, t int) int32 {
	var key uint64
	for j := range r.macros {
		m := &r.macros[j]
		var v int32
		switch i := t + m.row; {
		case i < 0:
			v = m.bnd[-i-1]
		case i >= n:
			v = m.bnd[i-n]
		default:
			v = vals[i*w+m.slot]
		}
		if v < 0 {
			return -1
		}
		key += uint64(v) * m.stride
	}
	return r.find(key)
}

// appendIDs appends the ids of the attributes of the (not fallback) rules
// of rs at position t of a sequence of n tokens whose cell value ids are
// cells (from internCells), in rule order, skipping the unknown ones.
func (x *frozenIndex) appendIDs(dst []int32, rs *ruleSet, cells []int32, n, t int) []int32 {
	w := len(x.cols)
	if !x.padded && (t+rs.lo < 0 || t+rs.hi >= n) {
		for k := range rs.tabs {
			if tb := &rs.tabs[k]; !tb.fallback {
				if id := tb.lookup(cells, w, n, t); id >= 0 {
					dst = append(dst, id)
				}
			}
		}
		return dst
	}
	// Every row read is a token or padding: no boundary checks. Unknown
	// values and attributes are frequent and unpredictable, so they are
	// skipped without branches: an unknown value turns the key into 0
	// and the id into -1, and every id is written, the count advancing
	// only for known ones.
	dst = slices.Grow(dst, len(rs.tabs))
	out := dst[len(dst) : len(dst)+len(rs.tabs)]
	c := 0
	base := (t + x.padLo) * w
	for k := range rs.tabs {
		tb := &rs.tabs[k]
		if tb.fallback {
			continue
		}
		var key uint64
		var neg int32 // the OR of the value ids: negative if one is unknown
		for j := range tb.macros {
			m := &tb.macros[j]
			v := cells[base+m.off]
			neg |= v
			key += uint64(uint32(v)) * m.stride
		}
		unknown := neg >> 31 // -1 or 0
		key &^= uint64(int64(unknown))
		var id int32
		if tb.dense != nil {
			id = tb.dense[key]
		} else {
			id = tb.findHash(key)
		}
		id |= unknown
		out[c] = id
		c += int(uint32(^id) >> 31) // 1 when id >= 0
	}
	return dst[:len(dst)+c]
}
