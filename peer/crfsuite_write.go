package peer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/atomicfile"
)

// ErrNotCRFsuite is returned (wrapped, with the reason) by MarshalCRFsuite
// for a model that CRFsuite's format cannot express.
var ErrNotCRFsuite = errors.New("peer: the model cannot be written as a CRFsuite model")

// CheckCRFsuite reports whether m can be written as a CRFsuite model, and
// if not, why (an error wrapping ErrNotCRFsuite). CRFsuite's crf1d model
// holds exactly two kinds of features: state features (a named attribute
// with a value, times a label) and label transitions. So m must read
// name:value attributes (features.KindAttributes, a model trained on a
// CRFsuite attribute file or from Python items) and have no
// observation-conditioned label bigrams; the names must not contain a NUL
// byte (CRFsuite's string database ends keys at the first NUL).
func CheckCRFsuite(m *chain.Model) error {
	switch {
	case m.Encoder == nil:
		return fmt.Errorf("%w: it has no attribute names (trained on pre-encoded data)", ErrNotCRFsuite)
	case m.Encoder.Kind() != features.KindAttributes:
		return fmt.Errorf("%w: it reads %s input, and CRFsuite models read name:value attributes only (train on a CRFsuite attribute file, --format crfsuite, to get a model CRFsuite can read)",
			ErrNotCRFsuite, m.Encoder.Kind())
	case m.Layout.NumPair > 0:
		return fmt.Errorf("%w: it has %d attributes of observation-conditioned label bigrams, and CRFsuite has only state features and transitions",
			ErrNotCRFsuite, m.Layout.NumPair)
	case len(m.Labels) > MaxLabels:
		return fmt.Errorf("%w: %d labels, more than the %d this toolkit reads back", ErrNotCRFsuite, len(m.Labels), MaxLabels)
	}
	for _, l := range m.Labels {
		if strings.IndexByte(l, 0) >= 0 {
			return fmt.Errorf("%w: label %q contains a NUL byte", ErrNotCRFsuite, l)
		}
	}
	d := m.Encoder.Unary()
	if d.Len() != m.Layout.NumUnary {
		return fmt.Errorf("%w: %d attribute names for %d attributes", ErrNotCRFsuite, d.Len(), m.Layout.NumUnary)
	}
	for a := 0; a < m.Layout.NumUnary; a++ {
		if s := d.Name(int32(a)); strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%w: attribute %q contains a NUL byte", ErrNotCRFsuite, s)
		}
	}
	return nil
}

