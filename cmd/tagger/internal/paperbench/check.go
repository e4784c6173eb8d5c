package paperbench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Check reports the first setting of cfg that Paper cannot run, in the
// words of tagger bench paper's flags.
func (cfg *PaperConfig) Check() error {
	if cfg.Betas < 1 || !(cfg.MinRatio > 0 && cfg.MinRatio <= 1) || !(cfg.Scale > 0 && cfg.Scale <= 1) {
		return errors.New("want --betas >= 1, 0 < --min-ratio <= 1 and 0 < --scale <= 1")
	}
	for _, d := range cfg.Data {
		if !slices.Contains(Builtin, d) {
			return fmt.Errorf("unknown data set %q (want %s)", d, strings.Join(Builtin, ", "))
		}
	}
	for _, r := range cfg.Rules {
		if _, _, ok := ParseRun(r); !ok {
			return fmt.Errorf("unknown rule %q (want none, paper, pinsker, both or pinsker-ws)", r)
		}
	}
	if len(cfg.Data) == 0 || len(cfg.Rules) == 0 {
		return errors.New("--data and --rules must not be empty")
	}
	return nil
}
