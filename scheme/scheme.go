package scheme

import (
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/inference"
)

// Scheme is a chunk label scheme.
type Scheme int

// The schemes.
const (
	IOB1 Scheme = iota + 1
	IOB2
	IOBES
	BILOU
)

var names = []string{IOB1: "iob1", IOB2: "iob2", IOBES: "iobes", BILOU: "bilou"}

// Names lists the schemes' names, as Parse reads them.
var Names = []string{"iob1", "iob2", "iobes", "bilou"}

func (s Scheme) String() string {
	if s < IOB1 || s > BILOU {
		return fmt.Sprintf("Scheme(%d)", int(s))
	}
	return names[s]
}

// Parse returns the scheme named s (iob1, iob2, bio, iobes or bilou, in
// any case).
func Parse(s string) (Scheme, error) {
	switch strings.ToLower(s) {
	case "iob1":
		return IOB1, nil
	case "iob2", "bio":
		return IOB2, nil
	case "iobes":
		return IOBES, nil
	case "bilou":
		return BILOU, nil
	}
	return 0, fmt.Errorf("scheme: unknown label scheme %q (want iob1, iob2, iobes or bilou)", s)
}

// Detect returns the scheme that labels most likely use: BILOU if a label
// has prefix L- or U-, IOBES if one has E- or S-, else IOB2.
func Detect(labels []string) Scheme {
	s := IOB2
	for _, l := range labels {
		if len(l) > 2 && l[1] == '-' {
			switch l[0] {
			case 'L', 'U':
				return BILOU
			case 'E', 'S':
				s = IOBES
			}
		}
	}
	return s
}

// Role is the part of a chunk a label marks.
type Role uint8

// The roles. Outside is O; the others carry a chunk type.
const (
	Outside Role = iota
	Begin        // B
	Inside       // I
	Last         // E (IOBES), L (BILOU)
	Unit         // S (IOBES), U (BILOU)
)

// Labels is a model's label set read in a scheme. It is immutable and safe
// for concurrent use.
type Labels struct {
	scheme Scheme
	names  []string
	role   []Role
	typ    []int // chunk type id per label, -1 for O
	types  []string
	// Per chunk type: its label of each role (-1 if none), and the labels
	// other than its inside label and other than its begin and inside
	// labels (the sets of SpanProb's boundaries).
	begin, inside, last, unit []int
	notInside, notOpen        [][]int
}

// NewLabels reads labels (a model's label names, in id order) in scheme
// s. Every label must be O or a prefix of the scheme, a hyphen and a
// non-empty type, and at least one must be a chunk label; otherwise the
// error names the labels that do not fit.
func NewLabels(s Scheme, labels []string) (*Labels, error) {
	if s < IOB1 || s > BILOU {
		return nil, fmt.Errorf("scheme: unknown scheme %d", int(s))
	}
	prefixes := map[Scheme]string{IOB1: "BI", IOB2: "BI", IOBES: "BIES", BILOU: "BILU"}[s]
	l := &Labels{scheme: s, names: labels, role: make([]Role, len(labels)), typ: make([]int, len(labels))}
	typeID := map[string]int{}
	var bad []string
	chunks := 0
	for y, name := range labels {
		if name == "O" {
			l.typ[y] = -1
			continue
		}
		if len(name) < 3 || name[1] != '-' || !strings.ContainsRune(prefixes, rune(name[0])) {
			bad = append(bad, name)
			continue
		}
		switch name[0] {
		case 'B':
			l.role[y] = Begin
		case 'I':
			l.role[y] = Inside
		case 'E', 'L':
			l.role[y] = Last
		case 'S', 'U':
			l.role[y] = Unit
		}
		id, ok := typeID[name[2:]]
		if !ok {
			id = len(l.types)
			typeID[name[2:]] = id
			l.types = append(l.types, name[2:])
		}
		l.typ[y] = id
		chunks++
	}
	if len(bad) > 0 {
		const show = 8
		more := ""
		if len(bad) > show {
			more = fmt.Sprintf(" and %d more", len(bad)-show)
			bad = bad[:show]
		}
		return nil, fmt.Errorf("scheme: labels that are not %s chunk labels (O or %s followed by -TYPE): %s%s",
			s, strings.Join(strings.Split(prefixes, ""), "-, ")+"-", strings.Join(bad, " "), more)
	}
	if chunks == 0 {
		return nil, fmt.Errorf("scheme: no %s chunk label among %d labels", s, len(labels))
	}
	l.index()
	if lame := l.lameTypes(); len(lame) > 0 {
		return nil, fmt.Errorf("scheme: the labels cannot mark a %s chunk of type %s (%s)", s, strings.Join(lame, ", "), map[Scheme]string{
			IOB1: "I-X needed", IOB2: "B-X needed", IOBES: "S-X, or B-X and E-X, needed", BILOU: "U-X, or B-X and L-X, needed"}[s])
	}
	return l, nil
}

