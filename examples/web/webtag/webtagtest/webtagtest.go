// Package webtagtest holds the fixtures that webtag's native tests write
// and the WebAssembly tests of examples/web/wasm read: models, inputs and
// the results of the native tagger (testdata/golden.json of webtag), and
// the comparison both use.
package webtagtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/sparsetag/sparsetag/examples/web/webtag"
)

// Tolerance bounds the difference between a float of the native tagger and
// the same float computed by another build (WebAssembly sums some vectors
// in another order than amd64's SIMD kernels): absolute, and relative to
// the larger magnitude.
const Tolerance = 1e-12

// Case is one model and what is tagged with it.
type Case struct {
	Name string `json:"name"`
	// Model is the model file's path relative to the repository root.
	Model   string         `json:"model"`
	Options webtag.Options `json:"options"`
	// Input is one sequence (Session.Tag), or Format and Data are a file's
	// contents (Session.TagData).
	Input  *webtag.Input `json:"input,omitempty"`
	Format string        `json:"format,omitempty"`
	Data   string        `json:"data,omitempty"`
	// Results are the native tagger's, one per sequence, with Millis zero.
	Results []*webtag.Result `json:"results"`
}

// Golden is the contents of webtag's testdata/golden.json.
type Golden struct {
	Cases []*Case `json:"cases"`
}

// GoldenPath is the golden file relative to the repository root.
const GoldenPath = "examples/web/webtag/testdata/golden.json"

// ReadGolden reads the golden file of the repository at root.
func ReadGolden(root string) (*Golden, error) {
	b, err := os.ReadFile(filepath.Join(root, GoldenPath))
	if err != nil {
		return nil, err
	}
	var g Golden
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", GoldenPath, err)
	}
	return &g, nil
}

// Compare returns an error naming the first difference between two
// results: token, label or path differences, or a float further than
// Tolerance. Times are not compared.
func Compare(want, got *webtag.Result) error {
	if !slices.Equal(want.Tokens, got.Tokens) {
		return fmt.Errorf("tokens %q, want %q", got.Tokens, want.Tokens)
	}
	if !slices.Equal(want.Start, got.Start) || !slices.Equal(want.End, got.End) {
		return fmt.Errorf("offsets %v-%v, want %v-%v", got.Start, got.End, want.Start, want.End)
	}
	if !slices.Equal(want.Labels, got.Labels) {
		return fmt.Errorf("labels %q, want %q", got.Labels, want.Labels)
	}
	for _, f := range []struct {
		name      string
		want, got float64
	}{{"score", want.Score, got.Score}, {"prob", want.Prob, got.Prob}, {"logZ", want.LogZ, got.LogZ}} {
		if !Close(f.want, f.got) {
			return fmt.Errorf("%s %v, want %v", f.name, f.got, f.want)
		}
	}
	if err := compareRows("marginals", want.Marginals, got.Marginals); err != nil {
		return err
	}
	if len(want.NBest) != len(got.NBest) {
		return fmt.Errorf("%d n-best paths, want %d", len(got.NBest), len(want.NBest))
	}
	for k := range want.NBest {
		w, g := want.NBest[k], got.NBest[k]
		if !slices.Equal(w.Labels, g.Labels) || !Close(w.Score, g.Score) || !Close(w.Prob, g.Prob) {
			return fmt.Errorf("n-best path %d: %q score %v prob %v, want %q score %v prob %v", k+1, g.Labels, g.Score, g.Prob, w.Labels, w.Score, w.Prob)
		}
	}
	if (want.Independent == nil) != (got.Independent == nil) {
		return fmt.Errorf("independent decoding present: %v, want %v", got.Independent != nil, want.Independent != nil)
	}
	if want.Independent != nil {
		if !slices.Equal(want.Independent.Labels, got.Independent.Labels) {
			return fmt.Errorf("independent labels %q, want %q", got.Independent.Labels, want.Independent.Labels)
		}
		if err := compareRows("independent marginals", want.Independent.Marginals, got.Independent.Marginals); err != nil {
			return err
		}
	}
	return nil
}

func compareRows(name string, want, got [][]float64) error {
	if len(want) != len(got) {
		return fmt.Errorf("%s: %d rows, want %d", name, len(got), len(want))
	}
	for t := range want {
		if len(want[t]) != len(got[t]) {
			return fmt.Errorf("%s row %d: %d values, want %d", name, t, len(got[t]), len(want[t]))
		}
		for y := range want[t] {
			if !Close(want[t][y], got[t][y]) {
				return fmt.Errorf("%s[%d][%d] = %v, want %v", name, t, y, got[t][y], want[t][y])
			}
		}
	}
	return nil
}

// Close reports whether a and b are within Tolerance, absolutely or
// relatively; NaN is close to nothing.
func Close(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	d := math.Abs(a - b)
	return d <= Tolerance || d <= Tolerance*math.Max(math.Abs(a), math.Abs(b))
}
