package train

// ScreenRule names a safe screening rule.
type ScreenRule string

// The screening rules. These names are part of the command-line contract.
const (
	ScreenNone    ScreenRule = "none"    // no screening
	ScreenPinsker ScreenRule = "pinsker" // the l1/Pinsker gap rule (any sequence length)
	ScreenPaper   ScreenRule = "paper"   // the paper's Euclidean rule (T = 1 only)
	ScreenBoth    ScreenRule = "both"    // minimum of both bounds (T = 1 only)
)

// Solver names a training algorithm.
type Solver string

// The solvers. These names are part of the command-line contract.
const (
	// SolverWorkingSet alternates full passes (m over every unscreened
	// feature, the duality gap of the whole problem, screening) with OWL-QN
	// on a working set of features; it stops only on the full gap, so it
	// reaches the same optimum, certified the same way, as SolverFull.
	SolverWorkingSet Solver = "working-set"
	// SolverFull is the paper's Algorithm 1: OWL-QN on every unscreened
	// feature, with the gap and screening at every iteration.
	SolverFull Solver = "full"
)

// Certificate names the dual point the working-set policy certifies its
// gap with (see README "Stopping rule").
type Certificate string

// The certificates. These names are part of the command-line contract.
const (
	// CertificateMixture certifies with the best convex combination of the
	// model distributions of the last full passes (train/certificate): never
	// a larger gap than CertificateModel's at the same point, usually 3-5x
	// smaller near the optimum, for m of up to four earlier passes over the
	// unscreened features in memory.
	CertificateMixture Certificate = "mixture"
	// CertificateModel certifies with the model's own distribution p_w
	// (the paper's gap). With either, a pass's gap is also bounded by P
	// minus the best dual bound of the solve's earlier passes (the log's
	// largest Primal - Gap).
	CertificateModel Certificate = "model"
)

// StopReason says why a solve ended. The values are part of the report
// and command-line contract.
type StopReason string

// The stop reasons.
const (
	StopGap        StopReason = "gap"         // the certified gap reached Epsilon or RelEpsilon (or every feature was screened)
	StopDelta      StopReason = "delta"       // CRFsuite's Delta rule
	StopMaxIter    StopReason = "max-iter"    // MaxIter OWL-QN iterations
	StopLineSearch StopReason = "line-search" // no decrease at working precision
	StopMonitor    StopReason = "monitor"     // Options.Monitor asked to stop
	StopInterrupt  StopReason = "interrupted" // Options.Interrupt was closed
)
