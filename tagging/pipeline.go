package tagging

import (
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

// Pipeline is a Tagger that runs models in order on each sequence: every
// model but the last tags it (its best path), and its labels become one
// more token column of the input of the models after it, appended after
// the existing columns; the last model decodes that input, and its labels
// and capabilities are the pipeline's. A part-of-speech tagger over words
// followed by a chunker over words and POS tags chunks raw text:
//
//	tagger tag --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model
//
// A Pipeline is safe for concurrent use, as its models are.
type Pipeline struct {
	models []Tagger
	names  []string
}

// NewPipeline returns the pipeline of models, named in error messages by
// names. With two models or more, every model must read token columns: the
// labels of one are a column of the next one's input. A pipeline of one
// model tags as the model does, and reports a sequence with fewer token
// columns than the model reads as a *ColumnsError naming its file and line.
func NewPipeline(models []Tagger, names []string) (*Pipeline, error) {
	if len(models) == 0 || len(names) != len(models) {
		return nil, fmt.Errorf("tagging: NewPipeline: %d models and %d names; want at least one model, one name each", len(models), len(names))
	}
	for i, m := range models {
		if k := m.Reads().Kind; len(models) > 1 && k != features.KindTemplate {
			return nil, fmt.Errorf("model %s reads %v input, not token columns: a pipeline's models pass their labels on as a token column", names[i], k)
		}
	}
	return &Pipeline{models: models, names: names}, nil
}

func (p *Pipeline) last() Tagger { return p.models[len(p.models)-1] }

// Last returns the last model: the one that decodes the input Augment
// makes.
func (p *Pipeline) Last() Tagger { return p.last() }

// Format is the last model's.
func (p *Pipeline) Format() string { return p.last().Format() }

// Labels are the last model's.
func (p *Pipeline) Labels() []string { return p.last().Labels() }

// Reads is what the first model reads: the input of the pipeline.
func (p *Pipeline) Reads() Reads { return p.models[0].Reads() }

// Supports reports the last model's capabilities: the models before it
// only tag.
func (p *Pipeline) Supports(c Capability) bool { return p.last().Supports(c) }

// Tag tags ex with the pipeline: the last model's best path.
func (p *Pipeline) Tag(dst []int, ex *dataset.Example) ([]int, error) {
	aug, err := p.Augment(ex)
	if err != nil {
		return dst, err
	}
	return p.last().Tag(dst, &aug)
}

// Decode decodes ex with the last model, after the others have tagged it.
func (p *Pipeline) Decode(d *chain.Decoding, ex *dataset.Example, opt chain.DecodeOptions) error {
	aug, err := p.Augment(ex)
	if err != nil {
		return err
	}
	return p.last().Decode(d, &aug, opt)
}

// Explain explains the last model's labels.
func (p *Pipeline) Explain(ex *dataset.Example, path []int) ([]chain.TokenExplanation, error) {
	aug, err := p.Augment(ex)
	if err != nil {
		return nil, err
	}
	return p.last().Explain(&aug, path)
}

// Augment returns ex with the labels of every model but the last appended
// to its token columns, in order: the input of the last model. ex is not
// modified. A model that reads more columns than its input has gives a
// *ColumnsError.
func (p *Pipeline) Augment(ex *dataset.Example) (dataset.Example, error) {
	aug := *ex
	var path []int
	for i, m := range p.models {
		if err := p.checkColumns(i, &aug); err != nil {
			return aug, err
		}
		if i == len(p.models)-1 {
			break
		}
		var err error
		if path, err = m.Tag(path, &aug); err != nil {
			return aug, fmt.Errorf("model %s: %w", p.names[i], err)
		}
		labels := m.Labels()
		cols := make([][]string, len(aug.Tokens))
		for t, row := range aug.Tokens {
			cols[t] = append(row[:len(row):len(row)], labels[path[t]])
		}
		aug.Tokens = cols
	}
	return aug, nil
}

// checkColumns checks that ex has the token columns model i reads.
func (p *Pipeline) checkColumns(i int, ex *dataset.Example) error {
	tm := p.models[i].Reads().Template
	if tm == nil || len(ex.Tokens) == 0 {
		return nil // a peer model checks its columns itself
	}
	for _, row := range ex.Tokens {
		if len(row) < tm.Columns() {
			return &ColumnsError{Model: p.names[i], Reads: tm.Columns(), Names: tm.ColumnNames(), Have: len(row) - i, Before: i, Labeled: ex.Labels != nil}
		}
	}
	return nil
}

// ColumnsError reports a model of a pipeline (or a single model) that
// reads more token columns than its input gives. Met while tagging, it is
// wrapped with the sequence's file and line.
type ColumnsError struct {
	Model  string         // the model
	Reads  int            // the token columns its template reads
	Names  []string       // their names, from the template's "# columns:" line (features.Template.ColumnNames); nil when not given
	Have   int            // the token columns of the input
	Before int            // the models before it in the pipeline, each adding a column
	Format dataset.Format // the input's format, when the check is made before reading (CheckPipelineColumns)
	// Labeled is set when the input was read with its labels (eval,
	// --forced, --label-column): its label column is not a token column,
	// and a file without one loses a token column to it.
	Labeled bool
}

func (e *ColumnsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %s reads %d token columns", e.Model, e.Reads)
	if len(e.Names) == e.Reads {
		fmt.Fprintf(&b, " (%s)", strings.Join(e.Names, ", "))
	}
	input := fmt.Sprintf("the input's %d", e.Have)
	switch e.Format {
	case dataset.Text:
		input = "the words of --format text"
	case dataset.CoNLLU:
		input = fmt.Sprintf("the %d of --format conllu (FORM, LEMMA, the other POS tag, FEATS)", e.Have)
	}
	if e.Before == 0 {
		fmt.Fprintf(&b, ", but gets %s", input)
	} else {
		fmt.Fprintf(&b, ", but gets %d: %s, then the labels of the %d model(s) before it", e.Have+e.Before, input, e.Before)
	}
	if e.Labeled {
		b.WriteString(": the input was read as labeled, the last column (or the one --label-column names) being the gold label, " +
			"so the model sees one column fewer than the file has: give eval a file with its label column (tag an unlabeled file with tagger tag)")
		return b.String()
	}
	b.WriteString(". Give CoNLL input (--format conll, one token per line) with the columns the model was trained on, " +
		"or put before it --model flags whose models predict the missing columns (each model's labels become the next one's extra column)")
	if e.Have+e.Before == 1 {
		b.WriteString(", e.g. for English chunks of plain text: --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model")
	}
	return b.String()
}

// CheckPipelineColumns checks, before any input is read, that input of a
// format with have token columns (1 for text, 4 for CoNLL-U; 0 when the
// format does not fix it, which checks nothing) feeds every model of a
// pipeline (or a single model): model i gets have + i columns. names
// names the models.
func CheckPipelineColumns(models []Tagger, names []string, f dataset.Format) error {
	var have int
	switch f {
	case dataset.Text:
		have = 1
	case dataset.CoNLLU:
		have = 4
	default:
		return nil
	}
	for i, m := range models {
		if tm := m.Reads().Template; tm != nil && tm.Columns() > have+i {
			return &ColumnsError{Model: names[i], Reads: tm.Columns(), Names: tm.ColumnNames(), Have: have, Before: i, Format: f}
		}
	}
	return nil
}
