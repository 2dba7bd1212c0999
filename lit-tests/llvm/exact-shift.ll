; A signed division by 2^k of a value whose k low bits are known to be zero is exact: on the
; native targets it becomes an arithmetic shift right by k (code generation rounds an
; inexact one toward zero in three more instructions). The pexe has lost the nsw flags
; from which LLVM would prove spectralnorm's (i+j)*(i+j+1)/2 non-negative; one of two
; factors that differ by an odd constant is even. The neutral module (le32) keeps the
; pexe's divisions, and divisions whose dividend is not known to be a multiple stay.
; RUN: pnacl-finalize %s -o %t.pexe
; RUN: pnacl-llvm -S --target x86-32 %t.pexe | FileCheck %s --check-prefix=NATIVE
; RUN: pnacl-llvm -S --target arm %t.pexe | FileCheck %s --check-prefix=NATIVE
; RUN: pnacl-llvm -S --target le32 %t.pexe | FileCheck %s --check-prefix=LE32

target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:128:128-a0:0:32-f80:128:128-n8:16:32-S128"
target triple = "le32-unknown-nacl"

define internal i32 @f(i32 %i, i32 %j, i32 %m) {
  ; NATIVE-LABEL: define
  ; LE32-LABEL: define
  %s = add i32 %i, %j
  %s1 = add i32 %s, 1
  %p = mul i32 %s1, %s
  ; NATIVE: ashr i32 %{{[0-9]+}}, 1
  ; LE32: sdiv i32 %{{[0-9]+}}, 2
  %a = sdiv i32 %p, 2
  ; x*(x-1) and x*(x+3) are even too; a product of such a product and x*8 has four low zero bits.
  %sm = add i32 %s, -1
  %q = mul i32 %s, %sm
  %s3 = add i32 %s, 3
  %r = mul i32 %s3, %s
  %x8 = shl i32 %i, 3
  %qr = mul i32 %q, %x8
  ; NATIVE: ashr i32 %{{[0-9]+}}, 1
  %b = sdiv i32 %q, 2
  ; NATIVE: ashr i32 %{{[0-9]+}}, 1
  %c = sdiv i32 %r, 2
  ; NATIVE: ashr i32 %{{[0-9]+}}, 4
  %d = sdiv i32 %qr, 16
  ; Not known: x*(x+2) may be odd, a product to 2^5 has only four, and i*j none.
  %s2 = add i32 %s, 2
  %t = mul i32 %s2, %s
  ; NATIVE: sdiv i32 %{{[0-9]+}}, 2
  %e = sdiv i32 %t, 2
  ; NATIVE: sdiv i32 %{{[0-9]+}}, 32
  %f = sdiv i32 %qr, 32
  %ij = mul i32 %i, %j
  ; NATIVE: sdiv i32 %{{[0-9]+}}, 2
  %g = sdiv i32 %ij, 2
  ; A signed division by a negative power of two (the dividend a multiple) stays.
  ; NATIVE: sdiv i32 %{{[0-9]+}}, -2
  %h = sdiv i32 %p, -2
  %1 = add i32 %a, %b
  %2 = add i32 %1, %c
  %3 = add i32 %2, %d
  %4 = add i32 %3, %e
  %5 = add i32 %4, %f
  %6 = add i32 %5, %g
  %7 = add i32 %6, %h
  ret i32 %7
}

define void @_start(i32 %p) {
  %r = call i32 @f(i32 %p, i32 %p, i32 %p)
  ret void
}
