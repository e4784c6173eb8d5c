//go:build amd64 && !purego

#include "textflag.h"

// AVX2 kernels of spanadd.go. Each performs the same IEEE additions, in the
// same order per element, as its Go loop; only where the partial sums live
// changes. Columns are taken in blocks of 16 (4 YMM registers), then 4 (1
// YMM), 2 (1 XMM) and 1; each block runs over every span before the next
// block starts. Every function ends with VZEROUPPER.

// func gatherAVX2(dst *float64, n int, src *float64, spans *int32, ns int, limit uint) bool
//
// DI = &dst[j], CX = columns left, SI = &src[j], BX = spans, DX = ns,
// R10 = limit; per block R8 = next span, R9 = spans left, AX = lo_k (the
// 32 bits zero-extended, so a negative lo_k is above any limit), Y0-Y3 =
// the block of dst being summed. Every lo_k is compared with limit before
// its row is read: false, at once, on the first above it.
TEXT ·gatherAVX2(SB), NOSPLIT, $0-49
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ spans+24(FP), BX
	MOVQ ns+32(FP), DX
	MOVQ limit+40(FP), R10

g16:
	CMPQ    CX, $16
	JLT     g4
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ    BX, R8
	MOVQ    DX, R9

g16loop:
	MOVL   (R8), AX
	CMPQ   AX, R10
	JA     gbad
	VADDPD (SI)(AX*8), Y0, Y0
	VADDPD 32(SI)(AX*8), Y1, Y1
	VADDPD 64(SI)(AX*8), Y2, Y2
	VADDPD 96(SI)(AX*8), Y3, Y3
	ADDQ   $8, R8
	DECQ   R9
	JNZ    g16loop
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, CX
	JMP     g16

g4:
	CMPQ    CX, $4
	JLT     g2
	VMOVUPD (DI), Y0
	MOVQ    BX, R8
	MOVQ    DX, R9

g4loop:
	MOVL   (R8), AX
	CMPQ   AX, R10
	JA     gbad
	VADDPD (SI)(AX*8), Y0, Y0
	ADDQ   $8, R8
	DECQ   R9
	JNZ    g4loop
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     g4

g2:
	CMPQ    CX, $2
	JLT     g1
	VMOVUPD (DI), X0
	MOVQ    BX, R8
	MOVQ    DX, R9

g2loop:
	MOVL   (R8), AX
	CMPQ   AX, R10
	JA     gbad
	VADDPD (SI)(AX*8), X0, X0
	ADDQ   $8, R8
	DECQ   R9
	JNZ    g2loop
	VMOVUPD X0, (DI)
	ADDQ    $16, DI
	ADDQ    $16, SI
	SUBQ    $2, CX

g1:
	TESTQ  CX, CX
	JZ     gdone
	VMOVSD (DI), X0
	MOVQ   BX, R8
	MOVQ   DX, R9

g1loop:
	MOVL   (R8), AX
	CMPQ   AX, R10
	JA     gbad
	VADDSD (SI)(AX*8), X0, X0
	ADDQ   $8, R8
	DECQ   R9
	JNZ    g1loop
	VMOVSD X0, (DI)

gdone:
	VZEROUPPER
	MOVB $1, ret+48(FP)
	RET

gbad:
	VZEROUPPER
	MOVB $0, ret+48(FP)
	RET

// func scatterAVX2(dst, v *float64, n int, spans *int32, ns int, limit uint) bool
//
// DI = &dst[j], SI = &v[j], CX = columns left, BX = spans, DX = ns,
// R10 = limit; per block R8 = next span, R9 = spans left, AX = lo_k
// (checked as in gatherAVX2), Y0-Y3 = the block of v, Y4-Y7 = the sums
// stored back.
TEXT ·scatterAVX2(SB), NOSPLIT, $0-49
	MOVQ dst+0(FP), DI
	MOVQ v+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ spans+24(FP), BX
	MOVQ ns+32(FP), DX
	MOVQ limit+40(FP), R10

s16:
	CMPQ    CX, $16
	JLT     s4
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	MOVQ    BX, R8
	MOVQ    DX, R9

s16loop:
	MOVL    (R8), AX
	CMPQ   AX, R10
	JA     sbad
	VADDPD  (DI)(AX*8), Y0, Y4
	VADDPD  32(DI)(AX*8), Y1, Y5
	VADDPD  64(DI)(AX*8), Y2, Y6
	VADDPD  96(DI)(AX*8), Y3, Y7
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	VMOVUPD Y6, 64(DI)(AX*8)
	VMOVUPD Y7, 96(DI)(AX*8)
	ADDQ    $8, R8
	DECQ    R9
	JNZ     s16loop
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, CX
	JMP     s16

s4:
	CMPQ    CX, $4
	JLT     s2
	VMOVUPD (SI), Y0
	MOVQ    BX, R8
	MOVQ    DX, R9

s4loop:
	MOVL    (R8), AX
	CMPQ   AX, R10
	JA     sbad
	VADDPD  (DI)(AX*8), Y0, Y4
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ    $8, R8
	DECQ    R9
	JNZ     s4loop
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     s4

s2:
	CMPQ    CX, $2
	JLT     s1
	VMOVUPD (SI), X0
	MOVQ    BX, R8
	MOVQ    DX, R9

s2loop:
	MOVL    (R8), AX
	CMPQ   AX, R10
	JA     sbad
	VADDPD  (DI)(AX*8), X0, X4
	VMOVUPD X4, (DI)(AX*8)
	ADDQ    $8, R8
	DECQ    R9
	JNZ     s2loop
	ADDQ    $16, DI
	ADDQ    $16, SI
	SUBQ    $2, CX

s1:
	TESTQ  CX, CX
	JZ     sdone
	VMOVSD (SI), X0
	MOVQ   BX, R8
	MOVQ   DX, R9

s1loop:
	MOVL   (R8), AX
	CMPQ   AX, R10
	JA     sbad
	VADDSD (DI)(AX*8), X0, X4
	VMOVSD X4, (DI)(AX*8)
	ADDQ   $8, R8
	DECQ   R9
	JNZ    s1loop

sdone:
	VZEROUPPER
	MOVB $1, ret+48(FP)
	RET

sbad:
	VZEROUPPER
	MOVB $0, ret+48(FP)
	RET
