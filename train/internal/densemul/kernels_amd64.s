//go:build amd64 && !purego

#include "textflag.h"

// func addMulAVX2(dst *float64, n int, x *float64, K int, w *float64, stride int)
//
// addMulGo with the partial sums in registers: the columns of dst are taken
// in blocks of 16 (Y0-Y3) while more than 32 are left, then the last 17 to
// 32 in one block of 32 (Y0-Y7) or the last 1 to 16 in one block of 16,
// whose last 16 columns use masked loads and stores (Y8-Y11: lane i of
// register q is on when 4q+i < columns left in those 16; a masked-off lane
// reads nothing, adds 0 and is not written). Each block
// runs over every k before the next starts, with the same fused
// multiply-add per element and k as the Go loop (VFMADD231: acc = x[k] *
// w + acc).
//
// DI = &dst[j], CX = columns left, SI = &x[0], DX = K, BX = &w[j],
// R11 = stride in bytes; per block R8 = &x[k], R10 = &w[k*stride+j],
// R9 = k left, Y4/X4 = x[k] broadcast.
TEXT ·addMulAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ K+24(FP), DX
	MOVQ w+32(FP), BX
	MOVQ stride+40(FP), R11
	SHLQ $3, R11

b16:
	CMPQ    CX, $32
	JLE     b32m
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ    SI, R8
	MOVQ    BX, R10
	MOVQ    DX, R9

b16loop:
	VBROADCASTSD (R8), Y4
	VFMADD231PD  (R10), Y4, Y0
	VFMADD231PD  32(R10), Y4, Y1
	VFMADD231PD  64(R10), Y4, Y2
	VFMADD231PD  96(R10), Y4, Y3
	ADDQ         $8, R8
	ADDQ         R11, R10
	DECQ         R9
	JNZ          b16loop
	VMOVUPD      Y0, (DI)
	VMOVUPD      Y1, 32(DI)
	VMOVUPD      Y2, 64(DI)
	VMOVUPD      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, BX
	SUBQ         $16, CX
	JMP          b16

b32m:
	CMPQ         CX, $16
	JLE          b16m
	LEAQ         -16(CX), AX
	MOVQ         AX, X12
	VPBROADCASTQ X12, Y12
	VPCMPGTQ     lanes<>+0(SB), Y12, Y8
	VPCMPGTQ     lanes<>+32(SB), Y12, Y9
	VPCMPGTQ     lanes<>+64(SB), Y12, Y10
	VPCMPGTQ     lanes<>+96(SB), Y12, Y11
	VMOVUPD      (DI), Y0
	VMOVUPD      32(DI), Y1
	VMOVUPD      64(DI), Y2
	VMOVUPD      96(DI), Y3
	VMASKMOVPD   128(DI), Y8, Y4
	VMASKMOVPD   160(DI), Y9, Y5
	VMASKMOVPD   192(DI), Y10, Y6
	VMASKMOVPD   224(DI), Y11, Y7
	MOVQ         SI, R8
	MOVQ         BX, R10
	MOVQ         DX, R9

b32loop:
	VBROADCASTSD (R8), Y12
	VFMADD231PD  (R10), Y12, Y0
	VFMADD231PD  32(R10), Y12, Y1
	VFMADD231PD  64(R10), Y12, Y2
	VFMADD231PD  96(R10), Y12, Y3
	VMASKMOVPD   128(R10), Y8, Y13
	VFMADD231PD  Y13, Y12, Y4
	VMASKMOVPD   160(R10), Y9, Y14
	VFMADD231PD  Y14, Y12, Y5
	VMASKMOVPD   192(R10), Y10, Y15
	VFMADD231PD  Y15, Y12, Y6
	VMASKMOVPD   224(R10), Y11, Y13
	VFMADD231PD  Y13, Y12, Y7
	ADDQ         $8, R8
	ADDQ         R11, R10
	DECQ         R9
	JNZ          b32loop
	VMOVUPD      Y0, (DI)
	VMOVUPD      Y1, 32(DI)
	VMOVUPD      Y2, 64(DI)
	VMOVUPD      Y3, 96(DI)
	VMASKMOVPD   Y4, Y8, 128(DI)
	VMASKMOVPD   Y5, Y9, 160(DI)
	VMASKMOVPD   Y6, Y10, 192(DI)
	VMASKMOVPD   Y7, Y11, 224(DI)
	JMP          done

b16m:
	CMPQ         CX, $0
	JEQ          done
	MOVQ         CX, X12
	VPBROADCASTQ X12, Y12
	VPCMPGTQ     lanes<>+0(SB), Y12, Y8
	VPCMPGTQ     lanes<>+32(SB), Y12, Y9
	VPCMPGTQ     lanes<>+64(SB), Y12, Y10
	VPCMPGTQ     lanes<>+96(SB), Y12, Y11
	VMASKMOVPD   (DI), Y8, Y0
	VMASKMOVPD   32(DI), Y9, Y1
	VMASKMOVPD   64(DI), Y10, Y2
	VMASKMOVPD   96(DI), Y11, Y3
	MOVQ         SI, R8
	MOVQ         BX, R10
	MOVQ         DX, R9

bmloop:
	VBROADCASTSD (R8), Y4
	VMASKMOVPD   (R10), Y8, Y5
	VFMADD231PD  Y5, Y4, Y0
	VMASKMOVPD   32(R10), Y9, Y6
	VFMADD231PD  Y6, Y4, Y1
	VMASKMOVPD   64(R10), Y10, Y7
	VFMADD231PD  Y7, Y4, Y2
	VMASKMOVPD   96(R10), Y11, Y13
	VFMADD231PD  Y13, Y4, Y3
	ADDQ         $8, R8
	ADDQ         R11, R10
	DECQ         R9
	JNZ          bmloop
	VMASKMOVPD   Y0, Y8, (DI)
	VMASKMOVPD   Y1, Y9, 32(DI)
	VMASKMOVPD   Y2, Y10, 64(DI)
	VMASKMOVPD   Y3, Y11, 96(DI)

done:
	VZEROUPPER
	RET

// lanes holds 0, 1, ..., 15: the lane numbers of a block of 16 columns.
DATA lanes<>+0(SB)/8, $0
DATA lanes<>+8(SB)/8, $1
DATA lanes<>+16(SB)/8, $2
DATA lanes<>+24(SB)/8, $3
DATA lanes<>+32(SB)/8, $4
DATA lanes<>+40(SB)/8, $5
DATA lanes<>+48(SB)/8, $6
DATA lanes<>+56(SB)/8, $7
DATA lanes<>+64(SB)/8, $8
DATA lanes<>+72(SB)/8, $9
DATA lanes<>+80(SB)/8, $10
DATA lanes<>+88(SB)/8, $11
DATA lanes<>+96(SB)/8, $12
DATA lanes<>+104(SB)/8, $13
DATA lanes<>+112(SB)/8, $14
DATA lanes<>+120(SB)/8, $15
GLOBL lanes<>(SB), RODATA|NOPTR, $128
