// Command libsparsetag is the C shared library behind the Python package
// sparsetag (go build -buildmode=c-shared -o libsparsetag.so): training and
// tagging of this toolkit, called from Python with ctypes. It is its own
// Go module so that the toolkit's module stays free of cgo.
//
// # The C boundary: ownership rules
//
// These rules are the whole contract between Python (sparsetag/_lib.py)
// and this library; every exported function follows them.
//
//  1. Handles. Trainers, training jobs and models are Go values that never
//     cross the boundary: C sees a handle, a uint64 key of a table in this
//     library (handles.go). A handle stays valid until its st_*_close,
//     which frees the Go value (the garbage collector reclaims it); closing
//     twice, or using a closed or unknown handle, is an error, never a
//     crash. Python closes its handles on close(), in __del__ and at exit.
//  2. Inputs are borrowed. Every pointer Python passes (strings, buffers of
//     names, values and label ids) is read during the call only; Go copies
//     whatever it keeps before returning, and never writes through an input
//     pointer.
//  3. Outputs are owned by the caller. A char** or uint8** out-parameter
//     receives memory allocated with C malloc (never Go memory); Python
//     copies it and frees it with st_free. Fixed-size outputs (int32 and
//     double arrays) are written into buffers Python allocated with the
//     size the call documents.
//  4. Errors. A function that can fail returns 0 on success, and on
//     failure an error class (1: ValueError, 2: OSError, 3: RuntimeError,
//     a closed model) and sets *err to a malloc'ed message (rule 3). A Go
//     panic is recovered at the boundary and reported as class 3: it never
//     unwinds into C.
//  5. Threads. Every call may come from any thread; the tables are locked
//     and a model is safe for concurrent tagging (chain.Tagger is). ctypes
//     releases the GIL for the whole of every call. Training runs in a Go
//     goroutine (st_train_start); Python polls it with st_job_wait, which
//     returns at most after its timeout, so that Python's own signal
//     handling (KeyboardInterrupt) runs between polls, and st_job_interrupt
//     stops it gracefully. No Go code ever calls back into Python.
//
// Strings are UTF-8. Lists of strings cross the boundary as one buffer of
// NUL-terminated strings (attribute and label names cannot contain NUL in
// CRFsuite's format either). An item sequence crosses as one of the kinds
// of seq.go (attribute names and values; dict keys, value texts and a flag
// per value; token columns), read into pooled memory for the call.
//
// The files fit*.go alone call the trainers (packages train and
// train/online).
package main
