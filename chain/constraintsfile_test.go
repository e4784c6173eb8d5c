package chain

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadConstraints(t *testing.T) {
	labels := []string{"O", "B-PER", "I-PER", "B-LOC", "I-LOC"}
	const file = `# IOB2 by hand
forbid O I-*
forbid start I-*
forbid B-PER I-LOC   # a type change
forbid I-PER I-LOC
forbid B-LOC I-PER
forbid I-LOC I-PER
forbid end B-LOC
`
	c, err := ReadConstraints("trans.txt", strings.NewReader(file), labels)
	require.NoError(t, err)
	bio := BIOConstraints(labels)
	for p := range labels {
		for y := range labels {
			assert.Equal(t, bio.TransitionAllowed(p, y), c.TransitionAllowed(p, y), "%s -> %s", labels[p], labels[y])
		}
		assert.Equal(t, bio.StartAllowed(p), c.StartAllowed(p), labels[p])
		assert.Equal(t, labels[p] != "B-LOC", c.EndAllowed(p), labels[p])
	}

	// allow rules: only what they allow, less what forbid rules forbid
	c, err = ReadConstraints("allow.txt", strings.NewReader("allow * O\nallow O *\nforbid O I-LOC\nallow start O\n"), labels)
	require.NoError(t, err)
	assert.True(t, c.TransitionAllowed(1, 0))
	assert.True(t, c.TransitionAllowed(0, 2))
	assert.False(t, c.TransitionAllowed(0, 4))
	assert.False(t, c.TransitionAllowed(1, 2))
	assert.True(t, c.StartAllowed(0))
	assert.False(t, c.StartAllowed(1))
	assert.True(t, c.EndAllowed(3), "no end rule: every label may end")

	m := Merge(c, BIOConstraints(labels))
	assert.False(t, m.TransitionAllowed(0, 2), "BIO forbids O -> I-PER")
	assert.False(t, m.TransitionAllowed(0, 4), "the file forbids O -> I-LOC")
	assert.True(t, m.TransitionAllowed(0, 1))
	assert.Same(t, c, Merge(c, nil))
}

func TestReadConstraintsErrors(t *testing.T) {
	labels := []string{"O", "B-X", "I-X"}
	for _, c := range []struct{ file, msg string }{
		{"forbid O", `trans.txt:1: chain: bad constraints file: want "forbid|allow PREV CUR"`},
		{"\n\nban O I-X", "trans.txt:3: "},
		{"forbid O I-Y", `trans.txt:1: chain: bad constraints file: "I-Y" matches no label of the model (O B-X I-X)`},
		{"forbid *-* O", `pattern "*-*" has more than one *`},
		{"forbid start", "trans.txt:1: "},
		{strings.Repeat("x", MaxConstraintsLineBytes+1), "trans.txt:1: chain: bad constraints file: bufio.Scanner: token too long"},
	} {
		_, err := ReadConstraints("trans.txt", strings.NewReader(c.file), labels)
		require.Error(t, err, c.file)
		assert.True(t, errors.Is(err, ErrConstraintsSyntax))
		assert.Contains(t, err.Error(), c.msg)
	}
}
