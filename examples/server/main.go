// Command server is a small HTTP service that embeds a tagger: it loads a
// model file once and labels sequences sent as JSON, with the probability of
// each label.
//
// The toolkit's embedded English models serve without training: the
// part-of-speech tagger reads raw text, the chunker words and POS tags, and
// the two as a pipeline (-model repeated, as tagger tag --model) chunk raw
// text:
//
//	go run ./examples/server -model embedded:models/en-pos.model
//	go run ./examples/server -model embedded:models/en-chunk.model
//	go run ./examples/server -model embedded:models/en-pos.model -model embedded:models/en-chunk.model
//
// Or train a model and start the service from the repository root. A chunker
// over words and part-of-speech tags (requests must give both columns):
//
//	go run ./examples/chunking -n 2000 -save /tmp/chunk.model
//	go run ./examples/server -model /tmp/chunk.model -addr 127.0.0.1:8080
//
// or a chunker over words alone, which can also tag raw text (words.template
// is in this directory; `tagger train --template ...` makes such models too):
//
//	go run ./examples/chunking -n 2000 -template examples/server/words.template -save /tmp/words.model
//	go run ./examples/server -model /tmp/words.model
//
// Then, from another terminal:
//
//	curl -s localhost:8080/healthz
//	curl -s localhost:8080/tag -d '{"tokens": [["He","PRP"],["reckons","VBZ"],["the","DT"],["deficit","NN"]]}'
//	curl -s localhost:8080/tag -d '{"text": "The dog barks.", "all": true}'    # words-only models
//	curl -s localhost:8080/tag -d '{"tokens": [["He","PRP"],["reckons","VBZ"]], "n": 3, "scheme": "iob2"}'
//
// # API
//
// POST /tag takes a JSON object with exactly one of
//
//   - "tokens": the token columns, one array per token (for the chunker above:
//     word and part of speech), without the label column;
//   - "text": a raw sentence, tokenized with corpora.Tokenize into Penn
//     Treebank forms (do n't, an opening quote as two backquotes), as tagger tag
//     --format text does. This works only for models whose template reads
//     column 0 alone (words): the service cannot invent the other columns.
//
// and optionally "all": true to get each token's whole label distribution,
// "n": N (up to -max-nbest) for the N best label sequences, and "scheme":
// "iob2" to decode only label sequences valid as IOB2 chunk tags (no I-X at
// the start, after O or after a chunk of another type), as tagger tag --bio
// does, or "iob1", "iobes" or "bilou" for those schemes (tagger tag
// --scheme); probabilities are then conditional on that constraint (peer models
// too, on their score lattices).
// The answer holds "tokens" (the words, column 0), "labels" (the Viterbi path),
// "marginals" (P(y_t = labels[t] | x) per token), "sequence_prob" (the
// probability of the whole path), "offsets" (byte offsets of the tokens in
// "text", for text input), with "all", "distributions" (label ->
// probability per token), with "n" above 1, "nbest": the n best
// sequences, best first, each {"labels": [...], "prob": P}, and for a
// pipeline "columns": the token columns its last model read (word, POS tag).
//
// POST /spans takes {"text": "running text"} and optionally "scheme"
// (iob1, iob2, iobes or bilou; default: detected from the labels), splits
// the text into sentences and answers what tagger tag --format document
// --output spans writes for it: "text", "sentences" (start, end,
// start_byte, end_byte) and "spans" (start, end, start_byte, end_byte,
// label, text, confidence), start and end in code points, decoded under
// the scheme's constraints, each span's confidence its marginal
// probability. Words-only models, as for "text" in /tag.
//
//	curl -s localhost:8080/spans -d '{"text": "Mr. Smith went to Washington. He paid $5.50 for it."}'
//
// GET /healthz answers {"status":"ok", ...} with the model's labels and the
// number of token columns it reads.
//
// Errors are JSON objects {"error": "..."} with status 400 (malformed request,
// or a body that is not valid UTF-8: bytes that are not UTF-8 or \u escapes
// of unpaired surrogates, refused as tagger tag refuses such input rather
// than tagged as U+FFFD), 405 (wrong method) or 413 (body or sequence too
// long). The body is read as JSON whatever its Content-Type.
// Request bodies are limited by -max-body and sequences by -max-tokens.
// SIGINT or SIGTERM shuts the server down gracefully: it stops accepting
// connections and lets requests in flight finish (for up to -grace).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/models"
	"github.com/sparsetag/sparsetag/scheme"
	"github.com/sparsetag/sparsetag/tagging"
)

