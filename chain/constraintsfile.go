package chain

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrConstraintsSyntax is wrapped by the errors of ReadConstraints.
var ErrConstraintsSyntax = errors.New("chain: bad constraints file")

// MaxConstraintsLineBytes bounds a line of a constraints file.
const MaxConstraintsLineBytes = 64 << 10

// ReadConstraints reads a file of forbidden or allowed label transitions
// over labels (the model's label names, in id order); name names it in
// errors, which give its line ("trans.txt:3: ..."). The format, one rule a
// line, blank lines and lines starting with # ignored:
//
//	forbid PREV CUR     # CUR may not follow PREV
//	allow PREV CUR      # CUR may follow PREV
//	forbid start LABEL  # LABEL may not start a sequence
//	forbid end LABEL    # LABEL may not end a sequence
//	allow start LABEL   # LABEL may start a sequence
//	allow end LABEL     # LABEL may end a sequence
//
// A label is a label name, or a pattern with one * standing for any run of
// characters (I-* matches every I- label, * every label). When a file has
// allow rules of a kind (transitions, start, end), only what they allow is
// allowed of that kind, less what forbid rules forbid; otherwise
// everything is allowed but what forbid rules forbid. A rule whose pattern
// matches no label is an error: a typo would otherwise allow or forbid
// nothing.
func ReadConstraints(name string, r io.Reader, labels []string) (*Constraints, error) {
	L := len(labels)
	allowT := make([]bool, L*L)
	allowS, allowE := make([]bool, L), make([]bool, L)
	c := NewConstraints(L)
	var haveT, haveS, haveE bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxConstraintsLineBytes)
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %w: %s", name, line, ErrConstraintsSyntax, fmt.Sprintf(format, args...))
	}
	match := func(pat string) ([]int, error) {
		var ys []int
		before, after, glob := strings.Cut(pat, "*")
		if glob && strings.Contains(after, "*") {
			return nil, fail("pattern %q has more than one *", pat)
		}
		for y, l := range labels {
			if l == pat || glob && len(l) >= len(before)+len(after) && strings.HasPrefix(l, before) && strings.HasSuffix(l, after) {
				ys = append(ys, y)
			}
		}
		if len(ys) == 0 {
			return nil, fail("%q matches no label of the model (%s)", pat, strings.Join(labels, " "))
		}
		return ys, nil
	}
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if k := indexComment(f); k >= 0 {
			f = f[:k]
		}
		if len(f) != 3 || (f[0] != "forbid" && f[0] != "allow") {
			return nil, fail("want \"forbid|allow PREV CUR\" or \"forbid|allow start|end LABEL\", got %q", sc.Text())
		}
		allow := f[0] == "allow"
		switch f[1] {
		case "start", "end":
			ys, err := match(f[2])
			if err != nil {
				return nil, err
			}
			for _, y := range ys {
				switch {
				case f[1] == "start" && allow:
					allowS[y], haveS = true, true
				case f[1] == "start":
					c.ForbidStart(y)
				case allow:
					allowE[y], haveE = true, true
				default:
					c.ForbidEnd(y)
				}
			}
		default:
			prev, err := match(f[1])
			if err != nil {
				return nil, err
			}
			cur, err := match(f[2])
			if err != nil {
				return nil, err
			}
			for _, p := range prev {
				for _, y := range cur {
					if allow {
						allowT[p*L+y], haveT = true, true
					} else {
						c.ForbidTransition(p, y)
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		line++
		return nil, fail("%v", err)
	}
	for k := range allowT {
		if haveT && !allowT[k] {
			c.trans[k] = true
		}
	}
	for y := range L {
		if haveS && !allowS[y] {
			c.start[y] = true
		}
		if haveE && !allowE[y] {
			c.end[y] = true
		}
	}
	return c, nil
}

// indexComment returns the index of the first field that starts a #
// comment, -1 if none.
func indexComment(f []string) int {
	for k, s := range f {
		if strings.HasPrefix(s, "#") {
			return k
		}
	}
	return -1
}

// Merge returns constraints that forbid what c or o forbids (both over the
// same labels; nil is no constraint).
func Merge(c, o *Constraints) *Constraints {
	switch {
	case c == nil:
		return o
	case o == nil:
		return c
	}
	if c.numLabels != o.numLabels {
		panic(fmt.Sprintf("chain: Merge of constraints over %d and %d labels", c.numLabels, o.numLabels))
	}
	m := NewConstraints(c.numLabels)
	for k := range m.trans {
		m.trans[k] = c.trans[k] || o.trans[k]
	}
	for y := range m.start {
		m.start[y] = c.start[y] || o.start[y]
		m.end[y] = c.end[y] || o.end[y]
	}
	return m
}
