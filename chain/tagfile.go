package chain

import (
	"hash/crc32"
	"io"
)

// LoadTagger reads a model file, gzip-compressed or not, into a tag-only
// Tagger: see ReadTagger. Errors name the file.
func LoadTagger(path string) (*Tagger, error) {
	return loadFile(path, readTagger)
}

// ReadTagger reads a model in the model file format (see ReadModel) into a
// tag-only Tagger, which never builds the dense weight vector W: it keeps
// the labels, the encoder (attribute dictionaries) and only the non-zero
// weights, in the sparse layout it scores from. The weight section is
// streamed in chunks of a few tens of kilobytes, so that it is never held
// whole either. For N non-zero weights, U unary and P pair attributes and
// L labels the weights take at most 12·N + 4·(U+P+2) + 8·L² bytes (10
// bytes per non-zero state weight, 12 per pair weight, the dense L×L
// transitions), where the full load (ReadModel, NewTagger) takes
// 8·(U·L + L² + P·L²) bytes for W and the sparse view besides. The bound
// is exact when the input's size is known (a file of LoadTagger, the bytes
// of a bytes.Reader): the weights are then allocated at
// once. From a reader of unknown size they grow as they arrive and may
// keep the spare capacity of append. The dictionaries and the labels come
// on top, as in the full load.
//
// ReadTagger accepts exactly the files ReadModel accepts and refuses the
// others with the same errors: the same FormatError (section, byte offset,
// message) for a truncated, corrupted or non-canonical file, reported in
// the same order (truncation, then checksum, then content), the same
// ErrVersion errors. The Tagger tags, decodes and explains exactly as
// NewTagger of the model ReadModel returns, bit for bit; its Model method
// returns nil.
//
// Version 2 files hold only attributes with a non-zero weight (see
// Model.Compact), so the dictionaries hold nothing a tag-only Tagger could
// drop. The attributes of a version 1 file are kept as they are, dead ones
// included, so that attribute ids (Encoded input, explanations) mean what
// they mean for the full load.
func ReadTagger(r io.Reader) (*Tagger, error) { return readTagger(r, readerSize(r)) }

// readTagger is ReadTagger of an input of size bytes (-1: unknown).
func readTagger(r io.Reader, size int64) (*Tagger, error) {
	mr := &modelReader{r: r, size: size, tagOnly: true}
	if err := mr.readAll(); err != nil {
		return nil, err
	}
	m := mr.m
	return newTagOnly(m.Labels, mr.tw, m.Encoder), nil
}

// weightChunk is how many bytes of the WGHT payload a tag-only read holds
// at once: 4096 (index, weight) records.
const weightChunk = 12 * 4096

// streamWeights is decodeWeights for a tag-only read: it reads the
// n-byte WGHT payload whose header sh starts at file offset start in
// chunks, adds each weight to mr.tw, and reports errors as readAndDecode
// and decodeWeights would after reading the whole section: a truncated
// payload or checksum first, then a checksum mismatch, then the first
// problem in the content (a content error only stops the decoding, not
// the reading).
func (mr *modelReader) streamWeights(sh []byte, n uint32, start int64) error {
	tag := string(sh[:4])
	m := mr.m
	crc := crc32.NewIEEE()
	crc.Write(sh[:4])
	d := &decoder{section: tag, base: start + 8}
	if len(m.Labels) != mr.labelCnt {
		// Content error: reported after the checksum, like decodeWeights.
		d.err = &FormatError{Section: tag, Offset: start, Msg: "missing LABL section"}
	}
	w := newTagWeights(m.Layout)
	buf := make([]byte, min(int(n), 4+weightChunk))
	dim, prev := m.Layout.Dim(), int64(-1)
	keep, read := 0, int64(0) // undecoded bytes at the front of buf; payload bytes read
	for first := true; first || read < int64(n); first = false {
		k := min(int64(len(buf)-keep), int64(n)-read)
		got, err := io.ReadFull(mr.r, buf[keep:keep+int(k)])
		mr.off += int64(got)
		if err != nil {
			return mr.readError(err, int64(n), read+int64(got), "section payload", tag)
		}
		crc.Write(buf[keep : keep+int(k)])
		d.b = buf[:keep+int(k)]
		if first && d.weightCount(n) && mr.present(int64(n)-k) {
			w.reserve(int(n-4) / 12)
		}
		read += k
		for len(d.b) >= 12 && d.err == nil {
			if j, v, ok := d.weight(&prev, dim); ok {
				w.add(j, v)
			}
		}
		if keep = 0; d.err == nil {
			keep = copy(buf, d.b) // a record cut by the chunk's end
		}
	}
	if err := mr.checkCRC(crc.Sum32(), tag, start); err != nil {
		return err
	}
	if d.err != nil {
		return d.err
	}
	w.finish()
	mr.tw, mr.sawWeights = w, true
	return mr.checkCompact(w.firstDead, tag, start)
}

// weightCount decodes the weight count at the start of the n-byte WGHT
// payload in d and checks it against n, as decodeWeights does. It reports
// whether the count is right.
func (d *decoder) weightCount(n uint32) bool {
	if cnt := d.u32(); d.err == nil && int64(cnt)*12 != int64(n)-4 {
		d.fail("%d weights declared, payload holds %d bytes", cnt, int64(n)-4)
	}
	return d.err == nil
}
