package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/sparsetag/sparsetag/dataset"
)

func main() {} // a c-shared library has no main

// Error classes of rule 4 (doc.go).
const (
	classValue   = 1 // ValueError
	classOS      = 2 // OSError (IOError)
	classRuntime = 3 // RuntimeError: a closed model, an internal error
)

// classError gives an error its Python class.
type classError struct {
	class int
	err   error
}

func (e *classError) Error() string { return e.err.Error() }
func (e *classError) Unwrap() error { return e.err }

func runtimeErr(format string, args ...any) error {
	return &classError{classRuntime, fmt.Errorf(format, args...)}
}

func classOf(err error) int {
	var ce *classError
	if errors.As(err, &ce) {
		return ce.class
	}
	var pe *fs.PathError
	if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return classOS
	}
	return classValue
}

// cstring returns s in C memory (rule 3: the caller frees it).
func cstring(s string) *C.char { return C.CString(s) }

// guard runs f, turning its error or panic into a class and a message in
// *errp (rule 4).
func guard(errp **C.char, f func() error) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			if errp != nil {
				*errp = cstring(fmt.Sprintf("sparsetag: internal error: %v\n%s", r, debug.Stack()))
			}
			rc = classRuntime
		}
	}()
	err := f()
	if err == nil {
		return 0
	}
	if errp != nil {
		*errp = cstring(err.Error())
	}
	return C.int(classOf(err))
}

// Handles (rule 1).
var handles = struct {
	sync.Mutex
	next uint64
	m    map[uint64]any
}{m: map[uint64]any{}}

func newHandle(v any) uint64 {
	handles.Lock()
	defer handles.Unlock()
	handles.next++
	handles.m[handles.next] = v
	return handles.next
}

func lookup[T any](h C.uint64_t, what string) (T, error) {
	handles.Lock()
	v, ok := handles.m[uint64(h)]
	handles.Unlock()
	t, isT := v.(T)
	if !ok || !isT {
		var zero T
		return zero, runtimeErr("the %s is closed (or was never opened)", what)
	}
	return t, nil
}

//export st_free
func st_free(p unsafe.Pointer) { C.free(p) }

//export st_version
func st_version() *C.char { return cstring(version()) }

//export st_close
func st_close(h C.uint64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		handles.Lock()
		v, ok := handles.m[uint64(h)]
		delete(handles.m, uint64(h))
		handles.Unlock()
		if !ok {
			return runtimeErr("handle %d is closed", uint64(h))
		}
		switch x := v.(type) {
		case *job:
			x.interrupt() // a job closed while running stops
		case *trainer:
			x.clear() // ends its pre-encoder's goroutine
		}
		return nil
	})
}

// readStrings copies n NUL-terminated strings from buf.
func readStrings(buf *C.char, blen C.int64_t, n int) ([]string, error) {
	var b []byte
	if blen > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(blen))
	}
	out := make([]string, 0, n)
	for len(out) < n {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i == len(b) {
			return nil, fmt.Errorf("%d strings, want %d", len(out), n)
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("more than %d strings (or one contains a NUL byte)", n)
	}
	return out, nil
}

// joinNUL returns the strings as one buffer of NUL-terminated strings in
// C memory, and its length.
func joinNUL(ss []string) (*C.char, int) {
	n := 0
	for _, s := range ss {
		n += len(s) + 1
	}
	p := (*C.char)(C.malloc(C.size_t(max(n, 1))))
	b := unsafe.Slice((*byte)(unsafe.Pointer(p)), max(n, 1))
	at := 0
	for _, s := range ss {
		at += copy(b[at:], s)
		b[at] = 0
		at++
	}
	return p, n
}

// setJSON stores v as JSON in *out (rule 3).
func setJSON(out **C.char, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*out = cstring(string(data))
	return nil
}

// Trainer.

//export st_trainer_new
func st_trainer_new() C.uint64_t { return C.uint64_t(newHandle(newTrainer())) }

