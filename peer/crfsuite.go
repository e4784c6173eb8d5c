package peer

import (
	"encoding/binary"
	"math"

	"github.com/sparsetag/sparsetag/corpora"
)

// CRFsuite crf1d model layout (lib/crf/src/crf1d_model.c, CRFsuite 0.12).
// All integers are little-endian uint32, weights little-endian float64.
//
//	header (48 bytes): "lCRF", file size, "FOMC", version, num_features
//	    (written as 0 by CRFsuite; the FEAT chunk has the real count),
//	    num_labels, num_attrs, and the offsets of the FEAT chunk, the label
//	    CQDB, the attribute CQDB, the LFRF chunk and the AFRF chunk.
//	FEAT chunk: "FEAT", size, n, then n features of 20 bytes:
//	    type (0 state: attribute src → label dst; 1 transition: label src
//	    → label dst), src, dst, weight.
//	LFRF/AFRF chunks: tag, size, n, n offsets (from the file start) to
//	    lists "count, feature id...". LFRF lists the transition features
//	    leaving each label (it has num_labels+2 entries); AFRF the state
//	    features of each attribute.
const (
	crfsuiteHeaderSize  = 48
	crfsuiteChunkSize   = 12
	crfsuiteFeatureSize = 20
)

// CRFsuiteModel is a model written by CRFsuite 0.12 (crfsuite learn,
// python-crfsuite, sklearn-crfsuite). It tags CRFsuite attribute sequences
// (corpora.Sequence.Attrs); attributes unknown to the model are ignored, as
// crfsuite tag does.
type CRFsuiteModel struct {
	labels []string
	attrs  map[string]int32
	// State features of attribute a: refLabel/refWeight[refStart[a]:refStart[a+1]],
	// in the order of the model's AFRF list (the order CRFsuite sums them).
	refStart  []int32
	refLabel  []int32
	refWeight []float64
	trans     []float64 // L×L, trans[prev*L+cur]
}

var _ Model = (*CRFsuiteModel)(nil)

// Format returns FormatCRFsuite.
func (m *CRFsuiteModel) Format() Format { return FormatCRFsuite }

// Labels returns the label names.
func (m *CRFsuiteModel) Labels() []string { return m.labels }

// NumAttributes returns the number of attributes in the model.
func (m *CRFsuiteModel) NumAttributes() int { return len(m.refStart) - 1 }

type binReader struct {
	f    Format
	data []byte
}

func (b binReader) u32(section string, off int64) (uint32, error) {
	if off < 0 || off > int64(len(b.data))-4 {
		return 0, formatErr(b.f, section, off, "truncated: need 4 bytes, file has %d", len(b.data))
	}
	return binary.LittleEndian.Uint32(b.data[off:]), nil
}

// ParseCRFsuite reads a CRFsuite model from the bytes of its file.
func ParseCRFsuite(data []byte) (*CRFsuiteModel, error) {
	r, err := readCRFsuiteHeader(data)
	if err != nil {
		return nil, err
	}
	m := &CRFsuiteModel{}
	if m.labels, err = r.labelNames(); err != nil {
		return nil, err
	}
	if m.attrs, err = r.attrNames(); err != nil {
		return nil, err
	}
	if m.trans, err = r.transitions(); err != nil {
		return nil, err
	}
	if err := r.stateFeatures(m); err != nil {
		return nil, err
	}
	return m, nil
}

// crfsuiteReader reads the sections of a CRFsuite model file, a section
// per method, once readCRFsuiteHeader has checked its header and FEAT
// chunk.
type crfsuiteReader struct {
	b                   binReader
	numLabels, numAttrs uint32
	offLabels, offAttrs int64 // the label and attribute CQDBs
	offLRef, offARef    int64 // the LFRF and AFRF chunks
	nfeat               uint32
	featBase            int64 // the first feature of the FEAT chunk
}