// index fills the per-type label tables of l.
func (l *Labels) index() {
	K := len(l.types)
	minus := func() []int {
		s := make([]int, K)
		for i := range s {
			s[i] = -1
		}
		return s
	}
	l.begin, l.inside, l.last, l.unit = minus(), minus(), minus(), minus()
	for y, r := range l.role {
		x := l.typ[y]
		switch r {
		case Begin:
			l.begin[x] = y
		case Inside:
			l.inside[x] = y
		case Last:
			l.last[x] = y
		case Unit:
			l.unit[x] = y
		}
	}
	l.notInside, l.notOpen = make([][]int, K), make([][]int, K)
	for x := range K {
		for y := range l.role {
			if y != l.inside[x] {
				l.notInside[x] = append(l.notInside[x], y)
				if y != l.begin[x] {
					l.notOpen[x] = append(l.notOpen[x], y)
				}
			}
		}
	}
}

// lameTypes returns the chunk types that no valid label sequence can
// mark as a chunk: without the labels that start (IOB1: I-X; IOB2: B-X)
// or start and end (IOBES, BILOU: a unit, or a begin and a last label) a
// chunk.
func (l *Labels) lameTypes() []string {
	has := make([][5]bool, len(l.types))
	for y, r := range l.role {
		if l.typ[y] >= 0 {
			has[l.typ[y]][r] = true
		}
	}
	var lame []string
	for x, h := range has {
		var ok bool
		switch l.scheme {
		case IOB1:
			ok = h[Inside]
		case IOB2:
			ok = h[Begin]
		default:
			ok = h[Unit] || h[Begin] && h[Last]
		}
		if !ok {
			lame = append(lame, l.types[x])
		}
	}
	return lame
}

// Scheme returns the scheme of l.
func (l *Labels) Scheme() Scheme { return l.scheme }

// Len returns the number of labels.
func (l *Labels) Len() int { return len(l.names) }

// Types returns the chunk types in order of first appearance among the
// labels; a Span's Type indexes it. The slice must not be modified.
func (l *Labels) Types() []string { return l.types }

// Role returns the role of label y and its chunk type (-1 for O).
func (l *Labels) Role(y int) (Role, int) { return l.role[y], l.typ[y] }

// Transition reports whether label cur may follow label prev.
func (l *Labels) Transition(prev, cur int) bool {
	rp, tp := l.role[prev], l.typ[prev]
	rc, tc := l.role[cur], l.typ[cur]
	open := rp == Begin || rp == Inside // prev leaves a chunk open (IOBES, BILOU)
	switch l.scheme {
	case IOB1:
		return rc != Begin || (open && tp == tc)
	case IOB2:
		return rc != Inside || (open && tp == tc)
	}
	if open {
		return (rc == Inside || rc == Last) && tp == tc
	}
	return rc == Outside || rc == Begin || rc == Unit
}

// Start reports whether label y may start a sequence.
func (l *Labels) Start(y int) bool {
	switch l.scheme {
	case IOB1:
		return l.role[y] != Begin
	case IOB2:
		return l.role[y] != Inside
	}
	r := l.role[y]
	return r == Outside || r == Begin || r == Unit
}

// End reports whether label y may end a sequence.
func (l *Labels) End(y int) bool {
	if l.scheme == IOB1 || l.scheme == IOB2 {
		return true
	}
	r := l.role[y]
	return r == Outside || r == Last || r == Unit
}

// Valid reports whether path is a valid label sequence of the scheme.
func (l *Labels) Valid(path []int) bool {
	for t, y := range path {
		if t == 0 && !l.Start(y) || t > 0 && !l.Transition(path[t-1], y) {
			return false
		}
	}
	return len(path) == 0 || l.End(path[len(path)-1])
}

// Span is a chunk: the positions [Start, End) and the chunk type (an index
// of Labels.Types), and, when computed, its marginal probability.
type Span struct {
	Start, End int
	Type       int
	Prob       float64
}

