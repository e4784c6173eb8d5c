package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
)

// SequenceWeights returns the weight of every example (1 where none is
// given), or nil when no example has one.
func SequenceWeights(exs []Example) []float64 {
	var w []float64
	for i, ex := range exs {
		if ex.Weight == 0 {
			continue
		}
		if w == nil {
			w = make([]float64, len(exs))
			for k := range w {
				w[k] = 1
			}
		}
		w[i] = ex.Weight
	}
	return w
}

// ReadSequenceWeights reads a side file of sequence weights: one weight
// per line, one line per sequence, in the order of the data (blank lines
// and lines starting with # are not allowed: every line is a sequence).
// Each weight is finite, above 0 and at most corpora.MaxWeight; an error
// names the file and the line. n is the number of sequences the file must
// hold.
func ReadSequenceWeights(path string, n int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSequenceWeights(path, f, n)
}

func readSequenceWeights(name string, r io.Reader, n int) ([]float64, error) {
	sc := bufio.NewScanner(r)
	var w []float64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if len(w) == n {
			return nil, fmt.Errorf("%s:%d: more weights than the %d sequences of the data", name, line, n)
		}
		v, err := corpora.ParseWeight(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		w = append(w, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(w) != n {
		return nil, fmt.Errorf("%s:%d: %d weights for the %d sequences of the data (one line per sequence)", name, line, len(w), n)
	}
	return w, nil
}
