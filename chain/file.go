package chain

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"

	"github.com/sparsetag/sparsetag/internal/atomicfile"
	"github.com/sparsetag/sparsetag/sparse"
)

// Model file format, version 2. Everything is little-endian.
//
//	magic    8 bytes  "SPTGCRF\x00"
//	version  uint32   2 (1 is still read, see below)
//	sections, in this order:
//	  tag      4 bytes  ASCII
//	  length   uint32   payload length in bytes
//	  payload  length bytes
//	  crc      uint32   CRC-32 (IEEE) of tag and payload
//
// Sections:
//
//	HEAD  flags uint8 (bit 0: transitions, bit 1: has encoder), L, U, P uint32
//	LABL  L strings
//	ENCD  the feature encoder (only when flag bit 1 is set), see encoder.go
//	WGHT  count uint32, then count pairs (index uint32, weight float64 bits);
//	      indices strictly increasing, weights non-zero and finite
//	END   empty; nothing may follow
//
// A string is a uint32 byte length followed by the bytes. Only non-zero
// weights are stored. The encoding is canonical: a version 2 file that loads
// re-encodes to the same bytes.
//
// Version 2 files are compact (see Model.Compact): when the file has an
// encoder, every unary attribute has at least one non-zero state weight and
// every pair attribute at least one non-zero pair weight, so U and P count
// only attributes that can change a score. All labels are kept. Without an
// encoder the attribute ids are the caller's and nothing is dropped.
//
// Version 1 has the same sections without the compactness rule: it is read
// (a model saved again is written as a compact version 2 file that tags
// exactly the same) but no longer written.
const (
	fileMagic   = "SPTGCRF\x00"
	fileVersion = 2 // the version written
	// oldestVersion is the oldest version read: version 1 differs from
	// version 2 only in allowing attributes without a non-zero weight.
	oldestVersion = 1

	maxSection   = 1 << 31 // bytes in one section
	maxLabels    = 1 << 12 // labels in a model
	maxStringLen = 1 << 20 // bytes in one label or attribute name
	// maxLoadWeights bounds the dense weight vector a file may declare
	// (2 GiB of float64), so that a crafted header cannot make the loader
	// allocate more than that.
	maxLoadWeights = 1 << 28
)

// FormatError reports a malformed model file.
type FormatError struct {
	Section string // section tag, or "" for the header
	Offset  int64  // byte offset in the file where the problem was found
	Msg     string
}

func (e *FormatError) Error() string {
	if e.Section == "" {
		return fmt.Sprintf("chain: bad model file at byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("chain: bad model file, section %s at byte %d: %s", e.Section, e.Offset, e.Msg)
}

// ErrVersion is wrapped by errors about model files written by a newer
// version of this toolkit.
var ErrVersion = errors.New("unsupported model file version")

// WriteTo writes m in the model file format, compacted first (see
// Compact): attributes without a non-zero weight are not written. It
// implements io.WriterTo.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	if err := checkFinite(m.W); err != nil {
		return 0, fmt.Errorf("chain: refusing to save model: %w", err)
	}
	c, err := m.Compact()
	if err != nil {
		return 0, fmt.Errorf("chain: refusing to save model: %w", err)
	}
	data, err := c.encodeFile(fileVersion)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// encodeFile returns the file bytes of m as it is (not compacted), under the
// given version number. Tests use it to make version 1 files and
// non-compact version 2 files.
func (m *Model) encodeFile(version uint32) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString(fileMagic)
	out.Write(binary.LittleEndian.AppendUint32(nil, version))

	L := len(m.Labels)
	var flags uint8
	if m.Layout.Transitions {
		flags |= 1
	}
	if m.Encoder != nil {
		flags |= 2
	}
	head := []byte{flags}
	head = binary.LittleEndian.AppendUint32(head, uint32(L))
	head = binary.LittleEndian.AppendUint32(head, uint32(m.Layout.NumUnary))
	head = binary.LittleEndian.AppendUint32(head, uint32(m.Layout.NumPair))
	writeSection(&out, "HEAD", head)

	lab := binary.LittleEndian.AppendUint32(nil, uint32(L))
	for _, l := range m.Labels {
		lab = appendString(lab, l)
	}
	writeSection(&out, "LABL", lab)

	if m.Encoder != nil {
		enc, err := appendEncoder(nil, m.Encoder)
		if err != nil {
			return nil, err
		}
		writeSection(&out, "ENCD", enc)
	}

	nz := m.NonZero()
	wt := make([]byte, 0, 4+12*nz)
	wt = binary.LittleEndian.AppendUint32(wt, uint32(nz))
	for j, v := range m.W {
		if v != 0 {
			wt = binary.LittleEndian.AppendUint32(wt, uint32(j))
			wt = binary.LittleEndian.AppendUint64(wt, math.Float64bits(v))
		}
	}
	if len(wt) > maxSection {
		return nil, fmt.Errorf("chain: model too large to save (%d non-zero weights)", nz)
	}
	writeSection(&out, "WGHT", wt)
	writeSection(&out, "END ", nil)
	return out.Bytes(), nil
}

