package peer

import (
	"sort"
	"strconv"
)

// WeightKind tells what a Weight scores.
type WeightKind uint8

const (
	// StateWeight scores a label given a feature of the token (CRFsuite
	// state feature, CRF++ U feature, Wapiti u observation).
	StateWeight WeightKind = iota
	// TransWeight scores a pair of consecutive labels whatever the input
	// (CRFsuite transition, CRF++ and Wapiti bigram features whose template
	// reads no input, such as "B" and "b").
	TransWeight
	// PairWeight scores a pair of consecutive labels given a feature of the
	// input (CRF++ B and Wapiti b templates that read the input).
	PairWeight
)

// String returns "state", "trans" or "pair", as tagger dump prints them.
func (k WeightKind) String() string {
	switch k {
	case TransWeight:
		return "trans"
	case PairWeight:
		return "pair"
	}
	return "state"
}

// Weight is one weight stored in a model, named as the tool that trained it
// names it.
type Weight struct {
	Kind WeightKind
	// Feature is the CRFsuite attribute, or the CRF++ feature string or
	// Wapiti observation (a template's expansion, e.g. "U02:the"); for
	// CRFsuite transitions it is empty. An attribute without a name in the
	// model is written #id.
	Feature string
	// Prev is the previous label (TransWeight, PairWeight) or -1; Label is
	// the (current) label, both indexes into Labels().
	Prev, Label int
	Value       float64
}

// Weights calls fn for each weight stored in the model file, in the order
// of the model's attributes, features or observations (feature ids for
// CRF++), labels in index order, and stops at the first error fn returns.
// CRFsuite and Wapiti store only non-zero weights; CRF++ stores one weight
// per label (U) or label pair (B) of each feature, zeros included.
func (m *CRFsuiteModel) Weights(fn func(Weight) error) error {
	names := make([]string, m.NumAttributes())
	for s, a := range m.attrs {
		if int(a) < len(names) {
			names[a] = s
		}
	}
	for a := range names {
		name := names[a]
		if name == "" {
			name = "#" + strconv.Itoa(a)
		}
		for r := m.refStart[a]; r < m.refStart[a+1]; r++ {
			if err := fn(Weight{Kind: StateWeight, Feature: name, Prev: -1, Label: int(m.refLabel[r]), Value: m.refWeight[r]}); err != nil {
				return err
			}
		}
	}
	L := len(m.labels)
	for p := 0; p < L; p++ {
		for y := 0; y < L; y++ {
			// CRFsuite saves only non-zero features: a zero is no feature.
			if v := m.trans[p*L+y]; v != 0 {
				if err := fn(Weight{Kind: TransWeight, Prev: p, Label: y, Value: v}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Weights calls fn for each weight of the model; see CRFsuiteModel.Weights.
// The weights are those crf_test uses: float32 (text models are rounded as
// CRF++ rounds them), not multiplied by the cost factor.
func (m *CRFPPModel) Weights(fn func(Weight) error) error {
	type key struct {
		s  string
		id int
	}
	var keys []key
	if m.dict != nil {
		for s, id := range m.dict {
			keys = append(keys, key{s, id})
		}
	} else {
		err := dartsKeys(m.da, func(s string, id int) error {
			keys = append(keys, key{s, id})
			return nil
		})
		if err != nil {
			return err
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].id != keys[j].id {
			return keys[i].id < keys[j].id
		}
		return keys[i].s < keys[j].s
	})
	constant := m.constantBigrams()
	L := len(m.labels)
	for _, k := range keys {
		if k.s == "" {
			continue // not a key crf_learn writes; no template expands to it
		}
		switch k.s[0] {
		case 'U':
			if k.id+L > len(m.alpha) {
				return formatErr(m.format, "features", -1, "feature %q: weights %d..%d beyond maxid %d", k.s, k.id, k.id+L-1, m.maxid)
			}
			for y := 0; y < L; y++ {
				if err := fn(Weight{Kind: StateWeight, Feature: k.s, Prev: -1, Label: y, Value: float64(m.alpha[k.id+y])}); err != nil {
					return err
				}
			}
		case 'B':
			if k.id+L*L > len(m.alpha) {
				return formatErr(m.format, "features", -1, "feature %q: weights %d..%d beyond maxid %d", k.s, k.id, k.id+L*L-1, m.maxid)
			}
			kind := PairWeight
			if constant[k.s] {
				kind = TransWeight
			}
			for p := 0; p < L; p++ {
				for y := 0; y < L; y++ {
					if err := fn(Weight{Kind: kind, Feature: k.s, Prev: p, Label: y, Value: float64(m.alpha[k.id+p*L+y])}); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// dartsKeys calls fn for every key and value of a Darts double array (the
// inverse of dartsExact), in byte order of the keys. A corrupt array is
// reported instead of looping: a valid one visits each unit at most once.
func dartsKeys(da []dartsUnit, fn func(key string, v int) error) error {
	if len(da) == 0 {
		return nil
	}
	n := uint64(len(da))
	visits := 0
	var walk func(b int32, prefix []byte) error
	walk = func(b int32, prefix []byte) error {
		if visits++; visits > len(da) {
			return formatErr(FormatCRFPPBinary, "double array", -1, "cycle in the double array")
		}
		if p := uint64(uint32(b)); p < n && da[p].check == uint32(b) && da[p].base < 0 {
			if err := fn(string(prefix), int(-int64(da[p].base)-1)); err != nil {
				return err
			}
		}
		for c := 0; c < 256; c++ {
			p := uint64(uint32(b) + uint32(c) + 1)
			if p >= n {
				break
			}
			if da[p].check == uint32(b) {
				if err := walk(da[p].base, append(prefix, byte(c))); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(da[0].base, nil)
}

// Weights calls fn for each non-zero weight of the model (those the file
// stores); see CRFsuiteModel.Weights.
func (m *WapitiModel) Weights(fn func(Weight) error) error {
	names, constant := m.obsNames(), m.constantPatterns()
	Y := len(m.labels)
	for o, name := range names {
		if m.kind[o]&1 != 0 {
			for y := 0; y < Y; y++ {
				if v := m.weight(m.uoff[o] + int64(y)); v != 0 {
					if err := fn(Weight{Kind: StateWeight, Feature: name, Prev: -1, Label: y, Value: v}); err != nil {
						return err
					}
				}
			}
		}
		if m.kind[o]&2 != 0 {
			kind := PairWeight
			if constant[name] {
				kind = TransWeight
			}
			for p := 0; p < Y; p++ {
				for y := 0; y < Y; y++ {
					if v := m.weight(m.boff[o] + int64(p*Y+y)); v != 0 {
						if err := fn(Weight{Kind: kind, Feature: name, Prev: p, Label: y, Value: v}); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}
