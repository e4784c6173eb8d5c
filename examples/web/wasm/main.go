//go:build js && wasm

// Command wasm is the tagger built for WebAssembly: it puts an object
// sparsetag on globalThis whose functions load models and tag sequences
// (package examples/web/webtag), then waits for calls. Build it with
//
//	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o tagger.wasm ./examples/web/wasm
//
// and run it with wasm_exec.js from $(go env GOROOT)/lib/wasm (the page of
// examples/web does; `go run ./examples/web` builds and serves both).
//
// The functions take and return plain JavaScript values. A Go callback
// cannot throw, so a failure is returned as an Error object: callers test
// `r instanceof Error`.
//
//	sparsetag.load(name, bytes)         // bytes: Uint8Array of a model file -> info {id, name, format, input, labels, columns, text, independent, bytes, loadMillis}
//	sparsetag.tag(id, input, options)   // input: {text} | {tokens: [[col, ...], ...]} | {pixels: [[128 × 0/1], ...]} | {pixels: Uint8Array(T × 128)}
//	                                    // options: {nbest, independent} -> {tokens, start, end, labels, score, prob, logZ, marginals, nbest, independent, millis}
//	sparsetag.tagData(id, format, data, options) // data: a file's contents ("conll", "crfsuite", "conllu", "ocr", "text"; "" for the model's) -> [result, ...]
//	sparsetag.spans(id, text, scheme)  // running text: sentences and chunks with offsets (UTF-16, code points, bytes) and confidences; scheme "" detects it
//	sparsetag.info(id)
//	sparsetag.unload(id)                // -> true if there was such a model
//
// When everything is in place it calls globalThis.onSparsetagReady(), if it
// is a function.
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"syscall/js"

	"github.com/sparsetag/sparsetag/examples/web/webtag"
	"github.com/sparsetag/sparsetag/features"
)

func main() {
	register(js.Global())
	if ready := js.Global().Get("onSparsetagReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // serve calls until the page goes away
}

// register sets global.sparsetag.
func register(global js.Value) {
	s := webtag.NewSession()
	api := js.Global().Get("Object").New()
	api.Set("load", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 2 || args[0].Type() != js.TypeString || !isBytes(args[1]) {
			return jsError("load(name, bytes): want a string and a Uint8Array")
		}
		data := make([]byte, args[1].Get("length").Int())
		js.CopyBytesToGo(data, args[1])
		info, err := s.Load(args[0].String(), data)
		return toJS(info, err)
	}))
	api.Set("tag", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 || args[0].Type() != js.TypeNumber || args[1].Type() != js.TypeObject {
			return jsError("tag(id, input, options): want a model id and an input object")
		}
		in, err := input(args[1])
		if err != nil {
			return jsError("tag: input: " + err.Error())
		}
		opt, err := options(args, 2)
		if err != nil {
			return jsError("tag: " + err.Error())
		}
		r, err := s.Tag(args[0].Int(), &in, opt)
		return toJS(r, err)
	}))
	api.Set("tagData", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 3 || args[0].Type() != js.TypeNumber || args[1].Type() != js.TypeString || args[2].Type() != js.TypeString {
			return jsError("tagData(id, format, data, options): want a model id and two strings")
		}
		opt, err := options(args, 3)
		if err != nil {
			return jsError("tagData: " + err.Error())
		}
		rs, err := s.TagData(args[0].Int(), args[1].String(), args[2].String(), opt)
		return toJS(rs, err)
	}))
	api.Set("spans", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 || args[0].Type() != js.TypeNumber || args[1].Type() != js.TypeString {
			return jsError("spans(id, text, scheme): want a model id and a string")
		}
		scheme := ""
		if len(args) > 2 && args[2].Type() == js.TypeString {
			scheme = args[2].String()
		}
		r, err := s.Spans(args[0].Int(), args[1].String(), scheme)
		return toJS(r, err)
	}))
	api.Set("info", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeNumber {
			return jsError("info(id): want a model id")
		}
		info, err := s.Info(args[0].Int())
		return toJS(info, err)
	}))
	api.Set("unload", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeNumber {
			return jsError("unload(id): want a model id")
		}
		return s.Unload(args[0].Int())
	}))
	api.Set("maxNBest", webtag.MaxNBest)
	global.Set("sparsetag", api)
}

