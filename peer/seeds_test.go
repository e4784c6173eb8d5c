package peer

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Small model files of each format, written here byte by byte from the
// layouts documented in crfsuite.go, cqdb.go, crfpp.go and wapiti.go. They
// seed the fuzz targets and the truncation tests. All four encode the same
// model: labels A, B; a unigram feature per word "a"/"b" and a transition
// matrix.

type le []byte

func (b *le) u32(v uint32) { *b = binary.LittleEndian.AppendUint32(*b, v) }
func (b *le) f64(v float64) {
	*b = binary.LittleEndian.AppendUint64(*b, math.Float64bits(v))
}
func (b *le) pad4() {
	for len(*b)%4 != 0 {
		*b = append(*b, 0)
	}
}

// cqdbChunk writes a CQDB chunk of keys (id = index) with backward links.
func cqdbChunk(keys []string) []byte {
	type rec struct{ hash, off uint32 }
	var tables [cqdbTables][]rec
	body := le{}
	base := uint32(cqdbHeaderSize + 8*cqdbTables)
	bwd := make([]uint32, len(keys))
	for id, k := range keys {
		off := base + uint32(len(body))
		bwd[id] = off
		body.u32(uint32(id))
		body.u32(uint32(len(k) + 1))
		body = append(body, k...)
		body = append(body, 0)
		h := lookup3(append([]byte(k), 0), 0)
		tables[h%256] = append(tables[h%256], rec{h, off})
	}
	// Each table has twice as many buckets as keys, linear probing.
	var refs [cqdbTables][2]uint32
	for t, recs := range tables {
		if len(recs) == 0 {
			continue
		}
		n := 2 * len(recs)
		buckets := make([]rec, n)
		for _, r := range recs {
			k := int(r.hash>>8) % n
			for buckets[k].off != 0 {
				k = (k + 1) % n
			}
			buckets[k] = r
		}
		refs[t] = [2]uint32{base + uint32(len(body)), uint32(n)}
		for _, r := range buckets {
			body.u32(r.hash)
			body.u32(r.off)
		}
	}
	bwdOff := base + uint32(len(body))
	for _, o := range bwd {
		body.u32(o)
	}
	out := le("CQDB")
	out.u32(base + uint32(len(body)))
	out.u32(0)
	out.u32(cqdbByteOrder)
	out.u32(uint32(len(keys)))
	out.u32(bwdOff)
	for _, r := range refs {
		out.u32(r[0])
		out.u32(r[1])
	}
	return append(out, body...)
}

// tinyCRFsuite returns a CRFsuite model: attributes "a" → A (1.0) and
// "b" → B (0.5), transitions A→B 0.25, B→A -0.5.
func tinyCRFsuite() []byte {
	type feat struct {
		typ, src, dst uint32
		w             float64
	}
	feats := []feat{{0, 0, 0, 1.0}, {0, 1, 1, 0.5}, {1, 0, 1, 0.25}, {1, 1, 0, -0.5}}
	b := make(le, crfsuiteHeaderSize)
	offFeat := uint32(len(b))
	b = append(b, "FEAT"...)
	b.u32(uint32(crfsuiteChunkSize + crfsuiteFeatureSize*len(feats)))
	b.u32(uint32(len(feats)))
	for _, f := range feats {
		b.u32(f.typ)
		b.u32(f.src)
		b.u32(f.dst)
		b.f64(f.w)
	}
	offLabels := uint32(len(b))
	b = append(b, cqdbChunk([]string{"A", "B"})...)
	offAttrs := uint32(len(b))
	b = append(b, cqdbChunk([]string{"a", "b"})...)
	refs := func(tag string, lists [][]uint32) uint32 {
		b.pad4()
		off := uint32(len(b))
		b = append(b, tag...)
		size := crfsuiteChunkSize + 4*len(lists)
		for _, l := range lists {
			size += 4 + 4*len(l)
		}
		b.u32(uint32(size))
		b.u32(uint32(len(lists)))
		p := off + uint32(crfsuiteChunkSize+4*len(lists))
		for _, l := range lists {
			b.u32(p)
			p += uint32(4 + 4*len(l))
		}
		for _, l := range lists {
			b.u32(uint32(len(l)))
			for _, f := range l {
				b.u32(f)
			}
		}
		return off
	}
	offL := refs("LFRF", [][]uint32{{2}, {3}, {}, {}})
	offA := refs("AFRF", [][]uint32{{0}, {1}})
	h := le("lCRF")
	h.u32(uint32(len(b)))
	h = append(h, "FOMC"...)
	for _, v := range []uint32{100, 0, 2, 2, offFeat, offLabels, offAttrs, offL, offA} {
		h.u32(v)
	}
	copy(b, h)
	return b
}

// crfppTiny is the CRF++ model shared by the binary and text seeds:
// templates U00:%x[0,0] and B; "B" owns weights 0..3, "U00:a" 4..5,
// "U00:b" 6..7.
var crfppTiny = struct {
	labels, templates []string
	keys              map[string]int
	alpha             []float64
}{
	labels:    []string{"A", "B"},
	templates: []string{"U00:%x[0,0]", "B"},
	keys:      map[string]int{"B": 0, "U00:a": 4, "U00:b": 6},
	alpha:     []float64{0, 0.25, -0.5, 0, 1, 0, 0, 0.5},
}

