package memlimit

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"1024", 1024},
		{"2K", 2 << 10},
		{"800M", 800 << 20},
		{"1.5G", 3 << 29},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "-1M", "4T", "abc", "+InfG"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
	if got, err := Parse("auto"); err != nil || got != Physical()/2 {
		t.Errorf("Parse(auto) = %d, %v; want half of %d", got, err, Physical())
	}
}

func TestParseDefault(t *testing.T) {
	if got, err := ParseDefault("800M", 1); err != nil || got != 800<<20 {
		t.Errorf("ParseDefault(800M) = %d, %v", got, err)
	}
	if got, err := ParseDefault("0", 1); err != nil || got != 0 {
		t.Errorf("ParseDefault(0) = %d, %v; want no limit", got, err)
	}
	want := Physical() / 2
	if want == 0 {
		want = 4 << 30
	}
	if got, err := ParseDefault("auto", 4<<30); err != nil || got != want {
		t.Errorf("ParseDefault(auto) = %d, %v; want %d", got, err, want)
	}
	if _, err := ParseDefault("-1M", 1); err == nil {
		t.Error("ParseDefault(-1M): no error")
	}
}
