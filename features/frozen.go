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
// as a mixed-radix key looked up in a table of key → attribute ids: a plain
// array when the key space is small (a rule with one macro, or over a
// small column such as POS tags), an open-addressing hash table otherwise.
// That is one probe of flat memory instead of building a string, hashing
// it and comparing it with the stored name. Rules that read the same tuple
// shape at shifted rows share one table (ruleGroup), and each sentence is
// probed once per group and row (fillGroups) before its positions gather
// their ids (appendIDs).
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
// See ruleGroup for the tables' sizes: a hash slot of a group of m rules is
// 4·(1+m) bytes for keys below 2^32-1 and 4·(2+m) above, and hash tables
// are at most 2/3 full. A dense array takes 4·m bytes per possible key and
// is only used when that is at most twice the hash table's size. The
// per-sentence probe buffers take 4 bytes per (rule group member, row). The vocabularies hold one map entry per distinct
// cell value per column, whose strings are substrings of the names (no
// copies). For the CoNLL-2000 chunking template and its 338,551 attributes
// (no cutoff) the tables take 3.8 MB (11.3 bytes per attribute; 5.0 MB
// with a table per rule), about 4.7 MB with the vocabularies' maps (19,475
// words and 48 POS tags); building it allocates about 24 MB more, garbage once
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
	groups   []ruleGroup // the shared tables of the rules that are not fallback
	width    int         // ids per row of the per-sentence probe buffer (fillGroups): the sum of the groups' members
	gather   []int       // by rule that is not fallback, in rule order: its id at position t is buf[gather[i]+t*width]
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

// ruleTable is one rule of a rule set: its macros, for building its keys,
// and its place in the shared table of its group (ruleGroup).
type ruleTable struct {
	fallback bool // use the string path for this rule
	macros   []macroRef
	lo, hi   int // smallest and largest row offset of the macros: rows t+lo..t+hi are read
	group    int // index of the rule's group in ruleSet.groups
	member   int // index of the rule's ids in its group's entries
}

// ruleGroup is the shared table of the rules of a rule set that read the
// same shape: the same columns, in the same order, at the same row offsets
// relative to their first macro's (its anchor row). The chunking
// template's U05 %x[-1,0]/%x[0,0] and U06 %x[0,0]/%x[1,0] read the word pair
// of rows (a, a+1), U05 at anchor a = t-1 and U06 at a = t; U00 to U04 read
// one word at anchors t-2 to t+2. So one probe of the group's table per
// anchor row of a sentence gives the ids of every member rule there
// (fillGroups), instead of one probe per rule and position: the CoNLL
// chunking template's 19 unary rules make 5 groups.
//
// The key of a tuple of value ids is their mixed-radix number (Σ
// v_j·stride_j, stride_j the product of the vocabulary sizes of the macros
// before j), so keys are dense in [0, product of the sizes): when that
// range is small the table is a plain array of m ids per key (dense), else
// an open-addressing hash table whose slots hold the key (one 32-bit word
// for keys below 2^32-1, two above) and the m ids.
//
// Memory: a dense table takes 4·m bytes per possible key and is only used
// when that is at most twice the hash table's size. A hash table is at most
// 2/3 full, and a slot of kw+m words holds one tuple and the ids of the m
// members (-1 for a member without that attribute): 4·(kw+m)·1.5 to
// 4·(kw+m)·3 bytes per tuple. Since the members of a group read the same
// tuples at shifted positions, they mostly share them (a word pair of the
// training data is U05's at one position and U06's at the next), which
// makes that 6 to 12 bytes per attribute for U05/U06 instead of 12 to 24
// for separate tables. A group is only formed when its table takes no more
// bytes than its members' separate ones would (else every member is a
// group of its own).
type ruleGroup struct {
	shape  []shapeRef // the macros, relative to the anchor row
	m      int        // members
	lo, hi int        // smallest and largest anchor row of the members
	col    int        // index of the group's first id in a row of the probe buffer
	dense  []int32    // dense[key*m+j]: attribute id of member j, or -1; nil for a hash table
	slots  []int32    // hash table: kw key words (low word first, as int32 bits), then m ids, per slot
	kw     int        // key words per slot (1 or 2)
	shift  uint       // 64 - log2(number of slots)
}

