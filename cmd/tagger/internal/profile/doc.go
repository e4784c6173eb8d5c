// Package profile writes the CPU profile of a command (--cpuprofile) with
// runtime/pprof: StartCPU starts it and returns the function that stops it
// and closes the file. The heap profile of training is a progress callback
// (progress.HeapProfiler).
//
// It imports only the standard library.
package profile
