package ctxio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestStopsWhenDone: reads and writes pass through until the context is
// cancelled and fail with its error after.
func TestStopsWhenDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader{ctx, strings.NewReader("abcdef")}
	var buf bytes.Buffer
	w := Writer{ctx, &buf}
	p := make([]byte, 3)
	if n, err := r.Read(p); n != 3 || err != nil || string(p) != "abc" {
		t.Fatalf("Read before cancel = %d, %v, %q", n, err, p)
	}
	if n, err := w.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("Write before cancel = %d, %v", n, err)
	}
	cancel()
	if n, err := r.Read(p); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %d, %v; want context.Canceled", n, err)
	}
	if n, err := w.Write([]byte("def")); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Write after cancel = %d, %v; want context.Canceled", n, err)
	}
	if buf.String() != "abc" {
		t.Errorf("written %q, want only what came before the cancel", buf.String())
	}
}

// TestEOF: the wrapped reader's io.EOF passes through.
func TestEOF(t *testing.T) {
	b, err := io.ReadAll(Reader{context.Background(), strings.NewReader("xy")})
	if err != nil || string(b) != "xy" {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
}
