//go:build amd64 && !purego

#include "textflag.h"

// func blocksAsm(x, y *float64, starts, attrs *int32, n int) int
//
// For every attribute a (DX) of attrs: lo = starts[a] (R10), hi =
// starts[a+1] (R11); if hi > lo, one PREFETCHT0 per 64-byte line from the
// line of &x[lo] to the line of &x[hi-1], then the same in y. AX counts
// the prefetches.
TEXT ·blocksAsm(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ starts+16(FP), R8
	MOVQ attrs+24(FP), R9
	MOVQ n+32(FP), CX
	XORQ AX, AX

attr:
	MOVLQSX (R9), DX
	MOVLQSX (R8)(DX*4), R10
	MOVLQSX 4(R8)(DX*4), R11
	CMPQ    R11, R10
	JLE     next
	LEAQ    (DI)(R10*8), R12
	LEAQ    -8(DI)(R11*8), R13
	ANDQ    $-64, R12
	ANDQ    $-64, R13

xline:
	PREFETCHT0 (R12)
	INCQ       AX
	ADDQ       $64, R12
	CMPQ       R12, R13
	JLS        xline
	LEAQ       (SI)(R10*8), R12
	LEAQ       -8(SI)(R11*8), R13
	ANDQ       $-64, R12
	ANDQ       $-64, R13

yline:
	PREFETCHT0 (R12)
	INCQ       AX
	ADDQ       $64, R12
	CMPQ       R12, R13
	JLS        yline

next:
	ADDQ $4, R9
	DECQ CX
	JNZ  attr
	MOVQ AX, ret+40(FP)
	RET
