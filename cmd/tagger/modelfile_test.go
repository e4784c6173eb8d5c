package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModelDestination: the interrupt rule for each case.
func TestModelDestination(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.model")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "new.model")
	for _, tc := range []struct {
		model                   string
		interrupted, progressed bool
		want                    string
	}{
		{existing, false, true, existing},
		{existing, false, false, existing}, // a finished run always writes its model
		{fresh, false, true, fresh},
		{existing, true, true, existing + interruptedSuffix},
		{fresh, true, true, fresh},
		{existing, true, false, ""},
		{fresh, true, false, ""},
	} {
		got, err := modelDestination(tc.model, tc.interrupted, tc.progressed)
		if err != nil || got != tc.want {
			t.Errorf("modelDestination(%s, interrupted %v, progressed %v) = %q, %v; want %q",
				filepath.Base(tc.model), tc.interrupted, tc.progressed, got, err, tc.want)
		}
	}
}
