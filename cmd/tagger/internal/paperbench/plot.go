package paperbench

import (
	"fmt"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/sparsetag/sparsetag/internal/atomicfile"
	"github.com/sparsetag/sparsetag/train"
)

// figureRatios are the beta/beta_max values of the paper's figures, in the
// paper's panel order (a)-(d).
var figureRatios = []float64{0.1, 0.2, 0.5, 0.9}

// nearestBetas returns, for each target ratio, the index of the path beta
// whose ratio beta/beta_max is nearest to it on a log scale (the path is
// log-spaced). The first beta, beta_max itself, where w = 0 is optimal and
// certified before any iteration, is only chosen when it is the only one.
// ratios must not be empty.
func nearestBetas(ratios, targets []float64) []int {
	out := make([]int, len(targets))
	first := 0
	if len(ratios) > 1 {
		first = 1
	}
	for t, want := range targets {
		best, bestD := first, math.Inf(1)
		for k := first; k < len(ratios); k++ {
			r := ratios[k]
			if d := math.Abs(math.Log(r / want)); d < bestD {
				best, bestD = k, d
			}
		}
		out[t] = best
	}
	return out
}

// screeningRatios returns, over the iterations of one solve, the paper's
// rejection ratio d_i/d* (d_i features screened after iteration i, d* zeros
// of the final solution) and reservation ratio (d - d_i)/d (d the size of the
// feature set). rejection is nil when the solution has no zero (d* = 0).
func screeningRatios(res *train.Result) (iters, rejection, reservation []float64) {
	d := float64(res.Dimension)
	dStar := float64(res.Dimension - res.NonZero)
	for _, it := range res.Iterations {
		iters = append(iters, float64(it.Iter))
		reservation = append(reservation, (d-float64(it.Screened))/d)
		if dStar > 0 {
			rejection = append(rejection, float64(it.Screened)/dStar)
		}
	}
	return iters, rejection, reservation
}

// RuleRun is one rule's path on one data set, for the figures.
type RuleRun struct {
	Rule    string
	Results []*train.Result
}

// WriteRatioFigures writes the paper's two figures for one data set, each
// with the four panels beta/beta_max in {0.1, 0.2, 0.5, 0.9} (the nearest path
// betas) and one line per screening rule: dir/prefix-rejection.png and
// dir/prefix-reservation.png. It returns the paths written.
func WriteRatioFigures(dir, prefix, data string, runs []RuleRun) ([]string, error) {
	var ratios []float64
	for _, r := range runs {
		if len(r.Results) > 0 {
			for _, res := range r.Results {
				ratios = append(ratios, res.Beta/res.BetaMax)
			}
			break
		}
	}
	if len(ratios) == 0 {
		return nil, nil
	}
	idx := nearestBetas(ratios, figureRatios)
	rej := make([]figPanel, len(idx))
	resv := make([]figPanel, len(idx))
	for p, k := range idx {
		title := fmt.Sprintf("beta/beta_max = %.3g", ratios[k])
		rej[p].title, resv[p].title = title, title
		for _, r := range runs {
			if k >= len(r.Results) {
				continue
			}
			x, a, b := screeningRatios(r.Results[k])
			if a != nil {
				rej[p].curves = append(rej[p].curves, figCurve{label: r.Rule, xs: x, ys: a})
			}
			resv[p].curves = append(resv[p].curves, figCurve{label: r.Rule, xs: x, ys: b})
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := []string{
		filepath.Join(dir, prefix+"-rejection.png"),
		filepath.Join(dir, prefix+"-reservation.png"),
	}
	if err := writeFigure(files[0], data+": rejection ratio d_i/d* over iterations", "rejection ratio", false, rej); err != nil {
		return nil, err
	}
	if err := writeFigure(files[1], data+": reservation ratio (d - d_i)/d over iterations", "reservation ratio", true, resv); err != nil {
		return nil, err
	}
	return files, nil
}

// figCurve is one line of a panel.
type figCurve struct {
	label  string
	xs, ys []float64
}

// figPanel is one subfigure: a title and its lines.
type figPanel struct {
	title  string
	curves []figCurve
}

// writeFigure draws the panels side by side under a title, with y in [0, 1]
// and iterations on x, the legend at the top or bottom right, and writes a
// PNG atomically.
func writeFigure(path, title, ylabel string, legendTop bool, panels []figPanel) error {
	const panelW, height, titleH = 4 * vg.Inch, 3.6 * vg.Inch, 0.4 * vg.Inch
	width := panelW * vg.Length(len(panels))
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))
	dc := draw.New(img)

	row := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("(%c) %s", 'a'+i, pn.title)
		p.X.Label.Text = "iteration"
		p.Y.Label.Text = ylabel
		p.Y.Min, p.Y.Max = 0, 1.05
		p.X.Min = 0
		p.X.Tick.Marker = iterationTicks{}
		p.Add(plotter.NewGrid())
		for c, cv := range pn.curves {
			xy := make(plotter.XYs, len(cv.xs))
			for j := range cv.xs {
				xy[j].X, xy[j].Y = cv.xs[j], cv.ys[j]
			}
			ln, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", path, cv.label, err)
			}
			ln.Color = plotutil.Color(c)
			ln.Width = vg.Points(1.5)
			ln.Dashes = plotutil.Dashes(c)
			pts.Color = ln.Color
			pts.Shape = plotutil.Shape(c)
			pts.Radius = vg.Points(2)
			p.Add(ln, pts)
			p.Legend.Add(cv.label, ln, pts)
			if n := len(cv.xs); n > 0 && cv.xs[n-1] > p.X.Max {
				p.X.Max = cv.xs[n-1]
			}
		}
		if p.X.Max < 1 {
			p.X.Max = 1
		}
		// Rejection ratios rise and reservation ratios fall over the
		// iterations: keep the legend in the corner the lines leave free.
		p.Legend.Top = legendTop
		row[i] = p
	}
	body := draw.Crop(dc, 0, 0, 0, -titleH)
	canvases := plot.Align([][]*plot.Plot{row}, draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Millimeter * 4, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4, PadBottom: vg.Millimeter * 2}, body)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	sty := plot.New().Title.TextStyle
	sty.Font.Size = vg.Points(14)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YCenter
	dc.FillText(sty, vg.Point{X: width / 2, Y: height - titleH/2}, title)

	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	}, nil)
}

// iterationTicks are plot's default ticks restricted to whole iterations and
// labeled without decimals.
type iterationTicks struct{}

// Ticks implements plot.Ticker.
func (iterationTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
		}
		out = append(out, t)
	}
	return out
}

// FigurePrefix turns a data set name (possibly a file path) into a file
// name prefix.
func FigurePrefix(name string) string {
	name = strings.TrimPrefix(name, clifile.EmbeddedPrefix)
	base := filepath.Base(name)
	for _, ext := range []string{".gz", ".txt", ".data", ".conll", ".crfsuite"} {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, base)
}
