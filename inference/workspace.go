package inference

import "fmt"

// Workspace holds the scratch memory of the lattice algorithms and the
// results of the last ForwardBackward. Its buffers grow by capacity and
// never shrink, so a warm Workspace makes ForwardBackward, EdgeAt,
// ExpectedScore, Viterbi and MaxMin allocation-free.
//
// The zero value is ready to use (it grows on first use). A Workspace is not
// safe for concurrent use: give each goroutine its own.
type Workspace struct {
	// Results of the last ForwardBackward.
	ready     bool // a ForwardBackward has run
	fbT, fbL  int  // its dimensions
	logZ      float64
	logSpace  bool // it used the log-space path
	forceLog  bool // tests: always use the log-space path
	goKernels bool // tests: run the Go kernels even where the assembly can

	// Exp-space path: alpha and beta are the scaled forward and backward
	// variables, eu the exp of each unary row (with Start/End) minus its
	// maximum, scale[t] = 1/s_t the per-position normaliser. Log-space path:
	// alpha and beta hold log α and log β, eu the unary rows with Start/End.
	alpha, beta, eu, node []float64 // T×L (alpha + slack)
	out                   []float64 // the caller's node buffer of ForwardBackwardTo (nil: node)
	scale                 []float64 // T
	edge                  []float64 // L×L (+ slack): EdgeSum
	wbuf                  []float64 // T×L (+ slack): backward weights w_t
	edgeZero              int       // edge[:edgeZero²] is known to be all zero (skips clearing it for T <= 1)
	eAt                   []float64 // T×L×L (+ slack): exp of each transition block, when TransAt is set

	// Cache of exp(Trans - max Trans): valid for transCopy when transOK.
	transOK    bool
	transNil   bool
	transL     int
	transCopy  []float64 // L×L
	eTrans     []float64 // L×L (+ slack)
	eTransT    []float64 // L×L (+ slack): the transpose of eTrans
	transMax   float64
	transRange float64

	// Scratch.
	tmp   []float64 // L×L: Trans + TransAt block
	etmp  []float64 // L×L: per-position edge marginals in ExpectedScore
	zeros []float64 // L×L, never written: the transition block when Trans and TransAt are nil
	row   []float64 // 4L + 8
	back  []int32   // T×L Viterbi back pointers
}

// NewWorkspace returns a Workspace with room for lattices of up to T
// positions and L labels.
func NewWorkspace(T, L int) *Workspace {
	ws := new(Workspace)
	ws.Reserve(T, L)
	return ws
}

// Reserve makes sure ws has room for lattices of up to T positions and L
// labels. It allocates only the buffers that must grow. The T×L×L buffer for
// the exp of TransAt is not reserved here: the first ForwardBackward on a
// lattice with TransAt grows it.
func (ws *Workspace) Reserve(T, L int) {
	if T < 0 || L < 0 {
		panic(fmt.Sprintf("inference: Reserve(%d, %d): negative size", T, L))
	}
	TL, LL := T*L, L*L
	ws.alpha = grow(ws.alpha, TL+slack)
	ws.beta = grow(ws.beta, TL)
	ws.eu = grow(ws.eu, TL)
	ws.node = grow(ws.node, TL)
	ws.wbuf = grow(ws.wbuf, TL+slack)
	ws.scale = grow(ws.scale, T)
	ws.edge = grow(ws.edge, LL+slack)
	if cap(ws.transCopy) < LL || cap(ws.eTrans) < LL+slack {
		ws.transOK = false
		ws.transCopy = grow(ws.transCopy, LL)
		ws.eTrans = grow(ws.eTrans, LL+slack)
		ws.eTransT = grow(ws.eTransT, LL+slack)
	}
	ws.tmp = grow(ws.tmp, LL)
	ws.etmp = grow(ws.etmp, LL+slack)
	if cap(ws.zeros) < LL {
		ws.zeros = make([]float64, LL)
	}
	ws.row = grow(ws.row, 4*L+8)
	if cap(ws.back) < TL {
		ws.back = make([]int32, TL)
	}
}

// slack is the room left after the buffers that the kernels read or write
// in rows of pad4(L) entries (kernels.go).
const slack = 3

// grow returns s if its capacity is at least n, else a new slice of length n.
// The returned slice has its full capacity as length.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:cap(s)]
}

// Node returns the T×L node marginals of the last ForwardBackward,
// Node()[t*L+y] = P(y_t = y). The slice aliases ws and is overwritten by the
// next ForwardBackward; after ForwardBackwardTo it is the caller's buffer,
// which a later ForwardBackward leaves alone. If no label sequence has a
// finite score, all marginals are zero.
func (ws *Workspace) Node() []float64 {
	if !ws.ready {
		panic("inference: Node called before ForwardBackward")
	}
	return ws.nodes()
}

// nodes returns the node marginals of the last forward-backward: in the
// caller's buffer (ForwardBackwardTo) or in ws's own.
func (ws *Workspace) nodes() []float64 {
	if ws.out != nil {
		return ws.out
	}
	return ws.node[:ws.fbT*ws.fbL]
}

// EdgeSum returns the L×L edge marginals of the last ForwardBackward summed
// over positions, EdgeSum()[prev*L+cur] = Σ_{t=1}^{T-1} P(y_{t-1}=prev,
// y_t=cur). It is all zero when T ≤ 1. The slice aliases ws and is
// overwritten by the next ForwardBackward.
func (ws *Workspace) EdgeSum() []float64 {
	if !ws.ready {
		panic("inference: EdgeSum called before ForwardBackward")
	}
	return ws.edge[:ws.fbL*ws.fbL]
}

// checkFB panics unless the last ForwardBackward on ws ran on a lattice of
// the size of lat.
func (ws *Workspace) checkFB(lat *Lattice) {
	lat.check()
	if !ws.ready {
		panic("inference: ForwardBackward must run on the lattice first")
	}
	if ws.fbT != lat.T || ws.fbL != lat.L {
		panic(fmt.Sprintf("inference: lattice is %dx%d but the last ForwardBackward ran on %dx%d",
			lat.T, lat.L, ws.fbT, ws.fbL))
	}
}

// zeroEdge returns edge[:L*L] cleared, skipping the clear when it is known
// to be zero already (sequences of length 0 or 1 leave it untouched), and
// records that it stays zero only if T <= 1.
func (ws *Workspace) zeroEdge(T, L int) []float64 {
	e := ws.edge[:L*L]
	if ws.edgeZero != L {
		clear(e)
	}
	ws.edgeZero = 0
	if T <= 1 {
		ws.edgeZero = L
	}
	return e
}

// kernels returns the kernels ws runs: the assembly where the machine has
// it, unless a test asked for the Go versions.
func (ws *Workspace) kernels() kernels { return kernels{asm: haveAsm && !ws.goKernels} }
