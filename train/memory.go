package train

import (
	"fmt"
	"sort"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/certificate"
	"github.com/sparsetag/sparsetag/train/objective"
	"github.com/sparsetag/sparsetag/train/warmstart"
)

// MemoryTerm is one named part of a training run's memory estimate.
type MemoryTerm struct {
	Name  string
	Bytes int64
}

// MemoryEstimate is the up-front estimate of the memory a training run
// needs beyond the encoded corpus and the dictionaries (which the caller
// already holds), largest term first.
type MemoryEstimate struct {
	Terms []MemoryTerm
	Total int64
}

// EstimateMemory returns the memory Train will need for the model layout m
// on corpus c with the options op. It is an upper bound by design: every
// buffer the trainer allocates has a term here, sized for the worst case
// of the run (the full solver before any screening; the working-set
// solver's full-pass vectors before the first Pinsker test). Transient
// allocations at preparation (the static bounds, the Rnorm table) count
// too.
func EstimateMemory(m *chain.Model, c *sparse.Corpus, op Options) MemoryEstimate {
	op = op.defaults()
	d := int64(len(m.W))
	var e MemoryEstimate
	add := func(name string, b int64) {
		if b > 0 {
			e.Terms = append(e.Terms, MemoryTerm{name, b})
			e.Total += b
		}
	}
	full := op.Solver == SolverFull || op.Screen == ScreenPaper || op.Screen == ScreenBoth || op.Resume != nil
	add("model weights (8 B x features)", 8*d)
	objective.Memory(m, c, add)
	if op.Threads > 1 {
		add(fmt.Sprintf("scatter row splits of the corpus and its scoring copy (2 x 4 B x positions x %d worker boundaries)", op.Threads-1),
			8*int64(c.Positions())*int64(op.Threads-1))
	}
	if op.Allowed != nil {
		add("partial labels: allowed label sets (8 B x positions per 64 labels) and the constrained lattices (2 x 8 B x positions x labels per shard, at most)",
			8*int64(c.Positions())*int64((m.NumLabels()+63)/64)+16*int64(c.MaxLen())*int64(m.NumLabels())*64)
	}
	if op.Prior != nil {
		add("prior weights (8 B x features)", 8*d)
		objective.PriorMemory(m, c, add)
	}
	if op.WarmEpochs > 0 && op.Init == nil && op.Resume == nil {
		add("stochastic warm start (weights and penalty records, 2 x 8 B x unscreened features at most, an eighth more for aligned blocks, before the solve)", 18*d)
		add("stochastic warm start: the sequences' attribute lists (4 B x row entries, at most 3 per non-zero)", warmstart.ListMemory(c))
	}
	if op.Screen != ScreenNone {
		add("screening bounds at preparation (static range bounds, 8 B x features; Rnorm, 8 B x attributes and the blocks after the state block)",
			8*d+8*(d-int64(m.Layout.StateLen())+int64(m.Layout.NumUnary)))
		add("screening scratch (Rnorm of the unscreened features, 8 B x features)", 8*d)
	}
	if full {
		objective.ActiveMemory(m, c, full, add)
		add(fmt.Sprintf("L-BFGS memory and vectors over every feature ((2 x %d + 6) x 8 B x features)", op.Memory), int64(2*op.Memory+6)*8*d)
	} else {
		add("working-set full pass vectors (feature ids and m: 12 B x unscreened features)", 12*d)
		objective.ActiveMemory(m, c, full, add)
		if op.Certificate != CertificateModel {
			add(fmt.Sprintf("mixture certificate: m of the last %d full passes in float32 (%d x 4 B x unscreened features)", certificate.Passes, certificate.Passes), 4*certificate.Passes*d)
		}
	}
	sort.SliceStable(e.Terms, func(i, j int) bool { return e.Terms[i].Bytes > e.Terms[j].Bytes })
	return e
}

// checkMemory refuses a run whose estimate exceeds op.MemoryLimit (> 0).
func checkMemory(m *chain.Model, c *sparse.Corpus, op Options) error {
	if op.MemoryLimit <= 0 {
		return nil
	}
	e := EstimateMemory(m, c, op)
	if e.Total <= op.MemoryLimit {
		return nil
	}
	try := "fewer features (--min-freq, --observed-pairs) or a larger limit"
	if op.Solver == SolverFull {
		try = "the working-set solver, " + try
	}
	return fmt.Errorf("train: training needs about %s, more than the memory limit %s; the largest term is %s: %s (try %s)",
		bytesString(e.Total), bytesString(op.MemoryLimit), e.Terms[0].Name, bytesString(e.Terms[0].Bytes), try)
}

// bytesString writes b in the largest binary unit that keeps it at least 1
// (B, KiB, MiB, GiB), so that a small limit does not read "0 MiB".
func bytesString(b int64) string {
	x, unit := float64(b), "B"
	for _, u := range []string{"KiB", "MiB", "GiB"} {
		if x < 1024 {
			break
		}
		x, unit = x/1024, u
	}
	if unit == "B" {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.1f %s", x, unit)
}
