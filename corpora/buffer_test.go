package corpora

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomCoNLL returns a CoNLL file of random sequences (of 1 to 40
// positions, so that buffers both grow and shrink) of ncols columns, with
// -DOCSTART- lines, runs of blank lines and a trailing sequence without a
// final blank line.
func randomCoNLL(r *rand.Rand, ncols int) []byte {
	var b strings.Builder
	for range 1 + r.IntN(30) {
		if r.IntN(8) == 0 {
			fmt.Fprintf(&b, "-DOCSTART-%s\n\n", strings.Repeat(" x", ncols-1))
		}
		for range 1 + r.IntN(40) {
			for c := range ncols {
				if c > 0 {
					b.WriteString(" \t"[r.IntN(2):][:1])
				}
				fmt.Fprintf(&b, "w%d", r.IntN(1000))
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("\n", 1+r.IntN(2)))
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

// TestCoNLLNextInto checks that NextInto reads the sequences Next reads, on
// random files and the CoNLL-2000 test set, reusing one Buffer's memory,
// and that Next (what training reads) still hands out independent
// sequences: those kept from Next are unchanged after reading on.
func TestCoNLLNextInto(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var inputs [][]byte
	for range 50 {
		inputs = append(inputs, randomCoNLL(r, 2+r.IntN(3)))
	}
	inputs = append(inputs, readEmbedded(t, "conll2000/test.txt.gz"))
	for i, in := range inputs {
		for _, unlabeled := range []bool{false, true} {
			opts := CoNLLOptions{Unlabeled: unlabeled}
			want, err := ReadCoNLL("f", bytes.NewReader(in), opts)
			require.NoError(t, err, "input %d", i)
			wantCopy := deepCopy(want)
			var b Buffer
			for pass := range 2 { // the second pass reads into a grown buffer
				rd := NewCoNLLReader("f", bytes.NewReader(in), opts)
				var first *string
				if pass == 1 {
					first = &b.cells[:1][0]
				}
				k := 0
				for ; rd.NextInto(&b); k++ {
					require.Less(t, k, len(want))
					s := rd.Sequence()
					require.Equal(t, want[k].Tokens, s.Tokens, "input %d sequence %d", i, k)
					require.Equal(t, want[k].Labels, s.Labels, "input %d sequence %d", i, k)
					require.Equal(t, want[k].Line, s.Line)
					if first != nil {
						require.Same(t, first, &b.cells[:1][0], "input %d: the buffer was not reused", i)
					}
				}
				require.NoError(t, rd.Err())
				require.Equal(t, len(want), k)
			}
			require.Equal(t, wantCopy, want, "sequences kept from Next changed")
		}
	}
}

func readEmbedded(t *testing.T, name string) []byte {
	rc, err := OpenEmbedded(name)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// deepCopy copies the slices of seqs (the strings are immutable).
func deepCopy(seqs []Sequence) []Sequence {
	out := make([]Sequence, len(seqs))
	for i, s := range seqs {
		out[i] = Sequence{Labels: append([]string(nil), s.Labels...), Line: s.Line}
		for _, row := range s.Tokens {
			out[i].Tokens = append(out[i].Tokens, append([]string(nil), row...))
		}
	}
	return out
}
