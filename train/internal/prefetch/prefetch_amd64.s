//go:build amd64 && !purego

#include "textflag.h"

// func blocksAtAsm(x, y *float64, offs *int32, cnt, n int) int
//
// For every offset o (R10) of offs that is not negative: one PREFETCHT0
// per 64-byte line from the line of &x[o] to the line of &x[o+n-1], then
// the same in y. R11 = (n-1)*8; AX counts the prefetches.
TEXT ·blocksAtAsm(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ offs+16(FP), R9
	MOVQ cnt+24(FP), CX
	MOVQ n+32(FP), R11
	DECQ R11
	SHLQ $3, R11
	XORQ AX, AX

aoff:
	MOVLQSX (R9), R10
	TESTQ   R10, R10
	JS      anext
	LEAQ    (DI)(R10*8), R12
	LEAQ    (R12)(R11*1), R13
	ANDQ    $-64, R12
	ANDQ    $-64, R13

axline:
	PREFETCHT0 (R12)
	INCQ       AX
	ADDQ       $64, R12
	CMPQ       R12, R13
	JLS        axline
	LEAQ       (SI)(R10*8), R12
	LEAQ       (R12)(R11*1), R13
	ANDQ       $-64, R12
	ANDQ       $-64, R13

ayline:
	PREFETCHT0 (R12)
	INCQ       AX
	ADDQ       $64, R12
	CMPQ       R12, R13
	JLS        ayline

anext:
	ADDQ $4, R9
	DECQ CX
	JNZ  aoff
	MOVQ AX, ret+40(FP)
	RET