// Spans appends the chunks that path marks to dst and returns dst. On a
// valid path the chunks are the scheme's; an invalid one is read leniently,
// as conlleval reads IOB: a chunk starts at B, S (U) or where an I or E
// (L) follows O, the end of a chunk or a different type, and ends before
// O, B, S (U) or a different type, and after E (L) or S (U).
func (l *Labels) Spans(dst []Span, path []int) []Span {
	start, typ := -1, -1
	for t, y := range path {
		r, ty := l.role[y], l.typ[y]
		begins := r != Outside && (r == Begin || r == Unit || start < 0 || ty != typ)
		if start >= 0 && (r == Outside || begins) {
			dst = append(dst, Span{Start: start, End: t, Type: typ})
			start = -1
		}
		if begins {
			start, typ = t, ty
		}
		if r == Last || r == Unit {
			if start >= 0 {
				dst = append(dst, Span{Start: start, End: t + 1, Type: typ})
			}
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, Span{Start: start, End: len(path), Type: typ})
	}
	return dst
}

// SpanWorkspace is the scratch of SpanProb. A zero SpanWorkspace is ready
// to use; use one per goroutine.
type SpanWorkspace struct {
	v, next []float64
	one     [1]int
}

// SpanProb returns the marginal probability that exactly sp (positions
// [sp.Start, sp.End), type sp.Type) is a chunk, under the chain
// distribution of lat whose ForwardBackward ws holds, which must allow
// only valid label sequences of the scheme (lat decoded with l's
// constraints): the probability of the label pattern that marks exactly
// sp, e.g. in IOB2 B-X at Start, I-X up to End-1 and no I-X at End.
//
// The posterior of a linear-chain CRF is a Markov chain, so the pattern's
// probability is a forward pass over the span's positions:
// v(y') = Σ_y v(y) P(y_{t-1}=y, y_t=y') / P(y_{t-1}=y) over the labels
// the pattern allows at t-1 and t, started at the node marginals. The
// pairwise marginals come one by one (inference's EdgeProb), so a span
// costs O(End-Start) where one label is allowed and O(L) at a boundary
// that excludes one label.
func (l *Labels) SpanProb(sw *SpanWorkspace, ws *inference.Workspace, lat *inference.Lattice, sp Span) float64 {
	T := lat.T
	if sp.Start < 0 || sp.End > T || sp.Start >= sp.End || sp.Type < 0 || sp.Type >= len(l.types) {
		panic(fmt.Sprintf("scheme: span [%d, %d) of type %d out of range (T=%d, %d types)", sp.Start, sp.End, sp.Type, T, len(l.types)))
	}
	x := sp.Type
	n := sp.End - sp.Start
	set := func(y int) []int {
		if y < 0 {
			return nil // no such label: the pattern has probability 0
		}
		return []int{y}
	}
	begin, inside := set(l.begin[x]), set(l.inside[x])
	switch l.scheme {
	case IOB2:
		return l.window(sw, ws, lat, sp.Start, n, begin, inside, inside, l.notInside[x])
	case IOB1:
		// B-X at Start (after an X chunk), or I-X at Start after no X chunk.
		p := l.window(sw, ws, lat, sp.Start, n, begin, inside, inside, l.notInside[x])
		if sp.Start == 0 {
			return p + l.window(sw, ws, lat, 0, n, inside, inside, inside, l.notInside[x])
		}
		return p + l.window(sw, ws, lat, sp.Start-1, n+1, l.notOpen[x], inside, inside, l.notInside[x])
	}
	if n == 1 {
		return l.window(sw, ws, lat, sp.Start, 1, set(l.unit[x]), nil, nil, nil)
	}
	return l.window(sw, ws, lat, sp.Start, n, begin, inside, set(l.last[x]), nil)
}

// window returns the probability that y_a is in first, y_{a+1} ...
// y_{a+n-2} in inside and y_{a+n-1} in last (first alone when n = 1), and,
// when after is not nil and a+n < T, y_{a+n} in after. An empty set has
// probability 0.
func (l *Labels) window(sw *SpanWorkspace, ws *inference.Workspace, lat *inference.Lattice, a, n int, first, inside, last, after []int) float64 {
	T, L := lat.T, lat.L
	node := ws.Node()
	sw.v = grow(sw.v[:0], len(first))
	v, cur := sw.v, first
	for i, y := range first {
		v[i] = node[a*L+y]
	}
	steps := n - 1
	if after != nil && a+n < T {
		steps = n
	}
	for k := 1; k <= steps; k++ {
		t := a + k
		var ok []int
		switch {
		case k == n:
			ok = after
		case k == n-1:
			ok = last
		default:
			ok = inside
		}
		sw.next = grow(sw.next, len(ok))
		next := sw.next
		clear(next)
		for i, y := range cur {
			if v[i] == 0 {
				continue
			}
			f := v[i] / node[(t-1)*L+y]
			for j, y2 := range ok {
				next[j] += f * ws.EdgeProb(lat, t, y, y2)
			}
		}
		sw.v, sw.next = next, v
		v, cur = next, ok
	}
	s := 0.0
	for _, p := range v {
		s += p
	}
	return s
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
