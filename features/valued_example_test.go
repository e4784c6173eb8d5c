package features_test

import (
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// Column 1 holds name:value items and word vectors are read at offset 0:
// "UV:%v[0,0]" becomes one attribute per dimension, valued by the word's
// vector (scaled by the table's largest absolute value, 4 here); "The"
// is found lower-cased. A row lists attributes in id order.
func ExampleWithValued() {
	vecs, err := features.ReadEmbeddings(strings.NewReader("2 2\nthe 1 -2\ndog 0 4\n"), "vectors.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	tmpl := features.MustCompile("U00:%x[0,0]\nU01:%x[0,1]\nUV:%v[0,0]\n")
	enc, err := features.WithValued(features.NewTemplateEncoder(tmpl), features.Valued{Columns: []int{1}, Embeddings: vecs})
	if err != nil {
		fmt.Println(err)
		return
	}
	var c sparse.Corpus
	if err := enc.Encode(&c, features.Columns{{"The", "len:3"}, {"dog", "len:3"}}, nil, true); err != nil {
		fmt.Println(err)
		return
	}
	for t := range c.Positions() {
		cols, vals := c.Unary.Row(t)
		var items []string
		for k, a := range cols {
			items = append(items, fmt.Sprintf("%s=%g", enc.Unary().Name(a), vals[k]))
		}
		fmt.Println(strings.Join(items, " "))
	}
	// Output:
	// U00:The=1 U01:len=3 UV:0=0.25 UV:1=-0.5
	// U01:len=3 UV:1=1 U00:dog=1
}
