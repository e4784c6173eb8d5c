package corpora

// Sequence is one labeled or unlabeled sequence (a sentence, a word of
// letters) as read from a file. Exactly one of Tokens and Attrs is set.
//
// The slices of one Sequence share backing arrays (Tokens[t] are windows of
// one flat slice, capped so that appending to one never overwrites another);
// a reader allocates fresh ones for every Sequence, so a caller may keep them.
type Sequence struct {
	// Tokens[t] holds the columns of position t without the label column
	// (CoNLL, CoNLL-U, raw text). nil for CRFsuite attribute files.
	Tokens [][]string
	// Attrs[t] holds the attributes of position t (CRFsuite attribute
	// files). nil for column formats.
	Attrs [][]Attr
	// Labels[t] is the label of position t; nil when the input is unlabeled.
	Labels []string
	// Line is the 1-based line number of the first position in its file.
	Line int
	// Weight is the sequence's weight given by a CRFsuite @weight:w line
	// (finite, above 0, at most MaxWeight); 0 when none was given (weight 1).
	Weight float64
	// CoNLLU holds the sentence's lines as read, for CoNLL-U input (see
	// [CoNLLUReader]); nil for other formats.
	CoNLLU *CoNLLUSentence
}

// Len returns the number of positions T of s.
func (s *Sequence) Len() int {
	if s.Tokens != nil {
		return len(s.Tokens)
	}
	return len(s.Attrs)
}

// Attr is one attribute of a position in a CRFsuite attribute file: a name
// and a finite value (1 when the file gives none).
type Attr struct {
	Name  string
	Value float64
}

// buildColumns turns a flat slice of cells, k per position, into Tokens and
// (if labeled) Labels, the label being the last of the k cells. cells must
// not be reused by the caller afterwards.
func buildColumns(cells []string, k int, labeled bool, line int) Sequence {
	T := len(cells) / k
	s := Sequence{Tokens: make([][]string, T), Line: line}
	if labeled {
		s.Labels = make([]string, T)
		for t := range T {
			row := cells[t*k : (t+1)*k]
			s.Tokens[t] = row[: k-1 : k-1]
			s.Labels[t] = row[k-1]
		}
		return s
	}
	for t := range T {
		s.Tokens[t] = cells[t*k : (t+1)*k : (t+1)*k]
	}
	return s
}
