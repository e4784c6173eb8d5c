// Package features turns raw observations into sparse attribute ids: the
// CRF++ template language over token columns, real-valued name:value
// attributes, OCR pixel attributes, the string→id attribute dictionary and
// the encoding of whole corpora into flat CSR arrays (package sparse).
//
// features knows nothing of inference, screening, training or file formats
// of corpora: it takes plain [][]string columns, attribute names and values,
// or pixel bitmaps. It may import sparse only.
package features
