package paperbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPaperConfigCheck: each bad setting is named; a good one passes.
func TestPaperConfigCheck(t *testing.T) {
	good := PaperConfig{Data: []string{"syn1", "ocr"}, Rules: []string{"none", "pinsker-ws"}, Scale: 0.5, Betas: 3, MinRatio: 0.1}
	assert.NoError(t, good.Check())
	for _, tc := range []struct {
		name string
		edit func(*PaperConfig)
		want string
	}{
		{"betas", func(c *PaperConfig) { c.Betas = 0 }, "--betas"},
		{"scale", func(c *PaperConfig) { c.Scale = 2 }, "--scale"},
		{"data", func(c *PaperConfig) { c.Data = []string{"syn9"} }, `unknown data set "syn9"`},
		{"rule", func(c *PaperConfig) { c.Rules = []string{"fast"} }, `unknown rule "fast"`},
		{"empty", func(c *PaperConfig) { c.Rules = nil }, "must not be empty"},
	} {
		c := good
		tc.edit(&c)
		assert.ErrorContains(t, c.Check(), tc.want, tc.name)
	}
}
