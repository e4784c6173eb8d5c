package tagging

import (
	"errors"
	"math"
	"regexp"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
)

// TestNBestBound: no bound for one path or without a limit; n refused when
// sequences of NBestServedLen tokens do not fit; otherwise the longest
// sequence that fits, and the MaxBytes of the decoder at that length.
func TestNBestBound(t *testing.T) {
	if b, n, err := NBestBound(1, 4, 2, 1); b != 0 || n != 0 || err != nil {
		t.Errorf("one path: %d, %d, %v; want no bound", b, n, err)
	}
	if b, n, err := NBestBound(100, 4, 2, 0); b != 0 || n != 0 || err != nil {
		t.Errorf("no limit: %d, %d, %v; want no bound", b, n, err)
	}

	_, _, err := NBestBound(10000000, 4, 2, 4<<30)
	var le *NBestLimitError
	if !errors.As(err, &le) || le.N != 10000000 || le.Limit != 4<<30 {
		t.Fatalf("10 million paths under 4 GiB: %v; want an NBestLimitError", err)
	}
	re := regexp.MustCompile(`^the n-best decoder needs about [\d.]+ TiB for sequences of 1000 tokens over 4 labels on 2 threads \(256 results buffered\), more than the limit 4\.0 GiB$`)
	if !re.MatchString(err.Error()) {
		t.Errorf("error %q does not match %s", err, re)
	}

	const n, L = 20, 4
	limit := int64(StreamNBestMemory(2000, L, n, 1))
	maxBytes, maxLen, err := NBestBound(n, L, 1, limit)
	if err != nil || maxLen != 2000 {
		t.Fatalf("limit of 2000 tokens: maxLen %d, %v; want 2000", maxLen, err)
	}
	if scratch, result := chain.NBestMemory(maxLen, L, n); maxBytes != scratch+result {
		t.Errorf("MaxBytes %d, want the decoder's %d at %d tokens", maxBytes, scratch+result, maxLen)
	}
	if StreamNBestMemory(maxLen+1, L, n, 1) <= float64(limit) {
		t.Errorf("%d tokens also fit: maxLen is not the longest", maxLen+1)
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{
		{512, "512 B"},
		{1536, "1.5 KiB"},
		{3 << 30, "3.0 GiB"},
		{math.Inf(1), "more than 8 EiB"},
	} {
		if got := formatBytes(c.b); got != c.want {
			t.Errorf("formatBytes(%g) = %q, want %q", c.b, got, c.want)
		}
	}
}
