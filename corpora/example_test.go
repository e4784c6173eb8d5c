package corpora_test

import (
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
)

func ExampleNewCoNLLReader() {
	in := "He PRP B-NP\nreckons VBZ B-VP\n\nOK UH O\n"
	r := corpora.NewCoNLLReader("toy.txt", strings.NewReader(in), corpora.CoNLLOptions{})
	for r.Next() {
		s := r.Sequence()
		fmt.Println(s.Line, s.Tokens, s.Labels)
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 [[He PRP] [reckons VBZ]] [B-NP B-VP]
	// 4 [[OK UH]] [O]
}

func ExampleParseError() {
	in := "He PRP B-NP\nreckons VBZ\n"
	_, err := corpora.ReadCoNLL("train.txt", strings.NewReader(in), corpora.CoNLLOptions{})
	fmt.Println(err)
	// Output:
	// train.txt:2:12: expected 3 columns, got 2
}

func ExampleNewCRFsuiteReader() {
	in := "B-NP\tw[0]=He\tcap\tlen:0.2\nB-VP\tw[0]=reckons\turl=http\\://x\n"
	r := corpora.NewCRFsuiteReader("toy.crf", strings.NewReader(in), corpora.CRFsuiteOptions{})
	for r.Next() {
		s := r.Sequence()
		for t, attrs := range s.Attrs {
			fmt.Println(s.Labels[t], attrs)
		}
	}
	// Output:
	// B-NP [{w[0]=He 1} {cap 1} {len 0.2}]
	// B-VP [{w[0]=reckons 1} {url=http://x 1}]
}

func ExampleTokenize() {
	toks, err := corpora.Tokenize("Don't panic—it's 東京, “the U.S.”")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range toks {
		fmt.Printf("%s[%d:%d] ", t.Word, t.Start, t.End)
	}
	fmt.Println()
	// Output:
	// Do[0:2] n't[2:5] panic[6:11] --[11:14] it[14:16] 's[16:18] 東[19:22] 京[22:25] ,[25:26] ``[27:30] the[30:33] U.S.[34:38] .[37:38] ''[38:41]
}

func ExampleGenerateSynthetic() {
	spec := corpora.Syn3
	spec.Scale = 0.1
	s := corpora.GenerateSynthetic(spec, 1)
	fmt.Println(s.Name, "n =", s.N, "d =", s.D, "C =", s.C, "block =", s.BlockSize)
	cols, _ := s.Row(0)
	fmt.Println("label of row 0:", s.Labels[0], "- first columns:", cols[:4])
	// Output:
	// syn3 n = 100 d = 1000 C = 10 block = 2
	// label of row 0: 0 - first columns: [0 1 2 3]
}

func ExampleEmbeddedCoNLL2000() {
	test, err := corpora.EmbeddedCoNLL2000("test")
	if err != nil {
		fmt.Println(err)
		return
	}
	tokens := 0
	for _, s := range test {
		tokens += len(s.Tokens)
	}
	fmt.Println(len(test), "sentences,", tokens, "tokens")
	fmt.Println(test[0].Tokens[0], test[0].Labels[0])
	// Output:
	// 2012 sentences, 47377 tokens
	// [Rockwell NNP] B-NP
}

func ExampleEmbeddedOCR() {
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: []int{0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	w := words[0]
	fmt.Println(len(words), "words in fold 0; first:", strings.Join(w.Labels, ""))
	// Output:
	// 626 words in fold 0; first: ommanding
}
