package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/examples/web/webtag"
	"github.com/sparsetag/sparsetag/features"
)

var screenshots = flag.Bool("screenshots", false, "rewrite screenshot-handwriting.png and screenshot-text.png (TestBrowser)")

// chromium returns the browser TestBrowser runs: $CHROMIUM, or chromium on
// the PATH.
func chromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// testSite builds the site once for the tests of this package.
var testSite = sync.OnceValues(func() (*site, error) {
	return buildSite(context.Background(), siteOptions{Go: "go"})
})

// TestSiteServes checks the server: every file, gzip where accepted, the
// content types and the security policy.
func TestSiteServes(t *testing.T) {
	s, err := testSite()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, tc := range []struct {
		path, ctype string
		gzip        bool
	}{
		{"/", "text/html; charset=utf-8", false},
		{"/app.js", "text/javascript; charset=utf-8", false},
		{"/style.css", "text/css; charset=utf-8", false},
		{"/wasm_exec.js", "text/javascript; charset=utf-8", true},
		{"/tagger.wasm", "application/wasm", true},
		{"/models.json", "application/json", false},
		{"/samples.json", "application/json", false},
		{"/models/ocr.model.gz", "application/octet-stream", false},
	} {
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := srv.Client().Transport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.ctype ||
			(resp.Header.Get("Content-Encoding") == "gzip") != tc.gzip || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("%s: %d %q encoding %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"))
		}
	}
	for path, want := range map[string]int{"/nothing": 404, "/../main.go": 404} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
	resp, err := http.Post(srv.URL+"/", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", resp.StatusCode)
	}
	// The page loads nothing from elsewhere.
	for _, name := range []string{"index.html", "app.js", "style.css"} {
		if b := s.files[name]; bytes.Contains(b, []byte("http://")) || bytes.Contains(b, []byte("https://")) || bytes.Contains(b, []byte("//cdn")) {
			t.Errorf("%s names an external address", name)
		}
	}
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "tagger.wasm", "wasm_exec.js", "models/chunk-words.model.gz", "models.json"} {
		if _, err := os.Stat(dir + "/" + name); err != nil {
			t.Error(err)
		}
	}
}

// TestBrowser loads the page in headless Chromium, draws a word of the OCR
// test fold into the pad with mouse events, types a sentence into the text
// box key by key, and checks what the page shows against the native
// tagger. It logs the load time and the tagging latency in the page.
func TestBrowser(t *testing.T) {
	path, err := chromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no chromium on the CI machine: .ci/run installs it before the tests")
		}
		skipAloud(t, "no chromium on this machine (apt-get install chromium, or set $CHROMIUM): the end-to-end test needs it; .ci/run installs it")
	}
	if testing.Short() {
		t.Skip("builds the wasm and starts a browser")
	}
	s, err := testSite()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	t.Logf("tagger.wasm %d bytes, %d gzipped", s.WasmBytes, s.WasmGzipBytes)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := startBrowser(t, path)
	var logMu sync.Mutex
	var pageErrors []string
	b.setEventHandler(func(method string, params json.RawMessage) {
		switch method {
		case "Runtime.exceptionThrown", "Log.entryAdded", "Runtime.consoleAPICalled":
			logMu.Lock()
			pageErrors = append(pageErrors, method+": "+string(params))
			logMu.Unlock()
		}
	})
	p, err := b.newPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 2000, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": srv.URL + "/"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.waitFor(ctx, `window.app && (app.ready || app.error)`); err != nil {
		logMu.Lock()
		for _, e := range pageErrors {
			t.Logf("page: %.500s", e)
		}
		logMu.Unlock()
		var status string
		p.eval(context.Background(), `location.href + ': ' + document.body.innerText`, &status)
		t.Fatalf("%v\n%.1000s", err, status)
	}
	var started struct {
		Error   string
		Timings map[string]float64
		Status  string
	}
	if err := p.eval(ctx, `({error: app.error || '', timings: app.timings, status: document.getElementById('status').textContent})`, &started); err != nil {
		t.Fatal(err)
	}
	if started.Error != "" {
		t.Fatalf("the page failed: %s", started.Error)
	}
	t.Logf("page: %s", started.Status)
	t.Logf("timings: %v", started.Timings)
	var loads [][2]any
	if err := p.eval(ctx, `app.models.map((m) => [m.info.name, m.info.loadMillis])`, &loads); err != nil {
		t.Fatal(err)
	}
	t.Logf("model files parsed in the page (ms): %v", loads)

	native := webtag.NewSession()
	ids := map[string]int{}
	for _, r := range recipes {
		data, err := modelFiles.ReadFile("models/" + r.File)
		if err != nil {
			t.Fatal(err)
		}
		info, err := native.Load(r.File, data)
		if err != nil {
			t.Fatal(err)
		}
		ids[r.File] = info.ID
	}

	t.Run("handwriting", func(t *testing.T) { checkHandwriting(ctx, t, p, native, ids[recipes[0].File]) })
	t.Run("text", func(t *testing.T) { checkText(ctx, t, p, native, ids["chunk-words.model.gz"]) })
	t.Run("latency", func(t *testing.T) { measureLatency(ctx, t, p) })
	t.Run("load a file", func(t *testing.T) { checkLoadFile(ctx, t, p, native, ids["ocr-pixels.model.gz"]) })

	if *screenshots {
		if err := p.eval(ctx, `document.getElementById('pad').scrollLeft = 0, scrollTo(0, 0), true`, nil); err != nil {
			t.Fatal(err)
		}
		for _, shot := range []struct{ id, file string }{
			{"ocr-panel", "screenshot-handwriting.png"},
			{"text-panel", "screenshot-text.png"},
		} {
			var rect struct{ X, Y, W, H float64 }
			if err := p.eval(ctx, `(() => { const r = document.getElementById('`+shot.id+`').getBoundingClientRect();
				return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; })()`, &rect); err != nil {
				t.Fatal(err)
			}
			img, err := p.screenshot(ctx, rect.X-8, rect.Y-8, rect.W+16, rect.H+16)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(bytes.NewReader(img)); err != nil {
				t.Fatalf("%s: %v", shot.file, err)
			}
			if err := os.WriteFile(shot.file, img, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d bytes)", shot.file, len(img))
		}
	}
	t.Run("static", func(t *testing.T) { checkStatic(ctx, t, p, s, native, ids["chunk-words.model.gz"]) })

	logMu.Lock()
	defer logMu.Unlock()
	for _, e := range pageErrors {
		if strings.Contains(e, `"level":"error"`) || strings.HasPrefix(e, "Runtime.exceptionThrown") {
			t.Errorf("the page reported: %.300s", e)
		}
	}
}

