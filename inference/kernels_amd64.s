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

// -Inf: start value of the maxima in maxPlusAVX2.
DATA vconst<>+0(SB)/8, $0xfff0000000000000
GLOBL vconst<>(SB), RODATA|NOPTR, $8

// 1.0 in 4 lanes: the label increment in maxPlusAVX2.
DATA vone<>+0(SB)/8, $0x3ff0000000000000
DATA vone<>+8(SB)/8, $0x3ff0000000000000
DATA vone<>+16(SB)/8, $0x3ff0000000000000
DATA vone<>+24(SB)/8, $0x3ff0000000000000
GLOBL vone<>(SB), RODATA|NOPTR, $32

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

// EXP8 is EXP4 on two vectors at once, Y0 and Y4 (two independent chains,
// interleaved: the Horner chain is latency-bound). Chain A uses Y0-Y3, chain
// B Y4-Y7; the polynomial builds in Y2 and Y6.
#define EXP8 \
	VMULPD  Y9, Y0, Y1 \
	VMULPD  Y9, Y4, Y5 \
	VADDPD  Y10, Y1, Y1 \
	VADDPD  Y10, Y5, Y5 \
	VSUBPD  Y10, Y1, Y2 \
	VSUBPD  Y10, Y5, Y6 \
	VMULPD  Y11, Y2, Y3 \
	VMULPD  Y11, Y6, Y7 \
	VSUBPD  Y3, Y0, Y0 \
	VSUBPD  Y7, Y4, Y4 \
	VMULPD  Y12, Y2, Y3 \
	VMULPD  Y12, Y6, Y7 \
	VSUBPD  Y3, Y0, Y0 \
	VSUBPD  Y7, Y4, Y4 \
	VMOVUPD ·expTab+224(SB), Y2 \
	VMOVUPD ·expTab+224(SB), Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+256(SB), Y2, Y2 \
	VADDPD  ·expTab+256(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+288(SB), Y2, Y2 \
	VADDPD  ·expTab+288(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+320(SB), Y2, Y2 \
	VADDPD  ·expTab+320(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+352(SB), Y2, Y2 \
	VADDPD  ·expTab+352(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+384(SB), Y2, Y2 \
	VADDPD  ·expTab+384(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+416(SB), Y2, Y2 \
	VADDPD  ·expTab+416(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+448(SB), Y2, Y2 \
	VADDPD  ·expTab+448(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+480(SB), Y2, Y2 \
	VADDPD  ·expTab+480(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+512(SB), Y2, Y2 \
	VADDPD  ·expTab+512(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+544(SB), Y2, Y2 \
	VADDPD  ·expTab+544(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+576(SB), Y2, Y2 \
	VADDPD  ·expTab+576(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+608(SB), Y2, Y2 \
	VADDPD  ·expTab+608(SB), Y6, Y6 \
	VMULPD  Y0, Y2, Y2 \
	VMULPD  Y4, Y6, Y6 \
	VADDPD  ·expTab+640(SB), Y2, Y2 \
	VADDPD  ·expTab+640(SB), Y6, Y6 \
	VPADDQ  Y14, Y1, Y1 \
	VPADDQ  Y14, Y5, Y5 \
	VPSLLQ  $52, Y1, Y1 \
	VPSLLQ  $52, Y5, Y5 \
	VMULPD  Y1, Y2, Y2 \
	VMULPD  Y5, Y6, Y6 \
	VMULPD  Y13, Y2, Y0 \
	VMULPD  Y13, Y6, Y4

// func expShiftAVX2(x *float64, n int, max float64)
//
// DI = x, CX = entries left, Y15 = max in 4 lanes, Y8 = clamp, Y9 = log2e,
// Y10 = magic, Y11 = ln2Hi, Y12 = ln2Lo, Y13 = 2^-54, Y14 = bias (int64),
// Y0-Y7 = work (8 entries per iteration, then 4, then a masked tail with
// the mask in Y5).
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
	CMPQ         CX, $8
	JLT          exp4

exp8loop:
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y4
	VSUBPD  Y15, Y0, Y0
	VSUBPD  Y15, Y4, Y4
	VMAXPD  Y0, Y8, Y0
	VMAXPD  Y4, Y8, Y4
	EXP8
	VMOVUPD Y0, (DI)
	VMOVUPD Y4, 32(DI)
	ADDQ    $64, DI
	SUBQ    $8, CX
	CMPQ    CX, $8
	JGE     exp8loop

exp4:
	CMPQ CX, $4
	JLT  exptail

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

// GEMVSTEP adds x[p]*a[p*as + off/8 ..] (Y15 = x[p]) to acc (Y14 = work).
#define GEMVSTEP(off, acc) \
	VMULPD off(DX), Y15, Y14 \
	VADDPD Y14, acc, acc

// func gemvTAVX2(dst, x, a *float64, n, xs, as, nv int)
//
// DI = dst, SI = &x[p], DX = &a[p*as], CX = rows left, R8 = xs*8,
// R9 = as*8, R10 = nv (1 to 8). Y0-Y7 = the nv accumulators of 4 columns
// each, Y15 = x[p] in 4 lanes, Y14 = product. One loop per nv, so that all
// accumulators stay in registers.
TEXT ·gemvTAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ a+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ xs+32(FP), R8
	SHLQ $3, R8
	MOVQ as+40(FP), R9
	SHLQ $3, R9
	MOVQ nv+48(FP), R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ  CX, CX
	JZ     gstore
	CMPQ   R10, $8
	JEQ    g8
	CMPQ   R10, $7
	JEQ    g7
	CMPQ   R10, $6
	JEQ    g6
	CMPQ   R10, $5
	JEQ    g5
	CMPQ   R10, $4
	JEQ    g4
	CMPQ   R10, $3
	JEQ    g3
	CMPQ   R10, $2
	JEQ    g2

g1:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g1
	JMP          gstore

g2:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g2
	JMP          gstore

g3:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g3
	JMP          gstore

g4:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	GEMVSTEP(96, Y3)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g4
	JMP          gstore

g5:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	GEMVSTEP(96, Y3)
	GEMVSTEP(128, Y4)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g5
	JMP          gstore

g6:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	GEMVSTEP(96, Y3)
	GEMVSTEP(128, Y4)
	GEMVSTEP(160, Y5)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g6
	JMP          gstore

g7:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	GEMVSTEP(96, Y3)
	GEMVSTEP(128, Y4)
	GEMVSTEP(160, Y5)
	GEMVSTEP(192, Y6)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g7
	JMP          gstore

g8:
	VBROADCASTSD (SI), Y15
	GEMVSTEP(0, Y0)
	GEMVSTEP(32, Y1)
	GEMVSTEP(64, Y2)
	GEMVSTEP(96, Y3)
	GEMVSTEP(128, Y4)
	GEMVSTEP(160, Y5)
	GEMVSTEP(192, Y6)
	GEMVSTEP(224, Y7)
	ADDQ         R8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          g8

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
	CMPQ    R10, $5
	JLT     gdone
	VMOVUPD Y4, 128(DI)
	CMPQ    R10, $6
	JLT     gdone
	VMOVUPD Y5, 160(DI)
	CMPQ    R10, $7
	JLT     gdone
	VMOVUPD Y6, 192(DI)
	CMPQ    R10, $8
	JLT     gdone
	VMOVUPD Y7, 224(DI)

gdone:
	VZEROUPPER
	RET

// MAXSTEP compares s = prev[p] + a[p*as + off/8 ..] (Y12 = prev[p]) with the
// running maximum m and takes s and p (Y13) where s > m (ordered, strict).
#define MAXSTEP(off, m, arg) \
	VADDPD    off(DX), Y12, Y14 \
	VCMPPD    $0x1e, m, Y14, Y15 \
	VBLENDVPD Y15, Y14, m, m \
	VBLENDVPD Y15, Y13, arg, arg

// func maxPlusAVX2(m, arg, prev, a *float64, n, as, nv int)
//
// DI = m, BX = arg, SI = &prev[p], DX = &a[p*as], CX = rows left,
// R9 = as*8, R10 = nv (1 to 6). Y0-Y5 = running maxima, Y6-Y11 = their
// labels (as float64), Y12 = prev[p], Y13 = p, Y14 = sums, Y15 = mask.
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
	VMOVAPD      Y0, Y4
	VMOVAPD      Y0, Y5
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	VXORPD       Y13, Y13, Y13
	TESTQ        CX, CX
	JZ           mstore
	CMPQ         R10, $6
	JEQ          m6
	CMPQ         R10, $5
	JEQ          m5
	CMPQ         R10, $4
	JEQ          m4
	CMPQ         R10, $3
	JEQ          m3
	CMPQ         R10, $2
	JEQ          m2

m1:
	VBROADCASTSD (SI), Y12
	MAXSTEP(0, Y0, Y6)
	VADDPD       vone<>(SB), Y13, Y13
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m1
	JMP          mstore

m2:
	VBROADCASTSD (SI), Y12
	MAXSTEP(0, Y0, Y6)
	MAXSTEP(32, Y1, Y7)
	VADDPD       vone<>(SB), Y13, Y13
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m2
	JMP          mstore

m3:
	VBROADCASTSD (SI), Y12
	MAXSTEP(0, Y0, Y6)
	MAXSTEP(32, Y1, Y7)
	MAXSTEP(64, Y2, Y8)
	VADDPD       vone<>(SB), Y13, Y13
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m3
	JMP          mstore

m4:
	VBROADCASTSD (SI), Y12
	MAXSTEP(0, Y0, Y6)
	MAXSTEP(32, Y1, Y7)
	MAXSTEP(64, Y2, Y8)
	MAXSTEP(96, Y3, Y9)
	VADDPD       vone<>(SB), Y13, Y13
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m4
	JMP          mstore

m5:
	VBROADCASTSD (SI), Y12
	MAXSTEP(0, Y0, Y6)
	MAXSTEP(32, Y1, Y7)
	MAXSTEP(64, Y2, Y8)
	MAXSTEP(96, Y3, Y9)
	MAXSTEP(128, Y4, Y10)
	VADDPD       vone<>(SB), Y13, Y13
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m5
	JMP          mstore

m6:
	VBROADCASTSD (SI), Y12
	MAXSTEP(0, Y0, Y6)
	MAXSTEP(32, Y1, Y7)
	MAXSTEP(64, Y2, Y8)
	MAXSTEP(96, Y3, Y9)
	MAXSTEP(128, Y4, Y10)
	MAXSTEP(160, Y5, Y11)
	VADDPD       vone<>(SB), Y13, Y13
	ADDQ         $8, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          m6

mstore:
	VMOVUPD Y0, (DI)
	VMOVUPD Y6, (BX)
	CMPQ    R10, $2
	JLT     mdone
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y7, 32(BX)
	CMPQ    R10, $3
	JLT     mdone
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y8, 64(BX)
	CMPQ    R10, $4
	JLT     mdone
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y9, 96(BX)
	CMPQ    R10, $5
	JLT     mdone
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y10, 128(BX)
	CMPQ    R10, $6
	JLT     mdone
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y11, 160(BX)

mdone:
	VZEROUPPER
	RET

// -Inf and +Inf in 4 lanes each: neutral elements of maxMinAVX2.
DATA vinf<>+0(SB)/8, $0xfff0000000000000
DATA vinf<>+8(SB)/8, $0xfff0000000000000
DATA vinf<>+16(SB)/8, $0xfff0000000000000
DATA vinf<>+24(SB)/8, $0xfff0000000000000
DATA vinf<>+32(SB)/8, $0x7ff0000000000000
DATA vinf<>+40(SB)/8, $0x7ff0000000000000
DATA vinf<>+48(SB)/8, $0x7ff0000000000000
DATA vinf<>+56(SB)/8, $0x7ff0000000000000
GLOBL vinf<>(SB), RODATA|NOPTR, $64

// MAXMIN4 folds the 4 entries in Y2 into the maxima Y0 and the minima Y1
// (-Inf entries are replaced by +Inf for the minimum; NaN entries leave
// both unchanged, as VMAXPD/VMINPD return their second source then).
#define MAXMIN4 \
	VMAXPD    Y0, Y2, Y0 \
	VCMPPD    $0x00, Y14, Y2, Y3 \
	VBLENDVPD Y3, Y15, Y2, Y2 \
	VMINPD    Y1, Y2, Y1

// func maxMinAVX2(x *float64, n int) (max, min float64)
//
// DI = x, CX = entries left, Y0 = lane maxima, Y1 = lane minima, Y2 = 4
// entries, Y3 = mask, Y5 = tail mask, Y14 = -Inf, Y15 = +Inf.
TEXT ·maxMinAVX2(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), DI
	MOVQ    n+8(FP), CX
	VMOVUPD vinf<>+0(SB), Y14
	VMOVUPD vinf<>+32(SB), Y15
	VMOVAPD Y14, Y0
	VMOVAPD Y15, Y1
	CMPQ    CX, $4
	JLT     mmtail

mmloop:
	VMOVUPD (DI), Y2
	MAXMIN4
	ADDQ    $32, DI
	SUBQ    $4, CX
	CMPQ    CX, $4
	JGE     mmloop

mmtail:
	TESTQ      CX, CX
	JZ         mmreduce
	DECQ       CX
	SHLQ       $5, CX
	LEAQ       tailmask<>(SB), AX
	VMOVUPD    (AX)(CX*1), Y5
	VMASKMOVPD (DI), Y5, Y2
	VBLENDVPD  Y5, Y2, Y14, Y2 // -Inf in the lanes past the end
	MAXMIN4

mmreduce:
	VEXTRACTF128 $1, Y0, X2
	VMAXPD       X0, X2, X0
	VPERMILPD    $1, X0, X2
	VMAXSD       X0, X2, X0
	VEXTRACTF128 $1, Y1, X2
	VMINPD       X1, X2, X1
	VPERMILPD    $1, X1, X2
	VMINSD       X1, X2, X1
	VXORPD       X3, X3, X3
	VADDSD       X3, X0, X0 // +0: a zero maximum is +0
	VADDSD       X3, X1, X1
	VMOVSD       X0, max+16(FP)
	VMOVSD       X1, min+24(FP)
	VZEROUPPER
	RET

// func normRowAVX2(x, e *float64, n int, floor float64) (s, inv float64, low bool)
//
// First pass: DI = &x[i], SI = &e[i], CX = entries left, Y0 = lane sums,
// Y2-Y3 = work, Y5 = tail mask. Second pass: DI = &x[i], CX = entries left,
// Y1 = 1/s, Y4 = floor, Y6 = 0, Y7 = OR of the low masks.
TEXT ·normRowAVX2(SB), NOSPLIT, $0-49
	MOVQ   x+0(FP), DI
	MOVQ   e+8(FP), SI
	MOVQ   n+16(FP), CX
	MOVQ   CX, R11
	MOVQ   DI, R12
	VXORPD Y0, Y0, Y0
	CMPQ   CX, $4
	JLT    nmtail

nmloop:
	VMOVUPD (DI), Y2
	VMULPD  (SI), Y2, Y2
	VADDPD  Y2, Y0, Y0
	VMOVUPD Y2, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	CMPQ    CX, $4
	JGE     nmloop

nmtail:
	TESTQ      CX, CX
	JZ         nmsum
	DECQ       CX
	SHLQ       $5, CX
	LEAQ       tailmask<>(SB), AX
	VMOVUPD    (AX)(CX*1), Y5
	VMASKMOVPD (DI), Y5, Y2
	VMASKMOVPD (SI), Y5, Y3
	VMULPD     Y3, Y2, Y2 // 0 past the end
	VADDPD     Y2, Y0, Y0
	VMASKMOVPD Y2, Y5, (DI)

nmsum:
	VEXTRACTF128 $1, Y0, X1
	VHADDPD      X0, X0, X0 // lane0 + lane1
	VHADDPD      X1, X1, X1 // lane2 + lane3
	VADDSD       X1, X0, X0
	VMOVSD       X0, s+32(FP)
	VMOVSD       vone<>(SB), X1
	VDIVSD       X0, X1, X1 // inv = 1/s
	VMOVSD       X1, inv+40(FP)
	VBROADCASTSD X1, Y1
	VBROADCASTSD floor+24(FP), Y4
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	MOVQ         R12, DI
	MOVQ         R11, CX
	CMPQ         CX, $4
	JLT          sctail

scloop:
	VMULPD  (DI), Y1, Y2
	VMOVUPD Y2, (DI)
	VCMPPD  $0x11, Y4, Y2, Y3 // x < floor
	VCMPPD  $0x0c, Y6, Y2, Y8 // x != 0
	VANDPD  Y8, Y3, Y3
	VORPD   Y3, Y7, Y7
	ADDQ    $32, DI
	SUBQ    $4, CX
	CMPQ    CX, $4
	JGE     scloop

sctail:
	TESTQ      CX, CX
	JZ         scdone
	DECQ       CX
	SHLQ       $5, CX
	LEAQ       tailmask<>(SB), AX
	VMOVUPD    (AX)(CX*1), Y5
	VMASKMOVPD (DI), Y5, Y2
	VMULPD     Y2, Y1, Y2
	VMASKMOVPD Y2, Y5, (DI)
	VCMPPD     $0x11, Y4, Y2, Y3
	VCMPPD     $0x0c, Y6, Y2, Y8
	VANDPD     Y8, Y3, Y3
	VANDPD     Y5, Y3, Y3
	VORPD      Y3, Y7, Y7

scdone:
	VMOVMSKPD Y7, AX
	TESTQ     AX, AX
	SETNE     low+48(FP)
	VZEROUPPER
	RET
