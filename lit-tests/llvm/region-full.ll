; Globals that do not fit in the pexe's 4 GiB from where its image starts (0x10000) are
; refused on the targets that keep the pexe in its region, with the file's name, and no
; module is written.
; RUN: pnacl-finalize %s -o %t.pexe
; RUN: rm -f %t.ll
; RUN: not pnacl-llvm --target x86-64 %t.pexe -o %t.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.ll
; RUN: not pnacl-llvm --target aarch64 %t.pexe -o %t.ll 2>&1 | FileCheck %s
; CHECK: pnacl-llvm: error: {{.*}}.pexe: the pexe's globals do not fit in its 4 GiB

target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:128:128-a0:0:32-f80:128:128-n8:16:32-S128"
target triple = "le32-unknown-nacl"

@a = internal global [2147483648 x i8] zeroinitializer
@b = internal global [2147483648 x i8] zeroinitializer

define void @_start(i32 %info) {
  store i8 1, i8* getelementptr ([2147483648 x i8], [2147483648 x i8]* @a, i32 0, i32 5)
  store i8 1, i8* getelementptr ([2147483648 x i8], [2147483648 x i8]* @b, i32 0, i32 5)
  ret void
}
