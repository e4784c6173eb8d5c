package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/corpora"
)

//go:embed static
var staticFiles embed.FS

// wasmPackage is the package built for the page: the syscall/js bindings.
const wasmPackage = "github.com/sparsetag/sparsetag/examples/web/wasm"

// site is the page and everything it loads, by name (relative URL path).
type site struct {
	files map[string][]byte
	gz    map[string][]byte // gzip-compressed copies of the large files
	mod   time.Time
	// WasmBytes and WasmGzipBytes are the sizes of tagger.wasm;
	// BuildTime is how long building it took (0 for a given file).
	WasmBytes, WasmGzipBytes int
	BuildTime                time.Duration
}

// siteOptions says where the site's generated files come from.
type siteOptions struct {
	Go   string // the go command (builds the wasm, locates wasm_exec.js)
	Wasm string // a prebuilt tagger.wasm; "" builds it
}

// buildSite assembles the site: the embedded page and models, the sample
// words, wasm_exec.js of the Go toolchain and tagger.wasm, built with the go
// command (from the module this program belongs to: run it inside the
// repository) unless o.Wasm names one.
func buildSite(ctx context.Context, o siteOptions) (*site, error) {
	s := &site{files: map[string][]byte{}, gz: map[string][]byte{}, mod: time.Now()}
	err := fs.WalkDir(staticFiles, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFiles.ReadFile(p)
		s.files[strings.TrimPrefix(p, "static/")] = b
		return err
	})
	if err != nil {
		return nil, err
	}
	var manifest struct {
		Models []recipe `json:"models"`
	}
	for _, r := range recipes {
		b, err := modelFiles.ReadFile("models/" + r.File)
		if err != nil {
			return nil, err
		}
		s.files["models/"+r.File] = b
		manifest.Models = append(manifest.Models, r)
	}
	if s.files["models.json"], err = json.Marshal(manifest); err != nil {
		return nil, err
	}
	if s.files["samples.json"], err = sampleWords(); err != nil {
		return nil, err
	}

	goroot, err := goEnv(ctx, o.Go, "GOROOT")
	if err != nil {
		return nil, err
	}
	if s.files["wasm_exec.js"], err = os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js")); err != nil {
		return nil, fmt.Errorf("wasm_exec.js of the Go toolchain: %w", err)
	}
	wasm := o.Wasm
	if wasm == "" {
		dir, err := os.MkdirTemp("", "sparsetag-web-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		wasm = filepath.Join(dir, "tagger.wasm")
		t0 := time.Now()
		if err := buildWasm(ctx, o.Go, wasm); err != nil {
			return nil, err
		}
		s.BuildTime = time.Since(t0)
	}
	if s.files["tagger.wasm"], err = os.ReadFile(wasm); err != nil {
		return nil, err
	}
	for _, name := range []string{"tagger.wasm", "wasm_exec.js"} {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(s.files[name])
		if err := zw.Close(); err != nil {
			return nil, err
		}
		s.gz[name] = buf.Bytes()
	}
	s.WasmBytes, s.WasmGzipBytes = len(s.files["tagger.wasm"]), len(s.gz["tagger.wasm"])
	return s, nil
}

// buildWasm builds the bindings for GOOS=js GOARCH=wasm into out, without
// symbols and DWARF (a smaller download; panics still name functions).
func buildWasm(ctx context.Context, goCmd, out string) error {
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags=-s -w", "-o", out, wasmPackage)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the wasm (GOOS=js GOARCH=wasm %s; run inside the repository, or give -wasm): %v\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	return nil
}

// goEnv returns `go env NAME`.
func goEnv(ctx context.Context, goCmd, name string) (string, error) {
	b, err := exec.CommandContext(ctx, goCmd, "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("%s env %s: %w", goCmd, name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// numSamples is the number of OCR words of the page's "sample word" button.
const numSamples = 40

// sampleWords returns the first numSamples distinct words of the OCR
// test fold (fold 0, which no embedded model was trained on) as JSON:
// [{"word": "ommanding", "letters": ["0110...", ...]}, ...], each letter
// 128 characters '0' or '1', row-major.
func sampleWords() ([]byte, error) {
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: []int{0}})
	if err != nil {
		return nil, err
	}
	type sample struct {
		Word    string   `json:"word"`
		Letters []string `json:"letters"`
	}
	var out []sample
	seen := map[string]bool{}
	for _, w := range words {
		word := strings.Join(w.Labels, "")
		if seen[word] || len(w.Pixels) > maxLetters {
			continue
		}
		seen[word] = true
		s := sample{Word: word}
		for _, im := range w.Pixels {
			b := make([]byte, len(im))
			for i, p := range im {
				b[i] = '0' + p
			}
			s.Letters = append(s.Letters, string(b))
		}
		if out = append(out, s); len(out) == numSamples {
			break
		}
	}
	return json.Marshal(out)
}

// maxLetters is the most letters the pad holds (app.js MAX_LETTERS).
const maxLetters = 16

// WriteDir writes the site into dir, for any static file server.
func (s *site) WriteDir(dir string) error {
	for name, b := range s.files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// contentSecurityPolicy keeps the page to its own files: no external
// script, style, font or connection, and WebAssembly compilation allowed.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'"

// ServeHTTP serves the site's files, gzip-compressed when the client
// accepts it and a compressed copy exists.
func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	b, ok := s.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	ctype := mime.TypeByExtension(path.Ext(name))
	if strings.HasSuffix(name, ".model.gz") || ctype == "" {
		ctype = "application/octet-stream" // model files are read as they are, never decoded by the browser
	}
	h.Set("Content-Type", ctype)
	if zb, ok := s.gz[name]; ok {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			b = zb
		}
	}
	http.ServeContent(w, r, name, s.mod, bytes.NewReader(b))
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
