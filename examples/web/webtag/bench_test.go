package webtag_test

import (
	"testing"

	"github.com/sparsetag/sparsetag/examples/web/webtag"
	"github.com/sparsetag/sparsetag/examples/web/webtag/webtagtest"
)

// BenchmarkTag tags each golden fixture of one sequence (the WebAssembly
// build's own figures come from examples/web/wasm's TestLatency and the
// browser).
func BenchmarkTag(b *testing.B) {
	g, err := webtagtest.ReadGolden(root)
	if err != nil {
		b.Fatal(err)
	}
	s := webtag.NewSession()
	for _, c := range g.Cases[:5] {
		if c.Input == nil {
			continue
		}
		info := loadEmbedded(b, s, c.Model[len("examples/web/models/"):])
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Tag(info.ID, c.Input, c.Options); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