// loadModel loads the model file at path, or a model built into package
// models named as the command line names it, "embedded:models/NAME".
func loadModel(path string) (tagging.Tagger, error) {
	name, ok := strings.CutPrefix(path, "embedded:models/")
	if !ok {
		return tagging.Load(path)
	}
	rc, err := models.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return tagging.Read(path, rc)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// run parses the flags, loads the model and serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nflags:\n", usageLine)
		fs.PrintDefaults()
	}
	// A back-quoted word of a flag's help is the name of its argument in
	// -h (flag.UnquoteUsage): only the argument goes in back quotes.
	var paths modelPaths
	fs.Var(&paths, "model", "model `file` (required): written by tagger train or chain.(*Model).SaveFile, a CRF++ or Wapiti model, or embedded:models/en-chunk.model; repeat for a pipeline, as tagger tag --model")
	addr := fs.String("addr", "127.0.0.1:8080", "`address` to listen on")
	var lim Limits
	fs.Int64Var(&lim.MaxBody, "max-body", 1<<20, "largest accepted request body, in `bytes`")
	fs.IntVar(&lim.MaxTokens, "max-tokens", 2000, "most `tokens` in one request")
	fs.IntVar(&lim.MaxNBest, "max-nbest", 20, "largest `n` of a request (n-best decoding)")
	grace := fs.Duration("grace", 10*time.Second, "how long to wait for requests in flight on shutdown")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q (use flags)", fs.Args())
	}
	if len(paths) == 0 {
		fs.Usage()
		return errors.New("-model is required")
	}
	var models []tagging.Tagger
	for _, p := range paths {
		m, err := loadModel(p)
		if err != nil {
			return err
		}
		models = append(models, m)
	}
	m := models[0]
	if len(models) > 1 {
		p, err := tagging.NewPipeline(models, paths)
		if err != nil {
			return err
		}
		m = p
	}
	h, err := NewHandler(m, lim)
	if err != nil {
		return fmt.Errorf("%s: %w", paths.String(), err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "server: ", log.LstdFlags)
	logger.Printf("model %s (%s): %d labels; listening on http://%s", paths.String(), m.Format(), len(m.Labels()), ln.Addr())
	err = serve(ctx, ln, h, *grace, logger)
	logger.Printf("stopped")
	return err
}

