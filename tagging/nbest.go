package tagging

import (
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// NBestServedLen is the sequence length that Stream must be able to serve
// on every thread at Decode.N = n for n to be accepted (NBestBound): more
// than ten times the longest sentence of CoNLL-2000 (78 tokens). Longer
// sequences are served while the memory limit allows, and refused one by
// one beyond it.
const NBestServedLen = 1000

// DefaultMemoryLimit is the memory limit of tagger tag when its
// --memory-limit is auto and the machine's RAM cannot be read.
const DefaultMemoryLimit = 4 << 30

// StreamNBestMemory returns the memory that Stream needs at Decode.N = n for
// sequences of up to T positions over L labels on threads goroutines: the
// n-best scratch of every goroutine and the results of the
// DefaultBatch sequences that it keeps in flight
// (chain.NBestMemory gives one decode's scratch and result).
func StreamNBestMemory(T, L, n, threads int) float64 {
	scratch, result := chain.NBestMemory(T, L, n)
	return float64(threads)*float64(scratch) + float64(DefaultBatch)*float64(result)
}

// NBestLimitError is returned by NBestBound when n-best decoding cannot
// serve sequences of NBestServedLen positions under the memory limit.
type NBestLimitError struct {
	N, Len, Labels, Threads int
	Batch                   int     // results buffered (DefaultBatch)
	Need                    float64 // StreamNBestMemory, bytes
	Limit                   int64   // bytes
}

func (e *NBestLimitError) Error() string {
	return fmt.Sprintf("the n-best decoder needs about %s for sequences of %d tokens over %d labels on %d threads (%d results buffered), more than the limit %s",
		formatBytes(e.Need), e.Len, e.Labels, e.Threads, e.Batch, formatBytes(float64(e.Limit)))
}

// NBestBound checks n-best decoding of n paths against the memory limit
// (0: none) for a model of L labels tagging on threads goroutines. It
// refuses n (a *NBestLimitError) when sequences of NBestServedLen positions
// do not fit, and otherwise returns the chain.DecodeOptions.MaxBytes that
// refuses, sequence by sequence, those longer than maxLen, the longest the
// limit serves (0, 0: no bound needed).
func NBestBound(n, L, threads int, limit int64) (maxBytes int64, maxLen int, err error) {
	if n <= 1 || limit <= 0 {
		return 0, 0, nil
	}
	if need := StreamNBestMemory(NBestServedLen, L, n, threads); need > float64(limit) {
		return 0, 0, &NBestLimitError{N: n, Len: NBestServedLen, Labels: L, Threads: threads, Batch: DefaultBatch, Need: need, Limit: limit}
	}
	// The longest sequence that fits: StreamNBestMemory grows with T.
	lo, hi := NBestServedLen, dataset.MaxSequenceLen
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if StreamNBestMemory(mid, L, n, threads) <= float64(limit) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	scratch, result := chain.NBestMemory(lo, L, n)
	return scratch + result, lo, nil
}

// formatBytes formats a byte count with a binary unit (saturating at
// exbibytes).
func formatBytes(b float64) string {
	const units = "KMGTPE"
	if b < 1024 {
		return fmt.Sprintf("%.0f B", b)
	}
	x, i := b/1024, 0
	for x >= 1024 && i < len(units)-1 {
		x, i = x/1024, i+1
	}
	if math.IsInf(x, 1) {
		return "more than 8 EiB"
	}
	return fmt.Sprintf("%.1f %ciB", x, units[i])
}