func writeSection(out *bytes.Buffer, tag string, payload []byte) {
	var hdr [8]byte
	copy(hdr[:4], tag)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(payload)))
	out.Write(hdr[:])
	out.Write(payload)
	crc := crc32.NewIEEE()
	crc.Write(hdr[:4])
	crc.Write(payload)
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], crc.Sum32())
	out.Write(c[:])
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// MarshalBinary returns the model file bytes of m.
func (m *Model) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// SaveFile writes m to path atomically: it writes a temporary file in the same
// directory, syncs and closes it, reads it back and validates it, and only
// then renames it over path (internal/atomicfile). On any error path is left
// untouched and the temporary file is removed. A model that replaces a file
// keeps that file's permissions; a new one gets 0666 less the umask.
func (m *Model) SaveFile(path string) error {
	data, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	err = atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, func(tmp string) error {
		back, err := os.ReadFile(tmp)
		if err != nil {
			return fmt.Errorf("reading back: %w", err)
		}
		if !bytes.Equal(back, data) {
			return errors.New("file read back differs from what was written")
		}
		if _, err := ReadModel(bytes.NewReader(back)); err != nil {
			return fmt.Errorf("validation: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("chain: saving model: %w", err)
	}
	return nil
}

// LoadFile reads a model file, gzip-compressed or not. Errors name the
// file.
func LoadFile(path string) (*Model, error) {
	return loadFile(path, readModel)
}

// loadFile opens the model file at path and reads it with read, through a
// gzip reader when the file starts with gzip's magic bytes (the size is
// then unknown to the reader).
func loadFile[T any](path string, read func(io.Reader, int64) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("chain: loading model: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	size := fileSize(f)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return zero, fmt.Errorf("%s: gzip: %w", path, err)
		}
		r, size = zr, -1
	}
	v, err := read(r, size)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// modelReader reads a model file section by section, as image/png reads
// chunks: it tracks the file offset for error messages and what the
// sections read so far declared.
type modelReader struct {
	r       io.Reader
	size    int64 // bytes in the input, -1 when unknown
	off     int64
	version uint32

	m          *Model // set by HEAD; W stays nil in a tag-only read
	hasEnc     bool   // HEAD says an ENCD section follows
	labelCnt   int    // labels declared by HEAD
	stage      int    // index in sectionOrder of the first section still allowed
	sawWeights bool   // WGHT was read
	sawEnd     bool

	// tagOnly streams WGHT into tw instead of filling m.W (ReadTagger).
	tagOnly bool
	tw      *tagWeights
}

// sectionOrder is the fixed order of the sections; ENCD is present only when
// the header says so.
var sectionOrder = []string{"HEAD", "LABL", "ENCD", "WGHT", "END "}

func (mr *modelReader) read(n int64, what, section string) ([]byte, error) {
	if mr.present(n) {
		buf := make([]byte, n)
		got, err := io.ReadFull(mr.r, buf)
		mr.off += int64(got)
		if err != nil {
			return nil, mr.readError(err, n, int64(got), what, section)
		}
		return buf, nil
	}
	var buf bytes.Buffer
	// CopyN grows the buffer as data arrives: a file that declares a huge
	// section but is short fails without allocating the declared size.
	got, err := io.CopyN(&buf, mr.r, n)
	mr.off += got
	if err != nil {
		return nil, mr.readError(err, n, got, what, section)
	}
	return buf.Bytes(), nil
}

// present reports whether the next n bytes are known to be in the input
// (whose size is known), so that reading them may allocate n bytes at once.
func (mr *modelReader) present(n int64) bool { return mr.size >= 0 && n <= mr.size-mr.off }

// readerSize returns the number of bytes left in r when r is a
// bytes.Reader, strings.Reader or bytes.Buffer, else -1.
func readerSize(r io.Reader) int64 {
	switch x := r.(type) {
	case *bytes.Reader:
		return int64(x.Len())
	case *strings.Reader:
		return int64(x.Len())
	case *bytes.Buffer:
		return int64(x.Len())
	}
	return -1
}

// fileSize returns the size of f when it is a regular file, else -1.
func fileSize(f *os.File) int64 {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return -1
}

// readError turns the error of a read of want bytes of what, of which got
// arrived, into a truncation FormatError (at EOF) or a wrapped I/O error.
func (mr *modelReader) readError(err error, want, got int64, what, section string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Section: section, Offset: mr.off, Msg: fmt.Sprintf("truncated: want %d bytes of %s, got %d", want, what, got)}
	}
	return fmt.Errorf("chain: reading model: %w", err)
}