// serve serves h on ln until ctx is done, then shuts down gracefully,
// waiting at most grace for requests in flight.
func serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, logger *log.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          logger,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Printf("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// modelPaths is the value of -model, which may be repeated (a pipeline).
type modelPaths []string

func (l *modelPaths) String() string { return strings.Join(*l, " ") }

func (l *modelPaths) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// usageLine is the first line of -h.
const usageLine = "usage: server -model FILE [-model FILE ...] [-addr HOST:PORT] [-max-body BYTES] [-max-tokens N] [-max-nbest N] [-grace DURATION]"

// Limits bounds the work of one request.
type Limits struct {
	MaxBody   int64 // largest request body in bytes; 0 means 1 MiB
	MaxTokens int   // most tokens per request; 0 means 2000
	MaxNBest  int   // largest "n" of a request; 0 means 20
}

// handler serves /tag and /healthz for one model.
type handler struct {
	m       tagging.Tagger
	labels  []string
	columns int    // token columns the template reads
	textErr string // why raw text cannot be tagged, "" if it can
	// iob2 holds the IOB2 constraints of the labels; iob2Err says why a
	// request's "scheme" cannot be honoured when it is not "".
	iob2    *chain.Constraints
	iob2Err string
	lim     Limits
	mux     *http.ServeMux
}

// NewHandler returns the HTTP handler of the service for m, which must
// read token columns (a template model of this toolkit, or a CRF++ or
// Wapiti model) and give marginals.
func NewHandler(m tagging.Tagger, lim Limits) (http.Handler, error) {
	r := m.Reads()
	if r.Kind == 0 {
		return nil, chain.ErrNoEncoder
	}
	if r.Kind != features.KindTemplate {
		return nil, fmt.Errorf("the model reads %s input; this service tags token columns (template models) only", r.Kind)
	}
	if err := tagging.Require(m, tagging.Posterior); err != nil {
		return nil, err
	}
	columns := 0 // a peer model's templates: the model checks the columns
	if r.Template != nil {
		columns = r.Template.Columns()
	}
	if lim.MaxBody <= 0 {
		lim.MaxBody = 1 << 20
	}
	if lim.MaxTokens <= 0 {
		lim.MaxTokens = 2000
	}
	if lim.MaxNBest <= 0 {
		lim.MaxNBest = 20
	}
	h := &handler{
		m:       m,
		labels:  m.Labels(),
		columns: columns,
		lim:     lim,
		mux:     http.NewServeMux(),
	}
	if h.columns > 1 {
		h.textErr = fmt.Sprintf(`this model's template reads %d token columns, so raw "text" cannot be tagged: send "tokens" with %d columns each`, h.columns, h.columns)
	}
	switch {
	case !m.Supports(tagging.Constrained):
		h.iob2Err = fmt.Sprintf(`"scheme": a %s model does not support constrained decoding`, m.Format())
	case !chain.HasChunkLabels(h.labels):
		h.iob2Err = fmt.Sprintf(`"scheme": the labels of this model are not IOB2 chunk tags (B-X, I-X, O): %s`, strings.Join(h.labels, " "))
	default:
		h.iob2 = chain.BIOConstraints(h.labels)
	}
	h.mux.HandleFunc("/tag", h.tag)
	h.mux.HandleFunc("/healthz", h.healthz)
	h.mux.HandleFunc("/spans", h.spans)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %q: use POST /tag, POST /spans or GET /healthz", r.URL.Path))
	})
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// TagRequest is the body of POST /tag.
type TagRequest struct {
	Tokens [][]string `json:"tokens,omitempty"`
	Text   *string    `json:"text,omitempty"`
	All    bool       `json:"all,omitempty"`
	// N > 1 asks for the N best label sequences (at most -max-nbest).
	N int `json:"n,omitempty"`
	// Scheme, when set, constrains decoding to the label sequences valid
	// in a chunk tagging scheme: SchemeIOB2.
	Scheme string `json:"scheme,omitempty"`
}

// SchemeIOB2 is the "scheme" of IOB2 chunk tags (B-X begins a chunk, I-X
// continues one of type X, O is outside): decoding never puts I-X at the
// start, after O, or after B-Y or I-Y of another type Y, as tagger tag --bio
// does.
const SchemeIOB2 = "iob2"

// TagResponse is the answer of POST /tag.
type TagResponse struct {
	Tokens        []string             `json:"tokens"`
	Labels        []string             `json:"labels"`
	Marginals     []float64            `json:"marginals"`
	SequenceProb  float64              `json:"sequence_prob"`
	Offsets       [][2]int             `json:"offsets,omitempty"`
	Distributions []map[string]float64 `json:"distributions,omitempty"`
	// NBest lists the N best sequences, best first, when N > 1: the first
	// is Labels.
	NBest []Candidate `json:"nbest,omitempty"`
	// Columns, for a pipeline of models (-model repeated), holds the token
	// columns the last model read: the input's, then the labels of each
	// model before it (for the English models: word, POS tag).
	Columns [][]string `json:"columns,omitempty"`
}

// Candidate is one of the n best label sequences.
type Candidate struct {
	Labels []string `json:"labels"`
	Prob   float64  `json:"prob"` // its probability (under the scheme's constraints, if any)
}

// Health is the answer of GET /healthz.
type Health struct {
	Status  string   `json:"status"`
	Labels  []string `json:"labels"`
	Columns int      `json:"columns"`
	Text    bool     `json:"text"` // whether raw text can be tagged
}

func (h *handler) healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "use GET /healthz")
		return
	}
	writeJSON(w, http.StatusOK, Health{Status: "ok", Labels: h.labels, Columns: h.columns, Text: h.textErr == ""})
}

func (h *handler) tag(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, `use POST /tag with a JSON body {"tokens": [[...], ...]} or {"text": "..."}`)
		return
	}
	// The body is always read as JSON, whatever its Content-Type: curl -d
	// sends application/x-www-form-urlencoded, and refusing it would only
	// get in the way.
	var req TagRequest
	if status, err := decode(w, r, h.lim.MaxBody, &req); err != nil {
		writeError(w, status, err.Error())
		return
	}
	opt, herr := h.decodeOptions(&req)
	if herr == nil {
		var resp TagResponse
		if resp, herr = h.tagRequest(&req, opt); herr == nil {
			writeJSON(w, http.StatusOK, resp)
			return
		}
	}
	writeError(w, herr.status, herr.msg)
}

