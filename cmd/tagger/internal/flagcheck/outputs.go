package flagcheck

import (
	"fmt"

	"github.com/sparsetag/sparsetag/internal/atomicfile"
)

// Output is a file (or, with Dir, a directory of files) that a command
// writes, named by its flag.
type Output struct {
	Flag, Path string
	Dir        bool
}

// Outputs reports, before any work, the first output that cannot be
// written: its directory is missing or takes no new file
// (atomicfile.CheckWritable). A directory output may not exist yet if its
// parent takes it (atomicfile.CheckWritableDir). An output without a path
// is not written and not checked.
func Outputs(outs ...Output) error {
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		check := atomicfile.CheckWritable
		if o.Dir {
			check = atomicfile.CheckWritableDir
		}
		if err := check(o.Path); err != nil {
			return fmt.Errorf("%s: %v", o.Flag, err)
		}
	}
	return nil
}
