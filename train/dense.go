package train

import (
	"math"

	"github.com/sparsetag/sparsetag/sparse"
)

// Dense blocks (sparse.Dense, word vectors) in the certified solve: the
// objective scores and counts them itself (package objective), the warm
// start expands one sequence at a time. The screening constants are
// computed from the corpus's Unary rows, where the blocks' attributes have
// no entry: unscreenBlocks gives their state features an infinite Pinsker
// constant and static bound, so that no rule ever screens them (not
// screening a feature is always safe; they are D x L features, and their
// weights are non-zero wherever the template's are). The paper's T = 1 rule
// reads the rows themselves: it gets the corpus expanded (expandedOnce).

// unscreenBlocks sets Rnorm and the static bound of every state feature
// of c's dense blocks' attributes to +Inf (static may be nil).
func unscreenBlocks(r *rnormTable, static []float64, c *sparse.Corpus) {
	L := r.L
	for k := range c.Dense {
		for _, a := range c.Dense[k].Attrs {
			if a < 0 {
				continue
			}
			if r.attr != nil {
				r.attr[a] = math.Inf(1)
			}
			for y := range L {
				j := int(a)*L + y
				if r.attr == nil {
					r.full[j] = math.Inf(1)
				}
				if static != nil {
					static[j] = math.Inf(1)
				}
			}
		}
	}
}

// expandedOnce returns c with its dense blocks expanded, made once into
// *cache (c itself without blocks).
func expandedOnce(cache **sparse.Corpus, c *sparse.Corpus) *sparse.Corpus {
	if *cache == nil {
		*cache = c.Expanded()
	}
	return *cache
}

// digestDense adds c's dense blocks (the attribute ids, the words and the
// table of each) to the digest; a corpus without blocks adds nothing, so
// its digest is unchanged.
func digestDense(h *digest, c *sparse.Corpus) {
	for k := range c.Dense {
		b := &c.Dense[k]
		h.int32s(b.Attrs)
		h.int32s(b.Word)
		h.floats(b.Table)
	}
}
