package dataset

import (
	"fmt"
	"os"

	"github.com/sparsetag/sparsetag/features"
)

// NewValuedEncoder is NewEncoder with valued columns and word vectors
// (see features.Valued): only column formats have them. A zero v gives
// NewEncoder's encoder.
func NewValuedEncoder(format Format, tmpl *features.Template, v features.Valued) (*features.Encoder, error) {
	enc, err := NewEncoder(format, tmpl)
	if err != nil {
		return nil, err
	}
	if (len(v.Columns) > 0 || v.Embeddings != nil) && enc.Kind() != features.KindTemplate {
		return nil, fmt.Errorf("dataset: valued columns and word vectors apply to column formats, not to %s", format)
	}
	return features.WithValued(enc, v)
}

// ReadEmbeddingsFile reads word vectors in the word2vec or GloVe text
// format from path, gzip-compressed or not (features.ReadEmbeddings).
// Errors name the file and line.
func ReadEmbeddingsFile(path string) (*features.Embeddings, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return features.ReadEmbeddings(f, path)
}