// shapeRef is one macro of a group's shape.
type shapeRef struct {
	off    int    // delta*len(frozenIndex.cols) + slot: the cell from the anchor row's first
	stride uint64 // weight of the value id in the key
}

// emptyWord fills empty hash slots: the key words of an empty slot are
// emptyWord (no key is ^uint32(0) in a one-word table, nor ^uint64(0) in a
// two-word one), and so are the ids (-1) of every slot until set.
const emptyWord = ^uint32(0)

// maxParses bounds the parses of all names of one rule, per name on
// average: beyond it the rule falls back to the string path rather than
// spend quadratic time (adjacent macros split a name at every byte).
const maxParses = 16

// hashKey spreads a key over the table (Fibonacci hashing).
func hashKey(key uint64, shift uint) uint64 { return (key * 0x9E3779B97F4A7C15) >> shift }

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
	x := &frozenIndex{vocab: make([]colVocab, t.width()), slot: make([]int, t.width())}
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
	x.setGather(&x.unary)
	x.setGather(&x.pair)
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

// ruleSet builds the rule tables and their groups from the parses.
func (x *frozenIndex) ruleSet(rules []rule, ps []parsed) ruleSet {
	rs := ruleSet{tabs: make([]ruleTable, len(rules))}
	byShape := map[string][]int{} // shape → its rules, in rule order
	var shapes []string
	spaces := make([]uint64, len(rules)) // by rule: the number of possible keys
	for k := range rules {
		tb := &rs.tabs[k]
		space := x.table(tb, &rules[k], &ps[k])
		spaces[k] = space
		if tb.fallback {
			rs.fallback = true
			continue
		}
		rs.lo, rs.hi = min(rs.lo, tb.lo), max(rs.hi, tb.hi)
		sh := shapeOf(tb, space)
		if _, ok := byShape[sh]; !ok {
			shapes = append(shapes, sh)
		}
		byShape[sh] = append(byShape[sh], k)
	}
	for _, sh := range shapes {
		x.addGroups(&rs, byShape[sh], ps, spaces[byShape[sh][0]])
	}
	return rs
}

// table sets up rule r's ruleTable from its parses p (fallback when its
// keys do not fit 64 bits or p has too many parses) and returns the number
// of its possible keys.
func (x *frozenIndex) table(tb *ruleTable, r *rule, p *parsed) uint64 {
	if p.over {
		tb.fallback = true
		return 0
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
	}
	return space
}

// anchor returns the row of the first macro of a rule, 0 without macros.
func (r *ruleTable) anchor() int {
	if len(r.macros) == 0 {
		return 0
	}
	return r.macros[0].row
}

// shapeOf returns a string naming what a rule's keys are made of: the
// number of possible keys, and the slot and row offset relative to the
// anchor of every macro, in order. Rules of one shape have the same
// strides, so a tuple has the same key for all of them.
func shapeOf(tb *ruleTable, space uint64) string {
	b := strconv.AppendUint(nil, space, 10)
	for _, m := range tb.macros {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(m.slot), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(m.row-tb.anchor()), 10)
	}
	return string(b)
}

// addGroups adds the group of the rules of one shape (members, in rule
// order, space possible keys) to rs, or one group per rule when the shared
// table would take more bytes than their separate ones.
func (x *frozenIndex) addGroups(rs *ruleSet, members []int, ps []parsed, space uint64) {
	keys := make([][]uint64, len(members))
	var all []uint64
	var sep uint64
	for j, k := range members {
		tb := &rs.tabs[k]
		n := len(tb.macros)
		for i := range ps[k].ids {
			keys[j] = append(keys[j], tb.key(ps[k].vals[i*n:i*n+n]))
		}
		all = append(all, keys[j]...)
		sep += newLayout(space, len(keys[j]), 1).bytes
	}
	slices.Sort(all)
	union := len(slices.Compact(all))
	if len(members) > 1 && newLayout(space, union, len(members)).bytes > sep {
		for j, k := range members {
			x.addGroup(rs, []int{k}, keys[j:j+1], len(keys[j]), space, ps)
		}
		return
	}
	x.addGroup(rs, members, keys, union, space, ps)
}

