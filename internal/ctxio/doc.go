// Package ctxio stops reading and writing once a context is done: a
// [Reader] or [Writer] wraps an io.Reader or io.Writer and fails every
// call after the context is cancelled with the context's error. A command
// interrupted by a signal stops reading its input, or fails its next
// write, so that what it wrote before stays complete.
//
// A call already running when the context is cancelled is not cut short;
// only the following calls fail. It imports only the standard library.
package ctxio
