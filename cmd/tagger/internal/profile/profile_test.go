package profile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStartCPU: no path, no profile; a profile file is written and
// non-empty once stopped; a file that cannot be created is an error.
func TestStartCPU(t *testing.T) {
	stop, err := StartCPU("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	path := filepath.Join(t.TempDir(), "cpu.prof")
	if stop, err = StartCPU(path); err != nil {
		t.Fatal(err)
	}
	stop()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("profile %s: %v, %v; want a non-empty file", path, st, err)
	}
	if _, err := StartCPU(filepath.Join(t.TempDir(), "missing", "cpu.prof")); err == nil {
		t.Error("a profile in a missing directory: no error")
	}
}
