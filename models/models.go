// Package models holds the toolkit's pretrained English models, built into
// the binary so that tagging English text needs no training and no file:
//
//   - en-pos.model, a part-of-speech tagger (Penn Treebank tags) that reads
//     the words alone, so it tags raw text; its template is
//     en-pos.template (words in a window, their spelling through the
//     derived macros %l, %w, %p and %s);
//   - en-chunk.model, a chunker (IOB2 chunk tags B-NP, I-VP, O, ...) that
//     reads two columns, the word and its part of speech, with the classic
//     CRF++ chunking template (en-chunk.template: corpora's
//     conll2000/chunking.template with its columns named).
//
// Both are trained on the CoNLL-2000 training split embedded in package
// corpora (WSJ sections 15-18: column 2 is the POS tag, column 3 the chunk
// tag) with the elastic net, by the recipes of recipes_test.go, which also
// check that the files here are what the recipes train.
// The command line names them embedded:models/en-pos.model and
// embedded:models/en-chunk.model, and runs them as a pipeline:
//
//	tagger tag --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model
//
// models knows nothing of model files: it hands out their bytes.
package models

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// files holds the models, gzip-compressed, and their templates.
//
//go:embed en-pos.model.gz en-chunk.model.gz en-pos.template en-chunk.template
var files embed.FS

// Names lists the names Open accepts.
func Names() []string {
	var names []string
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".gz"))
	}
	slices.Sort(names)
	return names
}

// Open opens an embedded file by name ("en-pos.model", "en-chunk.model",
// "en-pos.template" or "en-chunk.template"), decompressed. The caller must close the result.
func Open(name string) (io.ReadCloser, error) {
	if strings.HasSuffix(name, ".gz") || !fs.ValidPath(name) {
		return nil, notFound(name)
	}
	if b, err := files.ReadFile(name + ".gz"); err == nil {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("models: embedded %s: %w", name, err)
		}
		return zr, nil
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, notFound(name)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func notFound(name string) error {
	return fmt.Errorf("models: no embedded model %q (have %s)", name, strings.Join(Names(), ", "))
}
