package ctxio

import (
	"context"
	"io"
)

// Reader reads from R until Ctx is done, then fails with Ctx's error.
type Reader struct {
	Ctx context.Context
	R   io.Reader
}

func (c Reader) Read(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	return c.R.Read(p)
}

// Writer writes to W until Ctx is done, then fails with Ctx's error.
type Writer struct {
	Ctx context.Context
	W   io.Writer
}

func (c Writer) Write(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	return c.W.Write(p)
}
