// Package version formats the version of a binary of this module from the
// build information the Go toolchain records in it (runtime/debug): the
// module path and version, the Go version that built it and, when the
// build recorded one, the VCS revision. tagger version (and tagger
// --version) prints it.
//
// It imports only the standard library.
package version