// input reads the input object of tag. Letters are copied as typed
// arrays, not through JSON (a word is a thousand numbers): pixels is one
// Uint8Array of all the letters (128 bytes each, the fastest), or an array
// of letters, each a Uint8Array or an array of numbers 0 or 1.
func input(v js.Value) (in webtag.Input, err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("%v", e) // a value of the wrong type: syscall/js panics
		}
	}()
	if text := v.Get("text"); !text.IsUndefined() {
		if text.Type() != js.TypeString {
			return in, fmt.Errorf("text: want a string, got %s", text.Type())
		}
		in.Text = text.String()
	}
	if tokens := v.Get("tokens"); !tokens.IsUndefined() {
		if err := fromJS(tokens, &in.Tokens); err != nil {
			return in, fmt.Errorf("tokens: %w", err)
		}
		if in.Tokens == nil {
			in.Tokens = [][]string{}
		}
	}
	if pixels := v.Get("pixels"); !pixels.IsUndefined() {
		switch {
		case isBytes(pixels):
			// All the letters in one array: four calls across the boundary.
			flat := make([]byte, pixels.Length())
			js.CopyBytesToGo(flat, pixels)
			if len(flat)%features.PixelLength != 0 {
				return in, fmt.Errorf("pixels: %d bytes, not a multiple of %d", len(flat), features.PixelLength)
			}
			in.Pixels = make([][]byte, len(flat)/features.PixelLength)
			for i := range in.Pixels {
				in.Pixels[i] = flat[i*features.PixelLength : (i+1)*features.PixelLength]
			}
		case pixels.Type() == js.TypeObject && pixels.InstanceOf(js.Global().Get("Array")):
			in.Pixels = make([][]byte, pixels.Length())
			for i := range in.Pixels {
				if in.Pixels[i], err = letter(pixels.Index(i)); err != nil {
					return in, fmt.Errorf("pixels[%d]: %w", i, err)
				}
			}
		default:
			return in, fmt.Errorf("pixels: want an array of letters or a Uint8Array")
		}
	}
	return in, nil
}

// letter copies one letter: a Uint8Array as it is, an array of numbers
// through a Float64Array, each number checked to be 0 or 1.
func letter(v js.Value) ([]byte, error) {
	if v.Type() != js.TypeObject {
		return nil, fmt.Errorf("want a Uint8Array or an array of numbers, got %s", v.Type())
	}
	if isBytes(v) {
		b := make([]byte, v.Length())
		js.CopyBytesToGo(b, v)
		return b, nil
	}
	if !v.InstanceOf(js.Global().Get("Array")) {
		return nil, fmt.Errorf("want a Uint8Array or an array of numbers")
	}
	f := js.Global().Get("Float64Array").New(v)
	raw := make([]byte, 8*f.Length())
	js.CopyBytesToGo(raw, js.Global().Get("Uint8Array").New(f.Get("buffer")))
	b := make([]byte, len(raw)/8)
	for i := range b {
		switch x := math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])); x {
		case 0, 1:
			b[i] = byte(x)
		default:
			return nil, fmt.Errorf("pixel %d is %v, want 0 or 1", i, x)
		}
	}
	return b, nil
}

// options reads the optional options object args[i].
func options(args []js.Value, i int) (webtag.Options, error) {
	var opt webtag.Options
	if len(args) <= i || args[i].IsUndefined() || args[i].IsNull() {
		return opt, nil
	}
	if args[i].Type() != js.TypeObject {
		return opt, fmt.Errorf("options: want an object, got %s", args[i].Type())
	}
	if err := fromJS(args[i], &opt); err != nil {
		return opt, fmt.Errorf("options: %w", err)
	}
	return opt, nil
}

func isBytes(v js.Value) bool {
	return v.Type() == js.TypeObject && v.InstanceOf(js.Global().Get("Uint8Array"))
}

// fromJS decodes a JavaScript value into v through JSON: one call across
// the boundary instead of one per element.
func fromJS(val js.Value, v any) error {
	s := js.Global().Get("JSON").Call("stringify", val)
	if s.Type() != js.TypeString {
		return fmt.Errorf("not serializable")
	}
	return json.Unmarshal([]byte(s.String()), v)
}

// toJS returns v as a plain JavaScript value (through JSON), or err as an
// Error.
func toJS(v any, err error) any {
	if err != nil {
		return jsError(err.Error())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsError(err.Error())
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}

func jsError(msg string) js.Value {
	return js.Global().Get("Error").New(msg)
}
