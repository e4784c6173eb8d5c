package features_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// A CRF++ template applied to a toy sentence of (word, POS) tokens: macros
// before the first token expand to _B-1, _B-2, ... and after the last one to
// _B+1, _B+2, ...
func ExampleTemplate_Expand() {
	tm := features.MustCompile(`# words
U00:%x[-1,0]
U01:%x[0,0]/%x[1,1]
B
B01:%x[0,1]
`)
	sent := [][]string{{"He", "PRP"}, {"reckons", "VBZ"}}
	for t := range sent {
		unary, pair, err := tm.Expand(sent, t)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t, unary, pair)
	}
	fmt.Println("transitions:", tm.HasTransitions())
	// Output:
	// 0 [U00:_B-1 U01:He/VBZ] []
	// 1 [U00:He U01:reckons/_B+1] [B01:VBZ]
	// transitions: true
}

// A malformed template reports the line and column of the problem.
func ExampleCompile_error() {
	_, err := features.Compile("U00:%x[0,0]\nU01:%x[-1;0]\n")
	fmt.Println(err)
	// Output:
	// template:2:10: want ',' after the row offset of %x[row,col]
}

// Training encodes with grow=true; tagging freezes the dictionary and skips
// unknown attributes.
func ExampleEncoder() {
	enc := features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\nU01:%x[-1,0]\n"))
	var train sparse.Corpus
	if err := enc.Encode(&train, features.Columns{{"the"}, {"dog"}}, []int32{0, 1}, true); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("attributes:", enc.Unary().Names())

	enc.Freeze(0)
	var test sparse.Corpus
	if err := enc.Encode(&test, features.Columns{{"the"}, {"cat"}}, nil, false); err != nil {
		fmt.Println(err)
		return
	}
	for t := 0; t < test.Positions(); t++ {
		ids, _ := test.Unary.Row(t)
		var names []string
		for _, id := range ids {
			names = append(names, enc.Unary().Name(id))
		}
		fmt.Println(t, ids, names)
	}
	// Output:
	// attributes: [U00:the U01:_B-1 U00:dog U01:the]
	// 0 [0 1] [U00:the U01:_B-1]
	// 1 [3] [U01:the]
}

// Real-valued attributes, CRFsuite style; duplicates at one position add up.
func ExampleAttributes() {
	enc := features.NewAttributeEncoder()
	var c sparse.Corpus
	names := [][]string{{"height", "bias", "height"}}
	values := [][]float64{{0.25, 1, 0.5}}
	if err := enc.Encode(&c, features.Attributes{Names: names, Values: values}, []int32{0}, true); err != nil {
		fmt.Println(err)
		return
	}
	ids, vals := c.Unary.Row(0)
	fmt.Println(enc.Unary().Names(), ids, vals)
	// Output:
	// [height bias] [0 1] [0.75 1]
}
