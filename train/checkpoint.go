package train

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// Checkpoint is the state of a training run between two iterations: the
// active feature set, the optimizer's point and memory, and the trainer's
// bookkeeping. Pass it as Options.Resume to continue the run.
type Checkpoint struct {
	Lambda1, Lambda2 float64
	Dimension        int // length of the model's weight vector
	Active           []int32
	Screened         int
	ScreenedSet      sparse.Bitset
	History          []float64 // objective values, for the Delta rule
	LastCheckGap     float64
	Iterations       []Iteration
	opt              owlqn.State
}

// checkpoint returns the state needed to continue a full-solver run right
// before the step of its current iteration: the feature set (active and
// screened features), the optimizer's state and the iteration log.
func (tr *trainer) checkpoint(run *fullRun) *Checkpoint {
	return &Checkpoint{
		Lambda1: tr.lam1, Lambda2: tr.lam2, Dimension: len(tr.m.W),
		Active:       append([]int32(nil), tr.fs.active...),
		Screened:     tr.fs.Screened(),
		ScreenedSet:  append(sparse.Bitset(nil), tr.fs.screened...),
		History:      append([]float64(nil), run.hist...),
		LastCheckGap: run.lastCheckGap,
		Iterations:   append([]Iteration(nil), run.res.Iterations...),
		opt:          tr.opt.Snapshot(),
	}
}

// restore installs a checkpoint into a freshly started full solve.
func (tr *trainer) restore(ck *Checkpoint, run *fullRun) error {
	if ck.Dimension != len(tr.m.W) || ck.Lambda1 != tr.lam1 || ck.Lambda2 != tr.lam2 {
		return fmt.Errorf("train: checkpoint is for another problem (dimension %d, lambda %g/%g; this run: %d, %g/%g)",
			ck.Dimension, ck.Lambda1, ck.Lambda2, len(tr.m.W), tr.lam1, tr.lam2)
	}
	if len(ck.Iterations) == 0 || len(ck.Active) != len(ck.opt.X) || len(ck.ScreenedSet) != len(tr.fs.screened) {
		return errors.New("train: malformed checkpoint")
	}
	prev := int32(-1)
	for _, j := range ck.Active {
		if j <= prev || int(j) >= len(tr.m.W) {
			return errors.New("train: checkpoint active set is not increasing within the model")
		}
		prev = j
	}
	// Shrink the feature set (and with it the optimizer) to the
	// checkpoint's active set, then restore the optimizer.
	keep := make([]int32, 0, len(ck.Active))
	k := 0
	for q, j := range tr.fs.active {
		if k < len(ck.Active) && ck.Active[k] == j {
			keep = append(keep, int32(q))
			k++
		}
	}
	if k != len(ck.Active) {
		return errors.New("train: checkpoint active set is not part of the feature set")
	}
	tr.fs.Restrict(keep) // the optimizer follows; Restore then replaces its memory
	if err := tr.opt.Restore(ck.opt); err != nil {
		return err
	}
	copy(tr.fs.screened, ck.ScreenedSet)
	run.res.Iterations = append([]Iteration(nil), ck.Iterations...)
	run.hist = append([]float64(nil), ck.History...)
	run.lastCheckGap = ck.LastCheckGap
	last := run.res.Iterations[len(run.res.Iterations)-1]
	run.t0 = run.t0.Add(-time.Duration(last.Seconds * float64(time.Second)))
	return nil
}

const checkpointMagic = "SPTGCKP\x00"

// WriteTo writes the checkpoint in a versioned, checksummed binary form.
func (ck *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	le := binary.LittleEndian
	b := []byte(checkpointMagic)
	b = le.AppendUint32(b, 1)
	f64 := func(v float64) { b = le.AppendUint64(b, math.Float64bits(v)) }
	f64s := func(v []float64) {
		b = le.AppendUint64(b, uint64(len(v)))
		for _, x := range v {
			f64(x)
		}
	}
	f64(ck.Lambda1)
	f64(ck.Lambda2)
	b = le.AppendUint64(b, uint64(ck.Dimension))
	b = le.AppendUint64(b, uint64(len(ck.Active)))
	for _, j := range ck.Active {
		b = le.AppendUint32(b, uint32(j))
	}
	b = le.AppendUint64(b, uint64(ck.Screened))
	b = le.AppendUint64(b, uint64(len(ck.ScreenedSet)))
	for _, x := range ck.ScreenedSet {
		b = le.AppendUint64(b, x)
	}
	f64s(ck.History)
	f64(ck.LastCheckGap)
	b = le.AppendUint64(b, uint64(len(ck.Iterations)))
	for _, it := range ck.Iterations {
		b = le.AppendUint64(b, uint64(it.Iter))
		f64(it.Primal)
		f64(it.Gap)
		b = le.AppendUint64(b, uint64(it.Active))
		b = le.AppendUint64(b, uint64(it.Screened))
		b = le.AppendUint64(b, uint64(it.NonZero))
		f64(it.Seconds)
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
	if v := binary.LittleEndian.Uint32(body[8:]); v != 1 {
		return nil, fmt.Errorf("train: checkpoint version %d: %w", v, ErrCheckpointVersion)
	}
	d := &ckDecoder{b: body[12:], off: 12}
	count := func(size int) int {
		n := d.u64()
		if d.err == nil && n > uint64(len(d.b)/size) {
			d.fail("count %d exceeds the data", n)
			return 0
		}
		return int(n)
	}
	f64 := func() float64 { return math.Float64frombits(d.u64()) }
	f64s := func() []float64 {
		n := count(8)
		v := make([]float64, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			v = append(v, f64())
		}
		return v
	}
	ck := &Checkpoint{}
	ck.Lambda1, ck.Lambda2 = f64(), f64()
	ck.Dimension = int(d.u64())
	na := count(4)
	for i := 0; i < na && d.err == nil; i++ {
		ck.Active = append(ck.Active, int32(d.u32()))
	}
	ck.Screened = int(d.u64())
	nb := count(8)
	for i := 0; i < nb && d.err == nil; i++ {
		ck.ScreenedSet = append(ck.ScreenedSet, d.u64())
	}
	ck.History = f64s()
	ck.LastCheckGap = f64()
	ni := count(56)
	for i := 0; i < ni && d.err == nil; i++ {
		it := Iteration{Iter: int(d.u64()), Primal: f64(), Gap: f64(), Active: int(d.u64()), Screened: int(d.u64()), NonZero: int(d.u64()), Seconds: f64()}
		ck.Iterations = append(ck.Iterations, it)
	}
	ck.opt.L1 = f64()
	ck.opt.X = f64s()
	np := count(24)
	for i := 0; i < np && d.err == nil; i++ {
		ck.opt.S = append(ck.opt.S, f64s())
		ck.opt.Y = append(ck.opt.Y, f64s())
		ck.opt.Rho = append(ck.opt.Rho, f64())
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
