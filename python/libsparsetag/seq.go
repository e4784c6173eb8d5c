package main

/*
#include <stdint.h>
*/
import "C"

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"github.com/sparsetag/sparsetag/dataset"
)

// Sequence kinds of the seq arguments (kind, buf, blen, counts, T,
// values): buf holds NUL-terminated strings, counts[t] attributes or
// cells at position t.
const (
	// buf: the attribute names; values: a double per name (NULL: all 1).
	seqAttributes = 0
	// buf: the cells, counts[t] columns at position t; values: NULL.
	seqColumns = 1
	// buf: the keys of python-crfsuite's item dicts, then as many value
	// texts (str(v) in Python); values: one byte per key (not doubles),
	// 1 when the value was a string (attribute key:value, value 1), 0
	// when it was a number or a bool (attribute key, its value: "True"
	// 1, "False" 0, a number parsed). Python builds it with a few calls
	// of its C-level builtins instead of a loop over the attributes.
	seqDicts = 2
)

// readSeq reads one sequence out of the caller's buffers (the kinds
// above) into sc's memory, or into new memory when sc is nil. With own
// (a trainer keeps the sequence; sc must be nil) buf is copied into Go
// memory first, once, and the strings are views of that copy (no string
// is allocated or interned one by one: the encoder looks every name up
// once anyway); without it they are views of buf or of sc, and the
// sequence must not outlive the call (rule 2) nor sc's next use.
func readSeq(kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, own bool, sc *seqScratch) (dataset.Example, error) {
	if T < 0 || blen < 0 {
		return dataset.Example{}, fmt.Errorf("negative length")
	}
	var cnt []int32
	if T > 0 {
		cnt = unsafe.Slice((*int32)(unsafe.Pointer(counts)), int(T))
	}
	var b []byte
	if blen > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(blen))
		if own {
			b = append([]byte(nil), b...)
		}
	}
	total := 0
	for _, n := range cnt {
		if n < 0 {
			return dataset.Example{}, fmt.Errorf("negative count")
		}
		total += int(n)
	}
	var dv []float64
	var flags []byte
	switch {
	case values == nil || total == 0:
	case kind == seqDicts:
		flags = unsafe.Slice((*byte)(unsafe.Pointer(values)), total)
	default:
		dv = unsafe.Slice((*float64)(unsafe.Pointer(values)), total)
	}
	if sc == nil {
		sc = new(seqScratch)
	}
	ex, err := sc.parse(int(kind), b, cnt, total, dv, flags)
	if err == nil && own && kind == seqDicts {
		// Kept: the names only, not the value texts that sc.strs holds
		// after them.
		ex.Names = rows(nil, append([]string(nil), sc.strs[:total]...), cnt)
	}
	return ex, err
}

// seqScratch holds the memory of one decoded sequence; withSeq takes one
// from seqPool per call, so that a warm call allocates nothing for it.
type seqScratch struct {
	strs   []string
	flat   []float64
	names  [][]string
	vals   [][]float64
	joined []byte
}

var seqPool = sync.Pool{New: func() any { return new(seqScratch) }}

// parse decodes b (total strings, or 2*total for seqDicts) with cnt[t]
// per position; dv are seqAttributes' values (nil: all 1), flags
// seqDicts'. The strings are views of b and of sc's memory.
func (sc *seqScratch) parse(kind int, b []byte, cnt []int32, total int, dv []float64, flags []byte) (dataset.Example, error) {
	ex := dataset.Example{File: "python", Line: 1}
	nstr := total
	if kind == seqDicts {
		nstr = 2 * total
		if total > 0 && flags == nil {
			return ex, fmt.Errorf("no value flags")
		}
	}
	var err error
	if sc.strs == nil {
		sc.strs = make([]string, 0, nstr)
	}
	if sc.strs, err = splitNUL(sc.strs[:0], b, nstr); err != nil {
		return ex, err
	}
	sc.flat = grow(sc.flat, total)
	switch kind {
	case seqAttributes:
		for k := range sc.flat {
			sc.flat[k] = 1
			if dv != nil {
				sc.flat[k] = dv[k]
			}
		}
	case seqDicts:
		if err := sc.dictAttributes(flags); err != nil {
			return ex, err
		}
	case seqColumns:
		sc.names = rows(sc.names, sc.strs, cnt)
		ex.Tokens = sc.names
		return ex, nil
	default:
		return ex, fmt.Errorf("unknown sequence kind %d", kind)
	}
	sc.names = rows(sc.names, sc.strs[:total], cnt)
	sc.vals = rows(sc.vals, sc.flat, cnt)
	ex.Names, ex.Values = sc.names, sc.vals
	return ex, nil
}

// splitNUL appends the n NUL-terminated strings of b to dst, as views of
// b.
func splitNUL(dst []string, b []byte, n int) ([]string, error) {
	for k := 0; k < n; k++ {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, fmt.Errorf("%d strings for %d names", k, n)
		}
		var s string
		if i > 0 {
			s = unsafe.String(&b[0], i)
		}
		dst = append(dst, s)
		b = b[i+1:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("an attribute name or value contains a NUL byte, which CRFsuite's model files cannot hold")
	}
	return dst, nil
}

// dictAttributes turns the keys and value texts of seqDicts (sc.strs: n
// keys then n texts) into attribute names (sc.strs[:n]) and values
// (sc.flat) as python-crfsuite reads a dict item: key:value for a string
// (value 1), key for a number or a bool (its value).
func (sc *seqScratch) dictAttributes(flags []byte) error {
	n := len(flags)
	keys, texts := sc.strs[:n], sc.strs[n:]
	size := 0
	for k, f := range flags {
		if f != 0 {
			size += len(keys[k]) + 1 + len(texts[k])
		}
	}
	// The key:value names, in one buffer (never grown below: the views
	// into it stay valid).
	if cap(sc.joined) < size {
		sc.joined = make([]byte, 0, size)
	}
	joined := sc.joined[:0]
	for k, f := range flags {
		if f != 0 {
			at := len(joined)
			joined = append(append(append(joined, keys[k]...), ':'), texts[k]...)
			keys[k] = unsafe.String(&joined[at], len(joined)-at)
			sc.flat[k] = 1
		} else if err := parseValue(&sc.flat[k], keys[k], texts[k]); err != nil {
			return err
		}
	}
	return nil
}

// parseValue parses the text of a number or a bool (Python's str of it).
func parseValue(dst *float64, key, text string) error {
	switch text {
	case "True":
		*dst = 1
	case "False":
		*dst = 0
	default:
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("attribute %q: value %q is not a number", key, text)
		}
		*dst = v
	}
	return nil
}

// grow returns s resized to n, reusing its memory; never nil (a nil
// Names or Tokens would say the input is of another kind).
func grow[T any](s []T, n int) []T {
	if s == nil || cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// rows cuts flat into counts[t] elements per position, reusing dst.
func rows[T any](dst [][]T, flat []T, counts []int32) [][]T {
	dst = grow(dst, len(counts))
	at := 0
	for t, n := range counts {
		dst[t] = flat[at : at+int(n) : at+int(n)]
		at += int(n)
	}
	return dst
}
