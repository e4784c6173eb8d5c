// Package chain is the linear-chain CRF model: label set, attribute
// dictionary, state and transition weights in flat slices, scoring of encoded
// sequences into inference lattices, the concurrency-safe Tagger, the model
// file format, and the elastic-net trainer that orchestrates inference,
// features, sparse and screen.
//
// chain never imports corpora or cmd/tagger.
package chain
