package main

// A minimal client of the Chrome DevTools Protocol over a pipe
// (--remote-debugging-pipe: the browser reads commands on its fd 3 and writes
// replies and events on its fd 4, each a JSON object ended by a NUL byte),
// enough for TestBrowser: no dependency, no WebSocket, no port.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// browser is a headless Chromium driven over the pipe.
type browser struct {
	cmd *exec.Cmd
	w   io.WriteCloser // the browser's fd 3

	mu      sync.Mutex
	next    int
	pending map[int]chan reply
	closed  error
	onEvent func(method string, params json.RawMessage)
}

type reply struct {
	Result json.RawMessage
	Err    error
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// chromiumFlags are the flags that work in containers without a GPU or a
// display, with no network access of the browser's own.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
	"--remote-debugging-pipe",
}

// startBrowser starts the Chromium at path with a new profile directory;
// it stops when the test ends.
func startBrowser(t *testing.T, path string) *browser {
	t.Helper()
	toBrowser, w, err := os.Pipe() // the browser reads its fd 3
	if err != nil {
		t.Fatal(err)
	}
	r, fromBrowser, err := os.Pipe() // the browser writes its fd 4
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir(), "about:blank")
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser}
	stderr, err := os.Create(t.TempDir() + "/chromium.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &browser{cmd: cmd, w: w, pending: map[int]chan reply{}}
	done := make(chan struct{})
	go b.read(r, done)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.call(ctx, "", "Browser.close", nil, nil)
		w.Close()
		wait := make(chan error, 1)
		go func() { wait <- cmd.Wait() }()
		select {
		case <-wait:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-wait
		}
		r.Close()
		<-done
		stderr.Close()
	})
	return b
}

// setEventHandler sets the function that gets every event of the browser
// (on the reading goroutine).
func (b *browser) setEventHandler(f func(method string, params json.RawMessage)) {
	b.mu.Lock()
	b.onEvent = f
	b.mu.Unlock()
}

// read dispatches the browser's messages until the pipe closes.
func (b *browser) read(r io.Reader, done chan<- struct{}) {
	defer close(done)
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var line []byte
		if line, err = br.ReadBytes(0); err != nil {
			break
		}
		var m message
		if err = json.Unmarshal(line[:len(line)-1], &m); err != nil {
			break
		}
		if m.ID == 0 {
			b.mu.Lock()
			f := b.onEvent
			b.mu.Unlock()
			if f != nil {
				f(m.Method, m.Params)
			}
			continue
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch == nil {
			continue
		}
		if m.Error != nil {
			ch <- reply{Err: fmt.Errorf("%s (%d)", m.Error.Message, m.Error.Code)}
		} else {
			ch <- reply{Result: m.Result}
		}
	}
	if err == io.EOF {
		err = errors.New("the browser closed the pipe")
	}
	b.mu.Lock()
	b.closed = err
	for id, ch := range b.pending {
		ch <- reply{Err: err}
		delete(b.pending, id)
	}
	b.mu.Unlock()
}

// call sends a command (to the browser, or to the page of session) and
// decodes its result into result (which may be nil).
func (b *browser) call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	if b.closed != nil {
		b.mu.Unlock()
		return b.closed
	}
	b.next++
	id := b.next
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return fmt.Errorf("%s: %w", method, r.Err)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// page is one tab of the browser.
type page struct {
	b       *browser
	session string
}

// newPage opens a tab and attaches to it.
func (b *browser) newPage(ctx context.Context) (*page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &page{b: b, session: att.SessionID}
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := p.call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *page) call(ctx context.Context, method string, params, result any) error {
	return p.b.call(ctx, p.session, method, params, result)
}

// eval evaluates a JavaScript expression (awaiting a promise) and decodes
// its value, which must be serializable, into result.
func (p *page) eval(ctx context.Context, expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r)
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if result != nil {
		if len(r.Result.Value) == 0 {
			return fmt.Errorf("%s: no value", expr)
		}
		return json.Unmarshal(r.Result.Value, result)
	}
	return nil
}

// waitFor evaluates expr every 50 ms until it is true.
func (p *page) waitFor(ctx context.Context, expr string) error {
	for {
		var ok bool
		if err := p.eval(ctx, "!!("+expr+")", &ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", expr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mouse sends one mouse event at (x, y) in CSS pixels of the viewport:
// typ is mousePressed, mouseMoved or mouseReleased, with the left button.
func (p *page) mouse(ctx context.Context, typ string, x, y float64) error {
	ev := map[string]any{"type": typ, "x": x, "y": y, "button": "left", "pointerType": "mouse"}
	switch typ {
	case "mousePressed":
		ev["buttons"], ev["clickCount"] = 1, 1
	case "mouseMoved":
		ev["buttons"] = 1
	case "mouseReleased":
		ev["buttons"], ev["clickCount"] = 0, 1
	}
	return p.call(ctx, "Input.dispatchMouseEvent", ev, nil)
}

// typeText types s into the focused element, one key press per character.
func (p *page) typeText(ctx context.Context, s string) error {
	for _, r := range s {
		ch := string(r)
		if err := p.call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch}, nil); err != nil {
			return err
		}
		if err := p.call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": ch}, nil); err != nil {
			return err
		}
	}
	return nil
}

// screenshot returns a PNG of the region (x, y, w, h) of the page in CSS
// pixels of the document.
func (p *page) screenshot(ctx context.Context, x, y, w, h float64) ([]byte, error) {
	var r struct {
		Data []byte `json:"data"` // base64 in JSON
	}
	err := p.call(ctx, "Page.captureScreenshot", map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": x, "y": y, "width": w, "height": h, "scale": 1},
	}, &r)
	return r.Data, err
}
