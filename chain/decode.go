package chain

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/sparse"
)

// Constraints is a transition mask for constrained decoding: label pairs
// (prev, cur) that may not follow each other and labels that may not start
// a sequence. Make one with NewConstraints or BIOConstraints; a new
// Constraints allows everything. A Constraints must not be modified while a
// decoding uses it; it may be shared by goroutines that only read it.
type Constraints struct {
	numLabels int
	trans     []bool // L×L: trans[prev*L+cur] is forbidden
	start     []bool // L: start[y] is forbidden
}

// NewConstraints returns a Constraints over numLabels labels that forbids
// nothing.
func NewConstraints(numLabels int) *Constraints {
	if numLabels < 0 {
		panic(fmt.Sprintf("chain: NewConstraints(%d): negative label count", numLabels))
	}
	return &Constraints{
		numLabels: numLabels,
		trans:     make([]bool, numLabels*numLabels),
		start:     make([]bool, numLabels),
	}
}

// NumLabels returns the number of labels of c.
func (c *Constraints) NumLabels() int { return c.numLabels }

func (c *Constraints) checkLabel(y int) {
	if y < 0 || y >= c.numLabels {
		panic(fmt.Sprintf("chain: label %d out of range [0, %d)", y, c.numLabels))
	}
}

// ForbidTransition forbids label cur right after label prev. It panics if a
// label is out of range.
func (c *Constraints) ForbidTransition(prev, cur int) {
	c.checkLabel(prev)
	c.checkLabel(cur)
	c.trans[prev*c.numLabels+cur] = true
}

// ForbidStart forbids label y at the first position. It panics if y is out
// of range.
func (c *Constraints) ForbidStart(y int) {
	c.checkLabel(y)
	c.start[y] = true
}

// TransitionAllowed reports whether label cur may follow label prev.
func (c *Constraints) TransitionAllowed(prev, cur int) bool {
	c.checkLabel(prev)
	c.checkLabel(cur)
	return !c.trans[prev*c.numLabels+cur]
}

// StartAllowed reports whether label y may start a sequence.
func (c *Constraints) StartAllowed(y int) bool {
	c.checkLabel(y)
	return !c.start[y]
}

// BIOConstraints returns the constraints of the BIO (IOB2) chunk encoding
// over labels (the model's label names, in id order): an inside tag I-X
// may only follow B-X or I-X. It forbids
//
//   - O → I-X and the start → I-X,
//   - B-X → I-Y and I-X → I-Y for Y ≠ X.
//
// Other labels (E-X, S-X or labels that are no chunk tags) are left free.
// Use it only for IOB2 data: in IOB1, I-X may start a chunk.
func BIOConstraints(labels []string) *Constraints {
	c := NewConstraints(len(labels))
	for cur, lc := range labels {
		typ, ok := strings.CutPrefix(lc, "I-")
		if !ok || typ == "" {
			continue
		}
		c.ForbidStart(cur)
		for prev, lp := range labels {
			switch {
			case lp == "O":
				c.ForbidTransition(prev, cur)
			case len(lp) > 2 && (lp[:2] == "B-" || lp[:2] == "I-") && lp[2:] != typ:
				c.ForbidTransition(prev, cur)
			}
		}
	}
	return c
}

// HasChunkLabels reports whether labels contain at least one B-X or I-X
// label, i.e. whether BIOConstraints can forbid anything.
func HasChunkLabels(labels []string) bool {
	for _, l := range labels {
		if len(l) > 2 && (l[:2] == "B-" || l[:2] == "I-") {
			return true
		}
	}
	return false
}

// DecodeOptions selects what a Decode call computes. The zero value gives
// the Viterbi path and its score, like Tag.
type DecodeOptions struct {
	// N is the number of best label sequences to find (list Viterbi, see
	// inference.NBest); 0 or 1 finds only the best.
	N int
	// Posterior also computes log Z, the probability of each sequence found
	// and the node marginals, with one forward-backward pass. It is implied
	// when N > 1.
	Posterior bool
	// Constraints, when not nil, forbids label transitions and start labels
	// (constrained decoding). Its NumLabels must be the model's.
	Constraints *Constraints
	// Fixed, when not nil, holds one entry per position: a label id fixes
	// the label of that position (forced decoding of partially labeled
	// input; every other label gets score -Inf), -1 leaves it free.
	Fixed []int
	// MaxBytes, when > 0, bounds the memory of n-best decoding (N > 1): a
	// sequence whose NBestMemory (scratch plus result) exceeds it is
	// refused with a *MemoryError before anything is allocated.
	MaxBytes int64
}

