; A loop that sums doubles is vectorized with the sum kept in order (the loop vectorizer's
; ordered reductions, llvm::codegen's `-force-ordered-reductions`): its divisions two at
; a time, each quotient added to the sum in turn, as the scalar loop adds them (the same
; result to the bit; spectralnorm's inner loop). Summed as vectors (`addpd`) the order
; would change.
; RUN: pnacl-finalize --no-strip-syms %s -o %t.pexe
; RUN: pnacl-translate -O2 --arch x86-64 %t.pexe -o %t
; RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=__pexe_f0.weighted %t | FileCheck %s
; CHECK-LABEL: <__pexe_f0.weighted>:
; CHECK-NOT: addpd
; CHECK: divpd
; CHECK-NOT: addpd
; CHECK: addsd
; CHECK-NOT: addpd
; CHECK: ret

target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:128:128-a0:0:32-f80:128:128-n8:16:32-S128"
target triple = "le32-unknown-nacl"

; sum += u[j] / ((i + j) * (i + j + 1) / 2 + i + 1), for j below n
define internal double @weighted(i32 %u, i32 %i, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %sum = phi double [ 0.0, %entry ], [ %sum1, %loop ]
  %ij = add i32 %i, %j
  %ij1 = add i32 %ij, 1
  %m = mul i32 %ij, %ij1
  %h = ashr i32 %m, 1
  %hi = add i32 %h, %i
  %d = add i32 %hi, 1
  %df = sitofp i32 %d to double
  %off = shl i32 %j, 3
  %a = add i32 %u, %off
  %p = inttoptr i32 %a to double*
  %x = load double, double* %p, align 8
  %q = fdiv double %x, %df
  %sum1 = fadd double %sum, %q
  %j1 = add i32 %j, 1
  %more = icmp slt i32 %j1, %n
  br i1 %more, label %loop, label %done
done:
  %r = phi double [ 0.0, %entry ], [ %sum1, %loop ]
  ret double %r
}

define void @_start(i32 %info) {
  %s = call double @weighted(i32 %info, i32 3, i32 100)
  %p = inttoptr i32 %info to double*
  store double %s, double* %p, align 8
  ret void
}
