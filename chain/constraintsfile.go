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
	p := newConstraintsParser(name, labels)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxConstraintsLineBytes)
	for sc.Scan() {
		p.line++
		if err := p.rule(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		p.line++
		return nil, p.fail("%v", err)
	}
	return p.finish(), nil
}

// constraintsParser is ReadConstraints' state: the forbid rules go into c
// as they come; the allow rules of each kind (transitions, start, end) are
// collected and turned into forbids of what they do not allow at the end.
type constraintsParser struct {
	name   string
	labels []string
	line   int
	c      *Constraints

	allowT, allowS, allowE []bool
	haveT, haveS, haveE    bool
}

func newConstraintsParser(name string, labels []string) *constraintsParser {
	L := len(labels)
	return &constraintsParser{name: name, labels: labels, c: NewConstraints(L),
		allowT: make([]bool, L*L), allowS: make([]bool, L), allowE: make([]bool, L)}
}

// fail returns a syntax error at the current line.
func (p *constraintsParser) fail(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %w: %s", p.name, p.line, ErrConstraintsSyntax, fmt.Sprintf(format, args...))
}

// match returns the labels pattern pat names (a label, or a pattern with
// one *); none is an error.
func (p *constraintsParser) match(pat string) ([]int, error) {
	var ys []int
	before, after, glob := strings.Cut(pat, "*")
	if glob && strings.Contains(after, "*") {
		return nil, p.fail("pattern %q has more than one *", pat)
	}
	for y, l := range p.labels {
		if l == pat || glob && len(l) >= len(before)+len(after) && strings.HasPrefix(l, before) && strings.HasSuffix(l, after) {
			ys = append(ys, y)
		}
	}
	if len(ys) == 0 {
		return nil, p.fail("%q matches no label of the model (%s)", pat, strings.Join(p.labels, " "))
	}
	return ys, nil
}

// rule reads one line of the file.
func (p *constraintsParser) rule(text string) error {
	f := strings.Fields(text)
	if len(f) == 0 || strings.HasPrefix(f[0], "#") {
		return nil
	}
	if k := indexComment(f); k >= 0 {
		f = f[:k]
	}
	if len(f) != 3 || (f[0] != "forbid" && f[0] != "allow") {
		return p.fail("want \"forbid|allow PREV CUR\" or \"forbid|allow start|end LABEL\", got %q", text)
	}
	allow := f[0] == "allow"
	if f[1] == "start" || f[1] == "end" {
		return p.boundary(f[1] == "start", allow, f[2])
	}
	prev, err := p.match(f[1])
	if err != nil {
		return err
	}
	cur, err := p.match(f[2])
	if err != nil {
		return err
	}
	L := len(p.labels)
	for _, a := range prev {
		for _, y := range cur {
			if allow {
				p.allowT[a*L+y], p.haveT = true, true
			} else {
				p.c.ForbidTransition(a, y)
			}
		}
	}
	return nil
}

// boundary applies a start (start true) or end rule to the labels pat
// names.
func (p *constraintsParser) boundary(start, allow bool, pat string) error {
	ys, err := p.match(pat)
	if err != nil {
		return err
	}
	for _, y := range ys {
		switch {
		case start && allow:
			p.allowS[y], p.haveS = true, true
		case start:
			p.c.ForbidStart(y)
		case allow:
			p.allowE[y], p.haveE = true, true
		default:
			p.c.ForbidEnd(y)
		}
	}
	return nil
}

// finish forbids, of each kind that had allow rules, what they did not
// allow, and returns the constraints.
func (p *constraintsParser) finish() *Constraints {
	c := p.c
	for k := range p.allowT {
		if p.haveT && !p.allowT[k] {
			c.trans[k] = true
		}
	}
	for y := range p.labels {
		if p.haveS && !p.allowS[y] {
			c.start[y] = true
		}
		if p.haveE && !p.allowE[y] {
			c.end[y] = true
		}
	}
	return c
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
