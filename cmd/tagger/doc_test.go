package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// documentedCommands extracts the tagger command lines of a text: lines that
// start with "$ tagger" (package doc) or "tagger " (README code blocks),
// with backslash continuations joined and trailing "# comments" and pipes
// removed; synopsis lines with <placeholders> are skipped.
func documentedCommands(text string) [][]string {
	var out [][]string
	var cur string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "//")
		line = strings.TrimSpace(line)
		if cur != "" {
			cur += " " + line
		} else if (strings.HasPrefix(line, "$ tagger ") || strings.HasPrefix(line, "tagger ")) && !strings.Contains(line, "<") {
			cur = strings.TrimPrefix(line, "$ ")
		} else {
			continue
		}
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\")
			continue
		}
		if i := strings.Index(cur, " #"); i >= 0 {
			cur = cur[:i]
		}
		if i := strings.Index(cur, " |"); i >= 0 {
			cur = cur[:i]
		}
		out = append(out, strings.Fields(cur)[1:])
		cur = ""
	}
	return out
}

// TestDocumentedCommandsParse runs every tagger command line of the package
// doc and of README.md with -h appended: the flags must exist and parse (the
// manual must not lie), without doing the work.
func TestDocumentedCommandsParse(t *testing.T) {
	var cmds [][]string
	for _, file := range []string{"main.go", "../../README.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got := documentedCommands(string(b))
		if len(got) < 5 {
			t.Fatalf("%s: found only %d tagger command lines", file, len(got))
		}
		cmds = append(cmds, got...)
	}
	undefined := regexp.MustCompile(`flag provided but not defined|invalid value|unknown`)
	for _, args := range cmds {
		out, errs, code := runTagger(t, append(args, "-h")...)
		if code != 0 || undefined.MatchString(errs) {
			t.Errorf("tagger %s -h: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
}
