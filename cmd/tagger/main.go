// Command tagger trains, applies and inspects sparse linear-chain CRF taggers.
//
// Usage:
//
//	tagger demo
package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: tagger <command> [flags]")
		return 2
	}
	switch args[0] {
	case "demo":
		fmt.Fprintln(stderr, "tagger demo: training is not implemented yet")
		return 1
	}
	fmt.Fprintf(stderr, "tagger: unknown command %q\n", args[0])
	return 2
}
