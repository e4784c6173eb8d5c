//go:build amd64 && !purego

#include "textflag.h"

// AVX2 kernels of l1clip.go. Each performs the same IEEE operations, in the
// same order per element, as its Go loop: four elements per instruction,
// then the tail one at a time (the same instructions on the low lane of
// the XMM registers; the high lane computes on zeros and is not stored).
// Every function ends with VZEROUPPER.
//
// Registers: Y8 = u, Y9 = the sign bit, Y10 = 1.0, Y11 = +0, Y12 = step
// (descendAVX2); per element z (Y0) the weight, q (Y1) its record.

// CONSTS loads the sign bit, 1.0 and +0 into Y9, Y10, Y11.
#define CONSTS \
	MOVQ         $0x8000000000000000, AX \
	MOVQ         AX, X9                  \
	VBROADCASTSD X9, Y9                  \
	MOVQ         $0x3ff0000000000000, AX \
	MOVQ         AX, X10                 \
	VBROADCASTSD X10, Y10                \
	VXORPD       Y11, Y11, Y11

// CLIP(z, q, sg, ab, t, d): z, q are the weight and its record, sg, ab,
// t, d scratch; afterwards t is the new weight and q the new record.
//   sg = copysign(1, z); ab = |z|; t = u + sg*q; t = ab - t;
//   t = max(+0, t) (t when t is NaN); t = sg*t; d = t - z; q = q + d
#define CLIP(z, q, sg, ab, t, d, U, SIGN, ONE, ZERO) \
	VANDPD  SIGN, z, sg \
	VORPD   ONE, sg, sg \
	VANDNPD z, SIGN, ab \
	VMULPD  q, sg, t    \
	VADDPD  t, U, t     \
	VSUBPD  t, ab, t    \
	VMAXPD  t, ZERO, t  \
	VMULPD  t, sg, t    \
	VSUBPD  z, t, d     \
	VADDPD  d, q, q

// func clipAVX2(v, q *float64, n int, u float64)
//
// DI = &v[k], SI = &q[k], CX = elements left.
TEXT ·clipAVX2(SB), NOSPLIT, $0-32
	MOVQ         v+0(FP), DI
	MOVQ         q+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD u+24(FP), Y8
	CONSTS

c4:
	CMPQ    CX, $4
	JLT     c1
	VMOVUPD (DI), Y0
	VMOVUPD (SI), Y1
	CLIP(Y0, Y1, Y2, Y3, Y4, Y5, Y8, Y9, Y10, Y11)
	VMOVUPD Y4, (DI)
	VMOVUPD Y1, (SI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     c4

c1:
	TESTQ  CX, CX
	JZ     cdone
	VMOVSD (DI), X0
	VMOVSD (SI), X1
	CLIP(X0, X1, X2, X3, X4, X5, X8, X9, X10, X11)
	VMOVSD X4, (DI)
	VMOVSD X1, (SI)
	ADDQ   $8, DI
	ADDQ   $8, SI
	DECQ   CX
	JMP    c1

cdone:
	VZEROUPPER
	RET

// func descendAVX2(v, q, grad *float64, n int, step, u float64)
//
// DI = &v[k], SI = &q[k], BX = &grad[k], CX = elements left; z = v - step*g
// (Y6 the product) before the clip.
TEXT ·descendAVX2(SB), NOSPLIT, $0-48
	MOVQ         v+0(FP), DI
	MOVQ         q+8(FP), SI
	MOVQ         grad+16(FP), BX
	MOVQ         n+24(FP), CX
	VBROADCASTSD step+32(FP), Y12
	VBROADCASTSD u+40(FP), Y8
	CONSTS

d4:
	CMPQ    CX, $4
	JLT     d1
	VMOVUPD (DI), Y0
	VMOVUPD (BX), Y6
	VMULPD  Y6, Y12, Y6
	VSUBPD  Y6, Y0, Y0
	VMOVUPD (SI), Y1
	CLIP(Y0, Y1, Y2, Y3, Y4, Y5, Y8, Y9, Y10, Y11)
	VMOVUPD Y4, (DI)
	VMOVUPD Y1, (SI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, BX
	SUBQ    $4, CX
	JMP     d4

d1:
	TESTQ  CX, CX
	JZ     ddone
	VMOVSD (DI), X0
	VMOVSD (BX), X6
	VMULPD X6, X12, X6
	VSUBPD X6, X0, X0
	VMOVSD (SI), X1
	CLIP(X0, X1, X2, X3, X4, X5, X8, X9, X10, X11)
	VMOVSD X4, (DI)
	VMOVSD X1, (SI)
	ADDQ   $8, DI
	ADDQ   $8, SI
	ADDQ   $8, BX
	DECQ   CX
	JMP    d1

ddone:
	VZEROUPPER
	RET
