package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

// valuedFlags are train's --value-columns and --embeddings (features.Valued).
type valuedFlags struct {
	valueColumns string
	embeddings   string
	valued       features.Valued // parsed by checkValued; the vectors are read once
}

func (vf *valuedFlags) addValuedFlags(fs *flag.FlagSet) {
	fs.StringVar(&vf.valueColumns, "value-columns", "", "token `columns` (1-based, as --label-column; e.g. 3,4) whose cells are name:value items: a template macro over one gives the attribute the item's name and value (docs/vectors.md)")
	fs.StringVar(&vf.embeddings, "embeddings", "", "word vectors `file` (word2vec or GloVe text, gzip allowed) read by the template's %v[row,col] macro, e.g. U50:%v[0,0] for the current word; scaled by the largest absolute value; unknown words get the zero vector; the model stores them (docs/vectors.md)")
}

// checkValued parses --value-columns and reads --embeddings.
func (tf *trainFlags) checkValued() error {
	if tf.valueColumns == "" && tf.embeddings == "" {
		return nil
	}
	if _, ok := map[string]bool{"conll": true, "conllu": true}[tf.format]; !ok {
		return usagef("--value-columns and --embeddings apply to column formats (conll, conllu), not to %s", tf.format)
	}
	if tf.cache != "" {
		return usagef("--cache does not cover --value-columns or --embeddings: leave one out")
	}
	for _, f := range strings.Split(tf.valueColumns, ",") {
		if tf.valueColumns == "" {
			break
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return usagef("--value-columns %q: want 1-based column numbers separated by commas, e.g. 3,4", tf.valueColumns)
		}
		tf.valued.Columns = append(tf.valued.Columns, n-1)
	}
	if tf.embeddings != "" {
		var err error
		if tf.valued.Embeddings, err = dataset.ReadEmbeddingsFile(tf.embeddings); err != nil {
			return err
		}
	}
	return nil
}

// newEncoder returns the growing encoder of training: the format's, with
// --template, --value-columns and --embeddings.
func (tf *trainFlags) newEncoder() (*features.Encoder, error) {
	enc, err := clifile.NewEncoder(dataset.Format(tf.format), tf.template)
	if err != nil {
		return nil, err
	}
	if t := enc.Template(); t != nil {
		for _, c := range tf.valued.Columns {
			if c >= t.Columns() {
				return nil, usagef("--value-columns: column %d is not read by the template, which reads columns 1 to %d (%%x[row,0] to %%x[row,%d])", c+1, t.Columns(), t.Columns()-1)
			}
		}
	}
	if enc, err = features.WithValued(enc, tf.valued); err != nil {
		return nil, usagef("--value-columns/--embeddings: %v", err)
	}
	return enc, nil
}