//export st_trainer_append
func st_trainer_append(h C.uint64_t, kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double,
	labels *C.char, llen C.int64_t, group C.int32_t, weight C.double, errp **C.char) C.int {
	return guard(errp, func() error {
		tr, err := lookup[*trainer](h, "trainer")
		if err != nil {
			return err
		}
		return tr.append(kind, buf, blen, counts, T, values, labels, llen, int(group), float64(weight))
	})
}

//export st_trainer_clear
func st_trainer_clear(h C.uint64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		tr, err := lookup[*trainer](h, "trainer")
		if err != nil {
			return err
		}
		tr.clear()
		return nil
	})
}

//export st_trainer_len
func st_trainer_len(h C.uint64_t) C.int64_t {
	tr, err := lookup[*trainer](h, "trainer")
	if err != nil {
		return -1
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return C.int64_t(len(tr.exs))
}

//export st_params
func st_params(algorithm *C.char, out **C.char, errp **C.char) C.int {
	return guard(errp, func() error {
		tab, err := paramTable(C.GoString(algorithm))
		if err != nil {
			return err
		}
		return setJSON(out, tab)
	})
}

//export st_train_start
func st_train_start(h C.uint64_t, algorithm *C.char, params *C.char, model *C.char, holdout C.int32_t, out *C.uint64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		tr, err := lookup[*trainer](h, "trainer")
		if err != nil {
			return err
		}
		var ps map[string]string
		if err := json.Unmarshal([]byte(C.GoString(params)), &ps); err != nil {
			return fmt.Errorf("parameters: %w", err)
		}
		j, err := tr.start(C.GoString(algorithm), ps, C.GoString(model), int(holdout))
		if err != nil {
			return err
		}
		*out = C.uint64_t(newHandle(j))
		return nil
	})
}

//export st_job_wait
func st_job_wait(h C.uint64_t, timeoutMs C.int32_t, lines **C.char, done *C.int, errp **C.char) C.int {
	return guard(errp, func() error {
		j, err := lookup[*job](h, "training job")
		if err != nil {
			return err
		}
		text, fin := j.wait(int(timeoutMs))
		*lines = cstring(text)
		*done = 0
		if fin {
			*done = 1
		}
		return nil
	})
}

//export st_job_interrupt
func st_job_interrupt(h C.uint64_t) {
	if j, err := lookup[*job](h, "training job"); err == nil {
		j.interrupt()
	}
}

//export st_job_result
func st_job_result(h C.uint64_t, info **C.char, model *C.uint64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		j, err := lookup[*job](h, "training job")
		if err != nil {
			return err
		}
		<-j.done
		if j.err != nil {
			return j.err
		}
		*model = 0
		if j.model != nil {
			*model = C.uint64_t(newHandle(j.model))
		}
		return setJSON(info, j.info)
	})
}

// Models.

//export st_model_open
func st_model_open(path *C.char, out *C.uint64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		m, err := openModelFile(C.GoString(path))
		if err != nil {
			return err
		}
		*out = C.uint64_t(newHandle(m))
		return nil
	})
}

//export st_model_open_bytes
func st_model_open_bytes(buf *C.char, n C.int64_t, out *C.uint64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		data := C.GoBytes(unsafe.Pointer(buf), C.int(n))
		m, err := openModelBytes("<bytes>", data)
		if err != nil {
			return err
		}
		*out = C.uint64_t(newHandle(m))
		return nil
	})
}

//export st_model_labels
func st_model_labels(h C.uint64_t, out **C.char, outlen *C.int64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		m, err := lookup[*model](h, "model")
		if err != nil {
			return err
		}
		p, n := joinNUL(m.tg.Labels())
		*out, *outlen = p, C.int64_t(n)
		return nil
	})
}

//export st_model_info
func st_model_info(h C.uint64_t, out **C.char, errp **C.char) C.int {
	return guard(errp, func() error {
		m, err := lookup[*model](h, "model")
		if err != nil {
			return err
		}
		return setJSON(out, m.summary())
	})
}

