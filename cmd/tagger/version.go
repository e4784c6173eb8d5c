package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/version"
)

// runVersion is "tagger version" (and tagger --version): the module path
// and version of the binary and the Go version that built it
// (version.Line).
func runVersion(e *env, args []string) error {
	fs := newFlagSet(e, "version", "", "tagger --version")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintln(e.stdout, version.Line("tagger"))
	return nil
}
