package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"math"
	"os"
	"strings"
	"testing"
)

// run runs the command line in-process with the given context and
// streams, without signal handling, and returns its exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(&env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

// runTagger runs the command line in-process and returns its streams and
// exit status.
func runTagger(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// mustRun runs the command line and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runTagger(t, args...)
	if code != 0 {
		t.Fatalf("tagger %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// readJSONMap decodes a JSON object file into generic maps, so that tests
// check the field names that scripts see, not the Go struct.
func readJSONMap(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// requireKeys fails unless obj has every key.
func requireKeys(t *testing.T, what string, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s: missing field %q", what, k)
		}
	}
}

// num returns obj[key] as a finite float64, failing the test otherwise.
func num(t *testing.T, obj map[string]any, key string) float64 {
	t.Helper()
	v, ok := obj[key].(float64)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		t.Fatalf("field %q = %v: want a finite number", key, obj[key])
	}
	return v
}

// checkPNG fails unless path is a non-empty PNG image of positive size.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s: image is %dx%d", path, b.Dx(), b.Dy())
	}
}
