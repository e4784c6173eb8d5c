package interrupt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Handler handles the SIGINT and SIGTERM of one command (Notify). A nil
// *Handler handles no signal: Done returns nil (never closed), Signal
// reports none and Work returns its argument; commands run in tests use
// it.
type Handler struct {
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	sig    atomic.Value // syscall.Signal, once the first signal arrived
	sigs   chan os.Signal
}

// Notify starts handling SIGINT and SIGTERM. The first closes Done and
// cancels Context; a second writes "PROG: second SIGNAL: exiting now" to w
// and exits the process at once with ExitCode of that signal. Call Stop
// when the command returns.
func Notify(w io.Writer, prog string) *Handler {
	h := newHandler()
	h.sigs = make(chan os.Signal, 2)
	signal.Notify(h.sigs, os.Interrupt, syscall.SIGTERM)
	go h.watch(h.sigs, w, prog, os.Exit)
	return h
}

func newHandler() *Handler {
	ctx, cancel := context.WithCancel(context.Background())
	return &Handler{ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// watch waits for the signals of sigs: the first stops the command
// gracefully, the second calls exit.
func (h *Handler) watch(sigs <-chan os.Signal, w io.Writer, prog string, exit func(code int)) {
	s, ok := <-sigs
	if !ok {
		return
	}
	h.sig.Store(s.(syscall.Signal))
	h.cancel() // before Done closes: whoever sees Done sees the context cancelled
	close(h.done)
	if s, ok := <-sigs; ok {
		fmt.Fprintf(w, "%s: second %v: exiting now\n", prog, s)
		exit(ExitCode(s.(syscall.Signal)))
	}
}

// Stop stops handling signals and cancels Context.
func (h *Handler) Stop() {
	signal.Stop(h.sigs)
	h.cancel()
}

// Context returns the context that the first signal cancels.
func (h *Handler) Context() context.Context { return h.ctx }

// Done returns the channel that the first signal closes (nil for a nil
// Handler).
func (h *Handler) Done() <-chan struct{} {
	if h == nil {
		return nil
	}
	return h.done
}

// Signal returns the first signal received, and whether one was.
func (h *Handler) Signal() (syscall.Signal, bool) {
	if h == nil {
		return 0, false
	}
	s, ok := h.sig.Load().(syscall.Signal)
	return s, ok
}

// Err returns the Error of a command that stopped on the first signal
// (SIGINT when none has arrived).
func (h *Handler) Err() error {
	s, _ := h.Signal()
	if s == 0 {
		s = syscall.SIGINT
	}
	return Error{s}
}

// Work returns the context of work that a first signal must not cut short
// (a training evaluation, which ends on Done instead): the background
// context when h handles signals, ctx for a nil Handler.
func (h *Handler) Work(ctx context.Context) context.Context {
	if h == nil {
		return ctx
	}
	return context.Background()
}

// Stopped reports whether err ended a command because of a signal: a
// signal arrived and err is a cancellation (context.Canceled) or an Error.
// It returns that signal.
func (h *Handler) Stopped(err error) (syscall.Signal, bool) {
	s, ok := h.Signal()
	if !ok || !(errors.Is(err, context.Canceled) || errors.As(err, new(Error))) {
		return 0, false
	}
	return s, true
}

// Error is returned by a command that stopped on a signal after saving or
// flushing what it had.
type Error struct{ Signal syscall.Signal }

func (err Error) Error() string { return "interrupted by " + Name(err.Signal) }

// Name returns the name of s: SIGINT, SIGTERM, or s.String() for another
// signal.
func Name(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// ExitCode returns the exit status of a command stopped by s: 128 + its
// number.
func ExitCode(s syscall.Signal) int { return 128 + int(s) }
