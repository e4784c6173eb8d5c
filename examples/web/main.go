// Command web serves a page that runs the tagger in the browser, compiled to
// WebAssembly: nothing is sent to a server, nothing is downloaded after the
// page has loaded. The page has two panels:
//
//   - Handwriting: a pad of 16 x 8 letter cells (the images of the OCR data
//     set of Taskar et al. 2003) where you draw a word letter by letter, and
//     see the word the chain recognizes, each letter's top alternatives with
//     their marginal probabilities as a heat map, the n-best words, and the
//     letters read one at a time (the model's transitions zeroed), which
//     shows what the chain's transitions changed;
//   - Text: a sentence tagged as you type by a chunker over words (CoNLL-2000
//     chunks), with every token's label and marginal and the n-best list,
//     and the text's spans (tagger tag --format document --output spans:
//     the text split into sentences, each chunk with its offsets in code
//     points and bytes and its confidence).
//
// Both panels choose among the embedded models (models/, trained with this
// toolkit by the recipes in models.go) and any model file you load in the
// page (ours, CRFsuite's, CRF++'s or Wapiti's): the file is read with
// FileReader, never uploaded.
//
// Run it from the repository root (it builds the WebAssembly module with the
// go command, GOOS=js GOARCH=wasm, which takes a few seconds the first time):
//
//	go run ./examples/web                        # http://127.0.0.1:8080/
//	go run ./examples/web -addr 127.0.0.1:9000
//	go run ./examples/web -out /tmp/site         # write the static site and exit
//	python3 -m http.server -d /tmp/site 8000     # ... and serve it with any static file server
//
// The site is index.html, app.js and style.css (static/), wasm_exec.js from
// $(go env GOROOT)/lib/wasm, tagger.wasm (package examples/web/wasm, whose
// documentation lists the JavaScript functions), the model files with their
// list models.json, and samples.json (words of the OCR test fold for the
// "sample word" button).
//
// Tests: `go test ./examples/web/...` checks the embedded models against
// their recipes (TestModelsCurrent; -update retrains them) and runs the page
// in headless Chromium when /usr/bin/chromium (or $CHROMIUM) exists
// (TestBrowser: draws an OCR word through mouse events, types a sentence and
// compares what the page shows with the native tagger; -screenshots rewrites
// the PNG files shown in docs/browser.md). The bindings themselves are tested under
// Node, against the native tagger's results:
//
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./examples/web/wasm
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

// run parses the flags, builds the site and serves it until ctx is done
// (or writes it with -out).
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	out := fs.String("out", "", "write the static site into this directory and exit")
	var o siteOptions
	fs.StringVar(&o.Go, "go", "go", "the go command that builds the wasm")
	fs.StringVar(&o.Wasm, "wasm", "", "a prebuilt tagger.wasm (GOOS=js GOARCH=wasm go build ./examples/web/wasm) instead of building it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q (use flags)", fs.Args())
	}
	logger := log.New(stderr, "web: ", log.LstdFlags)
	s, err := buildSite(ctx, o)
	if err != nil {
		return err
	}
	logger.Printf("tagger.wasm: %.2f MB, %.2f MB gzipped%s", float64(s.WasmBytes)/1e6, float64(s.WasmGzipBytes)/1e6, built(s.BuildTime))
	if *out != "" {
		if err := s.WriteDir(*out); err != nil {
			return err
		}
		logger.Printf("wrote the site to %s", *out)
		return nil
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	logger.Printf("serving on http://%s/", ln.Addr())
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          logger,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

func built(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(", built in %.1fs", d.Seconds())
}
