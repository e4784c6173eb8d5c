package tagging

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

// Tagger decodes sequences with a model: one of this toolkit (a
// chain.Tagger) or one trained by CRFsuite, CRF++ or Wapiti (a peer.Model),
// the same way for both. Load returns one. A Tagger is safe for concurrent
// use by multiple goroutines.
//
// Its methods take a *dataset.Example (token columns or attributes, as a
// file holds them), where chain.Tagger's take a chain.Input (what this
// toolkit's encoder reads): NewTagger wraps a chain.Tagger into a Tagger.
// The methods of the same name mean the same on both: Labels is the label
// set (label ids index it), Tag the best label ids, Decode as
// chain.DecodeOptions asks.
type Tagger interface {
	// Format names the model's format: "sparsetag" for this toolkit's
	// models, else the peer format ("CRFsuite", "CRF++ binary", "CRF++
	// text", "Wapiti").
	Format() string
	// Labels returns the label names; label ids index them. The slice must
	// not be modified.
	Labels() []string
	// Reads tells what input the model reads.
	Reads() Reads
	// Supports reports whether the model supports every capability of c.
	Supports(c Capability) bool
	// Tag writes the best label sequence of ex into dst (reusing its
	// capacity) and returns it: the model's own tagger's labels.
	Tag(dst []int, ex *dataset.Example) ([]int, error)
	// Decode decodes ex into d as opt asks: the best path and its score;
	// with opt.N > 1 the n best paths; with opt.Posterior (implied by N >
	// 1) log Z, the path probabilities and the T×L node marginals; with
	// opt.Constraints (Constrained) or opt.Fixed (Forced) under
	// constraints. An option the model does not support gives an
	// *UnsupportedError.
	Decode(d *chain.Decoding, ex *dataset.Example, opt chain.DecodeOptions) error
	// Explain explains the labels path assigns to ex (Explanation): the
	// state score of every label at each position, the features behind the
	// chosen label's, and the transition from the previous label.
	Explain(ex *dataset.Example, path []int) ([]chain.TokenExplanation, error)
}

// Capability is a set of things a Tagger may support beyond Tag.
type Capability uint8

// Capabilities. Every Tagger supports Tag.
const (
	NBest       Capability = 1 << iota // Decode with DecodeOptions.N > 1
	Posterior                          // Decode with DecodeOptions.Posterior: marginals, log Z, path probabilities
	Constrained                        // Decode with DecodeOptions.Constraints (e.g. chain.BIOConstraints)
	Forced                             // Decode with DecodeOptions.Fixed: labels fixed at some positions
	Explanation                        // Explain
)

var capabilityNames = []string{"n-best decoding", "posterior decoding", "constrained decoding", "forced decoding", "explanation"}

func (c Capability) String() string {
	var names []string
	for i, n := range capabilityNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// ErrUnsupported is wrapped by every *UnsupportedError.
var ErrUnsupported = errors.New("tagging: not supported by the model")

// UnsupportedError is returned when a Tagger is asked for a capability it
// does not have.
type UnsupportedError struct {
	Format string     // the model's format (Tagger.Format)
	Need   Capability // what was asked for
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: a %s model does not support %s", ErrUnsupported, e.Format, e.Need)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// Require returns an *UnsupportedError naming what of c m does not
// support, or nil.
func Require(m Tagger, c Capability) error {
	var missing Capability
	for b := Capability(1); b != 0 && b <= Explanation; b <<= 1 {
		if c&b != 0 && !m.Supports(b) {
			missing |= b
		}
	}
	if missing == 0 {
		return nil
	}
	return &UnsupportedError{Format: m.Format(), Need: missing}
}

// needs returns the capabilities that opt asks for.
func needs(opt *chain.DecodeOptions) Capability {
	var c Capability
	if opt.N > 1 {
		c |= NBest
	}
	if opt.Posterior {
		c |= Posterior
	}
	if opt.Constraints != nil {
		c |= Constrained
	}
	if opt.Fixed != nil {
		c |= Forced
	}
	return c
}

// Reads describes the input a model reads. Whatever the format, the gold
// labels of labeled input (for evaluation, and --forced) are where the
// format puts them (dataset.Options.Labeled): the last column of token
// columns, the first field of a CRFsuite attribute line, the letters of
// OCR words; a model never reads them as features.
type Reads struct {
	// Kind is what a position is: token columns (features.KindTemplate),
	// name:value attributes (features.KindAttributes) or an image
	// (features.KindPixels); 0 for a model of this toolkit without an
	// encoder, which reads no raw input.
	Kind features.Kind
	// Format, when not empty, is the one input format the model reads
	// (peer models: crfsuite for CRFsuite, conll for CRF++ and Wapiti);
	// empty, the model reads every format of its Kind.
	Format dataset.Format
	// Template is the feature template of a column model of this toolkit
	// (the token columns it reads), nil otherwise.
	Template *features.Template
}

// DefaultFormat returns the input format that fits r: Format when set,
// else the usual format of the Kind (conll, crfsuite or ocr).
func (r Reads) DefaultFormat() dataset.Format {
	switch {
	case r.Format != "":
		return r.Format
	case r.Kind == features.KindAttributes:
		return dataset.CRFsuite
	case r.Kind == features.KindPixels:
		return dataset.OCR
	}
	return dataset.CoNLL
}

// FormatError reports input of a format the model cannot read.
type FormatError struct{ msg string }

func (e *FormatError) Error() string { return e.msg }

// CheckInput checks, before any input is read, that input of format f can
// feed m, and returns the format to read: f, or the one format of a model
// that reads only one (when f was not chosen by the user, set false). An
// input m cannot read is a *FormatError; with columns, so is a template
// reading more token columns than f gives. A model without encoder gives
// chain.ErrNoEncoder.
func CheckInput(m Tagger, f dataset.Format, set, columns bool) (dataset.Format, error) {
	r := m.Reads()
	switch {
	case r.Format != "":
		if set && f != r.Format {
			return "", &FormatError{fmt.Sprintf("--format %s does not fit this %s model, which reads %s input", f, m.Format(), r.Format)}
		}
		return r.Format, nil
	case r.Kind == 0:
		return "", chain.ErrNoEncoder
	}
	if err := f.CheckKind(r.Kind); err != nil {
		return "", &FormatError{err.Error()}
	}
	if columns {
		if err := f.CheckColumns(r.Template); err != nil {
			return "", &FormatError{err.Error()}
		}
	}
	return f, nil
}
