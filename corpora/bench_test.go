package corpora

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func embeddedBytes(b *testing.B, name string) []byte {
	rc, err := OpenEmbedded(name)
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkReadCoNLL2000Train(b *testing.B) {
	data := embeddedBytes(b, "conll2000/train.txt.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCoNLL("train.txt", bytes.NewReader(data), CoNLLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadOCR(b *testing.B) {
	data := embeddedBytes(b, "ocr/letter.data.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadOCR("letter.data", bytes.NewReader(data), OCROptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTokenize(b *testing.B) {
	text := strings.Repeat("Rockwell International Corp.'s Tulsa unit said it signed a tentative agreement. ", 4)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Tokenize(text); err != nil {
			b.Fatal(err)
		}
	}
}