// requestError is the answer to a request that cannot be served: an HTTP
// status and a message.
type requestError struct {
	status int
	msg    string
}

// badRequest returns a requestError of status 400.
func badRequest(format string, args ...any) *requestError {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// decodeOptions returns the decoding options of a /tag request: its "n"
// and its "scheme".
func (h *handler) decodeOptions(req *TagRequest) (chain.DecodeOptions, *requestError) {
	opt := chain.DecodeOptions{Posterior: true, N: 1}
	switch {
	case req.N < 0 || req.N > h.lim.MaxNBest:
		return opt, badRequest(`"n" must be from 1 to %d (-max-nbest), got %d`, h.lim.MaxNBest, req.N)
	case req.N > 1:
		opt.N = req.N
	}
	switch strings.ToLower(req.Scheme) {
	case "":
	case SchemeIOB2, "bio":
		if h.iob2Err != "" {
			return opt, badRequest("%s", h.iob2Err)
		}
		opt.Constraints = h.iob2
	case "iob1", "iobes", "bilou":
		sch, _ := scheme.Parse(req.Scheme)
		l, err := scheme.NewLabels(sch, h.labels)
		if err != nil {
			return opt, badRequest(`"scheme" %s: the model's labels do not fit: %v`, sch, err)
		}
		opt.Constraints = chain.SchemeConstraints(l)
	default:
		return opt, badRequest(`unknown "scheme" %q: want %q, "iob1", "iobes" or "bilou" (or leave it out for unconstrained decoding)`, req.Scheme, SchemeIOB2)
	}
	return opt, nil
}

// requestTokens returns the tokens of a /tag request (its "tokens", or its
// "text" tokenized, with each token's byte offsets in the text).
func (h *handler) requestTokens(req *TagRequest) (tokens [][]string, offsets [][2]int, _ *requestError) {
	switch {
	case req.Text != nil && req.Tokens != nil:
		return nil, nil, badRequest(`give either "tokens" or "text", not both`)
	case req.Text != nil:
		if h.textErr != "" {
			return nil, nil, badRequest("%s", h.textErr)
		}
		toks, err := corpora.Tokenize(*req.Text)
		if err != nil {
			return nil, nil, badRequest("text: %v", err)
		}
		if len(toks) > h.lim.MaxTokens {
			return nil, nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("text has %d tokens, more than the limit %d", len(toks), h.lim.MaxTokens)}
		}
		tokens = make([][]string, len(toks))
		offsets = make([][2]int, len(toks))
		for i, t := range toks {
			// The Penn Treebank form (do n't, `` for a quote), as
			// tagger tag --format text gives the model: the form the
			// training corpora have.
			tokens[i] = []string{t.Word}
			offsets[i] = [2]int{t.Start, t.End}
		}
	case req.Tokens != nil:
		if len(req.Tokens) > h.lim.MaxTokens {
			return nil, nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%d tokens, more than the limit %d", len(req.Tokens), h.lim.MaxTokens)}
		}
		for i, cols := range req.Tokens {
			if len(cols) < max(h.columns, 1) {
				return nil, nil, badRequest("tokens[%d] has %d columns; this model reads %d (without the label)", i, len(cols), max(h.columns, 1))
			}
		}
		tokens = req.Tokens
	default:
		return nil, nil, badRequest(`missing "tokens" or "text"`)
	}
	if len(tokens) == 0 {
		return nil, nil, badRequest("nothing to tag: no tokens")
	}
	return tokens, offsets, nil
}