// MarshalCRFsuite returns m as the bytes of a CRFsuite 0.12 model file
// (lib/crf/src/crf1d_model.c), which crfsuite tag, python-crfsuite and
// this package's ParseCRFsuite read and which tags as m does.
//
// As crf1de_save_model does, only non-zero weights are written and the
// attributes without any are dropped; the kept attributes are renumbered
// in m's order, the features are written attribute by attribute (labels in
// index order), then the transitions (previous label, then label). The
// chunks follow in CRFsuite's order: header, FEAT, label and attribute
// string databases, LFRF (L+2 lists, the last two empty, as CRFsuite
// writes them), AFRF, the last two aligned to 4 bytes. The output is a
// function of the weights and names alone.
func MarshalCRFsuite(m *chain.Model) ([]byte, error) {
	if err := CheckCRFsuite(m); err != nil {
		return nil, err
	}
	L, U := len(m.Labels), m.Layout.NumUnary
	d := m.Encoder.Unary()

	type feat struct {
		typ, src, dst uint32
		w             float64
	}
	var feats []feat
	var attrNames []string  // new attribute id -> name
	var attrRefs [][]uint32 // new attribute id -> feature ids
	transRefs := make([][]uint32, L)
	for a := 0; a < U; a++ {
		row := m.State[a*L : a*L+L]
		var refs []uint32
		for y, w := range row {
			if w == 0 {
				continue
			}
			refs = append(refs, uint32(len(feats)))
			feats = append(feats, feat{0, uint32(len(attrNames)), uint32(y), w})
		}
		if refs != nil {
			attrNames = append(attrNames, d.Name(int32(a)))
			attrRefs = append(attrRefs, refs)
		}
	}
	if m.Layout.Transitions {
		for p := 0; p < L; p++ {
			for y := 0; y < L; y++ {
				if w := m.Trans[p*L+y]; w != 0 {
					transRefs[p] = append(transRefs[p], uint32(len(feats)))
					feats = append(feats, feat{1, uint32(p), uint32(y), w})
				}
			}
		}
	}
	for _, f := range feats {
		if math.IsNaN(f.w) || math.IsInf(f.w, 0) {
			return nil, fmt.Errorf("%w: weight %v is not finite", ErrNotCRFsuite, f.w)
		}
	}

	var b bytes.Buffer
	b.Write(make([]byte, crfsuiteHeaderSize))
	u32 := func(v uint32) { b.Write(binary.LittleEndian.AppendUint32(nil, v)) }
	align := func() {
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
	}

	offFeat := b.Len()
	b.WriteString("FEAT")
	u32(uint32(crfsuiteChunkSize + crfsuiteFeatureSize*len(feats)))
	u32(uint32(len(feats)))
	for _, f := range feats {
		u32(f.typ)
		u32(f.src)
		u32(f.dst)
		b.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(f.w)))
	}

	offLabels := b.Len()
	b.Write(appendCQDB(nil, m.Labels))
	offAttrs := b.Len()
	b.Write(appendCQDB(nil, attrNames))

	refChunk := func(tag string, lists [][]uint32, entries int) int {
		align()
		begin := b.Len()
		table := begin + crfsuiteChunkSize
		b.Write(make([]byte, crfsuiteChunkSize+4*entries))
		offs := make([]uint32, entries)
		for i, refs := range lists {
			offs[i] = uint32(b.Len())
			u32(uint32(len(refs)))
			for _, r := range refs {
				u32(r)
			}
		}
		out := b.Bytes()
		copy(out[begin:], tag)
		binary.LittleEndian.PutUint32(out[begin+4:], uint32(b.Len()-begin))
		binary.LittleEndian.PutUint32(out[begin+8:], uint32(entries))
		for i, o := range offs {
			binary.LittleEndian.PutUint32(out[table+4*i:], o)
		}
		return begin
	}
	offLRef := refChunk("LFRF", transRefs, L+2)
	offARef := refChunk("AFRF", attrRefs, len(attrNames))

	if b.Len() > math.MaxUint32 {
		return nil, fmt.Errorf("%w: %d bytes, more than CRFsuite's 32-bit offsets address", ErrNotCRFsuite, b.Len())
	}
	out := b.Bytes()
	copy(out, "lCRF")
	copy(out[8:], "FOMC")
	for i, v := range []int{b.Len(), 0, 100, 0, L, len(attrNames), offFeat, offLabels, offAttrs, offLRef, offARef} {
		if i == 1 {
			continue // "FOMC"
		}
		// num_features (index 3) stays 0, as CRFsuite writes it.
		binary.LittleEndian.PutUint32(out[4+4*i:], uint32(v))
	}
	return out, nil
}

