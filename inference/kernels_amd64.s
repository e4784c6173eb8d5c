//go:build amd64 && !purego

#include "textflag.h"

// AVX2 kernels of the lattice recursions (see kernels.go). Each performs
// the same IEEE operations, in the same order, as its Go version, lane by
// lane: no FMA, no reassociation. Only AVX/AVX2 instructions are used; every
// function ends with VZEROUPPER.

// Lanes 0..r-1 set, for r = 1, 2, 3 at offsets 0, 32, 64: masked loads
// and stores of the last len%4 entries in expShiftAVX2.
DATA tailmask<>+0(SB)/8, $-1
DATA tailmask<>+8(SB)/8, $0
DATA tailmask<>+16(SB)/8, $0
DATA tailmask<>+24(SB)/8, $0
DATA tailmask<>+32(SB)/8, $-1
DATA tailmask<>+40(SB)/8, $-1
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
DATA tailmask<>+64(SB)/8, $-1
DATA tailmask<>+72(SB)/8, $-1
DATA tailmask<>+80(SB)/8, $-1
DATA tailmask<>+88(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $96

// -Inf and 1.0: start values of maxPlusAVX2.
DATA vconst<>+0(SB)/8, $0xfff0000000000000
DATA vconst<>+8(SB)/8, $0x3ff0000000000000
GLOBL vconst<>(SB), RODATA|NOPTR, $16

// EXP4 replaces Y0 (4 arguments x - max, already clamped by the caller's
// VMAXPD) by expKernel of each lane. Uses Y1-Y4; reads the constants in
// Y9-Y14 and the coefficients from ·expTab (row i at offset 32*i).
#define EXP4 \
	VMULPD  Y9, Y0, Y1 \
	VADDPD  Y10, Y1, Y1 \
	VSUBPD  Y10, Y1, Y2 \
	VMULPD  Y11, Y2, Y3 \
	VSUBPD  Y3, Y0, Y0 \
	VMULPD  Y12, Y2, Y3 \
	VSUBPD  Y3, Y0, Y0 \
	VMOVUPD ·expTab+224(SB), Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+256(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+288(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+320(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+352(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+384(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+416(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+448(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+480(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+512(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+544(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+576(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+608(SB), Y4, Y4 \
	VMULPD  Y0, Y4, Y4 \
	VADDPD  ·expTab+640(SB), Y4, Y4 \
	VPADDQ  Y14, Y1, Y1 \
	VPSLLQ  $52, Y1, Y1 \
	VMULPD  Y1, Y4, Y4 \
	VMULPD  Y13, Y4, Y0

// func expShiftAVX2(x *float64, n int, max float64)
//
// DI = x, CX = entries left, Y15 = max in 4 lanes, Y8 = clamp, Y9 = log2e,
// Y10 = magic, Y11 = ln2Hi, Y12 = ln2Lo, Y13 = 2^-54, Y14 = bias (int64),
// Y5 = tail mask, Y0-Y4 = work.
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-24
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSD max+16(FP), Y15
	VMOVUPD      ·expTab+0(SB), Y8
	VMOVUPD      ·expTab+32(SB), Y9
	VMOVUPD      ·expTab+64(SB), Y10
	VMOVUPD      ·expTab+96(SB), Y11
	VMOVUPD      ·expTab+128(SB), Y12
	VMOVUPD      ·expTab+160(SB), Y13
	VMOVUPD      ·expTab+192(SB), Y14
	CMPQ         CX, $4
	JLT          exptail

exploop:
	VMOVUPD (DI), Y0
	VSUBPD  Y15, Y0, Y0  // x - max
	VMAXPD  Y0, Y8, Y0   // max(clamp, x): x when x is NaN
	EXP4
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $4, CX
	CMPQ    CX, $4
	JGE     exploop

exptail:
	TESTQ      CX, CX
	JZ         expdone
	DECQ       CX
	SHLQ       $5, CX
	LEAQ       tailmask<>(SB), AX
	VMOVUPD    (AX)(CX*1), Y5
	VMASKMOVPD (DI), Y5, Y0
	VSUBPD     Y15, Y0, Y0
	VMAXPD     Y0, Y8, Y0
	EXP4
	VMASKMOVPD Y0, Y5, (DI)

expdone:
	VZEROUPPER
	RET

// GEMVSTEP(k) adds x[p]*a[p*as + 4k .. 4k+3] (Y8 = x[p]) to Y<k>.
#define GEMVSTEP(off, acc) \
	VMULPD off(DX), Y8, Y9 \
	VADDPD Y9, acc, acc

// func gemvTAVX2(dst, x, a *float64, n, xs, as, nv int)
//
// DI = dst, SI = &x[p], DX = &a[p*as], CX = rows left, R8 = xs*8,
// R9 = as*8, R10 = nv. Y0-Y3 = the nv accumulators of 4 columns,
// Y8 = x[p] in 4 lanes, Y9 = product.
TEXT ·gemvTAVX2(SB), NOSPLIT, $0-56
	MOVQ   dst+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   a+16(FP), DX
	MOVQ   n+24(FP), CX
	MOVQ   xs+32(FP), R8
	SHLQ   $3, R8
	MOVQ   as+40(FP), R9
	SHLQ   $3, R9
	MOVQ   nv+48(FP), R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ  CX, CX
	JZ     gstore
	CMPQ   R10, $4
	JEQ    g4
	CMPQ   R10, $3
	JEQ    g3
	CMPQ   R10, $2
	JEQ    g2

g1:
	VBROADCASTSD (SI), Y8
	GEMVSTEP(0, Y0)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g1
	JMP          gstore

g2:
	VBROADCASTSD (SI), Y8
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g2
	JMP          gstore

g3:
	VBROADCASTSD (SI), Y8
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g3
	JMP          gstore

g4:
	VBROADCASTSD (SI), Y8
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	GEMVSTEP(96, Y3)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g4

gstore:
	VMOVUPD Y0, (DI)
	CMPQ    R10, $2
	JLT     gdone
	VMOVUPD Y1, 32(DI)
	CMPQ    R10, $3
	JLT     gdone
	VMOVUPD Y2, 64(DI)
	CMPQ    R10, $4
	JLT     gdone
	VMOVUPD Y3, 96(DI)

gdone:
	VZEROUPPER
	RET

// MAXSTEP compares s = prev[p] + a[p*as + off/8 ..] (Y8 = prev[p]) with the
// running maximum m and takes s and p (Y9) where s > m (ordered, strict).
#define MAXSTEP(off, m, arg) \
	VADDPD    off(DX), Y8, Y11 \
	VCMPPD    $0x1e, m, Y11, Y12 \
	VBLENDVPD Y12, Y11, m, m \
	VBLENDVPD Y12, Y9, arg, arg

// func maxPlusAVX2(m, arg, prev, a *float64, n, as, nv int)
//
// DI = m, BX = arg, SI = &prev[p], DX = &a[p*as], CX = rows left,
// R9 = as*8, R10 = nv. Y0-Y3 = running maxima, Y4-Y7 = their labels (as
// float64), Y8 = prev[p], Y9 = p, Y10 = 1.0, Y11 = sums, Y12 = mask.
TEXT ·maxPlusAVX2(SB), NOSPLIT, $0-56
	MOVQ         m+0(FP), DI
	MOVQ         arg+8(FP), BX
	MOVQ         prev+16(FP), SI
	MOVQ         a+24(FP), DX
	MOVQ         n+32(FP), CX
	MOVQ         as+40(FP), R9
	SHLQ         $3, R9
	MOVQ         nv+48(FP), R10
	VBROADCASTSD vconst<>+0(SB), Y0
	VMOVAPD      Y0, Y1
	VMOVAPD      Y0, Y2
	VMOVAPD      Y0, Y3
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VXORPD       Y9, Y9, Y9
	VBROADCASTSD vconst<>+8(SB), Y10
	TESTQ        CX, CX
	JZ           mstore
	CMPQ         R10, $4
	JEQ          m4
	CMPQ         R10, $3
	JEQ          m3
	CMPQ         R10, $2
	JEQ          m2

m1:
	VBROADCASTSD (SI), Y8
	MAXSTEP(0, Y0, Y4)
	VADDPD       Y10, Y9, Y9
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m1
	JMP          mstore

m2:
	VBROADCASTSD (SI), Y8
	MAXSTEP(0, Y0, Y4)
	MAXSTEP(32, Y1, Y5)
	VADDPD       Y10, Y9, Y9
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m2
	JMP          mstore

m3:
	VBROADCASTSD (SI), Y8
	MAXSTEP(0, Y0, Y4)
	MAXSTEP(32, Y1, Y5)
	MAXSTEP(64, Y2, Y6)
	VADDPD       Y10, Y9, Y9
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m3
	JMP          mstore

m4:
	VBROADCASTSD (SI), Y8
	MAXSTEP(0, Y0, Y4)
	MAXSTEP(32, Y1, Y5)
	MAXSTEP(64, Y2, Y6)
	MAXSTEP(96, Y3, Y7)
	VADDPD       Y10, Y9, Y9
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m4

mstore:
	VMOVUPD Y0, (DI)
	VMOVUPD Y4, (BX)
	CMPQ    R10, $2
	JLT     mdone
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y5, 32(BX)
	CMPQ    R10, $3
	JLT     mdone
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y6, 64(BX)
	CMPQ    R10, $4
	JLT     mdone
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y7, 96(BX)

mdone:
	VZEROUPPER
	RET
