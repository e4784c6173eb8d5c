package corpora

// RawSequence is a sequence of a CRFsuite attribute file as bytes, as a
// [CRFsuiteReader] reads it: the names and labels back to back in two
// buffers, with offsets in the manner of a CSR matrix. It is what the
// reader's Sequence makes strings of, and what an encoder that looks names
// up by their bytes reads without making any (dataset's streamed training).
//
// The buffers are the reader's: the next Next overwrites them.
type RawSequence struct {
	// Labels holds the labels back to back; position t's label is
	// Labels[LabelPtr[t]:LabelPtr[t+1]]. LabelPtr is nil when the labels
	// are not read (CRFsuiteOptions.Unlabeled or IgnoreLabels).
	Labels   []byte
	LabelPtr []int
	// Names holds the attribute names, unescaped, back to back; name k is
	// Names[NamePtr[k]:NamePtr[k+1]] and its value is Values[k] (1 when
	// the file gives none).
	Names   []byte
	NamePtr []int
	Values  []float64
	// PosPtr gives each position's names: those of position t are the
	// names PosPtr[t] to PosPtr[t+1]-1 (none for a position without
	// attributes). len(PosPtr) is the number of positions plus 1.
	PosPtr []int
	Line   int     // the 1-based line of the first position
	Weight float64 // the @weight:w of the sequence; 0 when none was given (weight 1)
}

// Len returns the number of positions.
func (s *RawSequence) Len() int { return max(len(s.PosPtr)-1, 0) }

// Name returns the bytes of name k (in s's memory).
func (s *RawSequence) Name(k int) []byte { return s.Names[s.NamePtr[k]:s.NamePtr[k+1]] }

// Label returns the bytes of position t's label (in s's memory).
func (s *RawSequence) Label(t int) []byte { return s.Labels[s.LabelPtr[t]:s.LabelPtr[t+1]] }

// reset empties s for the next sequence, keeping its memory; labeled
// selects whether LabelPtr is kept (with its leading 0) or nil.
func (s *RawSequence) reset(labeled bool) {
	s.Labels, s.Names, s.Values = s.Labels[:0], s.Names[:0], s.Values[:0]
	s.NamePtr, s.PosPtr = append(s.NamePtr[:0], 0), append(s.PosPtr[:0], 0)
	if labeled { // a reader reads the labels of every sequence or of none
		s.LabelPtr = append(s.LabelPtr[:0], 0)
	} else {
		s.LabelPtr = nil
	}
	s.Line, s.Weight = 0, 0
}

// sequence returns s as a Sequence of strings of its own: one string for
// all the names and one for all the labels, which the Attrs and Labels
// hold windows of.
func (s *RawSequence) sequence() Sequence {
	n := s.Len()
	out := Sequence{Attrs: make([][]Attr, n), Line: s.Line, Weight: s.Weight}
	names := string(s.Names)
	flat := make([]Attr, len(s.Values))
	for k := range flat {
		flat[k] = Attr{Name: names[s.NamePtr[k]:s.NamePtr[k+1]], Value: s.Values[k]}
	}
	for t := range n {
		lo, hi := s.PosPtr[t], s.PosPtr[t+1]
		out.Attrs[t] = flat[lo:hi:hi]
	}
	if s.LabelPtr != nil {
		labels := string(s.Labels)
		out.Labels = make([]string, n)
		for t := range out.Labels {
			out.Labels[t] = labels[s.LabelPtr[t]:s.LabelPtr[t+1]]
		}
	}
	return out
}
