// Package flagcheck checks the values of command-line flags before any
// work is done: bounds of numbers, thread counts, names from a list, and
// the files a command will write (Outputs: their directory must take a new
// file). Every error names the flag as the user wrote it ("--max-iter 0:
// want at least 1"), so that a command reports it as a usage error (exit
// status 2) before reading any data or training for hours.
//
// It knows nothing of what the flags mean: checks that are about the
// options themselves belong to the packages that own those options (for
// example train.Options.Validate). It imports only the standard library
// and internal/atomicfile, whose writes the output checks probe.
package flagcheck
