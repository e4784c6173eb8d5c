package train

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/certificate"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// Checkpoint is the state of a training run at a full pass, before its
// inner solve: the policy, the active feature set, the screened features,
// the optimizer's point and memory, and the loop's bookkeeping. Pass it as
// Options.Resume to continue the run; the resumed run reaches the same
// model, bit for bit, as the uninterrupted one.
//
// A Checkpoint is opaque: write it (WriteTo, CheckpointFile), read it
// (ReadCheckpoint), resume from it (Options.Resume) and ask where it was
// taken (Last); its contents are the solver's and checked against the run
// that resumes.
type Checkpoint struct {
	lambda1, lambda2 float64
	dimension        int // length of the model's weight vector
	data             dataDigest
	solver           Solver
	active           []int32
	screened         int
	screenedSet      sparse.Bitset
	history          []float64 // objective values, for the Delta rule
	lastCheckGap     float64
	iterations       []Iteration
	loop             loopState
	dual             certificate.History // the mixture certificate's earlier passes
	opt              owlqn.State
}

// Last returns the log line of the full pass the checkpoint was taken at
// (false for an empty checkpoint): where a resumed run continues from.
func (ck *Checkpoint) Last() (Iteration, bool) {
	if len(ck.iterations) == 0 {
		return Iteration{}, false
	}
	return ck.iterations[len(ck.iterations)-1], true
}

// loopState is the solver loop's bookkeeping that a resumed run needs.
type loopState struct {
	passes, stalls, wsSize, wsFloor int
	reached, switched               bool
	gaps                            [2]float64
	reason                          string // Result.SolverReason
	// gauged: the optimizer's X in the checkpoint is the point before the
	// gauge step that preceded the pass, which the resumed run evaluates
	// and steps again (gauge.go): the same bits as the uninterrupted run.
	gauged bool
}

const (
	checkpointMagic = "SPTGCKP\x00"
	// checkpointVersion 5: the digest of the data, weights, prior and
	// partial labels (checkpointdata.go); 4: the dual history without the pass just priced
	// (the resumed run prices it again); 3: the loop's gauged flag; 2: the
	// solver, the log's Pass and Zeroed, the loop's bookkeeping (version 1
	// was the full solver's only).
	checkpointVersion = 5
)

// WriteTo writes the checkpoint in a versioned, checksummed binary form.
func (ck *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	le := binary.LittleEndian
	b := []byte(checkpointMagic)
	b = le.AppendUint32(b, checkpointVersion)
	f64 := func(v float64) { b = le.AppendUint64(b, math.Float64bits(v)) }
	f64s := func(v []float64) {
		b = le.AppendUint64(b, uint64(len(v)))
		for _, x := range v {
			f64(x)
		}
	}
	f64(ck.lambda1)
	f64(ck.lambda2)
	b = le.AppendUint64(b, uint64(ck.dimension))
	b = appendDigest(b, ck.data)
	b = appendBytes(b, []byte(ck.solver))
	b = le.AppendUint64(b, uint64(len(ck.active)))
	for _, j := range ck.active {
		b = le.AppendUint32(b, uint32(j))
	}
	b = le.AppendUint64(b, uint64(ck.screened))
	b = le.AppendUint64(b, uint64(len(ck.screenedSet)))
	for _, x := range ck.screenedSet {
		b = le.AppendUint64(b, x)
	}
	f64s(ck.history)
	f64(ck.lastCheckGap)
	b = le.AppendUint64(b, uint64(len(ck.iterations)))
	for _, it := range ck.iterations {
		b = le.AppendUint64(b, uint64(it.Iter))
		f64(it.Primal)
		f64(it.Gap)
		b = le.AppendUint64(b, uint64(it.Active))
		b = le.AppendUint64(b, uint64(it.Screened))
		b = le.AppendUint64(b, uint64(it.NonZero))
		f64(it.Seconds)
		b = le.AppendUint64(b, uint64(it.Zeroed))
		b = append(b, boolByte(it.Pass))
	}
	l := ck.loop
	for _, v := range []int{l.passes, l.stalls, l.wsSize, l.wsFloor} {
		b = le.AppendUint64(b, uint64(v))
	}
	b = append(b, boolByte(l.reached), boolByte(l.switched), boolByte(l.gauged))
	f64(l.gaps[0])
	f64(l.gaps[1])
	b = appendBytes(b, []byte(l.reason))
	hm, hloss, hmw := ck.dual.Parts()
	b = le.AppendUint64(b, uint64(len(hm)))
	for k := range hm {
		// The float32 history is written widened (exactly) as float64: the
		// format of version 2 is kept (version 3 adds the gauged flag).
		b = le.AppendUint64(b, uint64(len(hm[k])))
		for _, x := range hm[k] {
			f64(float64(x))
		}
		f64(hloss[k])
		f64(hmw[k])
	}
	f64(ck.opt.L1)
	f64s(ck.opt.X)
	b = le.AppendUint64(b, uint64(len(ck.opt.S)))
	for i := range ck.opt.S {
		f64s(ck.opt.S[i])
		f64s(ck.opt.Y[i])
		f64(ck.opt.Rho[i])
	}
	b = le.AppendUint64(b, uint64(ck.opt.Iter))
	b = le.AppendUint32(b, crc32.ChecksumIEEE(b))
	n, err := w.Write(b)
	return int64(n), err
}

