//go:build amd64 && !purego

#include "textflag.h"

// AVX2 kernels of blocksum.go: per element the Go loops' multiplication
// then addition, for every block in turn (VMULPD, VADDPD; no FMA); four
// elements per instruction, the tail one at a time with the scalar forms.

// func addBlocksAVX2(row *float64, L int, v *float64, offs *int32, vals *float64, n int)
//
// DI = row, R8 = L, SI = v, R9 = offs, R10 = vals, R11 = n; CX = element,
// BX = block, Y0 = the row's chunk (X0 in the tail).
TEXT ·addBlocksAVX2(SB), NOSPLIT, $0-48
	MOVQ row+0(FP), DI
	MOVQ L+8(FP), R8
	MOVQ v+16(FP), SI
	MOVQ offs+24(FP), R9
	MOVQ vals+32(FP), R10
	MOVQ n+40(FP), R11
	XORQ CX, CX

chunk:
	LEAQ    4(CX), AX
	CMPQ    AX, R8
	JGT     tail
	VMOVUPD (DI)(CX*8), Y0
	XORQ    BX, BX

block:
	MOVLQSX      (R9)(BX*4), DX
	ADDQ         CX, DX
	VBROADCASTSD (R10)(BX*8), Y1
	VMULPD       (SI)(DX*8), Y1, Y1
	VADDPD       Y1, Y0, Y0
	INCQ         BX
	CMPQ         BX, R11
	JLT          block
	VMOVUPD      Y0, (DI)(CX*8)
	ADDQ         $4, CX
	JMP          chunk

tail:
	CMPQ   CX, R8
	JGE    done
	VMOVSD (DI)(CX*8), X0
	XORQ   BX, BX

tblock:
	MOVLQSX (R9)(BX*4), DX
	ADDQ    CX, DX
	VMOVSD  (R10)(BX*8), X1
	VMULSD  (SI)(DX*8), X1, X1
	VADDSD  X1, X0, X0
	INCQ    BX
	CMPQ    BX, R11
	JLT     tblock
	VMOVSD  X0, (DI)(CX*8)
	INCQ    CX
	JMP     tail

done:
	VZEROUPPER
	RET

// func addRowAVX2(dst *float64, L int, marg *float64, offs *int32, vals *float64, n, obs int)
//
// DI = dst, R8 = L, SI = marg, R9 = offs, R10 = vals, R11 = n, R13 = obs;
// BX = block, R12 = its address, Y1 = its value, CX = element.
TEXT ·addRowAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ L+8(FP), R8
	MOVQ marg+16(FP), SI
	MOVQ offs+24(FP), R9
	MOVQ vals+32(FP), R10
	MOVQ n+40(FP), R11
	MOVQ obs+48(FP), R13
	XORQ BX, BX

rblock:
	MOVLQSX      (R9)(BX*4), DX
	LEAQ         (DI)(DX*8), R12
	VBROADCASTSD (R10)(BX*8), Y1
	XORQ         CX, CX

rchunk:
	LEAQ    4(CX), AX
	CMPQ    AX, R8
	JGT     rtail
	VMULPD  (SI)(CX*8), Y1, Y2
	VADDPD  (R12)(CX*8), Y2, Y2
	VMOVUPD Y2, (R12)(CX*8)
	ADDQ    $4, CX
	JMP     rchunk

rtail:
	CMPQ   CX, R8
	JGE    robs
	VMULSD (SI)(CX*8), X1, X2
	VADDSD (R12)(CX*8), X2, X2
	VMOVSD X2, (R12)(CX*8)
	INCQ   CX
	JMP    rtail

robs:
	VMOVSD (R12)(R13*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (R12)(R13*8)
	INCQ   BX
	CMPQ   BX, R11
	JLT    rblock
	VZEROUPPER
	RET
