package sparse

import "fmt"

// Layout is the layout of the flat weight (or feature) vector of a
// linear-chain CRF with U = NumUnary unary attributes, L labels and P =
// NumPair pair attributes. The blocks follow each other, each row-major:
//
//	state  [0, U*L)                 StateIndex(a, y)       = a*L + y
//	trans  [U*L, U*L+L*L)           TransIndex(prev, cur)  = U*L + prev*L + cur
//	pair   [U*L+L*L, +P*L*L)        PairIndex(a, prev, cur) = U*L + L*L + a*L*L + prev*L + cur
//
// State feature (a, y) is sum_t x_{t,a} [y_t = y] over the Unary matrix of a
// Corpus; transition feature (prev, cur) is sum_{t>=1} [y_{t-1} = prev, y_t =
// cur]; pair feature (a, prev, cur) is sum_{t>=1} x_{t,a} [y_{t-1} = prev, y_t
// = cur] over its Pair matrix (row t conditions the transition into position
// t; the first row of a sequence is ignored).
//
// The transition block always occupies L*L entries; when Transitions is false
// the model has no label-bigram features and those entries stay zero. The
// zero Layout is empty (L = 0) and not valid; see Check.
type Layout struct {
	NumUnary    int  // U, number of unary attributes
	L           int  // number of labels
	NumPair     int  // P, number of pair attributes (0: no pair block)
	Transitions bool // whether the label-bigram features exist
}

// Block names a block of a Layout.
type Block int

// The blocks of a Layout, in index order.
const (
	StateBlock Block = iota // (attribute, label)
	TransBlock              // (previous label, label)
	PairBlock               // (pair attribute, previous label, label)
)

func (b Block) String() string {
	switch b {
	case StateBlock:
		return "state"
	case TransBlock:
		return "trans"
	case PairBlock:
		return "pair"
	}
	return fmt.Sprintf("Block(%d)", int(b))
}

// Feature is a decoded index of a Layout. Fields that do not apply to the
// block are -1: a state feature has Prev = -1, a transition feature Attr =
// -1. Cur is the label y of a state feature.
type Feature struct {
	Block Block
	Attr  int // unary attribute (StateBlock) or pair attribute (PairBlock)
	Prev  int // previous label (TransBlock, PairBlock)
	Cur   int // label at the position
}

// StateLen returns U*L, the length of the state block.
func (l Layout) StateLen() int { return l.NumUnary * l.L }

// TransOffset returns U*L, the index of transition feature (0, 0).
func (l Layout) TransOffset() int { return l.NumUnary * l.L }

// PairOffset returns U*L + L*L, the index of pair feature (0, 0, 0).
func (l Layout) PairOffset() int { return l.NumUnary*l.L + l.L*l.L }

// Dim returns U*L + L*L + P*L*L, the length of the whole vector. It does not
// guard against integer overflow: check sizes from untrusted input with
// DimFloat first.
func (l Layout) Dim() int { return l.PairOffset() + l.NumPair*l.L*l.L }

// DimFloat returns Dim computed in float64, which cannot overflow: use it to
// check a declared size against a limit before allocating.
func (l Layout) DimFloat() float64 {
	U, L, P := float64(l.NumUnary), float64(l.L), float64(l.NumPair)
	return U*L + L*L + P*L*L
}

// Check returns an error if a count is negative or L < 1.
func (l Layout) Check() error {
	if l.L < 1 || l.NumUnary < 0 || l.NumPair < 0 {
		return fmt.Errorf("sparse: invalid layout (U=%d, L=%d, P=%d)", l.NumUnary, l.L, l.NumPair)
	}
	return nil
}

// StateIndex returns the index of state feature (a, y): a*L + y.
func (l Layout) StateIndex(a, y int) int { return a*l.L + y }

// TransIndex returns the index of transition feature (prev, cur).
func (l Layout) TransIndex(prev, cur int) int { return l.TransOffset() + prev*l.L + cur }

// PairIndex returns the index of pair feature (a, prev, cur).
func (l Layout) PairIndex(a, prev, cur int) int {
	return l.PairOffset() + (a*l.L+prev)*l.L + cur
}

// Index returns the index of f: the inverse of Decode.
func (l Layout) Index(f Feature) int {
	switch f.Block {
	case StateBlock:
		return l.StateIndex(f.Attr, f.Cur)
	case TransBlock:
		return l.TransIndex(f.Prev, f.Cur)
	case PairBlock:
		return l.PairIndex(f.Attr, f.Prev, f.Cur)
	}
	panic(fmt.Sprintf("sparse: Layout.Index: unknown block %d", int(f.Block)))
}

// Decode returns the block of index j and its coordinates in that block. It
// panics if j lies outside [0, Dim()).
func (l Layout) Decode(j int) Feature {
	L := l.L
	switch to, po := l.TransOffset(), l.PairOffset(); {
	case j < 0 || j >= l.Dim():
		panic(fmt.Sprintf("sparse: Layout.Decode: index %d outside [0,%d)", j, l.Dim()))
	case j < to:
		return Feature{Block: StateBlock, Attr: j / L, Prev: -1, Cur: j % L}
	case j < po:
		k := j - to
		return Feature{Block: TransBlock, Attr: -1, Prev: k / L, Cur: k % L}
	default:
		k := j - po
		return Feature{Block: PairBlock, Attr: k / (L * L), Prev: k / L % L, Cur: k % L}
	}
}