// WriteCRFsuite writes m to w as a CRFsuite model (MarshalCRFsuite).
func WriteCRFsuite(w io.Writer, m *chain.Model) (int64, error) {
	data, err := MarshalCRFsuite(m)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// SaveCRFsuite writes m to path as a CRFsuite model, atomically: an
// existing file is replaced only by a complete model that ParseCRFsuite
// reads back.
func SaveCRFsuite(path string, m *chain.Model) error {
	data, err := MarshalCRFsuite(m)
	if err != nil {
		return err
	}
	if _, err := ParseCRFsuite(data); err != nil {
		return fmt.Errorf("peer: CRFsuite model written for %s does not read back: %w", path, err)
	}
	return atomicfile.WriteFile(path, data)
}

// appendCQDB appends a CQDB chunk (lib/cqdb/src/cqdb.c, cqdb_writer_put
// and cqdb_writer_close with flag 0) mapping keys[i] to id i, with the
// backward links. Records follow the header and the 256 table references
// in id order; then the hash tables that have records, each with twice as
// many buckets as records, filled by linear probing from (hash>>8) mod n
// in insertion order; then the backward links.
func appendCQDB(dst []byte, keys []string) []byte {
	type bucket struct{ hash, off uint32 }
	var tables [cqdbTables][]bucket
	begin := len(dst)
	dst = append(dst, make([]byte, cqdbHeaderSize+8*cqdbTables)...)
	bwd := make([]uint32, len(keys))
	for id, k := range keys {
		off := uint32(len(dst) - begin)
		key := append([]byte(k), 0)
		h := lookup3(key, 0)
		tables[h%cqdbTables] = append(tables[h%cqdbTables], bucket{h, off})
		bwd[id] = off
		dst = binary.LittleEndian.AppendUint32(dst, uint32(id))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(key)))
		dst = append(dst, key...)
	}
	var refs [cqdbTables][2]uint32
	for t, tb := range tables {
		if len(tb) == 0 {
			continue
		}
		n := uint32(2 * len(tb))
		slots := make([]bucket, n)
		for _, e := range tb {
			k := (e.hash >> 8) % n
			for slots[k].off != 0 {
				k = (k + 1) % n
			}
			slots[k] = e
		}
		refs[t] = [2]uint32{uint32(len(dst) - begin), n}
		for _, s := range slots {
			dst = binary.LittleEndian.AppendUint32(dst, s.hash)
			dst = binary.LittleEndian.AppendUint32(dst, s.off)
		}
	}
	var bwdOff uint32
	if len(keys) > 0 {
		// cqdb_writer_close writes the links when its array was ever
		// grown, that is when a key was put.
		bwdOff = uint32(len(dst) - begin)
		for _, o := range bwd {
			dst = binary.LittleEndian.AppendUint32(dst, o)
		}
	}
	h := dst[begin:]
	copy(h, "CQDB")
	binary.LittleEndian.PutUint32(h[4:], uint32(len(h)))
	binary.LittleEndian.PutUint32(h[8:], 0)
	binary.LittleEndian.PutUint32(h[12:], cqdbByteOrder)
	binary.LittleEndian.PutUint32(h[16:], uint32(len(keys)))
	binary.LittleEndian.PutUint32(h[20:], bwdOff)
	for t, r := range refs {
		binary.LittleEndian.PutUint32(h[cqdbHeaderSize+8*t:], r[0])
		binary.LittleEndian.PutUint32(h[cqdbHeaderSize+8*t+4:], r[1])
	}
	return dst
}

// lookup3 is Bob Jenkins' hashlittle (lookup3.c, May 2006, public domain),
// the hash CQDB files are written with, over the bytes of key read as
// little-endian words (the value every branch of hashlittle computes on a
// little-endian machine, where CRFsuite's files are written).
func lookup3(key []byte, initval uint32) uint32 {
	rot := bits.RotateLeft32
	a := 0xdeadbeef + uint32(len(key)) + initval
	b, c := a, a
	k := key
	for len(k) > 12 {
		a += binary.LittleEndian.Uint32(k)
		b += binary.LittleEndian.Uint32(k[4:])
		c += binary.LittleEndian.Uint32(k[8:])
		// mix(a, b, c)
		a -= c
		a ^= rot(c, 4)
		c += b
		b -= a
		b ^= rot(a, 6)
		a += c
		c -= b
		c ^= rot(b, 8)
		b += a
		a -= c
		a ^= rot(c, 16)
		c += b
		b -= a
		b ^= rot(a, 19)
		a += c
		c -= b
		c ^= rot(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return c
	}
	var tail [12]byte
	copy(tail[:], k)
	a += binary.LittleEndian.Uint32(tail[:])
	b += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	// final(a, b, c)
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return c
}
