package flagcheck

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"
)

// TestChecks: each check passes the values at its bounds and refuses the
// first value beyond them with a message naming the flag.
func TestChecks(t *testing.T) {
	hi := MaxThreads()
	for _, c := range []struct {
		name string
		err  error
		want string // "" for no error
	}{
		{"threads 1", Threads(1), ""},
		{"threads max", Threads(hi), ""},
		{"threads 0", Threads(0), "--threads must be at least 1, got 0"},
		{"threads max+1", Threads(hi + 1), fmt.Sprintf("--threads %d: want at most %d (4 per CPU, at least 16)", hi+1, hi)},
		{"range lo", Range("betas", 1, 1, 10), ""},
		{"range hi", Range("betas", 10, 1, 10), ""},
		{"range above", Range("betas", 11, 1, 10), "--betas 11: want 1 to 10"},
		{"range below", Range("memory", 0, 1, 10), "--memory 0: want 1 to 10"},
		{"at least", AtLeast("max-iter", 1, 1), ""},
		{"below", AtLeast("max-iter", 0, 1), "--max-iter 0: want at least 1"},
		{"positive", Positive("epsilon", 1e-300), ""},
		{"zero", Positive("epsilon", 0), "--epsilon 0: want a finite number > 0"},
		{"positive NaN", Positive("alpha", math.NaN()), "--alpha NaN: want a finite number > 0"},
		{"positive Inf", Positive("alpha", math.Inf(1)), "--alpha +Inf: want a finite number > 0"},
		{"non-negative 0", NonNegative("gamma", 0), ""},
		{"negative", NonNegative("gamma", -1), "--gamma -1: want a finite number >= 0"},
		{"non-negative Inf", NonNegative("delta", math.Inf(1)), "--delta +Inf: want a finite number >= 0"},
		{"fraction 1", Fraction("scale", 1), ""},
		{"fraction 0", Fraction("scale", 0), "--scale 0: want 0 < value <= 1"},
		{"fraction 2", Fraction("scale", 2), "--scale 2: want 0 < value <= 1"},
		{"one of", OneOf("format", "ocr", []string{"conll", "ocr"}), ""},
		{"none of", OneOf("format", "xml", []string{"conll", "ocr"}), `unknown --format "xml" (want conll, ocr)`},
		{"parses", Parses("n", "12", strconv.Atoi), ""},
		{"does not parse", Parses("n", "x", strconv.Atoi), `--n: strconv.Atoi: parsing "x": invalid syntax`},
	} {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("%s: %v, want no error", c.name, c.err)
		case c.want != "" && (c.err == nil || c.err.Error() != c.want):
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
}

func TestFirst(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	if err := First(nil, a, b); err != a {
		t.Errorf("First(nil, a, b) = %v, want a", err)
	}
	if err := First(nil, nil); err != nil {
		t.Errorf("First(nil, nil) = %v", err)
	}
}