// dartsBuild builds a Darts double array of keys (sorted, distinct) the
// simple way: depth-first, each node's children placed at the first base
// where all their slots are free.
func dartsBuild(keys []string, vals []int) []dartsUnit {
	da := make([]dartsUnit, 1, 1024)
	used := map[int]bool{0: true}
	grow := func(n int) {
		for len(da) < n {
			da = append(da, dartsUnit{})
		}
	}
	var build func(node int, lo, hi, depth int)
	build = func(node int, lo, hi, depth int) {
		// Children codes: 0 for a key ending here, byte+1 otherwise.
		type child struct{ code, lo, hi int }
		var kids []child
		for i := lo; i < hi; {
			code := 0
			if depth < len(keys[i]) {
				code = int(keys[i][depth]) + 1
			}
			j := i + 1
			for j < hi {
				c := 0
				if depth < len(keys[j]) {
					c = int(keys[j][depth]) + 1
				}
				if c != code {
					break
				}
				j++
			}
			kids = append(kids, child{code, i, j})
			i = j
		}
		base := 1
		for ; ; base++ {
			ok := !used[base]
			for _, k := range kids {
				if used[base+k.code] {
					ok = false
				}
			}
			if ok {
				break
			}
		}
		used[base] = true
		da[node].base = int32(base)
		for _, k := range kids {
			p := base + k.code
			used[p] = true
			grow(p + 1)
			da[p].check = uint32(base)
		}
		for _, k := range kids {
			p := base + k.code
			if k.code == 0 {
				da[p].base = int32(-vals[k.lo] - 1)
				continue
			}
			build(p, k.lo, k.hi, depth+1)
		}
	}
	build(0, 0, len(keys), 0)
	return da
}

func tinyCRFPPBinary() []byte {
	t := crfppTiny
	keys := make([]string, 0, len(t.keys))
	for k := range t.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]int, len(keys))
	for i, k := range keys {
		vals[i] = t.keys[k]
	}
	da := dartsBuild(keys, vals)
	ystr := strings.Join(t.labels, "\x00") + "\x00"
	tstr := strings.Join(t.templates, "\x00") + "\x00"
	for (len(ystr)+len(tstr))%4 != 0 {
		tstr += "\x00"
	}
	b := le{}
	b.u32(100)
	b.u32(0)
	b.f64(1)
	b.u32(uint32(len(t.alpha)))
	b.u32(1)
	b.u32(uint32(8 * len(da)))
	b.u32(uint32(len(ystr)))
	b = append(b, ystr...)
	b.u32(uint32(len(tstr)))
	b = append(b, tstr...)
	for _, u := range da {
		b.u32(uint32(u.base))
		b.u32(u.check)
	}
	for _, a := range t.alpha {
		b.u32(math.Float32bits(float32(a)))
	}
	return b
}

func tinyCRFPPText() []byte {
	t := crfppTiny
	var s strings.Builder
	fmt.Fprintf(&s, "version: 100\ncost-factor: 1\nmaxid: %d\nxsize: 1\n\n", len(t.alpha))
	s.WriteString(strings.Join(t.labels, "\n") + "\n\n")
	s.WriteString(strings.Join(t.templates, "\n") + "\n\n")
	s.WriteString("0 B\n4 U00:a\n6 U00:b\n\n")
	for _, a := range t.alpha {
		fmt.Fprintf(&s, "%.16f\n", a)
	}
	return []byte(s.String())
}

// tinyWapiti has the same weights (observation "b" owns the transition
// block, "u:a" and "u:b" the unigram ones) plus a regexp test pattern.
func tinyWapiti() []byte {
	pats := []string{"u:%x[0,0]", `u:%T[-1,0,"^\a"]`, "b"}
	obs := []string{"u:a", "u:b", "b", "u:true"}
	var s strings.Builder
	fmt.Fprintf(&s, "#mdl#2#5\n#rdr#%d/1/0\n", len(pats))
	for _, p := range pats {
		fmt.Fprintf(&s, "%d:%s,\n", len(p), p)
	}
	s.WriteString("#qrk#2\n1:A,\n1:B,\n")
	fmt.Fprintf(&s, "#qrk#%d\n", len(obs))
	for _, o := range obs {
		fmt.Fprintf(&s, "%d:%s,\n", len(o), o)
	}
	// u:a → 0,1; u:b → 2,3; b → 4..7; u:true → 8,9.
	for _, w := range []struct {
		f int
		v float64
	}{{0, 1}, {3, 0.5}, {5, 0.25}, {6, -0.5}, {9, 0.125}} {
		fmt.Fprintf(&s, "%d=%s\n", w.f, hexFloat(w.v))
	}
	return []byte(s.String())
}

// hexFloat formats v as C's %la does for normal numbers.
func hexFloat(v float64) string {
	s := fmt.Sprintf("%x", v) // Go: 0x1.8p+00
	mant, exp, _ := strings.Cut(s, "p")
	e := strings.TrimLeft(exp[1:], "0")
	if e == "" {
		e = "0"
	}
	return mant + "p" + exp[:1] + e
}
