//go:build js && wasm

package main

// These tests run under Node with Go's go_js_wasm_exec (see the package
// documentation of examples/web for the command). They call the bindings as
// JavaScript does, through globalThis.sparsetag, and compare what comes back
// with the native tagger's results in examples/web/webtag/testdata/golden.json.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/examples/web/webtag"
	"github.com/sparsetag/sparsetag/examples/web/webtag/webtagtest"
)

// root is the repository root, seen from this package's directory.
const root = "../../.."

var api js.Value

func TestMain(m *testing.M) {
	register(js.Global())
	api = js.Global().Get("sparsetag")
	os.Exit(m.Run())
}

// load loads a model file through the bindings.
func load(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	bytes := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(bytes, data)
	var info map[string]any
	decode(t, api.Call("load", filepath.Base(path), bytes), &info)
	return info
}

// decode turns a value returned by the bindings into v, failing on an Error.
func decode(t *testing.T, val js.Value, v any) {
	t.Helper()
	if val.InstanceOf(js.Global().Get("Error")) {
		t.Fatalf("error: %s", val.Get("message").String())
	}
	s := js.Global().Get("JSON").Call("stringify", val).String()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v in %.200s", err, s)
	}
}

// jsValue returns v as a plain JavaScript value, pixels as arrays of
// numbers (as the page sends them; JSON would make base64 strings of them).
func jsValue(v any) any {
	switch v := v.(type) {
	case *webtag.Input:
		o := map[string]any{}
		switch {
		case v.Pixels != nil:
			letters := make([]any, len(v.Pixels))
			for i, im := range v.Pixels {
				px := make([]any, len(im))
				for j, p := range im {
					px[j] = int(p)
				}
				letters[i] = px
			}
			o["pixels"] = letters
		case v.Tokens != nil:
			rows := make([]any, len(v.Tokens))
			for i, cols := range v.Tokens {
				cs := make([]any, len(cols))
				for j, c := range cols {
					cs[j] = c
				}
				rows[i] = cs
			}
			o["tokens"] = rows
		default:
			o["text"] = v.Text
		}
		return o
	case webtag.Options:
		return map[string]any{"nbest": v.NBest, "independent": v.Independent}
	}
	panic("jsValue: unexpected type")
}

// flatPixels returns the letters as one Uint8Array.
func flatPixels(pixels [][]byte) js.Value {
	var flat []byte
	for _, im := range pixels {
		flat = append(flat, im...)
	}
	bytes := js.Global().Get("Uint8Array").New(len(flat))
	js.CopyBytesToJS(bytes, flat)
	return bytes
}

// TestGolden tags every fixture through the bindings and compares with the
// native tagger: the same labels and n-best paths, and the same marginals,
// probabilities and scores within webtagtest.Tolerance.
func TestGolden(t *testing.T) {
	g, err := webtagtest.ReadGolden(root)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, c := range g.Cases {
		id, ok := ids[c.Model]
		if !ok {
			info := load(t, c.Model)
			id = int(info["id"].(float64))
			ids[c.Model] = id
		}
		var got []*webtag.Result
		if c.Input != nil {
			var r webtag.Result
			decode(t, api.Call("tag", id, jsValue(c.Input), jsValue(c.Options)), &r)
			got = []*webtag.Result{&r}
			if c.Input.Pixels != nil {
				// The same letters as one Uint8Array, as the page passes them.
				var r webtag.Result
				decode(t, api.Call("tag", id, map[string]any{"pixels": flatPixels(c.Input.Pixels)}, jsValue(c.Options)), &r)
				got = append(got, &r)
			}
		} else {
			decode(t, api.Call("tagData", id, c.Format, c.Data, jsValue(c.Options)), &got)
		}
		want := c.Results
		if len(got) == 2 && len(want) == 1 {
			want = append(want, want[0]) // arrays of numbers, then one Uint8Array
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d results, want %d", c.Name, len(got), len(want))
		}
		for k := range got {
			if err := webtagtest.Compare(want[k], got[k]); err != nil {
				t.Errorf("%s, sequence %d: %v", c.Name, k+1, err)
			}
		}
	}
	if len(ids) < 6 {
		t.Errorf("only %d models in the golden file", len(ids))
	}
}

// TestInfo checks what load returns for each kind of model.
func TestInfo(t *testing.T) {
	for _, tc := range []struct {
		path, format, input string
		labels              int
	}{
		{"examples/web/models/ocr.model.gz", "sparsetag", "pixels", 26},
		{"examples/web/models/chunk-words.model.gz", "sparsetag", "columns", 20},
		{"peer/testdata/conll.crfsuite.gz", "CRFsuite", "attributes", 20},
		{"peer/testdata/conll.crfpp.gz", "CRF++ binary", "columns", 20},
		{"peer/testdata/conll.wapiti.gz", "Wapiti", "columns", 20},
	} {
		info := load(t, tc.path)
		if info["format"] != tc.format || info["input"] != tc.input || len(info["labels"].([]any)) != tc.labels {
			t.Errorf("%s: info %v", tc.path, info)
		}
		id := info["id"].(float64)
		if !api.Call("unload", id).Bool() || api.Call("unload", id).Bool() {
			t.Errorf("%s: unload: want true, then false", tc.path)
		}
	}
}

