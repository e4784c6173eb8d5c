package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
)

// A CPU profile of the library for its benchmarks (docs/python.md,
// "Benchmark"): with the environment variable SPARSETAG_CPUPROFILE set to
// a file name when the library is loaded, Go's CPU profile runs from then
// until the end of the first training run (appending included), and is
// written to that file for go tool pprof.
var profile struct {
	once sync.Once
	f    *os.File
}

func init() {
	path := os.Getenv("SPARSETAG_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sparsetag: SPARSETAG_CPUPROFILE: %v\n", err)
		return
	}
	profile.f = f
}

// stopProfile ends the profile (after the first training run).
func stopProfile() {
	profile.once.Do(func() {
		if profile.f != nil {
			pprof.StopCPUProfile()
			profile.f.Close()
		}
	})
}
