package train

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc64"
	"math"

	"github.com/sparsetag/sparsetag/sparse"
)

// dataDigest identifies what shapes the objective besides the penalty and
// the layout (which the checkpoint records apart): the training data (its
// size and a digest of its contents: the sequences' spans, attributes,
// values and labels), the sequence weights, the prior and the partial
// labels. A checkpoint records the digest of its run; a resume with other
// data, weights, prior or partial labels is refused, since it would go on
// from a point of another problem (silently, before checkpoint version 5).
type dataDigest struct {
	sequences, positions int
	corpus               uint64 // crc64 (ECMA) of the corpus's arrays
	weights              uint64 // crc64 of the weights' bits; 0: none (all 1)
	prior                uint64 // crc64 of the prior's bits; 0: none
	allowed              uint64 // crc64 of the allowed label sets; 0: none
}

var crcTable = crc64.MakeTable(crc64.ECMA)

// digestCache holds the digest of a trainer's problem once computed.
type digestCache struct{ d *dataDigest }

// get returns the digest of the problem of corpus c and options op,
// computed at the first call (a pass over the corpus: about 30 MB for
// CoNLL-2000's attribute file); the trainer's corpus and options do not
// change, so later calls return it.
func (dc *digestCache) get(c *sparse.Corpus, op *Options) dataDigest {
	if dc.d == nil {
		d := digestData(c, op.Weights, op.Prior)
		if a := op.Allowed; a != nil {
			h := newDigest()
			for p := 0; p < a.Positions(); p++ {
				for y := 0; y < a.NumLabels(); y++ {
					h.w.WriteByte(boolByte(a.Has(p, y)))
				}
			}
			d.allowed = h.sum() | 1
		}
		dc.d = &d
	}
	return *dc.d
}

// digestData returns the digest of corpus c with sequence weights wts and
// prior (nil: none).
func digestData(c *sparse.Corpus, wts, prior []float64) dataDigest {
	d := dataDigest{sequences: c.Len(), positions: c.Positions()}
	h := newDigest()
	for _, v := range [][]int32{c.SeqPtr, c.Unary.RowPtr, c.Unary.Col, c.Pair.RowPtr, c.Pair.Col, c.Labels} {
		h.int32s(v)
	}
	for _, v := range [][]float64{c.Unary.Val, c.Pair.Val} {
		h.floats(v)
	}
	digestDense(h, c)
	d.corpus = h.sum()
	if unitWeights(wts) {
		wts = nil // the same objective, the same bits (Options.Weights)
	}
	d.weights = floatsDigest(wts)
	d.prior = floatsDigest(prior)
	return d
}

// unitWeights reports whether every weight of wts is 1.
func unitWeights(wts []float64) bool {
	for _, v := range wts {
		if v != 1 {
			return false
		}
	}
	return true
}

// floatsDigest returns the crc64 of the bits of v, made odd so that it is
// never 0 (0 stands for nil).
func floatsDigest(v []float64) uint64 {
	if v == nil {
		return 0
	}
	h := newDigest()
	h.floats(v)
	return h.sum() | 1
}

// digest is a crc64 fed through a buffer (the corpus is written a value at
// a time).
type digest struct {
	h   hash.Hash64
	w   *bufio.Writer
	buf [8]byte
}

func newDigest() *digest {
	h := crc64.New(crcTable)
	return &digest{h: h, w: bufio.NewWriterSize(h, 1<<16)}
}

// uint64 writes x, little-endian.
func (d *digest) uint64(x uint64) { d.w.Write(binary.LittleEndian.AppendUint64(d.buf[:0], x)) }

// int32s writes the length of v and each value, little-endian.
func (d *digest) int32s(v []int32) {
	d.uint64(uint64(len(v)))
	for _, x := range v {
		d.w.Write(binary.LittleEndian.AppendUint32(d.buf[:0], uint32(x)))
	}
}

// floats writes the length and the bits of v.
func (d *digest) floats(v []float64) {
	d.uint64(uint64(len(v)))
	for _, x := range v {
		d.uint64(math.Float64bits(x))
	}
}

// sum returns the crc64 of everything written.
func (d *digest) sum() uint64 {
	d.w.Flush() // a hash's Write never fails
	return d.h.Sum64()
}

// check returns an error saying what differs between the digest ck of a
// checkpoint and the digest of this run, or nil when they match.
func (ck dataDigest) check(run dataDigest) error {
	const pre = "train: the checkpoint is of another problem: "
	switch {
	case ck.sequences != run.sequences || ck.positions != run.positions:
		return fmt.Errorf(pre+"its training data has %d sequences and %d positions, this run's %d and %d", ck.sequences, ck.positions, run.sequences, run.positions)
	case ck.corpus != run.corpus:
		return fmt.Errorf(pre + "its training data has the same size but other contents (attributes, values or labels)")
	case ck.weights != run.weights:
		return fmt.Errorf(pre+"it was written with %s, this run has %s", weightsName(ck.weights), weightsName(run.weights))
	case ck.prior != run.prior:
		return fmt.Errorf(pre+"it was written with %s, this run has %s", priorName(ck.prior), priorName(run.prior))
	case ck.allowed != run.allowed:
		return fmt.Errorf(pre+"it was written with %s, this run has %s", allowedName(ck.allowed), allowedName(run.allowed))
	}
	return nil
}

func weightsName(d uint64) string {
	if d == 0 {
		return "no sequence weights"
	}
	return fmt.Sprintf("sequence weights of digest %016x", d)
}

func priorName(d uint64) string {
	if d == 0 {
		return "no prior"
	}
	return fmt.Sprintf("a prior of digest %016x", d)
}

func allowedName(d uint64) string {
	if d == 0 {
		return "full labels"
	}
	return fmt.Sprintf("partial labels of digest %016x", d)
}

// appendDigest appends d to b (WriteTo's encoding).
func appendDigest(b []byte, d dataDigest) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(d.sequences))
	b = le.AppendUint64(b, uint64(d.positions))
	for _, v := range []uint64{d.corpus, d.weights, d.prior, d.allowed} {
		b = le.AppendUint64(b, v)
	}
	return b
}

// digest decodes a dataDigest written by appendDigest.
func (d *ckDecoder) digest() dataDigest {
	return dataDigest{sequences: int(d.u64()), positions: int(d.u64()), corpus: d.u64(), weights: d.u64(), prior: d.u64(), allowed: d.u64()}
}