// ReadCheckpoint reads a checkpoint written by WriteTo.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	body, err := readCheckpointFrame(r)
	if err != nil {
		return nil, err
	}
	d := &ckDecoder{b: body[12:], off: 12}
	ck := &Checkpoint{}
	ck.lambda1, ck.lambda2 = d.f64(), d.f64()
	ck.dimension = int(d.u64())
	ck.data = d.digest()
	ck.solver = Solver(d.next(d.count(1)))
	na := d.count(4)
	for i := 0; i < na && d.err == nil; i++ {
		ck.active = append(ck.active, int32(d.u32()))
	}
	ck.screened = int(d.u64())
	nb := d.count(8)
	for i := 0; i < nb && d.err == nil; i++ {
		ck.screenedSet = append(ck.screenedSet, d.u64())
	}
	ck.history = d.f64s()
	ck.lastCheckGap = d.f64()
	ck.iterations = d.iterations()
	ck.loop = loopState{passes: int(d.u64()), stalls: int(d.u64()), wsSize: int(d.u64()), wsFloor: int(d.u64()), reached: d.bool(), switched: d.bool(), gauged: d.bool()}
	ck.loop.gaps = [2]float64{d.f64(), d.f64()}
	ck.loop.reason = string(d.next(d.count(1)))
	ck.dual = d.history()
	ck.opt.L1 = d.f64()
	ck.opt.X = d.f64s()
	np := d.count(24)
	for i := 0; i < np && d.err == nil; i++ {
		ck.opt.S = append(ck.opt.S, d.f64s())
		ck.opt.Y = append(ck.opt.Y, d.f64s())
		ck.opt.Rho = append(ck.opt.Rho, d.f64())
	}
	ck.opt.Iter = int(d.u64())
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errors.New("train: trailing data in checkpoint")
	}
	return ck, nil
}

// readCheckpointFrame reads a checkpoint file and returns its body (from
// the magic to before the checksum) after checking the magic, the
// checksum and the version.
func readCheckpointFrame(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, r); err != nil {
		return nil, fmt.Errorf("train: reading checkpoint: %w", err)
	}
	data := buf.Bytes()
	if len(data) < 16 || string(data[:8]) != checkpointMagic {
		return nil, errors.New("train: not a checkpoint file")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("train: checkpoint file is corrupted (checksum mismatch)")
	}
	if v := binary.LittleEndian.Uint32(body[8:]); v != checkpointVersion {
		return nil, fmt.Errorf("train: checkpoint version %d: %w", v, ErrCheckpointVersion)
	}
	return body, nil
}

// iterations decodes the log of a checkpoint.
func (d *ckDecoder) iterations() []Iteration {
	var out []Iteration
	ni := d.count(65)
	for i := 0; i < ni && d.err == nil; i++ {
		it := Iteration{Iter: int(d.u64()), Primal: d.f64(), Gap: d.f64(), Active: int(d.u64()), Screened: int(d.u64()), NonZero: int(d.u64()), Seconds: d.f64()}
		it.Zeroed = int(d.u64())
		it.Pass = d.bool()
		out = append(out, it)
	}
	return out
}

// history decodes the mixture certificate's history of a checkpoint.
func (d *ckDecoder) history() certificate.History {
	nd := d.count(24)
	var hm [][]float32
	var hloss, hmw []float64
	for i := 0; i < nd && d.err == nil; i++ {
		// Narrowed back: exact for what WriteTo wrote; a value written
		// exact (by an earlier build) rounds, within the bound
		// certificate.ErrorBound of its stored float32, like a fresh push.
		m, ok := certificate.Narrow(nil, d.f64s())
		if !ok {
			d.fail("dual history value outside the float32 range")
		}
		hm, hloss, hmw = append(hm, m), append(hloss, d.f64()), append(hmw, d.f64())
	}
	return certificate.FromParts(hm, hloss, hmw)
}

// count reads a count of items of size bytes each, refusing one that
// exceeds the data left.
func (d *ckDecoder) count(size int) int {
	n := d.u64()
	if d.err == nil && n > uint64(len(d.b)/size) {
		d.fail("count %d exceeds the data", n)
		return 0
	}
	return int(n)
}

func (d *ckDecoder) f64() float64 { return math.Float64frombits(d.u64()) }

// f64s reads a counted vector of float64.
func (d *ckDecoder) f64s() []float64 {
	n := d.count(8)
	v := make([]float64, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		v = append(v, d.f64())
	}
	return v
}

// ErrCheckpointVersion is wrapped by errors about checkpoints written by
// another version of this toolkit.
var ErrCheckpointVersion = errors.New("unsupported checkpoint version")

// ckDecoder reads little-endian integers from a checkpoint body; the first
// failure sticks and names its file offset.
type ckDecoder struct {
	b   []byte
	off int
	err error
}

func (d *ckDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("train: checkpoint offset %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

func (d *ckDecoder) next(n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.fail("truncated: need %d more bytes, have %d", n, len(d.b))
		return nil
	}
	v := d.b[:n]
	d.b, d.off = d.b[n:], d.off+n
	return v
}

func (d *ckDecoder) u32() uint32 {
	if v := d.next(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (d *ckDecoder) u64() uint64 {
	if v := d.next(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

func (d *ckDecoder) bool() bool {
	v := d.next(1)
	return v != nil && v[0] != 0
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendBytes(b, s []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}