// TestErrors checks that failures come back as Error objects.
func TestErrors(t *testing.T) {
	id := load(t, "examples/web/models/chunk-words.model.gz")["id"]
	isError := func(v js.Value, want string) {
		t.Helper()
		if !v.InstanceOf(js.Global().Get("Error")) {
			t.Errorf("got %s, want an Error containing %q", js.Global().Get("JSON").Call("stringify", v), want)
			return
		}
		if msg := v.Get("message").String(); !strings.Contains(msg, want) {
			t.Errorf("error %q, want one containing %q", msg, want)
		}
	}
	isError(api.Call("load", "junk", js.Global().Get("Uint8Array").New(3)), "junk")
	isError(api.Call("load", "x"), "load(name, bytes)")
	isError(api.Call("load", "x", "not bytes"), "Uint8Array")
	isError(api.Call("tag", id, map[string]any{"pixels": []any{[]any{0, 1}}}), "not OCR letters")
	isError(api.Call("tag", id, map[string]any{"pixels": []any{[]any{0, 2}}}), "pixels[0]: pixel 1 is 2, want 0 or 1")
	isError(api.Call("tag", id, map[string]any{"pixels": []any{[]any{0, "x"}}}), "pixel 1 is NaN")
	isError(api.Call("tag", id, map[string]any{"pixels": []any{"0101"}}), "pixels[0]: want a Uint8Array or an array of numbers")
	isError(api.Call("tag", id, map[string]any{"pixels": "0101"}), "pixels: want an array of letters or a Uint8Array")
	isError(api.Call("tag", id, map[string]any{"pixels": js.Global().Get("Uint8Array").New(100)}), "100 bytes, not a multiple of 128")
	isError(api.Call("tag", id, map[string]any{"text": 3}), "text: want a string")
	isError(api.Call("tag", id, map[string]any{"tokens": "a b"}), "tokens")
	isError(api.Call("tag", id, map[string]any{"text": "a"}, map[string]any{"nbest": 1000}), "nbest 1000")
	isError(api.Call("tag", id, map[string]any{"text": "a"}, "three"), "options")
	isError(api.Call("tag", 12345, map[string]any{"text": "a"}), "no model 12345")
	isError(api.Call("tag", id, "text"), "tag(id, input, options)")
	isError(api.Call("tagData", id, "conll"), "tagData(")
	isError(api.Call("info", 12345), "no model")
}

// TestLatency logs what a call costs across the boundary (text and OCR
// word; `go test -v` shows it): the README's figures come from the browser,
// this is a cross-check under Node.
func TestLatency(t *testing.T) {
	g, err := webtagtest.ReadGolden(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		if c.Input == nil {
			continue
		}
		id := load(t, c.Model)["id"]
		in, opt := jsValue(c.Input), jsValue(c.Options)
		if c.Input.Pixels != nil {
			in = map[string]any{"pixels": flatPixels(c.Input.Pixels)}
		}
		const n = 200
		var inGo float64
		t0 := time.Now()
		for range n {
			r := api.Call("tag", id, in, opt)
			if r.InstanceOf(js.Global().Get("Error")) {
				t.Fatal(r.Get("message").String())
			}
			inGo += r.Get("millis").Float()
		}
		t.Logf("%s: %d positions, %.3f ms a call (%.3f ms decoding)", c.Name, len(c.Results[0].Labels), float64(time.Since(t0).Microseconds())/n/1000, inGo/n)
	}
}

// TestSpans: spans(id, text, scheme) answers the native Session.Spans.
func TestSpans(t *testing.T) {
	info := load(t, "examples/web/models/chunk-words.model.gz")
	id := int(info["id"].(float64))
	text := "Zoë Müller went to Zürich on Tuesday. He paid $5.50 for it."
	var got webtag.SpansResult
	decode(t, api.Call("spans", id, text, ""), &got)
	s := webtag.NewSession()
	data, err := os.ReadFile(filepath.Join(root, "examples/web/models/chunk-words.model.gz"))
	if err != nil {
		t.Fatal(err)
	}
	ninfo, err := s.Load("native", data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Spans(ninfo.ID, text, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spans) != len(want.Spans) || len(got.Sentences) != 2 {
		t.Fatalf("%d spans and %d sentences, want %d and 2", len(got.Spans), len(got.Sentences), len(want.Spans))
	}
	for k := range want.Spans {
		g, w := got.Spans[k], want.Spans[k]
		if g.Offsets != w.Offsets || g.Label != w.Label || g.Text != w.Text || g.Confidence != w.Confidence {
			t.Errorf("span %d: %+v, want %+v", k, g, w)
		}
	}
	if v := api.Call("spans", id, text, "ioe"); !v.InstanceOf(js.Global().Get("Error")) {
		t.Error("an unknown scheme gives no Error")
	}
}
