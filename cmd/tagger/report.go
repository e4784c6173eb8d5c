package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sparsetag/sparsetag/chain"
)

// trainReport is the JSON training report of one solve (train --report, and
// one element of a path report). Field names are part of the CLI contract.
type trainReport struct {
	Data             string            `json:"data,omitempty"`
	Alpha            float64           `json:"alpha"`
	Beta             float64           `json:"beta"`
	BetaMax          float64           `json:"beta_max"`
	BetaRatio        float64           `json:"beta_ratio"` // beta / beta_max
	Features         int               `json:"features"`   // d, the size of the model's feature set
	Screen           string            `json:"screen"`
	Epsilon          float64           `json:"epsilon"`
	Gamma            float64           `json:"gamma"`
	Iterations       []chain.Iteration `json:"iterations"`
	NonzeroFinal     int               `json:"nonzero_final"`
	ScreenedFinal    int               `json:"screened_final"`
	GapFinal         float64           `json:"gap_final"`
	SecondsTotal     float64           `json:"seconds_total"`
	SecondsScreening float64           `json:"seconds_screening"`
	StopReason       string            `json:"stop_reason"`
	Converged        bool              `json:"converged"`
}

// pathReport is the JSON report of a regularization path (path --report).
type pathReport struct {
	Data         string        `json:"data"`
	Alpha        float64       `json:"alpha"`
	BetaMax      float64       `json:"beta_max"`
	Features     int           `json:"features"`
	Screen       string        `json:"screen"`
	Epsilon      float64       `json:"epsilon"`
	Gamma        float64       `json:"gamma"`
	K            int           `json:"k"`
	MinRatio     float64       `json:"min_ratio"`
	SecondsTotal float64       `json:"seconds_total"` // wall time of the whole path, set-up included
	Path         []trainReport `json:"path"`
}

// newTrainReport converts a training result. gamma is the screening trigger
// of the run (chain.Options.Gamma), which the result does not record.
func newTrainReport(data string, res *chain.Result, gamma float64) trainReport {
	r := trainReport{
		Data: data, Alpha: res.Alpha, Beta: res.Beta, BetaMax: res.BetaMax, Features: res.Dimension,
		Screen: string(res.Screen), Epsilon: res.Epsilon, Gamma: gamma, Iterations: res.Iterations,
		NonzeroFinal: res.NonZero, ScreenedFinal: res.Screened, GapFinal: res.Gap,
		SecondsTotal: res.Seconds, SecondsScreening: res.SecondsScreening,
		StopReason: res.StopReason, Converged: res.Converged,
	}
	if res.BetaMax > 0 {
		r.BetaRatio = res.Beta / res.BetaMax
	}
	if r.Iterations == nil {
		r.Iterations = []chain.Iteration{}
	}
	return r
}

// writeJSONAtomic writes v as indented JSON to path atomically.
func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	b = append(b, '\n')
	return writeFileAtomic(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
}

// writeFileAtomic writes a file through fill into a temporary file in the
// same directory, syncs it and renames it over path, so that readers never
// see a partial file and a failure leaves an existing file untouched.
func writeFileAtomic(path string, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