// ReadModel reads a model in the model file format. It checks every declared
// size against limits and against the data actually present before
// allocating, verifies the checksum of every section, and rejects files from
// a newer version, truncated or corrupted files and non-canonical encodings.
func ReadModel(r io.Reader) (*Model, error) { return readModel(r, readerSize(r)) }

// readModel is ReadModel of an input of size bytes (-1: unknown).
func readModel(r io.Reader, size int64) (*Model, error) {
	mr := &modelReader{r: r, size: size}
	if err := mr.readAll(); err != nil {
		return nil, err
	}
	return mr.m, nil
}

// readAll reads a whole model file: the header, every section through END,
// and checks that nothing follows.
func (mr *modelReader) readAll() error {
	if err := mr.readFileHeader(); err != nil {
		return err
	}
	for !mr.sawEnd {
		if err := mr.readSection(); err != nil {
			return err
		}
	}
	if mr.m == nil || !mr.sawWeights {
		return &FormatError{Offset: mr.off, Msg: "missing WGHT section"}
	}
	// Nothing may follow END.
	var one [1]byte
	if n, _ := io.ReadFull(mr.r, one[:]); n != 0 {
		return &FormatError{Offset: mr.off, Msg: "data after END section"}
	}
	return nil
}

// readFileHeader reads the magic and the version.
func (mr *modelReader) readFileHeader() error {
	hdr, err := mr.read(12, "header", "")
	if err != nil {
		return err
	}
	if string(hdr[:8]) != fileMagic {
		return &FormatError{Offset: 0, Msg: "not a model file (wrong magic)"}
	}
	mr.version = binary.LittleEndian.Uint32(hdr[8:])
	if mr.version > fileVersion {
		return fmt.Errorf("chain: model file version %d is newer than this program supports (%d): %w", mr.version, fileVersion, ErrVersion)
	}
	if mr.version < oldestVersion {
		return fmt.Errorf("chain: model file version %d: %w", mr.version, ErrVersion)
	}
	return nil
}

// readSection reads one section and decodes it into mr.m (the weights of
// a tag-only read into mr.tw, streamed).
func (mr *modelReader) readSection() error {
	start := mr.off
	idx, sh, n, err := mr.readSectionHeader()
	if err != nil {
		return err
	}
	if mr.tagOnly && string(sh[:4]) == "WGHT" {
		err = mr.streamWeights(sh, n, start)
	} else {
		err = mr.readAndDecode(sh, n, start)
	}
	if err != nil {
		return err
	}
	mr.stage = idx + 1
	return nil
}

// readAndDecode reads the payload and checksum of the section whose header
// sh (at file offset start) declares n bytes, and decodes it.
func (mr *modelReader) readAndDecode(sh []byte, n uint32, start int64) error {
	d, err := mr.readPayload(sh, n, start)
	if err != nil {
		return err
	}
	switch d.section {
	case "HEAD":
		err = mr.decodeHead(d)
	case "LABL":
		err = mr.decodeLabels(d)
	case "ENCD":
		mr.m.Encoder, err = decodeEncoder(d, mr.m.Layout.NumUnary, mr.m.Layout.NumPair)
	case "WGHT":
		err = mr.decodeWeights(d, start)
	case "END ":
		mr.sawEnd = true
	}
	if err != nil {
		return err
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return d.fail("%d trailing bytes in section", len(d.b))
	}
	return nil
}

// readSectionHeader reads a section's tag and length and checks the
// section order and the length limit. It returns the section's index in
// sectionOrder, the 8 header bytes and the payload length.
func (mr *modelReader) readSectionHeader() (int, []byte, uint32, error) {
	start := mr.off
	sh, err := mr.read(8, "section header", "")
	if err != nil {
		return 0, nil, 0, err
	}
	tag := string(sh[:4])
	idx, err := mr.checkOrder(tag, start)
	if err != nil {
		return 0, nil, 0, err
	}
	n := binary.LittleEndian.Uint32(sh[4:])
	if n > maxSection {
		return 0, nil, 0, &FormatError{Section: tag, Offset: start, Msg: fmt.Sprintf("section length %d exceeds the limit %d", n, maxSection)}
	}
	return idx, sh, n, nil
}