// NBestMemory returns the memory that n-best decoding (DecodeOptions.N = n
// > 1) of one sequence of T positions over L labels needs beyond
// one-best decoding, in bytes:
//
//   - scratch, the inference.NBestWorkspace of the goroutine that decodes
//     (reused, never shrunk): for every (position, label, rank) a score
//     (8 B) and the label and rank of its prefix (4 B each), 16·T·L·n
//     bytes, plus 4·T·L + 20·L for the list lengths, merge heads and
//     candidates;
//   - result, what the Decoding keeps until its next use: n paths of T
//     labels (8·T bytes each and a 24-byte slice header) and n scores and
//     probabilities (16 B), 8·T·n + 40·n bytes.
//
// Both grow linearly in T and n: scratch dominates when L > 1 and is
// needed once per decoding goroutine; result once per Decoding kept. The
// values saturate at math.MaxInt64 instead of overflowing.
// TestNBestMemory checks them against the allocation of a cold Decode.
func NBestMemory(T, L, n int) (scratch, result int64) {
	t, l, k := float64(T), float64(L), float64(n)
	return saturate(16*t*l*k + 4*t*l + 20*l), saturate(8*t*k + 40*k)
}

// saturate converts a non-negative byte count to int64, capped at
// math.MaxInt64.
func saturate(b float64) int64 {
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}

// MemoryError is returned by Decode for a sequence whose n-best decoding
// would need more memory than DecodeOptions.MaxBytes.
type MemoryError struct {
	T, L, N     int   // positions, labels and paths asked for
	Need, Limit int64 // NBestMemory (scratch plus result) and MaxBytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("chain: %d-best decoding of a sequence of %d positions over %d labels needs about %s, more than the limit %s",
		e.N, e.T, e.L, formatBytes(e.Need), formatBytes(e.Limit))
}

// formatBytes formats a byte count with a binary unit: 512 B, 1.5 KiB,
// 3.2 GiB.
func formatBytes(b int64) string {
	const units = "KMGTPE"
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	x, i := float64(b)/1024, 0
	for x >= 1024 && i < len(units)-1 {
		x, i = x/1024, i+1
	}
	return fmt.Sprintf("%.1f %ciB", x, units[i])
}

// Decoding is the result of a Decode call. Its slices are reused by the
// next call that gets the same Decoding.
type Decoding struct {
	// Paths holds the best label sequences, best first: one unless
	// DecodeOptions.N > 1, and fewer than N when fewer sequences are
	// allowed. Ties are broken as in inference.NBest, so Paths[0] is the
	// path of Tag when there are no constraints.
	Paths [][]int
	// Scores holds the score of each path.
	Scores []float64
	// Probs holds the probability exp(score - LogZ) of each path, when the
	// posterior was computed (empty otherwise). With Constraints or Fixed
	// these are conditional probabilities p(y | x, y allowed): the
	// distribution is restricted to the allowed sequences.
	Probs []float64
	// LogZ is the log partition function over the allowed sequences, NaN
	// when the posterior was not computed.
	LogZ float64
	// Marginal is T×L, row-major: Marginal[t*L+y] = p(y_t = y | x, allowed),
	// when the posterior was computed (empty otherwise).
	Marginal []float64
}

// Best returns Paths[0].
func (d *Decoding) Best() []int { return d.Paths[0] }

// ErrNoPath is returned when the constraints and fixed labels together
// allow no label sequence.
var ErrNoPath = errors.New("chain: no label sequence satisfies the constraints and fixed labels")

// decodeScratch is the scratch of constrained and n-best decoding that
// tagScratch does not have.
type decodeScratch struct {
	trans, start []float64
	nb           inference.NBestWorkspace
}

var decodePool = sync.Pool{New: func() any { return new(decodeScratch) }}

// Decode decodes in (see Input) into d with the options of opt: the
// Viterbi path and its score, and, as opt asks, the n best paths, the
// posterior (log Z, path probabilities, node marginals), under constraints
// and fixed labels. It returns ErrNoPath when nothing is allowed, and an
// error when opt does not match the model or the sequence.
func (t *Tagger) Decode(d *Decoding, in Input, opt DecodeOptions) error {
	s := t.get()
	defer t.put(s)
	c, i, err := t.sequence(s, in)
	if err != nil {
		return err
	}
	return t.decode(s, d, c, i, &opt)
}

