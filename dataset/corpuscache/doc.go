// Package corpuscache stores an encoded training corpus (the attribute
// dictionaries, the labels and the sparse rows of every sequence) in a
// compact binary file, so that a grid search, a --select run, a resumed
// run or a Beam grid reads it instead of parsing and encoding the text again (tagger
// train --cache).
//
// A cache file is
//
//	magic "STCORPUS" (8 bytes), version (uint32 LE)
//	key (32 bytes): SHA-256 of what shapes the encoding (Key)
//	payload length (uint64 LE), payload, SHA-256 of the payload (32 bytes)
//
// The payload holds uvarint-prefixed strings and little-endian int32 and
// float64 arrays, ending with the sequence weights of the data (its
// @weight lines; version 2, which version 1 files lacked). A file of another version or another key is stale
// (ErrStale: the caller encodes the text and rewrites it); a file whose
// magic, length, checksum or payload is wrong is corrupt, an error: a
// cache is never trusted blindly, as a wrong corpus would train a wrong
// model without a word.
//
// TrainKey is the key of tagger train --cache; Decode reads a cache from
// bytes (the Beam grid of examples/beam gets it as a side input) and
// Entry.Model turns an entry into the model layout and corpus that
// encoding the text makes. It imports the standard library, the toolkit's
// chain, features and sparse packages, and internal/atomicfile (the file
// is replaced atomically).
package corpuscache
