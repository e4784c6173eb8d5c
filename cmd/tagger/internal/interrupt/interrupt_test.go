package interrupt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestTwoSignals: the first signal closes Done, cancels the context and is
// remembered; the second writes its line and exits with 128 + its number.
func TestTwoSignals(t *testing.T) {
	h := newHandler()
	sigs := make(chan os.Signal, 2)
	var out bytes.Buffer
	exited := make(chan int, 1)
	go h.watch(sigs, &out, "tagger", func(code int) { exited <- code })

	if _, ok := h.Signal(); ok {
		t.Fatal("a signal is reported before any arrived")
	}
	sigs <- syscall.SIGTERM
	select {
	case <-h.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first signal did not close Done")
	}
	if err := h.Context().Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("context after the first signal: %v, want cancelled", err)
	}
	if s, ok := h.Signal(); !ok || s != syscall.SIGTERM {
		t.Errorf("Signal = %v, %v; want SIGTERM", s, ok)
	}
	if got := h.Err().Error(); got != "interrupted by SIGTERM" {
		t.Errorf("Err = %q", got)
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{context.Canceled, true},
		{fmt.Errorf("line search: %w", context.Canceled), true},
		{fmt.Errorf("saved: %w", h.Err()), true},
		{errors.New("disk full"), false},
	} {
		if s, ok := h.Stopped(c.err); ok != c.want || (ok && s != syscall.SIGTERM) {
			t.Errorf("Stopped(%v) = %v, %v; want %v", c.err, s, ok, c.want)
		}
	}
	if h.Work(context.TODO()) != context.Background() {
		t.Error("Work of a signal handler is not the background context")
	}

	sigs <- syscall.SIGINT
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("second SIGINT: exit %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not exit")
	}
	if got, want := out.String(), "tagger: second interrupt: exiting now\n"; got != want {
		t.Errorf("second signal wrote %q, want %q", got, want)
	}
}

// TestNilHandler: a nil Handler handles nothing.
func TestNilHandler(t *testing.T) {
	var h *Handler
	if h.Done() != nil {
		t.Error("Done of a nil Handler is not nil")
	}
	if _, ok := h.Signal(); ok {
		t.Error("a nil Handler reports a signal")
	}
	if _, ok := h.Stopped(context.Canceled); ok {
		t.Error("a nil Handler reports a cancellation as a signal")
	}
	ctx := context.WithValue(context.Background(), struct{}{}, 1)
	if h.Work(ctx) != ctx {
		t.Error("Work of a nil Handler is not the caller's context")
	}
	if got := h.Err().Error(); got != "interrupted by SIGINT" {
		t.Errorf("Err = %q, want SIGINT's", got)
	}
}

func TestNameAndExitCode(t *testing.T) {
	for _, c := range []struct {
		s    syscall.Signal
		name string
		code int
	}{
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
		{syscall.SIGKILL, syscall.SIGKILL.String(), 137},
	} {
		if got := Name(c.s); got != c.name {
			t.Errorf("Name(%d) = %q, want %q", c.s, got, c.name)
		}
		if got := ExitCode(c.s); got != c.code {
			t.Errorf("ExitCode(%v) = %d, want %d", c.s, got, c.code)
		}
	}
}
