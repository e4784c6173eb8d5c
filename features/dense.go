package features

import (
	"github.com/sparsetag/sparsetag/sparse"
)

// DenseVectors returns a copy of the encoder that stores the word vectors
// of every pure %v line (a U line whose only macro is a %v, over a column
// that is not valued, such as "U50:%v[0,0]") as a dense block of the
// corpus (sparse.Dense) when it encodes into a corpus: one word index per
// position, the embeddings' scaled table shared, and the D attribute ids
// the line's names get, in the order the sparse encoding gives them. The
// dictionaries, their counts and every other row are those of the sparse
// encoding, and sparse.Corpus.ExpandRow gives back its rows. The copy
// shares e's dictionaries. An encoder without word vectors is returned as
// it is.
func (e *Encoder) DenseVectors() *Encoder {
	if e.val == nil || e.val.nblocks == 0 {
		return e
	}
	r := e.Clone()
	v := *e.val
	v.dense = true
	r.val = &v
	return r
}

// pureVector reports whether the rule r is a pure %v line: its only macro
// is a %v whose column is not valued (isVal), so that its D attributes are
// the same at every position and their values are the vector's.
func pureVector(r *rule, isVal []bool) bool {
	macros, vec := 0, false
	for k := range r.segs {
		s := &r.segs[k]
		if s.macro {
			macros++
			vec = s.vec && s.derived < 0 && !isVal[s.col]
		}
	}
	return macros == 1 && vec
}

// denseBlocks returns dst's dense blocks, made (empty, attribute ids
// unknown) when dst has none yet.
func (e *Encoder) denseBlocks(dst *sparse.Corpus) []sparse.Dense {
	if len(dst.Dense) == e.val.nblocks {
		return dst.Dense
	}
	emb := e.val.emb
	npos := dst.Positions()
	dst.Dense = make([]sparse.Dense, e.val.nblocks)
	for k := range dst.Dense {
		attrs := make([]int32, emb.dim)
		for d := range attrs {
			attrs[d] = -1
		}
		word := make([]int32, npos, npos+1024)
		for p := range word {
			word[p] = -1
		}
		dst.Dense[k] = sparse.Dense{D: emb.dim, Table: emb.vecs, Attrs: attrs, Word: word}
	}
	return dst.Dense
}

// denseRule appends the word of the pure %v rule r at position t (vec its
// vector, word its row, -1 and nil for the zero vector) to the block b,
// and gives each dimension with a non-zero coordinate its attribute id as
// the sparse encoding does (addValued): looked up, or added when grow, and
// counted when grow.
func (e *Encoder) denseRule(b *sparse.Dense, r *rule, d *Dictionary, rows [][]string, t int, vec []float64, word int32, grow bool) error {
	b.Word = append(b.Word, word)
	for dim, x := range vec {
		if x == 0 {
			continue
		}
		id := b.Attrs[dim]
		if id < 0 {
			e.buf = appendRuleDim(e.buf[:0], r, rows, t, dim)
			var ok bool
			if id, ok = d.lookup(e.buf); !ok {
				if !grow {
					continue
				}
				var err error
				if id, err = d.addBytes(e.buf); err != nil {
					return err
				}
			}
			b.Attrs[dim] = id
		}
		if grow {
			d.counts[id]++
		}
	}
	return nil
}
