package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/dataset"
)

// BenchmarkTagSentence tags, in Go alone, the sentence and model that
// python/bench/bench_tag.py writes to $SPARSETAG_BENCH_DIR: what a
// Tagger.tag call costs without Python and the C boundary (the
// difference is the per-call overhead; docs/python.md, "Benchmark").
func BenchmarkTagSentence(b *testing.B) {
	m, data := benchInput(b, "sentence.json")
	var items []map[string]float64
	if err := json.Unmarshal(data, &items); err != nil {
		b.Fatal(err)
	}
	ex := dataset.Example{Names: make([][]string, len(items)), Values: make([][]float64, len(items))}
	for t, it := range items {
		for k, v := range it {
			ex.Names[t] = append(ex.Names[t], k)
			ex.Values[t] = append(ex.Values[t], v)
		}
	}
	path, err := m.tg.Tag(nil, &ex)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if path, err = m.tg.Tag(path[:0], &ex); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// CPU time of the process per call: on a shared machine, the figure
	// to set beside Python's process_time.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// benchInput returns the model and the bytes of file that
// python/bench/bench_tag.py wrote to $SPARSETAG_BENCH_DIR, and skips the
// benchmark when the variable is not set.
func benchInput(b *testing.B, file string) (*model, []byte) {
	dir := os.Getenv("SPARSETAG_BENCH_DIR")
	if dir == "" {
		b.Skip("SPARSETAG_BENCH_DIR is not set (python/bench/bench_tag.py --out DIR writes it)")
	}
	m, err := openModelFile(filepath.Join(dir, "model.crfsuite"))
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		b.Fatal(err)
	}
	return m, data
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTagSentenceBuffers is BenchmarkTagSentence from the buffers a
// tag(xseq) call passes (sentence.buffers): what the library does in a
// call besides the cgo crossing itself, reading the buffers included.
func BenchmarkTagSentenceBuffers(b *testing.B) {
	m, data := benchInput(b, "sentence.buffers")
	var in struct {
		Kind       int
		Buf, Flags []int // byte values (JSON lists)
		Counts     []int32
	}
	if err := json.Unmarshal(data, &in); err != nil {
		b.Fatal(err)
	}
	buf, flags := make([]byte, len(in.Buf)), make([]byte, len(in.Flags))
	for i, v := range in.Buf {
		buf[i] = byte(v)
	}
	for i, v := range in.Flags {
		flags[i] = byte(v)
	}
	total := len(flags)
	var path []int
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc := seqPool.Get().(*seqScratch)
		ex, err := sc.parse(in.Kind, buf, in.Counts, total, nil, flags)
		if err == nil {
			err = m.checkKind(&ex)
		}
		if err == nil {
			path, err = m.tg.Tag(path[:0], &ex)
		}
		seqPool.Put(sc)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