// readPayload reads the n-byte payload and the checksum of the section
// whose header sh starts at file offset start, verifies the checksum and
// returns a decoder over the payload.
func (mr *modelReader) readPayload(sh []byte, n uint32, start int64) (*decoder, error) {
	tag := string(sh[:4])
	payload, err := mr.read(int64(n), "section payload", tag)
	if err != nil {
		return nil, err
	}
	crc := crc32.NewIEEE()
	crc.Write(sh[:4])
	crc.Write(payload)
	if err := mr.checkCRC(crc.Sum32(), tag, start); err != nil {
		return nil, err
	}
	return &decoder{b: payload, section: tag, base: start + 8}, nil
}

// checkCRC reads the checksum of the section tag that starts at file
// offset start and compares it with sum, the checksum of what was read.
func (mr *modelReader) checkCRC(sum uint32, tag string, start int64) error {
	crcb, err := mr.read(4, "checksum", tag)
	if err != nil {
		return err
	}
	if sum != binary.LittleEndian.Uint32(crcb) {
		return &FormatError{Section: tag, Offset: start, Msg: "checksum mismatch (file corrupted)"}
	}
	return nil
}

// checkOrder returns the index in sectionOrder of a section with the given
// tag that starts at file offset start, or an error if it may not come next.
func (mr *modelReader) checkOrder(tag string, start int64) (int, error) {
	idx := -1
	for i := mr.stage; i < len(sectionOrder); i++ {
		if sectionOrder[i] == tag {
			idx = i
			break
		}
	}
	if idx < 0 {
		return 0, &FormatError{Section: printable(tag), Offset: start, Msg: "unexpected section (out of order or unknown)"}
	}
	if tag == "ENCD" && !mr.hasEnc {
		return 0, &FormatError{Section: tag, Offset: start, Msg: "encoder section present but header says there is none"}
	}
	if idx > 2 && mr.stage <= 2 && mr.hasEnc && tag != "ENCD" {
		return 0, &FormatError{Section: tag, Offset: start, Msg: "missing ENCD section"}
	}
	if idx > 0 && mr.m == nil && tag != "HEAD" {
		return 0, &FormatError{Section: tag, Offset: start, Msg: "missing HEAD section"}
	}
	if tag == "WGHT" && mr.labelCnt == 0 {
		return 0, &FormatError{Section: tag, Offset: start, Msg: "missing LABL section"}
	}
	return idx, nil
}

// decodeHead decodes HEAD: flags, L, U, P. It makes mr.m, without labels
// or weights.
func (mr *modelReader) decodeHead(d *decoder) error {
	flags := d.u8()
	L := d.u32()
	U := d.u32()
	P := d.u32()
	if d.err != nil {
		return d.err
	}
	if flags&^3 != 0 {
		return d.fail("unknown flags %#x", flags)
	}
	if L == 0 || L > maxLabels {
		return d.fail("label count %d outside [1,%d]", L, maxLabels)
	}
	lay := sparse.Layout{NumUnary: int(U), L: int(L), NumPair: int(P), Transitions: flags&1 != 0}
	mr.m = &Model{Layout: lay, Labels: make([]string, 0, L)}
	mr.labelCnt = int(L)
	mr.hasEnc = flags&2 != 0
	if dim := lay.DimFloat(); dim > maxLoadWeights {
		return d.fail("model declares %.0f weights, more than the limit %d", dim, maxLoadWeights)
	}
	return nil
}

// decodeLabels decodes LABL: the label count, then the distinct labels.
func (mr *modelReader) decodeLabels(d *decoder) error {
	if c := d.u32(); d.err == nil && int(c) != mr.labelCnt {
		return d.fail("%d labels, header says %d", c, mr.labelCnt)
	}
	seen := make(map[string]bool, mr.labelCnt)
	for i := 0; i < mr.labelCnt && d.err == nil; i++ {
		s := d.str()
		if d.err == nil && seen[s] {
			return d.fail("duplicate label %q", s)
		}
		seen[s] = true
		mr.m.Labels = append(mr.m.Labels, s)
	}
	return nil
}

