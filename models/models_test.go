package models

import (
	"io"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	want := []string{"en-chunk.model", "en-chunk.template", "en-pos.model", "en-pos.template"}
	if got := Names(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	for _, name := range want {
		rc, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(b) == 0 || b[0] == 0x1f {
			t.Errorf("%s: %d bytes, first %#x: want the decompressed file", name, len(b), b[0])
		}
	}
	for _, name := range []string{"en-pos.model.gz", "nope.model", "../corpora/embed.go", ""} {
		if _, err := Open(name); err == nil || !strings.Contains(err.Error(), "have en-chunk.model, en-chunk.template, en-pos.model, en-pos.template") {
			t.Errorf("Open(%q): error %v, want one listing the models", name, err)
		}
	}
}
