//go:build unix

package interrupt

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestNotify: a real SIGINT sent to the process reaches the handler
// instead of killing the process.
func TestNotify(t *testing.T) {
	h := Notify(io.Discard, "test")
	defer h.Stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT did not reach the handler")
	}
	if s, ok := h.Signal(); !ok || s != syscall.SIGINT {
		t.Errorf("Signal = %v, %v; want SIGINT", s, ok)
	}
}