func (t *Tagger) decode(s *tagScratch, d *Decoding, c *sparse.Corpus, i int, opt *DecodeOptions) error {
	lat := t.score(s, c, i)
	T, L := lat.T, lat.L
	if opt.N > 1 && opt.MaxBytes > 0 {
		if scratch, result := NBestMemory(T, L, opt.N); scratch > opt.MaxBytes-result {
			return &MemoryError{T: T, L: L, N: opt.N, Need: saturate(float64(scratch) + float64(result)), Limit: opt.MaxBytes}
		}
	}
	if opt.Constraints != nil && opt.Constraints.numLabels != L {
		return fmt.Errorf("chain: constraints over %d labels, the model has %d", opt.Constraints.numLabels, L)
	}
	if opt.Fixed != nil {
		if len(opt.Fixed) != T {
			return fmt.Errorf("chain: %d fixed labels for a sequence of %d positions", len(opt.Fixed), T)
		}
		for pos, y := range opt.Fixed {
			if y < -1 || y >= L {
				return fmt.Errorf("chain: fixed label %d at position %d is out of range [-1, %d)", y, pos, L)
			}
		}
	}
	var ds *decodeScratch
	if opt.Constraints != nil || opt.N > 1 {
		ds = decodePool.Get().(*decodeScratch)
		defer decodePool.Put(ds)
	}
	if cs := opt.Constraints; cs != nil {
		// Mask a copy of the transitions: lat.Trans is the model's.
		ds.trans = growFloats(ds.trans, L*L)
		if lat.Trans != nil {
			copy(ds.trans, lat.Trans)
		} else {
			clear(ds.trans)
		}
		for k, forbidden := range cs.trans {
			if forbidden {
				ds.trans[k] = math.Inf(-1)
			}
		}
		lat.Trans = ds.trans
		ds.start = growFloats(ds.start, L)
		anyStart := false
		for y, forbidden := range cs.start {
			ds.start[y] = 0
			if forbidden {
				ds.start[y] = math.Inf(-1)
				anyStart = true
			}
		}
		if anyStart {
			lat.Start = ds.start
		}
	}
	// Fixed labels: the unary rows are the scratch's own, recomputed by
	// every score call.
	for pos, y := range opt.Fixed {
		if y < 0 {
			continue
		}
		row := lat.Unary[pos*L : pos*L+L]
		for k := range row {
			if k != y {
				row[k] = math.Inf(-1)
			}
		}
	}

	if opt.N > 1 {
		d.reserve(opt.N)
		d.Paths, d.Scores = inference.NBest(&ds.nb, lat, opt.N, d.Paths, d.Scores)
	} else {
		if cap(d.Paths) < 1 {
			d.Paths = make([][]int, 1)
		}
		d.Paths = d.Paths[:1]
		d.Paths[0] = resizeInts(d.Paths[0], T)
		score := inference.Viterbi(s.ws, lat, d.Paths[0])
		d.Scores = append(d.Scores[:0], score)
		if math.IsInf(score, -1) {
			d.Paths, d.Scores = d.Paths[:0], d.Scores[:0]
		}
	}
	d.Probs, d.Marginal, d.LogZ = d.Probs[:0], d.Marginal[:0], math.NaN()
	if len(d.Paths) == 0 {
		return ErrNoPath
	}
	if opt.Posterior || opt.N > 1 {
		d.LogZ = inference.ForwardBackward(s.ws, lat)
		for _, sc := range d.Scores {
			d.Probs = append(d.Probs, math.Exp(sc-d.LogZ))
		}
		d.Marginal = append(d.Marginal, s.ws.Node()...)
	}
	return nil
}

// reserve gives d room for n paths, scores and probabilities at once (the
// result of NBestMemory), instead of growing them by appends; the paths
// already there keep their capacity for reuse.
func (d *Decoding) reserve(n int) {
	if cap(d.Paths) < n {
		p := make([][]int, n)
		copy(p, d.Paths[:cap(d.Paths)])
		d.Paths = p[:0]
	}
	if cap(d.Scores) < n {
		d.Scores = make([]float64, 0, n)
	}
	if cap(d.Probs) < n {
		d.Probs = make([]float64, 0, n)
	}
}

func growFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
