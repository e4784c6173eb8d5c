package rawtext_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/rawtext"
)

// A document split into sentences and Penn Treebank tokens, each with its
// place in the text: code points and bytes differ after the ë.
func ExampleDocument() {
	text := "Zoë paid $5.50. (It was U.S. cash.)"
	var d rawtext.Doc
	if err := rawtext.Document(&d, text, rawtext.PTB{}); err != nil {
		panic(err)
	}
	for _, s := range d.Sentences {
		fmt.Printf("sentence [%d, %d): %s\n", s.Start, s.End, text[s.StartByte:s.EndByte])
		for _, t := range s.Tokens {
			fmt.Printf("  %-6s [%d, %d) bytes [%d, %d) %q\n", t.Word, t.Start, t.End, t.StartByte, t.EndByte, text[t.StartByte:t.EndByte])
		}
	}
	// Output:
	// sentence [0, 15): Zoë paid $5.50.
	//   Zoë    [0, 3) bytes [0, 4) "Zoë"
	//   paid   [4, 8) bytes [5, 9) "paid"
	//   $      [9, 10) bytes [10, 11) "$"
	//   5.50   [10, 14) bytes [11, 15) "5.50"
	//   .      [14, 15) bytes [15, 16) "."
	// sentence [16, 35): (It was U.S. cash.)
	//   -LRB-  [16, 17) bytes [17, 18) "("
	//   It     [17, 19) bytes [18, 20) "It"
	//   was    [20, 23) bytes [21, 24) "was"
	//   U.S.   [24, 28) bytes [25, 29) "U.S."
	//   cash   [29, 33) bytes [30, 34) "cash"
	//   .      [33, 34) bytes [34, 35) "."
	//   -RRB-  [34, 35) bytes [35, 36) ")"
}
