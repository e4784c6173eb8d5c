package main

import (
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/paperbench"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/profile"
)

func runPath(e *env, args []string) error {
	var data paperbench.PathData
	var cfg paperbench.PathConfig
	var cpuprof string
	fs := newFlagSet(e, "path", "[flags] [TRAIN-FILE]",
		"tagger path --data syn1 --scale 0.1 --betas 20 --report syn1-path.json --out figures")
	dataParsed, cfgParsed := data.Flags(fs), cfg.Flags(fs)
	fs.StringVar(&cpuprof, "cpuprofile", "", "write a CPU profile of the path to `file`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	// The flags that choose the data, then the path's, before any data is
	// read or made.
	if err := usage(flagcheck.First(dataParsed(), cfgParsed())); err != nil {
		return err
	}
	if err := usage(flagcheck.Outputs(flagcheck.Output{Flag: "--report", Path: cfg.Report},
		flagcheck.Output{Flag: "--out", Path: cfg.Out, Dir: true}, flagcheck.Output{Flag: "--cpuprofile", Path: cpuprof})); err != nil {
		return err
	}
	stop, err := profile.StartCPU(cpuprof)
	if err != nil {
		return err
	}
	defer stop()
	ds, err := loadPathData(e, &data, pos)
	if err != nil {
		return err
	}
	return paperbench.Path(e.ctx, ds, cfg, e.stdout)
}

// loadPathData returns the data of the path: the built-in set of --data or
// the training file of pos.
func loadPathData(e *env, data *paperbench.PathData, pos []string) (*paperbench.Data, error) {
	switch {
	case data.Name != "" && len(pos) != 0:
		return nil, usagef("give either --data or a training file, not both")
	case data.Name != "":
		ds, err := paperbench.LoadBuiltin(data.Name, data.Scale, data.Seed)
		return ds, usage(err)
	case len(pos) != 1:
		return nil, usagef("want exactly one training file or --data, got %d files (see tagger path -h)", len(pos))
	}
	return data.FromFile(pos[0], e.stdin)
}
