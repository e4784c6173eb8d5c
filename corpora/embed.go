package corpora

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// data holds the default corpora, gzip-compressed, with their provenance
// (data/README.md). Nothing is ever downloaded.
//
//go:embed data/README.md data/ocr/letter.data.gz data/ocr/letter.names data/conll2000/train.txt.gz data/conll2000/test.txt.gz data/conll2000/README.conll2000.txt data/conll2000/chunking.template
var data embed.FS

// EmbeddedNames lists the names accepted by [OpenEmbedded].
func EmbeddedNames() []string {
	var names []string
	_ = fs.WalkDir(data, "data", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(path, "data/"))
		}
		return nil
	})
	return names
}

// OpenEmbedded opens an embedded file by name: "ocr/letter.data.gz",
// "ocr/letter.names", "conll2000/train.txt.gz", "conll2000/test.txt.gz",
// "conll2000/README.conll2000.txt", "conll2000/chunking.template" (the
// classic CRF++ chunking template: words and POS tags in a +-2 window, word
// bigrams, POS bigrams and trigrams, and B) or "README.md" (the provenance
// and verified counts). Files ending in .gz are returned decompressed. The caller must
// close the result.
func OpenEmbedded(name string) (io.ReadCloser, error) {
	b, err := data.ReadFile("data/" + name)
	if err != nil {
		return nil, fmt.Errorf("corpora: no embedded file %q (have %s)", name, strings.Join(EmbeddedNames(), ", "))
	}
	if !strings.HasSuffix(name, ".gz") {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("corpora: embedded %s: %w", name, err)
	}
	return zr, nil
}

// EmbeddedOCR reads the embedded OCR letter.data (52,152 letters in 6,877
// words, folds 0-9; see data/README.md for its provenance).
func EmbeddedOCR(opts OCROptions) ([]Word, error) {
	rc, err := OpenEmbedded("ocr/letter.data.gz")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadOCR("ocr/letter.data", rc, opts)
}

// EmbeddedCoNLL2000 reads the embedded CoNLL-2000 chunking split "train"
// (8,936 sentences) or "test" (2,012 sentences). Tokens[t] is {word, POS} and
// Labels[t] the IOB2 chunk tag.
func EmbeddedCoNLL2000(split string) ([]Sequence, error) {
	if split != "train" && split != "test" {
		return nil, fmt.Errorf("corpora: CoNLL-2000 split %q: want \"train\" or \"test\"", split)
	}
	name := "conll2000/" + split + ".txt.gz"
	rc, err := OpenEmbedded(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadCoNLL("conll2000/"+split+".txt", rc, CoNLLOptions{})
}
