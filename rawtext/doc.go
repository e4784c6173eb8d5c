// Package rawtext turns running text into what a tagger reads, without
// losing the way back: it splits a document into sentences ([Sentences]),
// tokenizes each sentence with a [Tokenizer] (the Penn Treebank rules of
// corpora.Tokenize, [PTB], or any other that reports byte offsets), and
// gives every token its place in the document in Unicode code points and
// in UTF-8 bytes ([Token], [Document]). It also reads documents from a
// stream, one per line or one per input ([Reader]).
//
// rawtext knows nothing of models, features or labels: package tagging
// feeds its tokens' Word to a model and maps the labels back to spans of
// the document.
//
// # Offsets
//
// A [Token]'s Start and End count code points from the start of the
// document, StartByte and EndByte count bytes; for a document text,
// text[StartByte:EndByte] is the token as written, and so is
// string([]rune(text)[Start:End]), whatever the tokenizer normalised in
// Word. Offsets never decrease from one token to the next and tokens do not
// overlap, except where a tokenizer says two tokens share a character (the
// Treebank's sentence period after U.S.).
//
// # Sentences
//
// [Sentences] is a rule set, not a trained model; the rules are listed on
// it. Measured on the CoNLL-2000 sentences (WSJ) detokenized and rejoined
// into running text, the recall and precision of its sentence ends are
// above 0.99 (docs/raw-text.md gives the recipe and the numbers, and
// TestSentencesCoNLL2000 recomputes them).
//
// # Limits
//
// Documents are valid UTF-8 without NUL bytes ([ErrInvalidText] otherwise)
// and at most Options.MaxDocumentBytes long ([ErrTooLong]): a [Reader]
// never holds more than one document and its read buffer.
package rawtext
