package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestFormat: a binary without build information says (devel); one with
// it gives its module version, Go version and revision.
func TestFormat(t *testing.T) {
	if got := Format("tagger", nil, false); !strings.HasPrefix(got, "tagger github.com/sparsetag/sparsetag (devel) (go") {
		t.Errorf("without build information: %q", got)
	}
	info := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/sparsetag/sparsetag", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}}
	if got, want := Format("tagger", info, true), "tagger github.com/sparsetag/sparsetag v1.2.3 (go1.99, 0123456789ab)"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}
