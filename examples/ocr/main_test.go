package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunSmall runs the whole program on one fold with a few iterations, so
// that the example keeps working as the API evolves.
func TestRunSmall(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-train", "1", "-test", "0", "-max-iter", "3", "-show", "2", "-v"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"train: folds [1], 704 words, 5375 letters", // counted with awk on letter.data,
		"test: folds [0], 626 words",
		"model: 26 labels, 128 attributes, 4004 features", // 128 pixels; 128*26 + 26*26 weights
		"trained: 3 iterations (max-iter)",
		"letter accuracy: ",
		"word accuracy:   ",
		"predicted        true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr.String(), "iter    3") {
		t.Errorf("-v printed no iteration 3:\n%s", stderr.String())
	}
}

func TestParseFolds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"0", []int{0}},
		{"1-3", []int{1, 2, 3}},
		{"0,2, 4", []int{0, 2, 4}},
		{"1-2,5", []int{1, 2, 5}},
	} {
		got, err := parseFolds(tc.in)
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("parseFolds(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("parseFolds(%q) = %v; want %v", tc.in, got, tc.want)
				break
			}
		}
	}
	for _, bad := range []string{"", "x", "3-1", "1-", "-1", "1,,2"} {
		if got, err := parseFolds(bad); err == nil {
			t.Errorf("parseFolds(%q) = %v, want an error", bad, got)
		}
	}
}

func TestRunErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{
		{"-train", "x"},
		{"-test", "2-1"},
		{"extra"},
		{"-train", "42"}, // no such fold
	} {
		if err := run(context.Background(), args, &stdout, &stderr); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}
