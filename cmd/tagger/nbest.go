package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/memlimit"
)

// nbestServedLen is the sequence length that tag --nbest N must be able to
// serve on every thread for N to be accepted: more than ten times the
// longest sentence of CoNLL-2000 (78 tokens). Longer sequences are served
// while the memory limit allows, and refused one by one beyond it.
const nbestServedLen = 1000

// defaultTagMemory is tag's memory limit when --memory-limit is auto and
// the machine's RAM cannot be read.
const defaultTagMemory = 4 << 30

// tagMemoryLimit reads tag's --memory-limit: a size, 0 for none, or auto
// (half of the RAM, defaultTagMemory when it cannot be read).
func tagMemoryLimit(s string) (int64, error) {
	limit, err := memlimit.Parse(s)
	if err != nil {
		return 0, usagef("--memory-limit: %v", err)
	}
	if s == "auto" && limit == 0 {
		limit = defaultTagMemory
	}
	return limit, nil
}

// nbestMemory returns the memory that tag --nbest n needs for sequences of
// up to T positions over L labels on threads goroutines: the n-best
// scratch of every goroutine and the results of the dataset.DefaultBatch
// sequences that tagging.Stream keeps in flight (chain.NBestMemory).
func nbestMemory(T, L, n, threads int) float64 {
	scratch, result := chain.NBestMemory(T, L, n)
	return float64(threads)*float64(scratch) + float64(dataset.DefaultBatch)*float64(result)
}

// nbestMaxBytes checks --nbest n against the memory limit (0: none) for a
// model of L labels tagging on threads goroutines. It refuses n when
// sequences of nbestServedLen positions do not fit, and otherwise returns
// the chain.DecodeOptions.MaxBytes that refuses, sequence by sequence,
// those longer than maxLen, the longest the limit serves (0, 0: no bound
// needed).
func nbestMaxBytes(n, L, threads int, limit int64) (maxBytes int64, maxLen int, err error) {
	if n <= 1 || limit <= 0 {
		return 0, 0, nil
	}
	if need := nbestMemory(nbestServedLen, L, n, threads); need > float64(limit) {
		return 0, 0, usagef("--nbest %d: the n-best decoder needs about %s for sequences of %d tokens over %d labels on %d threads (%d results buffered), more than the limit %s (--memory-limit)",
			n, formatBytes(need), nbestServedLen, L, threads, dataset.DefaultBatch, formatBytes(float64(limit)))
	}
	// The longest sequence that fits: nbestMemory grows with T.
	lo, hi := nbestServedLen, dataset.MaxSequenceLen
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if nbestMemory(mid, L, n, threads) <= float64(limit) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	scratch, result := chain.NBestMemory(lo, L, n)
	return scratch + result, lo, nil
}

// nbestError explains the error of a sequence too long for --nbest n
// under the memory limit, which serves sequences of up to maxLen
// positions.
func nbestError(err error, n, maxLen int) error {
	var me *chain.MemoryError
	if errors.As(err, &me) {
		return fmt.Errorf("--nbest %d: %w (--memory-limit serves sequences of up to %d tokens at --nbest %d: lower --nbest or raise --memory-limit)", n, err, maxLen, n)
	}
	return err
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