// decodeWeights decodes WGHT, the section that starts at file offset start:
// the count, then the (index, weight) pairs. A version 2 file with an
// encoder must be compact.
func (mr *modelReader) decodeWeights(d *decoder, start int64) error {
	m := mr.m
	if len(m.Labels) != mr.labelCnt {
		return &FormatError{Section: d.section, Offset: start, Msg: "missing LABL section"}
	}
	dim := m.Layout.Dim() // HEAD checked it against maxLoadWeights
	if !d.weightCount(uint32(len(d.b))) {
		return d.err
	}
	m.setWeights(make([]float64, dim))
	prev := int64(-1)
	for len(d.b) > 0 && d.err == nil {
		j, v, ok := d.weight(&prev, dim)
		if ok {
			m.W[j] = v
		}
	}
	mr.sawWeights = true
	if d.err != nil {
		return nil
	}
	return mr.checkCompact(m.firstDead, d.section, start)
}

// weight decodes one (index, weight) pair of WGHT and checks it: indices
// strictly increasing (prev is the last one) and below dim, weights finite
// and non-zero. ok is false after an error, which d keeps.
func (d *decoder) weight(prev *int64, dim int) (j int, v float64, ok bool) {
	u := d.u32()
	v = math.Float64frombits(d.u64())
	if d.err != nil {
		return 0, 0, false
	}
	if int64(u) <= *prev || int64(u) >= int64(dim) {
		d.fail("weight index %d out of order or out of range [0,%d)", u, dim)
		return 0, 0, false
	}
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		d.fail("weight %d has value %v (want finite, non-zero)", u, v)
		return 0, 0, false
	}
	*prev = int64(u)
	return int(u), v, true
}

// checkCompact enforces the rule of version 2 files with an encoder, for
// the WGHT section at file offset start: firstDead (see Model.firstDead)
// finds no attribute without a non-zero weight.
func (mr *modelReader) checkCompact(firstDead func() (string, int), section string, start int64) error {
	if mr.version < 2 || mr.m.Encoder == nil {
		return nil
	}
	kind, a := firstDead()
	if kind == "" {
		return nil
	}
	name := mr.m.Encoder.Unary()
	if kind == "pair" {
		name = mr.m.Encoder.Pair()
	}
	return &FormatError{Section: section, Offset: start, Msg: fmt.Sprintf("%s attribute %d (%q) has no non-zero weight: a version %d file holds only active attributes", kind, a, name.Name(int32(a)), mr.version)}
}

func printable(tag string) string {
	for _, c := range []byte(tag) {
		if c < 0x20 || c > 0x7e {
			return fmt.Sprintf("%q", tag)
		}
	}
	return tag
}

// decoder reads a section payload; the first error sticks.
type decoder struct {
	b       []byte
	section string
	base    int64 // file offset of b[0]
	pos     int64
	err     error
}

func (d *decoder) fail(format string, args ...any) error {
	if d.err == nil {
		d.err = &FormatError{Section: d.section, Offset: d.base + d.pos, Msg: fmt.Sprintf(format, args...)}
	}
	return d.err
}

func (d *decoder) need(n int) bool {
	if d.err != nil {
		return false
	}
	if len(d.b) < n {
		d.fail("truncated section: need %d more bytes, have %d", n, len(d.b))
		return false
	}
	return true
}

func (d *decoder) u8() uint8 {
	if !d.need(1) {
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	d.pos++
	return v
}

func (d *decoder) u32() uint32 {
	if !d.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	d.pos += 4
	return v
}

func (d *decoder) u64() uint64 {
	if !d.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	d.pos += 8
	return v
}

func (d *decoder) str() string {
	n := d.u32()
	if d.err != nil {
		return ""
	}
	if n > maxStringLen {
		d.fail("string of %d bytes exceeds the limit %d", n, maxStringLen)
		return ""
	}
	if !d.need(int(n)) {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	d.pos += int64(n)
	return s
}

// strs reads a count and that many strings, checking the count against the
// bytes left before allocating (each string takes at least 4 bytes).
func (d *decoder) strs(want int, what string) []string {
	c := d.u32()
	if d.err != nil {
		return nil
	}
	if int(c) != want {
		d.fail("%d %s, header says %d", c, what, want)
		return nil
	}
	if int64(c)*4 > int64(len(d.b)) {
		d.fail("%d %s declared but only %d bytes left", c, what, len(d.b))
		return nil
	}
	out := make([]string, 0, c)
	for i := 0; i < int(c) && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}
