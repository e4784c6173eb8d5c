package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Line returns the version line of the running binary, named prog (see
// Format).
func Line(prog string) string {
	info, ok := debug.ReadBuildInfo()
	return Format(prog, info, ok)
}

// Format formats the version of binary prog from its build information
// (ok false: none): "PROG MODULE VERSION (GO VERSION)", with the version
// "(devel)" for a binary built from a checkout (go build, go run) or
// without build information, and the VCS revision when the build recorded
// one.
func Format(prog string, info *debug.BuildInfo, ok bool) string {
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
	return fmt.Sprintf("%s %s %s (%s%s)", prog, path, version, goVersion, rev)
}
