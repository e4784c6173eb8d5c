package tagging

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/dataset"
)

// TestInOrder: inOrder with any batch size and worker count emits every
// example once, in input order, with work done before emit, and memory
// bounded by the batch (indices i stay below it).
func TestInOrder(t *testing.T) {
	var src strings.Builder
	for i := range 37 {
		src.WriteString(strings.Repeat("x NN O\n", i%5+1))
		src.WriteString("\n")
	}
	for _, c := range []struct{ workers, batch int }{{1, 1}, {2, 3}, {3, 10}, {0, 0}, {4, 100}} {
		r, err := dataset.NewReader("in", strings.NewReader(src.String()), dataset.Options{Format: dataset.CoNLL})
		require.NoError(t, err)
		batch := c.batch
		if batch <= 0 {
			batch = DefaultBatch
		}
		lens := make([]int, batch)
		var got []int
		err = inOrder(r, c.workers, c.batch, func(_, i, _ int, ex *dataset.Example) error {
			lens[i] = ex.Len()
			return nil
		}, func(i, seq int, ex *dataset.Example) error {
			assert.Equal(t, len(got), seq)
			assert.Equal(t, ex.Len(), lens[i])
			got = append(got, lens[i])
			return nil
		}, nil)
		require.NoError(t, err)
		require.Len(t, got, 37)
		for k, n := range got {
			assert.Equal(t, k%5+1, n, "workers %d batch %d seq %d", c.workers, c.batch, k)
		}
	}
}

// TestInOrderError: the examples before a failing one are emitted, the
// failing one and those after it are not, and its error is returned.
func TestInOrderError(t *testing.T) {
	src := strings.Repeat("x NN O\n\n", 10)
	r, err := dataset.NewReader("in", strings.NewReader(src), dataset.Options{Format: dataset.CoNLL})
	require.NoError(t, err)
	boom := errors.New("boom")
	var emitted []int
	err = inOrder(r, 3, 4, func(_, _, seq int, _ *dataset.Example) error {
		if seq == 6 || seq == 8 {
			return boom
		}
		return nil
	}, func(_, seq int, _ *dataset.Example) error {
		emitted = append(emitted, seq)
		return nil
	}, nil)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, emitted)

	// Reader errors come after the sequences read before them.
	r, err = dataset.NewReader("in", strings.NewReader("a NN O\n\nb NN\n"), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	require.NoError(t, err)
	emitted = emitted[:0]
	err = inOrder(r, 1, 1, func(_, _, _ int, _ *dataset.Example) error { return nil }, func(_, seq int, _ *dataset.Example) error {
		emitted = append(emitted, seq)
		return nil
	}, nil)
	require.Error(t, err)
	assert.Equal(t, []int{0}, emitted)
}

// TestInOrderInteractive: a sequence is emitted (and flush called) as soon as
// it is read and worked on, without waiting for a full batch: a program
// that writes one sentence to a pipe and waits for its labels gets them.
func TestInOrderInteractive(t *testing.T) {
	pr, pw := io.Pipe()
	r, err := dataset.NewReader("pipe", pr, dataset.Options{Format: dataset.CoNLL})
	require.NoError(t, err)
	emitted := make(chan int)
	flushed := 0
	result := make(chan error, 1)
	go func() {
		result <- inOrder(r, 2, 64, func(_, _, _ int, _ *dataset.Example) error { return nil },
			func(_, seq int, _ *dataset.Example) error { emitted <- seq; return nil },
			func() error { flushed++; return nil })
	}()
	for k := range 5 {
		_, err := fmt.Fprintf(pw, "w%d NN O\n\n", k)
		require.NoError(t, err)
		select {
		case seq := <-emitted:
			assert.Equal(t, k, seq)
		case <-time.After(time.Minute): // a deadlock, not a slow machine (it failed once at 10 s under a load of 1,400 processes)
			t.Fatalf("sequence %d not emitted before more input", k)
		}
	}
	require.NoError(t, pw.Close())
	require.NoError(t, <-result)
	assert.Positive(t, flushed)
}
