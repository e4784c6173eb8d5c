//go:build !unix

package tagging

import "math"

// cpuSeconds is not measured here: the tokens/cpu-s metric is NaN.
func cpuSeconds() float64 { return math.NaN() }
