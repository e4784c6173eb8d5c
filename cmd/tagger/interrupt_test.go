//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/train"
)

// The interrupt tests run the real binary and send it real signals.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// taggerBinary builds the tagger once per test process.
func taggerBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and sends signals")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tagger-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "tagger")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// startLogged starts cmd with its stderr going to a file and returns once
// that file holds marker; the function it returns reads the whole file
// (after exitCode, all that cmd wrote: no pipe whose last bytes Wait may
// cut off).
func startLogged(t *testing.T, cmd *exec.Cmd, marker string) func() string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, _ := os.ReadFile(f.Name())
		return string(b)
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(read(), marker) {
			return read
		}
		if cmd.ProcessState != nil {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("%v did not print %q:\n%s", cmd.Args, marker, read())
	return nil
}

// startUntil starts cmd and returns once a line of its stderr contains
// marker; the rest of stderr is collected into the returned buffer.
func startUntil(t *testing.T, cmd *exec.Cmd, marker string) *bytes.Buffer {
	t.Helper()
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var rest bytes.Buffer
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), marker) {
			go io.Copy(&rest, pr) // keep draining; read after Wait
			return &rest
		}
	}
	cmd.Wait()
	t.Fatalf("%v ended before printing %q:\n%s", cmd.Args, marker, rest.String())
	return nil
}

// exitCode waits for cmd and returns its exit code, failing after limit.
func exitCode(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		t.Fatalf("%v did not exit within %v of the signal", cmd.Args, limit)
	}
	return cmd.ProcessState.ExitCode()
}

// TestTrainInterrupt: SIGINT (exit 130) or SIGTERM (143) during training
// saves the model reached, its report says interrupted with a gap, and the
// checkpoint is kept for --resume.
func TestTrainInterrupt(t *testing.T) {
	bin := taggerBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := t.TempDir()
		model, rep, ckpt := filepath.Join(dir, "m.model"), filepath.Join(dir, "r.json"), filepath.Join(dir, "c.ckpt")
		cmd := exec.Command(bin, "train", "--format", "ocr", "--folds", "1-9", "--beta-ratio", "0.0001", "--epsilon", "1e-12",
			"--threads", "1", "--model", model, "--report", rep, "--checkpoint", ckpt, "embedded:ocr/letter.data.gz")
		stderr := startUntil(t, cmd, "iter    3 ")
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(t, cmd, 20*time.Second); code != tc.code {
			t.Fatalf("%v: exit %d, want %d\n%s", tc.sig, code, tc.code, stderr)
		}
		m, err := chain.LoadFile(model)
		if err != nil {
			t.Fatalf("%v: the model reached was not saved: %v\n%s", tc.sig, err, stderr)
		}
		if m.NonZero() == 0 {
			t.Errorf("%v: the saved model is empty", tc.sig)
		}
		r := readJSONMap(t, rep)
		if r["stop_reason"] != string(train.StopInterrupt) || !(num(t, r, "gap_final") > 0) {
			t.Errorf("%v: report stop_reason %v, gap %v; want interrupted with a gap", tc.sig, r["stop_reason"], r["gap_final"])
		}
		if _, err := os.Stat(ckpt); err != nil {
			t.Errorf("%v: no checkpoint kept after the interrupt: %v", tc.sig, err)
		}
	}
}

// TestTrainInterruptKeepsExistingModel: an interrupt never replaces an
// existing model file. After some iterations the interrupted model goes to
// MODEL.interrupted and MODEL keeps its bytes; before the first iteration
// no model is written at all.
func TestTrainInterruptKeepsExistingModel(t *testing.T) {
	bin := taggerBinary(t)
	for _, tc := range []struct {
		name, marker string
		args         []string
		wantSide     bool // MODEL.interrupted written
	}{
		{"after iterations", "iter    3 ", []string{"--beta-ratio", "0.0001", "--epsilon", "1e-12"}, true},
		// Fifty epochs of the warm start: the signal, sent once the data
		// is read, arrives long before the first iteration.
		{"before the first iteration", "read ", []string{"--warm-epochs", "50"}, false},
	} {
		dir := t.TempDir()
		model := filepath.Join(dir, "m.model")
		mustRun(t, "train", "--quiet", "--format", "conll", "--model", model, writeTinyCoNLL(t, dir))
		before, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"train", "--format", "ocr", "--folds", "1-9", "--threads", "1", "--model", model}, tc.args...)
		cmd := exec.Command(bin, append(args, "embedded:ocr/letter.data.gz")...)
		stderr := startLogged(t, cmd, tc.marker)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(t, cmd, 20*time.Second); code != 130 {
			t.Fatalf("%s: exit %d, want 130\n%s", tc.name, code, stderr())
		}
		after, err := os.ReadFile(model)
		if err != nil || !bytes.Equal(before, after) {
			t.Fatalf("%s: the existing model was changed (err %v)\n%s", tc.name, err, stderr())
		}
		side := model + interruptedSuffix
		_, err = os.Stat(side)
		switch {
		case tc.wantSide && err != nil:
			t.Fatalf("%s: no %s: %v\n%s", tc.name, side, err, stderr())
		case tc.wantSide:
			if m, err := chain.LoadFile(side); err != nil || m.NonZero() == 0 {
				t.Errorf("%s: %s is not a trained model (err %v)", tc.name, side, err)
			}
			if !strings.Contains(stderr(), "wrote the interrupted model to "+side) {
				t.Errorf("%s: stderr does not say where the model went:\n%s", tc.name, stderr())
			}
		case err == nil:
			t.Errorf("%s: %s written by a run interrupted before its first iteration", tc.name, side)
		case !strings.Contains(stderr(), "no model written"):
			t.Errorf("%s: stderr does not say that no model was written:\n%s", tc.name, stderr())
		}
	}
}