// readCRFsuiteHeader checks the 48-byte header (magic, model type, number
// of labels) and the FEAT chunk's header.
func readCRFsuiteHeader(data []byte) (*crfsuiteReader, error) {
	const F = FormatCRFsuite
	if len(data) < crfsuiteHeaderSize {
		return nil, formatErr(F, "header", 0, "truncated: %d bytes, header needs %d", len(data), crfsuiteHeaderSize)
	}
	if string(data[:4]) != "lCRF" {
		return nil, formatErr(F, "header", 0, "bad magic %q", data[:4])
	}
	if string(data[8:12]) != "FOMC" {
		return nil, &FormatError{Format: F, Section: "header", Offset: 8, Msg: "model type " + quote(data[8:12]) + " (only FOMC, the crf1d model, is supported)", Err: ErrUnsupported}
	}
	h := make([]uint32, 12)
	for i := range h {
		h[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	r := &crfsuiteReader{b: binReader{F, data}, numLabels: h[5], numAttrs: h[6],
		offLabels: int64(h[8]), offAttrs: int64(h[9]), offLRef: int64(h[10]), offARef: int64(h[11])}
	if r.numLabels == 0 || r.numLabels > MaxLabels {
		return nil, formatErr(F, "header", 20, "%d labels (want 1..%d)", r.numLabels, MaxLabels)
	}
	offFeat := int64(h[7])
	nfeat, err := chunkHeader(r.b, "FEAT chunk", offFeat, "FEAT", crfsuiteFeatureSize)
	if err != nil {
		return nil, err
	}
	r.nfeat, r.featBase = nfeat, offFeat+crfsuiteChunkSize
	return r, nil
}

// feature returns the destination label and the weight of feature fid,
// referenced at offset at of section; both must be in range.
func (r *crfsuiteReader) feature(fid uint32, section string, at int64) (dst int, w float64, err error) {
	if fid >= r.nfeat {
		return 0, 0, formatErr(r.b.f, section, at, "feature id %d out of range (FEAT has %d)", fid, r.nfeat)
	}
	p := r.b.data[r.featBase+int64(fid)*crfsuiteFeatureSize:]
	d := binary.LittleEndian.Uint32(p[8:])
	if d >= r.numLabels {
		return 0, 0, formatErr(r.b.f, "FEAT chunk", r.featBase+int64(fid)*crfsuiteFeatureSize+8, "feature %d: label %d out of range", fid, d)
	}
	return int(d), math.Float64frombits(binary.LittleEndian.Uint64(p[12:])), nil
}

// labelNames reads the label CQDB: a name for every label id.
func (r *crfsuiteReader) labelNames() ([]string, error) {
	ldb, err := readCQDB(r.b, "label CQDB", r.offLabels)
	if err != nil {
		return nil, err
	}
	labels := make([]string, r.numLabels)
	for i := range labels {
		s, ok := ldb.toString(uint32(i))
		if !ok {
			return nil, formatErr(r.b.f, "label CQDB", r.offLabels, "no name for label %d", i)
		}
		labels[i] = s
	}
	return labels, nil
}

// attrNames reads the attribute CQDB: the id of every attribute name.
func (r *crfsuiteReader) attrNames() (map[string]int32, error) {
	adb, err := readCQDB(r.b, "attribute CQDB", r.offAttrs)
	if err != nil {
		return nil, err
	}
	return adb.all()
}

// transitions reads the LFRF chunk into the L×L transition scores:
// crf1dt_transition_score assigns (not adds) the weight of every feature
// referenced by label i to trans[i][dst].
func (r *crfsuiteReader) transitions() ([]float64, error) {
	const section = "LFRF chunk"
	nl, err := chunkHeader(r.b, section, r.offLRef, "LFRF", 4)
	if err != nil {
		return nil, err
	}
	if nl < r.numLabels {
		return nil, formatErr(r.b.f, section, r.offLRef+8, "%d label reference lists for %d labels", nl, r.numLabels)
	}
	L := int(r.numLabels)
	trans := make([]float64, L*L)
	for i := 0; i < L; i++ {
		err := forRefs(r.b, section, r.offLRef, uint32(i), func(fid uint32, at int64) error {
			dst, w, err := r.feature(fid, section, at)
			if err != nil {
				return err
			}
			trans[i*L+dst] = w
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return trans, nil
}

// stateFeatures reads the AFRF chunk into m's state features, per
// attribute in the order of its list; every attribute id of m.attrs must
// be below the header's count.
func (r *crfsuiteReader) stateFeatures(m *CRFsuiteModel) error {
	const section = "AFRF chunk"
	na, err := chunkHeader(r.b, section, r.offARef, "AFRF", 4)
	if err != nil {
		return err
	}
	if na < r.numAttrs {
		return formatErr(r.b.f, section, r.offARef+8, "%d attribute reference lists for %d attributes", na, r.numAttrs)
	}
	for name, a := range m.attrs {
		if uint32(a) >= r.numAttrs {
			return formatErr(r.b.f, "attribute CQDB", r.offAttrs, "attribute %q has id %d, header declares %d attributes", name, a, r.numAttrs)
		}
	}
	m.refStart = make([]int32, r.numAttrs+1)
	for a := uint32(0); a < r.numAttrs; a++ {
		err := forRefs(r.b, section, r.offARef, a, func(fid uint32, at int64) error {
			dst, w, err := r.feature(fid, section, at)
			if err != nil {
				return err
			}
			m.refLabel = append(m.refLabel, int32(dst))
			m.refWeight = append(m.refWeight, w)
			return nil
		})
		if err != nil {
			return err
		}
		m.refStart[a+1] = int32(len(m.refLabel))
	}
	return nil
}

func quote(b []byte) string { return "\"" + string(b) + "\"" }

// chunkHeader checks the 12-byte header of a chunk at off (tag, size,
// count) and that count items of itemSize bytes fit in the file after it.
func chunkHeader(b binReader, section string, off int64, tag string, itemSize int64) (uint32, error) {
	if off <= 0 || off > int64(len(b.data))-crfsuiteChunkSize {
		return 0, formatErr(b.f, section, off, "chunk header out of the file (%d bytes)", len(b.data))
	}
	if string(b.data[off:off+4]) != tag {
		return 0, formatErr(b.f, section, off, "chunk tag %q, want %q", b.data[off:off+4], tag)
	}
	n := binary.LittleEndian.Uint32(b.data[off+8:])
	if rest := int64(len(b.data)) - off - crfsuiteChunkSize; int64(n)*itemSize > rest {
		return 0, formatErr(b.f, section, off+8, "declares %d items of %d bytes but only %d bytes remain", n, itemSize, rest)
	}
	return n, nil
}

// forRefs calls fn for each feature id of list i of the reference chunk at
// off, in file order.
func forRefs(b binReader, section string, off int64, i uint32, fn func(fid uint32, at int64) error) error {
	at := off + crfsuiteChunkSize + 4*int64(i)
	p, err := b.u32(section, at)
	if err != nil {
		return err
	}
	n, err := b.u32(section, int64(p))
	if err != nil {
		return err
	}
	start := int64(p) + 4
	if rest := int64(len(b.data)) - start; int64(n)*4 > rest {
		return formatErr(b.f, section, int64(p), "list %d declares %d feature ids but only %d bytes remain", i, n, rest)
	}
	for k := int64(0); k < int64(n); k++ {
		fid := binary.LittleEndian.Uint32(b.data[start+4*k:])
		if err := fn(fid, start+4*k); err != nil {
			return err
		}
	}
	return nil
}

// Tag returns the Viterbi labels of seq (crf1dc_viterbi: ties go to the
// lowest label index, as in package inference, whose arithmetic is the
// same).
func (m *CRFsuiteModel) Tag(dst []int, seq corpora.Sequence) ([]int, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return dst[:0], err
	}
	return viterbiPath(sc, dst), nil
}

// Viterbi returns the Viterbi labels and their score, the number crfsuite
// tag -p prints first on its @score line.
func (m *CRFsuiteModel) Viterbi(dst []int, seq corpora.Sequence) ([]int, float64, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return dst[:0], 0, err
	}
	dst = growI(dst, sc.lat.T)
	s := viterbiScore(sc, dst)
	return dst, s, nil
}

// NBest returns the n best label sequences (package inference's list
// Viterbi; CRFsuite itself has no n-best decoder, so ties among lower ranks
// follow inference.NBest).
func (m *CRFsuiteModel) NBest(seq corpora.Sequence, n int) ([]Path, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return nil, err
	}
	return nbestPaths(sc, n), nil
}

// Marginals returns the node marginals and log Z (crf1dc_marginals and
// crf1dc_lognorm; computed by inference.ForwardBackward, which uses the same
// scaled recursion and agrees to rounding error).
func (m *CRFsuiteModel) Marginals(dst []float64, seq corpora.Sequence) ([]float64, float64, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return dst[:0], 0, err
	}
	node, logZ := marginals(sc, dst)
	return node, logZ, nil
}

// lattice fills sc.lat with the scores of seq, summed in CRFsuite's order
// (crf1dt_state_score): attributes in input order, each attribute's
// features in model order, state[dst] += weight*value.
func (m *CRFsuiteModel) lattice(sc *scratch, seq corpora.Sequence) error {
	if seq.Tokens != nil && seq.Attrs == nil {
		return inputErr("a CRFsuite model tags attribute sequences (Sequence.Attrs), got columns")
	}
	T, L := len(seq.Attrs), len(m.labels)
	sc.unary = growF(sc.unary, T*L)
	clear(sc.unary)
	for t, items := range seq.Attrs {
		row := sc.unary[t*L : t*L+L]
		for _, a := range items {
			id, ok := m.attrs[a.Name]
			if !ok {
				continue
			}
			for r := m.refStart[id]; r < m.refStart[id+1]; r++ {
				// The conversion forbids a fused multiply-add, which
				// CRFsuite's compiled C does not use either.
				row[m.refLabel[r]] += float64(m.refWeight[r] * a.Value)
			}
		}
	}
	sc.lat = latticeOf(T, L, sc.unary, m.trans)
	return nil
}