// addGroup adds the group of the rules members (keys[j]: the keys of the
// parses of member j, n distinct keys in all out of space possible ones).
func (x *frozenIndex) addGroup(rs *ruleSet, members []int, keys [][]uint64, n int, space uint64, ps []parsed) {
	first := &rs.tabs[members[0]]
	g := ruleGroup{m: len(members), col: rs.width, lo: first.anchor(), hi: first.anchor()}
	for _, m := range first.macros {
		g.shape = append(g.shape, shapeRef{off: (m.row-first.anchor())*len(x.cols) + m.slot, stride: m.stride})
	}
	g.alloc(newLayout(space, n, g.m))
	for j, k := range members {
		tb := &rs.tabs[k]
		tb.group, tb.member = len(rs.groups), j
		g.lo, g.hi = min(g.lo, tb.anchor()), max(g.hi, tb.anchor())
		for i, key := range keys[j] {
			g.set(key, j, ps[k].ids[i])
		}
	}
	rs.groups = append(rs.groups, g)
	rs.width += g.m
}

// layout is the table chosen for n keys of m ids out of space possible keys.
type layout struct {
	dense bool
	size  int    // hash slots (a power of two)
	kw    int    // key words per hash slot
	space uint64 // dense entries
	bytes uint64 // the table's size
}

// newLayout chooses the table of n keys of m ids out of space possible
// ones: a dense array when it takes at most twice the bytes of a hash table
// at most 2/3 full, else that hash table.
func newLayout(space uint64, n, m int) layout {
	size := 1
	for size*2 < n*3 {
		size *= 2
	}
	kw := 1
	if space > uint64(emptyWord) {
		kw = 2
	}
	hash := uint64(4 * (kw + m) * size)
	if space <= 2*hash/uint64(4*m) {
		return layout{dense: true, space: space, bytes: 4 * uint64(m) * space}
	}
	return layout{size: size, kw: kw, bytes: hash}
}

// alloc makes g's empty table of layout l.
func (g *ruleGroup) alloc(l layout) {
	if l.dense {
		g.dense = fill(make([]int32, l.space*uint64(g.m)), -1)
		return
	}
	g.kw = l.kw
	g.slots = fill(make([]int32, l.size*(l.kw+g.m)), -1) // emptyWord bits
	g.shift = uint(64 - bits.TrailingZeros(uint(l.size)))
}

func fill[T any](s []T, v T) []T {
	for i := range s {
		s[i] = v
	}
	return s
}

// set makes id the attribute id of member j for key.
func (g *ruleGroup) set(key uint64, j int, id int32) {
	if g.dense != nil {
		g.dense[key*uint64(g.m)+uint64(j)] = id
		return
	}
	s := g.kw + g.m
	mask := uint64(len(g.slots)/s - 1)
	for i := hashKey(key, g.shift); ; i = (i + 1) & mask {
		e := g.slots[i*uint64(s) : (i+1)*uint64(s)]
		if k := slotKey(e, g.kw); k == key || k == emptyKey(g.kw) {
			e[0] = int32(uint32(key))
			if g.kw == 2 {
				e[1] = int32(uint32(key >> 32))
			}
			e[g.kw+j] = id
			return
		}
	}
}

// slotKey returns the key of a hash slot e with kw key words.
func slotKey(e []int32, kw int) uint64 {
	if kw == 1 {
		return uint64(uint32(e[0]))
	}
	return uint64(uint32(e[0])) | uint64(uint32(e[1]))<<32
}

// emptyKey returns the key of an empty slot with kw key words.
func emptyKey(kw int) uint64 {
	if kw == 1 {
		return uint64(emptyWord)
	}
	return ^uint64(0)
}

// entry returns the m ids of key (all -1 for an unknown key). key must be
// below the number of possible keys.
func (g *ruleGroup) entry(key uint64) []int32 {
	m := uint64(g.m)
	if g.dense != nil {
		return g.dense[key*m : key*m+m]
	}
	if g.kw == 1 {
		return g.probe1(key)
	}
	s := 2 + m
	mask := uint64(len(g.slots))/s - 1
	for i := hashKey(key, g.shift); ; i = (i + 1) & mask {
		e := g.slots[i*s : i*s+s]
		if k := slotKey(e, 2); k == key || k == ^uint64(0) {
			return e[2:]
		}
	}
}

