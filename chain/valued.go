package chain

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/features"
)

// valuedVersion is the first file version whose ENCD section may end with
// an encoder's valued part (features.Valued): valued columns and word
// vectors. Models without it are written as plainVersion files, byte for
// byte as before.
const (
	plainVersion  = 2
	valuedVersion = 3
)

// writeVersion returns the version m is written as: valuedVersion when its
// encoder has valued columns or embeddings, else plainVersion.
func (m *Model) writeVersion() uint32 {
	if isValued(m.Encoder) {
		return valuedVersion
	}
	return plainVersion
}

func isValued(e *features.Encoder) bool {
	if e == nil {
		return false
	}
	v := e.Valued()
	return len(v.Columns) > 0 || v.Embeddings != nil
}

// The valued part of ENCD (version 3 only), after the pair attributes:
//
//	columns  uint32 count, then that many uint32: the valued columns, 0-based
//	dim      uint32 the dimension of the vectors, 0 without embeddings
//	words    uint32 count (0 when dim is 0), then that many strings, then
//	         count×dim float64 bits: the scaled vectors, word by word
//
// The vectors are stored so that the model alone tags: the scaled values
// reload exactly (features.NewEmbeddings divides by 1).
func appendValued(b []byte, v features.Valued) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v.Columns)))
	for _, c := range v.Columns {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	m := v.Embeddings
	if m == nil {
		return binary.LittleEndian.AppendUint32(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Dim()))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Len()))
	for i := range m.Len() {
		b = appendString(b, m.Word(i))
	}
	for i := range m.Len() {
		for _, x := range m.Vector(i) {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// decodeValued reads the valued part of ENCD and returns e with it.
func decodeValued(d *decoder, e *features.Encoder) (*features.Encoder, error) {
	var v features.Valued
	n := d.u32()
	if d.err == nil && int64(n)*4 > int64(len(d.b)) {
		return nil, d.fail("%d valued columns declared but only %d bytes left", n, len(d.b))
	}
	for i := 0; i < int(n) && d.err == nil; i++ {
		v.Columns = append(v.Columns, int(d.u32()))
	}
	dim := d.u32()
	if dim > 0 && d.err == nil {
		words := d.u32()
		if d.err == nil && int64(words)*(4+8*int64(dim)) > int64(len(d.b)) {
			return nil, d.fail("%d word vectors of dimension %d declared but only %d bytes left", words, dim, len(d.b))
		}
		names := make([]string, 0, words)
		for i := 0; i < int(words) && d.err == nil; i++ {
			names = append(names, d.str())
		}
		vecs := make([]float64, 0, int(words)*int(dim))
		for i := 0; i < int(words)*int(dim) && d.err == nil; i++ {
			vecs = append(vecs, math.Float64frombits(d.u64()))
		}
		if d.err != nil {
			return nil, d.err
		}
		var err error
		if v.Embeddings, err = features.NewEmbeddings(names, vecs, int(dim)); err != nil {
			return nil, d.fail("%v", err)
		}
		if v.Embeddings.Scale() != 1 {
			return nil, d.fail("word vectors not scaled (largest absolute value %g, want 1 or all zero)", v.Embeddings.Scale())
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	r, err := features.WithValued(e, v)
	if err != nil {
		return nil, d.fail("%v", err)
	}
	if !isValued(r) {
		return nil, d.fail("a version %d encoder without valued columns or word vectors: such a model is written as version %d", valuedVersion, plainVersion)
	}
	return r, nil
}

// checkValuedVersion refuses to write a valued encoder under a version
// that cannot hold it.
func checkValuedVersion(e *features.Encoder, version uint32) error {
	if isValued(e) && version < valuedVersion {
		return fmt.Errorf("chain: a model with valued columns or word vectors needs file version %d, not %d", valuedVersion, version)
	}
	return nil
}
