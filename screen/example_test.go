package screen_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
)

// The Pinsker rule on a 3-feature vector. With n = 2 sequences and gap G =
// 0.01 the radius is sqrt(2*0.01/2) = 0.1, so the bounds are 0.1 + 0.1*1 =
// 0.2, 0.45 + 0.1*1 = 0.55 and 0.2 + 0.1*3 = 0.5; with beta = 0.5 only the
// first feature is certainly zero at the optimum.
func ExamplePinsker() {
	m := []float64{0.1, -0.45, 0.2}
	rnorm := []float64{1, 1, 3}
	screened := make([]bool, 3)
	k := screen.Pinsker(screened, m, rnorm, 0.01, 2, 0.5, screen.DefaultTau)
	fmt.Println(k, screened)
	fmt.Printf("%.2f\n", screen.PinskerBound(m[2], rnorm[2], 0.01, 2))
	// Output:
	// 1 [true false false]
	// 0.50
}

// The Fenchel-Young gap: at w = 0 it is sum_j max(|m_j| - beta, 0)^2/(2 alpha
// beta) = 0.5^2/2 = 0.125 here (alpha = beta = 1).
func ExampleGap() {
	w := []float64{0, 0}
	m := []float64{1.5, 0.3}
	fmt.Println(screen.Gap(w, m, 1, 1))
	// At the dual-implied point wtilde = soft(m, beta)/(alpha beta) the gap is 0.
	fmt.Println(screen.Gap([]float64{0.5, 0}, m, 1, 1))
	// Output:
	// 0.125
	// 0
}

// The range constants of a corpus of two sequences of lengths 3 and 2, with
// one binary attribute firing at every position: R = 3/2 and 2/2 for the state
// features, (T-1)/2 = 1 and 1/2 on the transition diagonal, floor(T/2)/2 =
// 1/2 and 1/2 off it.
func ExampleRnorm() {
	c := &sparse.Corpus{NumUnary: 1}
	c.AppendSequence([][]int32{{0}, {0}, {0}}, nil, nil, nil, []int32{0, 1, 1})
	c.AppendSequence([][]int32{{0}, {0}}, nil, nil, nil, []int32{1, 0})
	lay := sparse.Layout{NumUnary: 1, L: 2, Transitions: true}
	r, err := screen.Rnorm(nil, lay, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", r)
	// Output:
	// [1.8028 1.8028 1.1180 0.7071 0.7071 1.1180]
}
