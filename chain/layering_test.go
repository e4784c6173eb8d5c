package chain

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const modulePath = "github.com/sparsetag/sparsetag"

// allowed is a statement of policy: which packages of this module each
// package may import (non-test files). DO NOT CHANGE THIS TABLE TO FIX A
// BUILD: move the code instead. Library packages come first, from the
// leaves up; then the packages only the command uses, under
// cmd/tagger/internal (README.md, "Layout").
var allowed = map[string][]string{
	"sparse":                  {},
	"inference":               {},
	"inference/inferencetest": {"inference"},
	"scheme":                  {"inference"},
	"features":                {"sparse"},
	"corpora":                 {},
	"rawtext":                 {"corpora"},
	"rawtext/hftok":           {"rawtext"},
	"models":                  {},
	"eval":                    {},
	"screen":                  {"sparse", "inference"},
	"chain":                   {"inference", "features", "sparse", "scheme", "internal/atomicfile", "internal/lattice"},
	"train":                   {"chain", "inference", "sparse", "screen", "train/objective", "train/warmstart", "train/certificate", "train/internal/owlqn", "train/internal/topk", "train/internal/peak", "train/internal/gauge", "train/internal/blocks", "internal/atomicfile"},
	"train/objective":         {"chain", "inference", "sparse", "screen", "train/internal/spanadd", "train/internal/densemul", "internal/par", "internal/lattice"},
	"train/warmstart":         {"chain", "inference", "sparse", "train/objective", "train/internal/l1clip", "train/internal/blocksum", "train/internal/prefetch", "internal/lattice"},
	"train/certificate":       {"screen", "train/internal/blocks"},
	"train/online":            {"chain", "inference", "sparse", "internal/lattice"},
	"train/selection":         {"chain", "sparse", "train", "train/internal/peak"},
	"train/internal/owlqn":    {"internal/par"},
	"train/internal/blocks":   {"internal/par"},
	"train/internal/spanadd":  {},
	"train/internal/densemul": {},
	"train/internal/l1clip":   {},
	"train/internal/blocksum": {},
	"train/internal/prefetch": {},
	"train/internal/topk":     {},
	"train/internal/peak":     {},
	"train/internal/gauge":    {"sparse"},
	"dataset":                 {"chain", "eval", "features", "corpora", "sparse"},
	"peer":                    {"chain", "inference", "corpora", "features", "internal/atomicfile"},
	"tagging":                 {"chain", "corpora", "dataset", "eval", "features", "peer", "rawtext", "scheme"},

	// Leaves the library shares.
	"internal/par":        {},
	"internal/atomicfile": {},
	"internal/ctxio":      {},
	"internal/lattice":    {"inference", "sparse"},

	// Test helpers (imported by _test.go files only).
	"internal/numtest":         {},
	"internal/chaintest":       {"features", "sparse", "internal/numtest"},
	"train/internal/traintest": {"chain", "sparse", "internal/chaintest"},

	// The command and the packages only it uses.
	"cmd/tagger":                      {"chain", "train", "train/online", "train/selection", "features", "corpora", "sparse", "screen", "inference", "dataset", "peer", "tagging", "eval", "rawtext", "rawtext/hftok", "scheme", "internal/atomicfile", "internal/ctxio", "cmd/tagger/internal/clifile", "cmd/tagger/internal/paperbench", "cmd/tagger/internal/trainselect", "cmd/tagger/internal/progress", "cmd/tagger/internal/memlimit", "cmd/tagger/internal/interrupt", "cmd/tagger/internal/flagcheck", "cmd/tagger/internal/profile", "cmd/tagger/internal/version", "dataset/corpuscache"},
	"cmd/tagger/internal/paperbench":  {"chain", "train", "features", "corpora", "sparse", "dataset", "internal/atomicfile", "cmd/tagger/internal/clifile", "cmd/tagger/internal/flagcheck"},
	"cmd/tagger/internal/clifile":     {"corpora", "dataset", "features", "models", "tagging", "internal/ctxio"},
	"cmd/tagger/internal/trainselect": {"chain", "train", "train/selection", "features", "sparse", "dataset"},
	"cmd/tagger/internal/progress":    {"train"},
	"dataset/corpuscache":             {"chain", "features", "sparse", "internal/atomicfile"},
	"cmd/tagger/internal/interrupt":   {},
	"cmd/tagger/internal/flagcheck":   {"internal/atomicfile"},
	"cmd/tagger/internal/memlimit":    {},
	"cmd/tagger/internal/profile":     {},
	"cmd/tagger/internal/version":     {},

	// The C shared library of the Python package (its own Go module, the
	// only cgo of the repository): public API only, the trainers (train,
	// train/online) from the fit*.go files, and train/selection.
	"python/libsparsetag": {"chain", "dataset", "features", "peer", "sparse", "tagging", "train", "train/online", "train/selection"},
}

func TestLayering(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		var imports []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			for _, imp := range af.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if strings.HasPrefix(p, modulePath+"/") {
					imports = append(imports, strings.TrimPrefix(p, modulePath+"/"))
				}
			}
		}
		if len(files) == 0 || rel == "." {
			return nil
		}
		if strings.HasPrefix(rel, "examples/") || rel == "examples" {
			return nil // examples may use any public API
		}
		rules, ok := allowed[rel]
		if !ok {
			if len(imports) > 0 {
				t.Errorf("package %s is not in the layering table of layering_test.go but imports %v", rel, imports)
			}
			return nil
		}
		sort.Strings(imports)
		for _, imp := range imports {
			if !contains(rules, imp) {
				t.Errorf("%s imports %s: not allowed (see layering_test.go)", rel, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
