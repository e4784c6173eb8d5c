package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// runVersion is "tagger version" (and tagger --version): the module path
// and version of the binary and the Go version that built it.
func runVersion(e *env, args []string) error {
	fs := newFlagSet(e, "version", "", "tagger --version")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("version takes no arguments")
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(info, ok))
	return nil
}

// versionLine formats the version of a binary from its build information
// (ok false: none): "tagger MODULE VERSION (GO VERSION)", with the
// version "(devel)" for a binary built from a checkout (go build, go run)
// or without build information, and the VCS revision when the build
// recorded one.
func versionLine(info *debug.BuildInfo, ok bool) string {
	path, version, goVersion := "github.com/sparsetag/sparsetag", "(devel)", runtime.Version()
	rev := ""
	if ok {
		if info.Main.Path != "" {
			path = info.Main.Path
		}
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = ", " + s.Value[:12]
			}
		}
	}
	return fmt.Sprintf("tagger %s %s (%s%s)", path, version, goVersion, rev)
}
