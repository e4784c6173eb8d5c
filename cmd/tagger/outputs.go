package main

import (
	"os"
	"path/filepath"

	"github.com/sparsetag/sparsetag/internal/atomicfile"
)

// output is a file (or, with dir, a directory of files) that a command
// writes, named by its flag.
type output struct {
	flag, path string
	dir        bool
}

// checkOutputs reports, as a usage error before any work, the first output
// that cannot be written: its directory is missing or takes no new file.
// A directory output may not exist yet if its parent takes it.
func checkOutputs(outs ...output) error {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		target := o.path
		if o.dir {
			if st, err := os.Stat(o.path); err == nil && st.IsDir() {
				target = filepath.Join(o.path, ".probe")
			} else if err == nil {
				return usagef("%s: %s is not a directory", o.flag, o.path)
			}
		}
		if err := atomicfile.CheckWritable(target); err != nil {
			return usagef("%s: %v", o.flag, err)
		}
	}
	return nil
}
