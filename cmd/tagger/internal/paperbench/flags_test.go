package paperbench

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseWith registers flags on a new flag set, parses args and returns the
// error of the function that completes the configuration.
func parseWith(t *testing.T, register func(*flag.FlagSet) func() error, args ...string) error {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	parsed := register(fs)
	require.NoError(t, fs.Parse(args))
	return parsed()
}

// TestFlagDefaults: the defaults of every configuration are valid, and the
// lists are read into the fields.
func TestFlagDefaults(t *testing.T) {
	var p PaperConfig
	require.NoError(t, parseWith(t, p.Flags))
	assert.Equal(t, []string{"syn1", "syn2", "syn3", "ocr", "ocr-letters"}, p.Data)
	assert.Equal(t, []string{"none", "paper", "pinsker", "pinsker-ws"}, p.Rules)
	assert.NoError(t, p.Check())
	var s ScreenConfig
	require.NoError(t, parseWith(t, s.Flags))
	assert.Equal(t, []float64{0.9, 0.5, 0.2, 0.1}, s.Ratios)
	var tr TrainConfig
	require.NoError(t, parseWith(t, tr.Flags))
	assert.Equal(t, []int{1, 2}, tr.Threads)
	assert.Equal(t, 300*time.Second, tr.Budget)
	var pc PathConfig
	require.NoError(t, parseWith(t, pc.Flags))
	assert.Equal(t, "working-set", pc.Solver)
	var d DemoConfig
	require.NoError(t, parseWith(t, d.Flags))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, d.TrainFolds)
	assert.Equal(t, []int{0}, d.TestFolds)
}

// TestFlagValuesRefused: a bad value is refused with a message naming its
// flag.
func TestFlagValuesRefused(t *testing.T) {
	// Each case registers the flags of a new configuration.
	p := func(fs *flag.FlagSet) func() error { return new(PaperConfig).Flags(fs) }
	s := func(fs *flag.FlagSet) func() error { return new(ScreenConfig).Flags(fs) }
	tr := func(fs *flag.FlagSet) func() error { return new(TrainConfig).Flags(fs) }
	pc := func(fs *flag.FlagSet) func() error { return new(PathConfig).Flags(fs) }
	d := func(fs *flag.FlagSet) func() error { return new(DemoConfig).Flags(fs) }
	for _, c := range []struct {
		register func(*flag.FlagSet) func() error
		args     []string
		want     string
	}{
		{p, []string{"--betas", "1000000"}, "--betas 1000000: want 1 to 10000"},
		{p, []string{"--pinsker-gamma", "-1"}, "--pinsker-gamma -1: want a finite number >= 0"},
		{s, []string{"--ratios", "2"}, `bad ratio "2": want 0 < r <= 1`},
		{s, []string{"--ratios", ""}, "--ratios must not be empty"},
		{s, []string{"--rules", "euclid"}, `unknown --rules entry "euclid" (want none, pinsker, paper or both)`},
		{s, []string{"--data", ""}, "--data must not be empty"},
		{tr, []string{"--threads", "1,x"}, `bad thread count "x"`},
		{tr, []string{"--threads", ""}, "--threads must not be empty"},
		{tr, []string{"--budget", "-1s"}, "--budget -1s: want >= 0 (0: none)"},
		{tr, []string{"--data", "nope"}, `unknown --data "nope" (want syn1, syn2, syn3, ocr, ocr-letters or conll)`},
		{pc, []string{"--min-ratio", "0"}, "--min-ratio 0: want 0 < value <= 1"},
		{pc, []string{"--screen", "euclid"}, `train: unknown screening rule "euclid" (want none, pinsker, paper or both)`},
		{d, []string{"--betas", "0"}, "want 1 <= --betas <= 10000, 0 < --min-ratio <= 1, finite --epsilon > 0, --show >= 0"},
		{d, []string{"--test-folds", "x"}, `bad fold "x" (want e.g. 0, 1-9 or 0,2,4; folds are below 1000)`},
	} {
		assert.EqualError(t, parseWith(t, c.register, c.args...), c.want, "%v", c.args)
	}
}