// TestTrainInterruptBeforeFirstIterationNewFile: with no file at --model,
// an interrupt before the first iteration creates none.
func TestTrainInterruptBeforeFirstIterationNewFile(t *testing.T) {
	bin := taggerBinary(t)
	model := filepath.Join(t.TempDir(), "m.model")
	cmd := exec.Command(bin, "train", "--format", "ocr", "--folds", "1-9", "--threads", "1", "--warm-epochs", "50",
		"--model", model, "embedded:ocr/letter.data.gz")
	stderr := startLogged(t, cmd, "read ")
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd, 20*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, stderr())
	}
	if _, err := os.Stat(model); err == nil {
		t.Fatalf("a model was written by a run interrupted before its first iteration\n%s", stderr())
	}
}

// TestTrainSecondSignal: a second signal exits at once, and the model file
// that existed before is intact (a complete model: the old one or the new).
func TestTrainSecondSignal(t *testing.T) {
	bin := taggerBinary(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--quiet", "--format", "conll", "--model", model, writeTinyCoNLL(t, dir))
	cmd := exec.Command(bin, "train", "--format", "ocr", "--folds", "1-9", "--beta-ratio", "0.0001", "--epsilon", "1e-12",
		"--threads", "1", "--model", model, "embedded:ocr/letter.data.gz")
	stderr := startUntil(t, cmd, "iter    2 ")
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd, 20*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, stderr)
	}
	if _, err := chain.LoadFile(model); err != nil {
		t.Fatalf("the model file is damaged: %v", err)
	}
}

// TestTagInterrupt: SIGINT while tagging a large file stops within a
// couple of seconds with exit 130, and what was written is complete
// sentences (each ends with a blank line).
func TestTagInterrupt(t *testing.T) {
	bin := taggerBinary(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--quiet", "--format", "conll", "--model", model, writeTinyCoNLL(t, dir))
	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for range 400000 {
		w.WriteString("The DT\npound NN\nfell VBD\n. .\n\n")
	}
	w.Flush()
	f.Close()
	out := filepath.Join(dir, "out.txt")
	of, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	cmd := exec.Command(bin, "tag", "--format", "conll", "--model", model, "--threads", "1", big)
	cmd.Stdout = of
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd, 2*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || !bytes.HasSuffix(b, []byte("\n\n")) {
		t.Fatalf("output of %d bytes does not end with a complete sentence: %q", len(b), tail(b))
	}
	if n := bytes.Count(b, []byte("\n\n")); n >= 400000 {
		t.Fatalf("tagged all %d sentences: the interrupt was ignored", n)
	}
}

func tail(b []byte) []byte { return b[max(len(b)-40, 0):] }

// TestPathAndBenchInterrupt: SIGINT stops a path or a benchmark within a
// couple of seconds with exit 130 (the rows printed so far stay printed).
func TestPathAndBenchInterrupt(t *testing.T) {
	bin := taggerBinary(t)
	for _, args := range [][]string{
		{"path", "--data", "ocr", "--betas", "100", "--min-ratio", "0.0001", "--threads", "1"},
		{"bench", "screen", "--data", "ocr", "--ratios", "0.01", "--threads", "1"},
	} {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		// A command that ended before the signal exits 0, not 130.
		cmd.Process.Signal(syscall.SIGINT)
		if code := exitCode(t, cmd, 3*time.Second); code != 130 {
			t.Fatalf("%v: exit %d, want 130\n%s", args, code, stderr.String())
		}
	}
}