// e2eWord is the word of the OCR test fold that the test draws (word 1 of
// fold 0, "ommanding"): one where the embedded model reads two letters
// wrong one at a time ("ommaudlng") and the chain's transitions put them
// right.
const e2eWord = 1

// checkHandwriting draws a word of fold 0 into the pad, pixel row by pixel
// row, each run of lit pixels one drag of the mouse, then compares the
// page's pad with the image and what it shows with the native tagger.
func checkHandwriting(ctx context.Context, t *testing.T, p *page, native *webtag.Session, id int) {
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	word := words[e2eWord]
	truth := strings.Join(word.Labels, "")
	if err := p.eval(ctx, `document.getElementById('ocr-clear').click(), document.getElementById('ocr-panel').scrollIntoView(), true`, nil); err != nil {
		t.Fatal(err)
	}
	for i, im := range word.Pixels {
		// The box of letter i appears once letter i-1 has ink.
		if err := p.waitFor(ctx, fmt.Sprintf(`document.querySelectorAll('.letter canvas').length > %d`, i)); err != nil {
			t.Fatal(err)
		}
		var rect struct{ X, Y, W, H float64 }
		if err := p.eval(ctx, fmt.Sprintf(`(() => { const c = document.querySelectorAll('.letter canvas')[%d]; c.scrollIntoView({inline: 'nearest', block: 'nearest'});
			const r = c.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })()`, i), &rect); err != nil {
			t.Fatal(err)
		}
		at := func(r, c int) (float64, float64) {
			return rect.X + (float64(c)+0.5)*rect.W/features.PixelCols, rect.Y + (float64(r)+0.5)*rect.H/features.PixelRows
		}
		const cols = features.PixelCols
		for r := range features.PixelRows {
			for c := 0; c < cols; c++ {
				if im[r*cols+c] == 0 {
					continue
				}
				end := c
				for end+1 < cols && im[r*cols+end+1] == 1 {
					end++
				}
				x0, y0 := at(r, c)
				x1, y1 := at(r, end)
				for _, ev := range []struct {
					typ  string
					x, y float64
				}{{"mousePressed", x0, y0}, {"mouseMoved", x1, y1}, {"mouseReleased", x1, y1}} {
					if err := p.mouse(ctx, ev.typ, ev.x, ev.y); err != nil {
						t.Fatal(err)
					}
				}
				c = end
			}
		}
	}
	n := len(word.Pixels)
	// The page reads the pad at the next animation frame after a stroke:
	// let two frames pass, so that what it shows is the whole word's.
	if err := p.eval(ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.waitFor(ctx, fmt.Sprintf(`app.ocr.result && app.ocr.result.labels.length === %d`, n)); err != nil {
		t.Fatal(err)
	}
	var pad []string
	if err := p.eval(ctx, `app.ocr.letters.map((c) => Array.from(c.pixels).join(''))`, &pad); err != nil {
		t.Fatal(err)
	}
	if len(pad) != n+1 || strings.Contains(pad[n], "1") {
		t.Fatalf("the pad has %d boxes, want the %d letters and an empty one", len(pad), n)
	}
	for i, im := range word.Pixels {
		want := make([]byte, len(im))
		for j, v := range im {
			want[j] = '0' + v
		}
		if pad[i] != string(want) {
			t.Errorf("letter %d on the pad differs from the image drawn:\n%s\nwant\n%s", i+1, grid(pad[i]), grid(string(want)))
		}
	}

	want, err := native.Tag(id, &webtag.Input{Pixels: word.Pixels}, webtag.Options{NBest: 5, Independent: true})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := native.Info(id)
	var shown struct {
		Word, Alone string
		Letters     []struct {
			Best, P, Alone string
			Alts           [][2]string
		}
		NBest []string
	}
	if err := p.eval(ctx, `(() => {
		const q = (s) => document.querySelector(s);
		return {
			word: q('#ocr-word').textContent,
			alone: q('#ocr-alone').textContent,
			letters: [...document.querySelectorAll('.letter')].filter((b) => !b.classList.contains('empty')).map((b) => ({
				best: b.querySelector('.best').textContent,
				p: b.querySelector('.best-p').textContent,
				alone: b.querySelector('.alone').dataset.label || '',
				alts: [...b.querySelectorAll('.alts li')].map((li) => [li.dataset.label, li.lastChild.textContent]),
			})),
			nbest: [...document.querySelectorAll('#ocr-nbest li')].map((li) => li.textContent),
		};
	})()`, &shown); err != nil {
		t.Fatal(err)
	}
	t.Logf("drawn %q: the page reads %q, letters alone %q", truth, shown.Word, shown.Alone)
	if shown.Word != truth || shown.Alone == truth {
		t.Errorf("the chain reads %q and the letters alone %q: the demonstration wants the chain right and the letters alone wrong (choose another e2eWord after retraining)", shown.Word, shown.Alone)
	}
	if shown.Word != strings.Join(want.Labels, "") || shown.Alone != strings.Join(want.Independent.Labels, "") {
		t.Errorf("page shows %q and alone %q, native %q and %q", shown.Word, shown.Alone, strings.Join(want.Labels, ""), strings.Join(want.Independent.Labels, ""))
	}
	if len(shown.Letters) != n {
		t.Fatalf("%d letters shown, want %d", len(shown.Letters), n)
	}
	for i, l := range shown.Letters {
		row := want.Marginals[i]
		y := slices.Index(info.Labels, want.Labels[i])
		if l.Best != want.Labels[i] || !shownAs(l.P, row[y]) || l.Alone != want.Independent.Labels[i] {
			t.Errorf("letter %d: shown %q %s alone %q, native %q %.4f alone %q", i+1, l.Best, l.P, l.Alone, want.Labels[i], row[y], want.Independent.Labels[i])
		}
		top := topLabels(row, 5)
		if len(l.Alts) != len(top) {
			t.Fatalf("letter %d: %d alternatives shown", i+1, len(l.Alts))
		}
		for k, a := range l.Alts {
			if a[0] != info.Labels[top[k]] || !shownAs(a[1], row[top[k]]) {
				t.Errorf("letter %d alternative %d: shown %s %s, native %s %.4f", i+1, k+1, a[0], a[1], info.Labels[top[k]], row[top[k]])
			}
		}
	}
	if len(shown.NBest) != len(want.NBest) {
		t.Fatalf("%d n-best words shown, want %d", len(shown.NBest), len(want.NBest))
	}
	for k, s := range shown.NBest {
		w := strings.Join(want.NBest[k].Labels, "")
		if !strings.HasPrefix(s, w) || !shownAs(strings.TrimPrefix(s, w), want.NBest[k].Prob) {
			t.Errorf("n-best %d: shown %q, native %s %.4f", k+1, s, w, want.NBest[k].Prob)
		}
	}
}

// e2eSentence is typed into the text box.
const e2eSentence = "Rockwell said the agreement calls for it to supply 200 additional so-called shipsets for the planes."

// checkText types a sentence key by key and compares the table, the chunks
// and the n-best list with the native tagger.
func checkText(ctx context.Context, t *testing.T, p *page, native *webtag.Session, id int) {
	if err := p.eval(ctx, `(() => { const i = document.getElementById('text-input'); i.value = ''; i.dispatchEvent(new Event('input')); i.focus(); i.scrollIntoView(); return true; })()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.typeText(ctx, e2eSentence); err != nil {
		t.Fatal(err)
	}
	if err := p.waitFor(ctx, `document.getElementById('text-input').value === `+strconv.Quote(e2eSentence)+` && app.text.result`); err != nil {
		t.Fatal(err)
	}
	want, err := native.Tag(id, &webtag.Input{Text: e2eSentence}, webtag.Options{NBest: 5})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := native.Info(id)
	var shown struct {
		Rows   [][]string
		Chunks []string
		NBest  []string
	}
	if err := p.eval(ctx, `({
		rows: [...document.querySelectorAll('#text-table tbody tr')].map((tr) => [...tr.cells].slice(0, 3).map((c) => c.textContent)),
		chunks: [...document.querySelectorAll('#text-chunks .chunk')].map((c) => c.textContent),
		nbest: [...document.querySelectorAll('#text-nbest li')].map((li) => li.textContent),
	})`, &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Rows) != len(want.Tokens) {
		t.Fatalf("%d tokens shown, native %d", len(shown.Rows), len(want.Tokens))
	}
	for i, row := range shown.Rows {
		y := slices.Index(info.Labels, want.Labels[i])
		if row[0] != want.Tokens[i] || row[1] != want.Labels[i] || !shownAs(row[2], want.Marginals[i][y]) {
			t.Errorf("token %d: shown %q, native %s %s %.4f", i+1, row, want.Tokens[i], want.Labels[i], want.Marginals[i][y])
		}
	}
	// The chunks as shown: the words of each chunk followed by its type (an
	// I- label continues a chunk of its type, or starts one), words
	// outside chunks alone.
	var chunks []string
	for i, l := range want.Labels {
		word := e2eSentence[want.Start[i]:want.End[i]] // ASCII: UTF-16 offsets are byte offsets
		switch {
		case l == "O":
			chunks = append(chunks, word)
		case strings.HasPrefix(l, "I-") && i > 0 && want.Labels[i-1] != "O" && want.Labels[i-1][2:] == l[2:]:
			chunks[len(chunks)-1] = strings.TrimSuffix(chunks[len(chunks)-1], l[2:]) + " " + word + l[2:]
		default:
			chunks = append(chunks, word+l[2:])
		}
	}
	if !slices.Equal(shown.Chunks, chunks) {
		t.Errorf("chunks shown %q, native %q", shown.Chunks, chunks)
	}
	t.Logf("typed %q: %s", e2eSentence, strings.Join(shown.Chunks, " | "))
	if len(shown.NBest) != len(want.NBest) {
		t.Fatalf("%d n-best sequences shown, native %d", len(shown.NBest), len(want.NBest))
	}
	for k, s := range shown.NBest {
		w := strings.Join(want.NBest[k].Labels, " ")
		if !strings.HasPrefix(s, w) || !shownAs(strings.TrimPrefix(s, w), want.NBest[k].Prob) {
			t.Errorf("n-best %d: shown %q, native %s %.4f", k+1, s, w, want.NBest[k].Prob)
		}
	}
}

// checkLoadFile gives the page's file input a model file (the lit-pixel
// OCR model, as a user would pick it) and checks that the page reads it,
// selects it in the handwriting panel and reads the drawn word with it as
// the native tagger does.
func checkLoadFile(ctx context.Context, t *testing.T, p *page, native *webtag.Session, id int) {
	path, err := filepath.Abs("models/ocr-pixels.model.gz")
	if err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": `document.getElementById('model-file')`}, &obj); err != nil {
		t.Fatal(err)
	}
	if err := p.call(ctx, "DOM.setFileInputFiles", map[string]any{"files": []string{path}, "objectId": obj.Result.ObjectID}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.waitFor(ctx, `document.getElementById('file-status').textContent.includes('ocr-pixels.model.gz')`); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status, Selected, Word string
		Letters                [][]byte
	}
	if err := p.eval(ctx, `({status: document.getElementById('file-status').textContent,
		selected: document.getElementById('ocr-model').selectedOptions[0].textContent,
		word: document.getElementById('ocr-word').textContent,
		letters: app.ocr.letters.filter((c) => c.pixels.some((v) => v)).map((c) => Array.from(c.pixels))})`, &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("file input: %s", got.Status)
	if got.Selected != "ocr-pixels.model.gz" || !strings.Contains(got.Status, "sparsetag model, 26 labels") {
		t.Errorf("after loading a file the page says %q and selects %q", got.Status, got.Selected)
	}
	want, err := native.Tag(id, &webtag.Input{Pixels: got.Letters}, webtag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Word != strings.Join(want.Labels, "") {
		t.Errorf("with the loaded model the page reads %q, native %q", got.Word, strings.Join(want.Labels, ""))
	}
}

// checkStatic serves the site as -out writes it with a plain static file
// server (http.FileServer: no compression, no security policy) and checks
// that the page starts and tags its default sentence as the native tagger.
func checkStatic(ctx context.Context, t *testing.T, p *page, s *site, native *webtag.Session, id int) {
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": srv.URL + "/"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.waitFor(ctx, `window.app && (app.ready || app.error) && location.href.startsWith(`+strconv.Quote(srv.URL)+`)`); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Error  string
		Text   string
		Labels []string
	}
	if err := p.eval(ctx, `({error: app.error || '', text: document.getElementById('text-input').value,
		labels: [...document.querySelectorAll('#text-table tbody tr')].map((tr) => tr.cells[1].textContent)})`, &got); err != nil {
		t.Fatal(err)
	}
	if got.Error != "" {
		t.Fatalf("the page failed from a static server: %s", got.Error)
	}
	want, err := native.Tag(id, &webtag.Input{Text: got.Text}, webtag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Labels, want.Labels) {
		t.Errorf("from a static server the page shows %q, native %q", got.Labels, want.Labels)
	}
}

// measureLatency times the bindings in the page: the sentence and the word
// drawn above, 200 calls each after 20 to warm up; the median and the 90th
// percentile go to the log (the figures of docs/browser.md).
func measureLatency(ctx context.Context, t *testing.T, p *page) {
	var m map[string][]float64
	err := p.eval(ctx, `(() => {
		const time = (f) => { for (let i = 0; i < 20; i++) f(); const ts = [];
			for (let i = 0; i < 200; i++) { const t0 = performance.now(); f(); ts.push(performance.now() - t0); } return ts; };
		const letters = app.ocr.letters.filter((c) => c.pixels.some((v) => v)), ocr = new Uint8Array(letters.length * 128);
		letters.forEach((c, t) => ocr.set(c.pixels, t * 128));
		const text = document.getElementById('text-input').value;
		return {
			word: time(() => sparsetag.tag(app.ocr.modelId, {pixels: ocr}, {nbest: 5, independent: true})),
			wordLabels: time(() => sparsetag.tag(app.ocr.modelId, {pixels: ocr})),
			sentence: time(() => sparsetag.tag(app.text.modelId, {text}, {nbest: 5})),
			sentenceLabels: time(() => sparsetag.tag(app.text.modelId, {text})),
		};
	})()`, &m)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ts := m[k]
		sort.Float64s(ts)
		t.Logf("tag %-15s median %.3f ms, p90 %.3f ms (%d calls; browser timer resolution applies)", k, ts[len(ts)/2], ts[len(ts)*9/10], len(ts))
	}
}

// shownAs reports whether s, a probability shown with 3 decimals, is p.
func shownAs(s string, p float64) bool {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && math.Abs(v-p) <= 0.0005+1e-9
}

// topLabels returns the k labels of largest marginal, largest first, ties
// to the lower index (as app.js's top).
func topLabels(row []float64, k int) []int {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
	return idx[:min(k, len(idx))]
}

// grid draws a letter of 128 '0'/'1' characters as 16 lines.
func grid(s string) string {
	var b strings.Builder
	for r := 0; r < 16 && (r+1)*8 <= len(s); r++ {
		b.WriteString(strings.NewReplacer("0", ".", "1", "#").Replace(s[r*8 : (r+1)*8]))
		b.WriteByte('\n')
	}
	return b.String()
}

// skipAloud skips t and also says why on the terminal, when there is one:
// go test ./... shows nothing of a package whose tests pass, so a skipped
// end-to-end test would otherwise go unnoticed.
func skipAloud(t *testing.T, why string) {
	t.Helper()
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		fmt.Fprintf(tty, "note: examples/web %s skipped: %s\n", t.Name(), why)
		tty.Close()
	}
	t.Skip(why)
}
