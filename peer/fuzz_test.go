package peer

import (
	"errors"
	"testing"
)

// fuzzModel parses data with parse and, if it loads, runs every decoder on
// a short input. Any error must wrap ErrFormat, ErrUnsupported or ErrInput;
// nothing may panic.
func fuzzModel(t *testing.T, data []byte, parse func([]byte) (Model, error)) {
	m, err := parse(data)
	if err != nil {
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("load error %v wraps neither ErrFormat nor ErrUnsupported", err)
		}
		return
	}
	seq := tinyCols
	if m.Format() == FormatCRFsuite {
		seq = tinyAttrs
	}
	check := func(err error) {
		if err != nil && !errors.Is(err, ErrInput) {
			t.Fatalf("tagging error %v does not wrap ErrInput", err)
		}
	}
	path, err := m.Tag(nil, seq)
	check(err)
	if err == nil {
		for _, y := range path {
			if y < 0 || y >= len(m.Labels()) {
				t.Fatalf("label %d out of range", y)
			}
		}
	}
	_, err = m.NBest(seq, 3)
	check(err)
	_, _, err = m.Marginals(nil, seq)
	check(err)
	if w, ok := m.(*WapitiModel); ok {
		_, err = w.Posterior(seq, 2)
		check(err)
	}
	if path != nil {
		_, err = m.Explain(seq, path)
		check(err)
	}
	if err := m.Weights(func(Weight) error { return nil }); err != nil && !errors.Is(err, ErrFormat) {
		t.Fatalf("Weights error %v does not wrap ErrFormat", err)
	}
}

func FuzzCRFsuite(f *testing.F) {
	f.Add(tinyCRFsuite())
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzModel(t, data, func(b []byte) (Model, error) { return ParseCRFsuite(b) })
	})
}

func FuzzCRFPPBinary(f *testing.F) {
	f.Add(tinyCRFPPBinary())
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzModel(t, data, func(b []byte) (Model, error) { return ParseCRFPPBinary(b) })
	})
}

func FuzzCRFPPText(f *testing.F) {
	f.Add(tinyCRFPPText())
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzModel(t, data, func(b []byte) (Model, error) { return ParseCRFPPText(b) })
	})
}

func FuzzWapiti(f *testing.F) {
	f.Add(tinyWapiti())
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzModel(t, data, func(b []byte) (Model, error) { return ParseWapiti(b) })
	})
}

// FuzzRead goes through format detection and gzip sniffing.
func FuzzRead(f *testing.F) {
	for _, s := range [][]byte{tinyCRFsuite(), tinyCRFPPBinary(), tinyCRFPPText(), tinyWapiti()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzModel(t, data, Parse)
	})
}
