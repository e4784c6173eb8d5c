package tagging

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/peer"
)

// Load reads the model file at path for tagging: a model of this toolkit or
// of a peer toolkit (CRFsuite, CRF++, Wapiti, gzipped or not), told apart by
// the peer formats' magic bytes (after gzip decompression). The Tagger
// reads only what decoding needs; LoadWeights reads a whole model (dump,
// convert).
// The models built into package models are read with Read.
func Load(path string) (Tagger, error) {
	pm, err := openPeer(path)
	if err != nil {
		return nil, err
	}
	if pm != nil {
		return tool{pm}, nil
	}
	tg, err := chain.LoadTagger(path)
	if err != nil {
		return nil, err
	}
	return ours{tg}, nil
}

// openPeer opens the model file at path if a peer toolkit wrote it, and
// returns nil and no error if it is not a peer model (then it is ours).
func openPeer(path string) (peer.Model, error) {
	f, err := DetectPeer(path)
	if err != nil || f == peer.FormatUnknown {
		return nil, err
	}
	return peer.Open(path)
}

// Read is Load from r, the contents of a model file (gzip-compressed or
// not): for models that arrive over the network, as a pipeline's side
// input, or built into the binary (package models). name is the model's
// name in error messages.
func Read(name string, r io.Reader) (Tagger, error) {
	pm, plain, err := readModel(name, r)
	switch {
	case err != nil:
		return nil, err
	case pm != nil:
		return tool{pm}, nil
	}
	tg, err := chain.ReadTagger(bytes.NewReader(plain))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ours{tg}, nil
}

// readModel reads the model file r: a peer's, parsed (pm), or ours, as its
// decompressed bytes (plain) for chain to read.
func readModel(name string, r io.Reader) (pm peer.Model, plain []byte, err error) {
	if plain, err = readPlain(name, r); err != nil {
		return nil, nil, err
	}
	if peer.Detect(plain) == peer.FormatUnknown {
		return nil, plain, nil
	}
	if pm, err = peer.Parse(plain); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return pm, nil, nil
}

// readPlain reads r whole, decompressed if it is gzipped (at most
// peer.MaxModelBytes after decompression).
func readPlain(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return gunzip(name, data)
}

// gunzip returns data decompressed if it is gzipped, else data.
func gunzip(name string, data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip: %w", name, err)
	}
	plain, err := io.ReadAll(io.LimitReader(zr, peer.MaxModelBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip: %w", name, err)
	}
	return plain, nil
}

// DetectPeer reports the peer format of the model file at path, or
// peer.FormatUnknown (for this toolkit's models among others).
func DetectPeer(path string) (peer.Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = f
	br := bufio.NewReader(f)
	r = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return peer.FormatUnknown, nil // let the real loader report it
		}
		r = zr
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(r, head)
	return peer.Detect(head[:n]), nil
}