// withSeq runs f on the model of h and the sequence of the arguments.
func withSeq(h C.uint64_t, kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, errp **C.char,
	f func(m *model, ex *dataset.Example) error) C.int {
	return guard(errp, func() error {
		m, err := lookup[*model](h, "model")
		if err != nil {
			return err
		}
		sc := seqPool.Get().(*seqScratch)
		defer seqPool.Put(sc)
		ex, err := readSeq(kind, buf, blen, counts, T, values, false, sc)
		if err != nil {
			return err
		}
		if err := m.checkKind(&ex); err != nil {
			return err
		}
		return f(m, &ex)
	})
}

//export st_model_tag
func st_model_tag(h C.uint64_t, kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, out *C.int32_t, errp **C.char) C.int {
	return withSeq(h, kind, buf, blen, counts, T, values, errp, func(m *model, ex *dataset.Example) error {
		path, err := m.tg.Tag(nil, ex)
		if err != nil {
			return err
		}
		if len(path) > 0 {
			dst := unsafe.Slice(out, len(path))
			for t, y := range path {
				dst[t] = C.int32_t(y)
			}
		}
		return nil
	})
}

// st_model_marginals writes the T×L node marginals into out (T*L doubles)
// and log Z into *logZ.
//
//export st_model_marginals
func st_model_marginals(h C.uint64_t, kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, out *C.double, logZ *C.double, errp **C.char) C.int {
	return withSeq(h, kind, buf, blen, counts, T, values, errp, func(m *model, ex *dataset.Example) error {
		node, lz, err := m.marginals(ex)
		if err != nil {
			return err
		}
		if len(node) > 0 {
			copy(unsafe.Slice((*float64)(unsafe.Pointer(out)), len(node)), node)
		}
		*logZ = C.double(lz)
		return nil
	})
}

// st_model_probability writes P(path | x) into *p: path holds T label ids.
//
//export st_model_probability
func st_model_probability(h C.uint64_t, kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, path *C.int32_t, p *C.double, errp **C.char) C.int {
	return withSeq(h, kind, buf, blen, counts, T, values, errp, func(m *model, ex *dataset.Example) error {
		ids := make([]int, int(T))
		if T > 0 {
			for t, y := range unsafe.Slice(path, int(T)) {
				ids[t] = int(y)
			}
		}
		v, err := m.probability(ex, ids)
		*p = C.double(v)
		return err
	})
}

// st_model_nbest stores the n best paths as JSON in *out:
// [{"labels": [ids], "score": s, "probability": p}, ...].
//
//export st_model_nbest
func st_model_nbest(h C.uint64_t, kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, n C.int32_t, out **C.char, errp **C.char) C.int {
	return withSeq(h, kind, buf, blen, counts, T, values, errp, func(m *model, ex *dataset.Example) error {
		paths, err := m.nbest(ex, int(n))
		if err != nil {
			return err
		}
		return setJSON(out, paths)
	})
}

//export st_model_dump
func st_model_dump(h C.uint64_t, out **C.char, errp **C.char) C.int {
	return guard(errp, func() error {
		m, err := lookup[*model](h, "model")
		if err != nil {
			return err
		}
		text, err := m.dump()
		if err != nil {
			return err
		}
		*out = cstring(text)
		return nil
	})
}

// st_model_bytes stores the model file in the given format ("crfsuite" or
// "ours") in *out (rule 3) and its length in *outlen.
//
//export st_model_bytes
func st_model_bytes(h C.uint64_t, format *C.char, out **C.char, outlen *C.int64_t, errp **C.char) C.int {
	return guard(errp, func() error {
		m, err := lookup[*model](h, "model")
		if err != nil {
			return err
		}
		data, err := m.bytes(C.GoString(format))
		if err != nil {
			return err
		}
		p := (*C.char)(C.malloc(C.size_t(max(len(data), 1))))
		copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(data)), data)
		*out, *outlen = p, C.int64_t(len(data))
		return nil
	})
}

//export st_model_save
func st_model_save(h C.uint64_t, path *C.char, format *C.char, errp **C.char) C.int {
	return guard(errp, func() error {
		m, err := lookup[*model](h, "model")
		if err != nil {
			return err
		}
		return m.save(C.GoString(path), C.GoString(format))
	})
}
