package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/chain"
)

// TestTrainAlgorithmInterrupt: SIGINT during an online algorithm's epochs
// saves the model of the last finished epoch (exit 130), and never over an
// existing model file (it goes to MODEL.interrupted).
func TestTrainAlgorithmInterrupt(t *testing.T) {
	bin := taggerBinary(t)
	for _, existing := range []bool{false, true} {
		dir := t.TempDir()
		model := filepath.Join(dir, "m.model")
		if existing {
			if err := os.WriteFile(model, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, "train", "--format", "ocr", "--folds", "1-9", "--algorithm", "ap", "-p", "max_iterations=100000",
			"--threads", "1", "--model", model, "embedded:ocr/letter.data.gz")
		read := startLogged(t, cmd, "epoch    2 ")
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(t, cmd, 30*time.Second); code != 130 {
			t.Fatalf("exit %d, want 130\n%s", code, read())
		}
		dest := model
		if existing {
			dest = model + interruptedSuffix
			if b, _ := os.ReadFile(model); string(b) != "old" {
				t.Errorf("the existing model was replaced")
			}
		}
		m, err := chain.LoadFile(dest)
		if err != nil {
			t.Fatalf("the model of the last epoch was not saved in %s: %v\n%s", dest, err, read())
		}
		if m.NonZero() == 0 || !strings.Contains(read(), "interrupted") {
			t.Errorf("saved model: %d non-zero weights; stderr:\n%s", m.NonZero(), read())
		}
	}
}
