package chain

import (
	"encoding/binary"
	"fmt"

	"github.com/sparsetag/sparsetag/features"
)

// ENCD section payload:
//
//	kind      uint8   features.Kind
//	options   uint32  features.PixelOptions (0 unless kind is pixels)
//	template  string  CRF++ template source ("" unless kind is template)
//	unary     uint32 count, then that many strings: unary attribute names in id order
//	pair      uint32 count, then that many strings: pair attribute names in id order
//	valued    version 3 only: see appendValued
func appendEncoder(b []byte, e *features.Encoder, version uint32) ([]byte, error) {
	if err := checkValuedVersion(e, version); err != nil {
		return nil, err
	}
	b = append(b, byte(e.Kind()))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.PixelOptions()))
	src := ""
	if t := e.Template(); t != nil {
		src = t.Source()
	}
	b = appendString(b, src)
	for _, d := range []*features.Dictionary{e.Unary(), e.Pair()} {
		b = binary.LittleEndian.AppendUint32(b, uint32(d.Len()))
		for id := 0; id < d.Len(); id++ {
			s := d.Name(int32(id))
			if len(s) > maxStringLen {
				return nil, fmt.Errorf("chain: attribute name of %d bytes exceeds the limit %d", len(s), maxStringLen)
			}
			b = appendString(b, s)
		}
	}
	if version >= valuedVersion {
		b = appendValued(b, e.Valued())
	}
	return b, nil
}

func decodeEncoder(d *decoder, numUnary, numPair int, version uint32) (*features.Encoder, error) {
	kind := features.Kind(d.u8())
	opts := features.PixelOptions(d.u32())
	src := d.str()
	unary := d.strs(numUnary, "unary attributes")
	pair := d.strs(numPair, "pair attributes")
	if d.err != nil {
		return nil, d.err
	}
	e, err := features.NewEncoderFrom(kind, src, opts, unary, pair)
	if err != nil {
		return nil, d.fail("%v", err)
	}
	if version >= valuedVersion {
		return decodeValued(d, e)
	}
	return e, nil
}
