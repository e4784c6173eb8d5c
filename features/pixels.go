package features

import (
	"fmt"
	"strconv"
)

// Size of an OCR letter image: 16 rows of 8 pixels, row-major, one byte per
// pixel (0 or 1), as in the OCR data set of Taskar et al. (2003).
const (
	PixelRows   = 16
	PixelCols   = 8
	PixelLength = PixelRows * PixelCols
)

// PixelOptions selects the attributes generated from an OCR image. The zero
// value is the default: one binary attribute per lit pixel, named "p[r,c]"
// (row r in 0..15, column c in 0..7). The flags add more attributes; they are
// bits so that model files can store them as one integer.
type PixelOptions uint32

const (
	// PixelPairs adds one attribute per pair of horizontally or vertically
	// adjacent pixels that are both lit: "h[r,c]" for (r,c) and (r,c+1),
	// "v[r,c]" for (r,c) and (r+1,c). At most 16·7 + 15·8 = 232 attributes.
	PixelPairs PixelOptions = 1 << iota
	// PixelCounts adds, for each row r, the one-hot attribute "row[r]=k"
	// where k in 0..8 is the number of lit pixels in that row, and for each
	// column c the attribute "col[c]=k", k in 0..16. Exactly 16 + 8 = 24
	// attributes per letter (zero counts included).
	PixelCounts
	// PixelBias adds the attribute "bias", present at every position, whose
	// weights act as per-label biases.
	PixelBias

	pixelAll = PixelPairs | PixelCounts | PixelBias
)

// String lists the flags, e.g. "pixels+pairs+counts".
func (o PixelOptions) String() string {
	s := "pixels"
	if o&PixelPairs != 0 {
		s += "+pairs"
	}
	if o&PixelCounts != 0 {
		s += "+counts"
	}
	if o&PixelBias != 0 {
		s += "+bias"
	}
	if o&^pixelAll != 0 {
		s += fmt.Sprintf("+unknown(%#x)", uint32(o&^pixelAll))
	}
	return s
}

// pixelNames holds every pixel attribute string, built once, so that
// encoding an image does not allocate.
type pixelNames struct {
	pixel [PixelLength]string
	horiz [PixelRows * (PixelCols - 1)]string
	vert  [(PixelRows - 1) * PixelCols]string
	row   [PixelRows][PixelCols + 1]string
	col   [PixelCols][PixelRows + 1]string
}

func newPixelNames() *pixelNames {
	p := new(pixelNames)
	rc := func(prefix string, r, c int) string {
		return prefix + "[" + strconv.Itoa(r) + "," + strconv.Itoa(c) + "]"
	}
	for r := 0; r < PixelRows; r++ {
		for c := 0; c < PixelCols; c++ {
			p.pixel[r*PixelCols+c] = rc("p", r, c)
			if c+1 < PixelCols {
				p.horiz[r*(PixelCols-1)+c] = rc("h", r, c)
			}
			if r+1 < PixelRows {
				p.vert[r*PixelCols+c] = rc("v", r, c)
			}
		}
		for k := 0; k <= PixelCols; k++ {
			p.row[r][k] = "row[" + strconv.Itoa(r) + "]=" + strconv.Itoa(k)
		}
	}
	for c := 0; c < PixelCols; c++ {
		for k := 0; k <= PixelRows; k++ {
			p.col[c][k] = "col[" + strconv.Itoa(c) + "]=" + strconv.Itoa(k)
		}
	}
	return p
}

// checkImages verifies sizes and pixel values.
func checkImages(images [][]byte) error {
	for t, im := range images {
		if len(im) != PixelLength {
			return fmt.Errorf("features: image %d has %d pixels, want %d (%d rows × %d columns)", t, len(im), PixelLength, PixelRows, PixelCols)
		}
		for i, v := range im {
			if v > 1 {
				return fmt.Errorf("features: image %d, pixel %d (row %d, column %d) = %d, want 0 or 1", t, i, i/PixelCols, i%PixelCols, v)
			}
		}
	}
	return nil
}

// appendAttrs appends the name of every attribute of image im to dst. The
// strings are shared (no allocation); im must have passed checkImages.
func (p *pixelNames) appendAttrs(dst []string, im []byte, opts PixelOptions) []string {
	im = im[:PixelLength]
	for i, v := range im {
		if v != 0 {
			dst = append(dst, p.pixel[i])
		}
	}
	if opts&PixelPairs != 0 {
		for r := 0; r < PixelRows; r++ {
			for c := 0; c+1 < PixelCols; c++ {
				if im[r*PixelCols+c] != 0 && im[r*PixelCols+c+1] != 0 {
					dst = append(dst, p.horiz[r*(PixelCols-1)+c])
				}
			}
		}
		for r := 0; r+1 < PixelRows; r++ {
			for c := 0; c < PixelCols; c++ {
				if im[r*PixelCols+c] != 0 && im[(r+1)*PixelCols+c] != 0 {
					dst = append(dst, p.vert[r*PixelCols+c])
				}
			}
		}
	}
	if opts&PixelCounts != 0 {
		for r := 0; r < PixelRows; r++ {
			k := 0
			for _, v := range im[r*PixelCols : (r+1)*PixelCols] {
				k += int(v)
			}
			dst = append(dst, p.row[r][k])
		}
		for c := 0; c < PixelCols; c++ {
			k := 0
			for r := 0; r < PixelRows; r++ {
				k += int(im[r*PixelCols+c])
			}
			dst = append(dst, p.col[c][k])
		}
	}
	if opts&PixelBias != 0 {
		dst = append(dst, "bias")
	}
	return dst
}
