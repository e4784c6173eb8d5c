// Package hftok is a rawtext.Tokenizer defined by a HuggingFace
// tokenizer.json: its normalizer and its pre-tokenizer decide the words a
// model reads; this package maps every word back to the text it came
// from. The pre-tokenizers are github.com/sugarme/tokenizer's (this is the
// one place of this module that uses that library); the normalizers are
// this package's, written to HuggingFace's definitions, because the
// library's panic on some input (its StripAccents, through
// NormalizedString.TransformRange, on a lone combining mark: found by
// TestDocumentOffsetsRandom) and call log.Fatal on others.
//
// # Supported
//
// The words are the pre-tokens (the pieces before the subword model: a CRF
// reads words, not word pieces), as the normalizer writes them (lowercased,
// accents stripped, ...). Supported normalizers: BertNormalizer, Lowercase,
// StripAccents, NFC, NFD, NFKC, NFKD, Strip and a Sequence of them;
// pre-tokenizers: BertPreTokenizer, Whitespace, WhitespaceSplit,
// Punctuation, Digits and a Sequence of them. Anything else (ByteLevel,
// Metaspace, Split, Replace, Precompiled, ...) is refused with an error
// naming it: those rewrite the text in ways whose offsets this package does
// not map back. The model, post-processor, decoder and added tokens of the
// file are ignored.
//
// # Offsets
//
// The library's own offsets are not used (its normalizer has been seen to
// corrupt them). The text is cut into clusters (a character and the
// combining marks after it); each cluster is normalized on its own, so
// every byte of the normalized text comes from a known cluster; each
// pre-token is found in the normalized text and takes the clusters it
// covers. This is exact for normalizers that act on clusters one at a
// time, which every supported one does. (Strip, which trims the whole
// text, changes nothing here: rawtext hands over sentences without
// surrounding spaces, and the pre-tokenizers drop spaces.)
//
// The normalizers, as HuggingFace tokenizers defines them:
//
//   - BertNormalizer: clean_text removes NUL, U+FFFD and control and format
//     characters (other than tab, CR and LF) and writes every white space
//     as a space; handle_chinese_chars puts spaces around CJK ideographs;
//     strip_accents (null: as lowercase) decomposes (NFD) and removes
//     non-spacing marks; lowercase lowercases; in that order.
//   - Lowercase; StripAccents (removes non-spacing marks); NFC, NFD, NFKC,
//     NFKD (golang.org/x/text/unicode/norm); Strip; Sequence.
//
// # Safety
//
// The library calls log.Fatal and panics in library code, on malformed
// configuration (a field of the wrong type) and in its normalizers, and
// its DecodeBatch races. This package reads tokenizer.json with
// encoding/json into its own types, checks every field, builds the
// supported pre-tokenizers with their constructors (no user input reaches
// the library's configuration parsing), normalizes text itself, and never
// calls the library's normalizers, batch, file or network functions.
// FuzzParse and FuzzTokenizeOffsets exercise what remains.
package hftok