// tagRequest tags the tokens of a /tag request with opt (through the
// pipeline's models first, if the model is one) and returns the answer.
func (h *handler) tagRequest(req *TagRequest, opt chain.DecodeOptions) (TagResponse, *requestError) {
	tokens, offsets, herr := h.requestTokens(req)
	if herr != nil {
		return TagResponse{}, herr
	}
	ex := &dataset.Example{Tokens: tokens, File: "request", Line: 1}
	m := h.m
	var columns [][]string
	if p, ok := m.(*tagging.Pipeline); ok {
		aug, err := p.Augment(ex)
		if err != nil {
			return TagResponse{}, badRequest("%s", err.Error())
		}
		ex, m, columns = &aug, p.Last(), aug.Tokens
	}
	var d chain.Decoding
	if err := m.Decode(&d, ex, opt); err != nil {
		return TagResponse{}, badRequest("%s", err.Error())
	}
	resp := h.response(tokens, &d, opt.N > 1, req.All)
	resp.Offsets, resp.Columns = offsets, columns
	return resp, nil
}

// response returns the answer to a /tag request from its decoding d: the
// best labels with their marginals, the n-best list when nbest, every
// label's marginal when all.
func (h *handler) response(tokens [][]string, d *chain.Decoding, nbest, all bool) TagResponse {
	L := len(h.labels)
	resp := TagResponse{
		Tokens:       make([]string, len(tokens)),
		Labels:       make([]string, len(tokens)),
		Marginals:    make([]float64, len(tokens)),
		SequenceProb: d.Probs[0],
	}
	for t, y := range d.Best() {
		resp.Tokens[t] = tokens[t][0]
		resp.Labels[t] = h.labels[y]
		resp.Marginals[t] = d.Marginal[t*L+y]
	}
	if nbest {
		for k, path := range d.Paths {
			c := Candidate{Labels: make([]string, len(path)), Prob: d.Probs[k]}
			for t, y := range path {
				c.Labels[t] = h.labels[y]
			}
			resp.NBest = append(resp.NBest, c)
		}
	}
	if all {
		resp.Distributions = make([]map[string]float64, len(tokens))
		for t := range tokens {
			dist := make(map[string]float64, L)
			for y, name := range h.labels {
				dist[name] = d.Marginal[t*L+y]
			}
			resp.Distributions[t] = dist
		}
	}
	return resp
}

// decode reads one JSON value of at most maxBody bytes into v, rejecting
// invalid UTF-8 (which encoding/json would silently turn into U+FFFD, where
// tagger tag refuses the input), unknown fields and trailing data. On error
// it returns the status to answer.
func decode(w http.ResponseWriter, r *http.Request, maxBody int64, v any) (int, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil {
		if off, what := invalidUTF8(body); off >= 0 {
			return http.StatusBadRequest, fmt.Errorf("invalid UTF-8 in the request body at offset %d: %s (tagger tag refuses such input too: send UTF-8 text)", off, what)
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
		if err == nil {
			if _, terr := dec.Token(); terr != io.EOF {
				err = terr
				if err == nil {
					err = errors.New("unexpected data after the JSON object")
				}
			}
		}
	}
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", mbe.Limit)
	case errors.Is(err, io.EOF):
		return http.StatusBadRequest, errors.New("empty request body: want a JSON object")
	}
	return http.StatusBadRequest, fmt.Errorf("malformed JSON request: %v", err)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v) // the client may have gone; nothing useful to do
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}

// invalidUTF8 returns the byte offset of the first invalid UTF-8 in a JSON
// body and what is wrong there, or -1: bytes that are not UTF-8, and \u
// escapes of UTF-16 surrogates that do not pair up, which name no
// character (encoding/json would turn both into U+FFFD).
func invalidUTF8(body []byte) (int, string) {
	if !utf8.Valid(body) {
		for i := 0; i < len(body); {
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n <= 1 {
				return i, fmt.Sprintf("byte %#02x is not UTF-8", body[i])
			}
			i += n
		}
	}
	// A backslash appears in valid JSON only in a string's escapes: scan
	// them, pairing each high surrogate with the low one after it.
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 >= len(body) {
			continue
		}
		if body[i+1] != 'u' {
			i++ // \\, \" and the other one-letter escapes
			continue
		}
		u, ok := hex4(body[i+2:])
		switch {
		case !ok || u < 0xD800 || u > 0xDFFF:
		case u <= 0xDBFF:
			if lo, ok := hex4(body[min(i+8, len(body)):]); i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' && ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return i, fmt.Sprintf(`\u%04X is a high surrogate without its low half`, u)
		default:
			return i, fmt.Sprintf(`\u%04X is a low surrogate without its high half`, u)
		}
		i++
	}
	return -1, ""
}

// hex4 parses the 4 hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