// probe1 is entry for a hash table with one key word.
func (g *ruleGroup) probe1(key uint64) []int32 {
	s := 1 + uint64(g.m)
	mask := uint64(len(g.slots))/s - 1
	k32 := uint32(key)
	for i := hashKey(key, g.shift); ; i = (i + 1) & mask {
		e := g.slots[i*s : i*s+s]
		if k := uint32(e[0]); k == k32 || k == emptyWord {
			return e[1:]
		}
	}
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
// when the attribute is unknown. r must not be a fallback rule; rs is its
// rule set.
func (r *ruleTable) lookup(rs *ruleSet, vals []int32, w, n, t int) int32 {
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
	return rs.groups[r.group].entry(key)[r.member]
}

// setGather sets rs.gather, once the padding is known.
func (x *frozenIndex) setGather(rs *ruleSet) {
	rs.gather = rs.gather[:0]
	for k := range rs.tabs {
		if tb := &rs.tabs[k]; !tb.fallback {
			rs.gather = append(rs.gather, (tb.anchor()+x.padLo)*rs.width+rs.groups[tb.group].col+tb.member)
		}
	}
}

// fillGroups probes the group tables of rs once per anchor row of a
// sequence of n tokens whose padded cell value ids are cells (x must be
// padded) and returns the probe buffer, reusing buf: row a+padLo holds the
// ids of every group's members for anchor row a (rs.width ids), so the id
// of the rule with gather offset o at position t is buf[o+t*rs.width].
// Rows and entries that no position reads are left as they were.
func (x *frozenIndex) fillGroups(buf []int32, rs *ruleSet, cells []int32, n int) []int32 {
	size := (x.padLo + n + x.padHi) * rs.width
	buf = slices.Grow(buf[:0], size)[:size]
	for g := range rs.groups {
		rs.groups[g].fill(buf, rs.width, cells, len(x.cols), x.padLo, n)
	}
	return buf
}

// fill writes the ids of g's members at every anchor row its members read
// in a sequence of n tokens (see fillGroups; w cells per row, pad rows of
// padding before the tokens). Unknown values are frequent and
// unpredictable, so they cost no branch: an unknown value turns the key
// into 0 and the ids into -1. The probe is written out for each kind of
// table, one call per group rather than per anchor.
func (g *ruleGroup) fill(buf []int32, width int, cells []int32, w, pad, n int) {
	m := g.m
	for a := g.lo; a < n+g.hi; a++ {
		key, unknown := g.tupleKey(cells, (a+pad)*w)
		out := buf[(a+pad)*width+g.col:][:m]
		var ids []int32
		switch {
		case g.dense != nil:
			ids = g.dense[int(key)*m:][:m]
		case g.kw == 1:
			ids = g.probe1(key)
		default:
			ids = g.entry(key)
		}
		for j, id := range ids {
			out[j] = id | unknown
		}
	}
}

// tupleKey returns the key of the tuple at the anchor row whose first cell
// is cells[base], and -1 as unknown (with key 0) when a value is unknown,
// else 0.
func (g *ruleGroup) tupleKey(cells []int32, base int) (key uint64, unknown int32) {
	var neg int32 // the OR of the value ids: negative if one is unknown
	for _, s := range g.shape {
		v := cells[base+s.off]
		neg |= v
		key += uint64(uint32(v)) * s.stride
	}
	unknown = neg >> 31 // -1 or 0
	return key &^ uint64(int64(unknown)), unknown
}

// appendIDs appends the ids of the attributes of the (not fallback) rules
// of rs at position t of a sequence of n tokens whose cell value ids are
// cells (from internCells) and whose probe buffer is probes (fillGroups,
// when x is padded), in rule order, skipping the unknown ones.
func (x *frozenIndex) appendIDs(dst []int32, rs *ruleSet, cells, probes []int32, n, t int) []int32 {
	if !x.padded {
		w := len(x.cols)
		for k := range rs.tabs {
			if tb := &rs.tabs[k]; !tb.fallback {
				if id := tb.lookup(rs, cells, w, n, t); id >= 0 {
					dst = append(dst, id)
				}
			}
		}
		return dst
	}
	// Unknown attributes are frequent and unpredictable, so they are
	// skipped without branches: every id is written, the count advancing
	// only for known ones.
	dst = slices.Grow(dst, len(rs.gather))
	out := dst[len(dst) : len(dst)+len(rs.gather)]
	c := 0
	row := probes[t*rs.width:]
	for _, o := range rs.gather {
		id := row[o]
		out[c] = id
		c += int(uint32(^id) >> 31) // 1 when id >= 0
	}
	return dst[:len(dst)+c]
}
