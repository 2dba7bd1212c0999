; The 64-bit targets keep the pexe in its region by construction (target::Memory::Region,
; llvm/export/region.rs): no access but to a zero-extended 32-bit address (plus a constant
; offset within the runtime's guard), globals as one
; image with every address resolved, functions by index through a checked table, allocas
; on the pexe's own stack with its limit checked. The same module for x86-64 and AArch64,
; which LLVM's backends compile.
; RUN: pnacl-finalize --no-strip-syms %s -o %t.pexe
; RUN: pnacl-llvm -S --verify --target x86-64 %t.pexe -o %t.x86-64.ll
; RUN: FileCheck %s --check-prefixes=CHECK,X8664 < %t.x86-64.ll
; RUN: FileCheck %s --check-prefix=NONE < %t.x86-64.ll
; RUN: llc -O2 -relocation-model=pic %t.x86-64.ll -o - | FileCheck %s --check-prefix=X8664-ASM
; RUN: opt -passes='function(loop-simplify,lcssa,loop-vectorize)' -S %t.x86-64.ll | FileCheck %s --check-prefix=VEC
; RUN: opt -passes=instcombine -S %t.x86-64.ll | FileCheck %s --check-prefix=ZERO
; RUN: pnacl-llvm -S --verify --target aarch64 %t.pexe -o %t.aarch64.ll
; RUN: FileCheck %s --check-prefixes=CHECK,AARCH64 < %t.aarch64.ll
; RUN: FileCheck %s --check-prefix=NONE < %t.aarch64.ll
; RUN: llc -O2 -relocation-model=pic %t.aarch64.ll -o /dev/null

target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:128:128-a0:0:32-f80:128:128-n8:16:32-S128"
target triple = "le32-unknown-nacl"

; X8664: target triple = "x86_64-unknown-linux-gnu"
; AARCH64: target triple = "aarch64-unknown-linux-gnu"

; The image from 0x10000: @counter (4 bytes of 7); @huge, 3 GiB of zeros, which the image
; leaves out; @last (42) and @table (8-aligned) in one segment: the address of @counter
; (0x10000), of @twice (function 2: index 55, after the null one and runtime/irt.def's 52
; IRT functions), and 0x10004 (@counter + 4).
; CHECK: @__pnacl_image = hidden constant [20 x i8] c"\07\00\00\00*\00\00\00\00\00\01\007\00\00\00\04\00\01\00"
; CHECK: @__pnacl_image_segments = hidden constant [2 x { i32, i32 }] [{ i32, i32 } { i32 65536, i32 4 }, { i32, i32 } { i32 -1073676284, i32 16 }]
; CHECK: @__pnacl_image_segment_count = hidden constant i32 2
; CHECK: @__pnacl_image_base = hidden constant i32 65536
; CHECK: @__pnacl_image_end = hidden constant i32 -1073676268
; The table: the null address, the runtime's IRT functions (irt.def's order and
; signatures, whose ids come first: the query's i32(i32, i32, i32) is 5), then the
; functions whose address can be taken, with their signatures' ids (twice's i32(i32) is
; irt.def's 3); a function only ever called directly has no entry.
; CHECK: @__pnacl_functions = hidden constant [66 x { i8*, i32 }] [{ i8*, i32 } { i8* null, i32 -1 }, { i8*, i32 } { i8* bitcast (i32 (i32, i32, i32)* @__pnacl_irt_query to i8*), i32 5 }, { i8*, i32 } { i8* bitcast (void (i32)* @__pnacl_irt_exit to i8*), i32 1 },
; CHECK-SAME: { i8*, i32 } { i8* null, i32 -1 }, { i8*, i32 } { i8* null, i32 -1 }, { i8*, i32 } { i8* bitcast (i32 (i32)* @__pexe_f2.twice to i8*), i32 3 },
; The runtime copies it to 64 GiB, where the calls read it, and maps nothing in the 64 GiB
; a 32-bit index reaches from there.
; CHECK: @__pnacl_function_count = hidden constant i32 66
; CHECK: @__pnacl_function_table_at = hidden constant i64 68719476736
; CHECK: @__pnacl_function_table_span = hidden constant i64 68719476736
; X8664: @__pnacl_packed_signature_shift = hidden constant i32 48
; AARCH64: @__pnacl_packed_signature_shift = hidden constant i32 0
; The runtime hands the PPAPI host's settings only to a pexe that carries the host
; (pnacl-translate joins it to a plugin; translate::host).
; CHECK: @__pnacl_ppapi_host = hidden constant i32 0
; CHECK: @__pnacl_sp = external hidden thread_local(localexec) global i32
; CHECK: @__pnacl_sp_limit = external hidden thread_local(localexec) global i32

@counter = internal global i32 7, align 4
@huge = internal global [3221225472 x i8] zeroinitializer, align 4
@last = internal global i32 42, align 4
@table = internal global [3 x i32] [i32 ptrtoint (i32* @counter to i32), i32 ptrtoint (i32 (i32)* @twice to i32), i32 add (i32 ptrtoint (i32* @counter to i32), i32 4)], align 8

define internal i32 @helper(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

; A global's address is a constant; a load from it goes to that address, zero-extended.
; CHECK-LABEL: define {{.*}}bump
; CHECK: load i32, i32* inttoptr (i32 65536 to i32*)
define internal void @bump() {
  %v = load i32, i32* @counter, align 4
  %w = add i32 %v, 1
  store i32 %w, i32* @counter, align 4
  ret void
}

define internal i32 @twice(i32 %x) {
  %y = mul i32 %x, 2
  ret i32 %y
}

; An indirect call reads the entry at its index in the runtime's copy of the table, with
; no bounds check: past the table's end lie entries of no function's to the end of its
; page, then nothing mapped, where the read faults and the runtime traps. The entry's
; signature is checked against the call's. On AArch64: one branch, else the program
; traps, saying which check failed (0: no function, 1: another signature).
; CHECK-LABEL: define {{.*}}through
; CHECK: [[W:%[0-9]+]] = zext i32 %0 to i64
; AARCH64-NEXT: [[AT:%[0-9]+]] = getelementptr [0 x { i8*, i32 }], [0 x { i8*, i32 }]* inttoptr (i64 68719476736 to [0 x { i8*, i32 }]*), i64 0, i64 [[W]], i32 1
; AARCH64-NEXT: [[SIG:%[0-9]+]] = load i32, i32* [[AT]]
; AARCH64-NEXT: [[SAME:%[0-9]+]] = icmp eq i32 [[SIG]], 3
; AARCH64-NEXT: br i1 [[SAME]], label %[[CALL:[0-9]+]], label %[[TRAP:[0-9]+]]
; AARCH64: [[TRAP]]:
; AARCH64-NEXT: [[GOT:%[0-9]+]] = phi i32 [ [[SIG]], %{{[0-9]+}} ]
; AARCH64-NEXT: [[NOFN:%[0-9]+]] = icmp eq i32 [[GOT]], -1
; AARCH64-NEXT: [[WHY:%[0-9]+]] = select i1 [[NOFN]], i32 0, i32 1
; AARCH64-NEXT: call void @__pnacl_trap(i32 [[WHY]])
; AARCH64: [[CALL]]:
; AARCH64-NEXT: [[FAT:%[0-9]+]] = getelementptr [0 x { i8*, i32 }], [0 x { i8*, i32 }]* inttoptr (i64 68719476736 to [0 x { i8*, i32 }]*), i64 0, i64 [[W]], i32 0
; AARCH64-NEXT: load i8*, i8** [[FAT]]
; On x86-64 the runtime's copy is packed, an entry one word: the function's address with
; its signature id + 1 in the top 16 bits (0: no function). The call xors its own
; ((3 + 1) << 48) into the entry, with no branch: the function's address if the
; signatures are the same, else an address with its top bits set, non-canonical (the
; processor refuses the call, and the runtime's handler of its fault traps for the same
; two reasons).
; X8664-NEXT: [[EAT:%[0-9]+]] = getelementptr [0 x i64], [0 x i64]* inttoptr (i64 68719476736 to [0 x i64]*), i64 0, i64 [[W]]
; X8664-NEXT: [[E:%[0-9]+]] = load i64, i64* [[EAT]]
; X8664-NEXT: [[T:%[0-9]+]] = xor i64 [[E]], 1125899906842624
; X8664-NEXT: inttoptr i64 [[T]] to i8*
; X8664-NOT: __pnacl_trap
; CHECK: call i32 %{{[0-9]+}}(i32 %1)
; X8664-NOT: __pnacl_trap
; On x86-64: the constant, xor'ed with the entry at 64 GiB plus the index times 8, and
; the call through the result.
; X8664-ASM-LABEL: {{.*}}through:
; X8664-ASM: movabsq $68719476736, [[T:%r[a-z0-9]+]]
; X8664-ASM-NEXT: movabsq $1125899906842624, [[X:%r[a-z0-9]+]]
; X8664-ASM-NEXT: xorq ([[T]],{{%r[a-z0-9]+}},8), [[X]]
; X8664-ASM: callq *[[X]]
define internal i32 @through(i32 %f, i32 %x) {
  %p = inttoptr i32 %f to i32 (i32)*
  %r = call i32 %p(i32 %x)
  ret i32 %r
}

; A call of a signature no function has can only trap; the block goes on, its value
; undefined (here folded into the sum).
; CHECK-LABEL: define {{.*}}odd
; CHECK-NEXT: call void @__pnacl_trap(i32 1)
; CHECK-NEXT: ret double
define internal double @odd(i32 %f, double %x) {
  %p = inttoptr i32 %f to double (double)*
  %r = call double %p(double %x)
  %s = fadd double %r, 1.0
  ret double %s
}

; A call through a function's own address as another type (newlib's _start calls a main
; of no parameters with three) calls the function directly, as its own type: what it takes
; is given (the i64 cut to its i32, the missing double zero), its result made the caller's
; (widened, with zeros); no argument it was not given is read, nothing is checked.
; CHECK-LABEL: define {{.*}}as_other
; CHECK-NOT: __pnacl_trap
; CHECK: [[A:%[0-9]+]] = trunc i64 %0 to i32
; CHECK: [[R:%[0-9]+]] = call {{.*}}i32 @__pexe_f{{[0-9]+}}.mixed(i32 [[A]], double 0.000000e+00)
; CHECK: zext i32 [[R]] to i64
define internal i64 @as_other(i64 %x) {
  %p = bitcast i32 (i32, double)* @mixed to i64 (i64)*
  %r = call i64 %p(i64 %x)
  ret i64 %r
}

define internal i32 @mixed(i32 %a, double %d) {
  %c = fptosi double %d to i32
  %s = add i32 %a, %c
  ret i32 %s
}


; Allocas take room on the pexe's stack below __pnacl_sp, checked against its limit
; (a stack overflow traps), and the function gives it back when it returns: the entry
; block's constant ones as one frame (16 bytes, the stack pointer kept 16-byte aligned),
; checked once in 64 bits (no wrap-around: a frame above the stack pointer is a negative
; address), a later one of variable size on its own, rounded down to 16, checked alike.
; The address the pexe computes (base + 4) is the zero-extended base plus 4.
; CHECK-LABEL: define {{.*}}frame
; CHECK: [[SP0:%[0-9]+]] = load i32, i32* @__pnacl_sp
; CHECK: [[LIM:%[0-9]+]] = load i32, i32* @__pnacl_sp_limit
; CHECK: [[LIM64:%[0-9]+]] = zext i32 [[LIM]] to i64
; CHECK: [[HAVE:%[0-9]+]] = zext i32 [[SP0]] to i64
; CHECK: [[LOW:%[0-9]+]] = sub i64 [[HAVE]], 16
; CHECK: icmp sge i64 [[LOW]], [[LIM64]]
; CHECK: call void @__pnacl_trap(i32 2)
; CHECK: [[FRAME:%[0-9]+]] = trunc i64 [[LOW]] to i32
; CHECK-NEXT: store i32 [[FRAME]], i32* @__pnacl_sp
; CHECK: [[P:%[0-9]+]] = inttoptr i32 [[FRAME]] to i8*
; CHECK-NEXT: getelementptr i8, i8* [[P]], i64 4
; CHECK: [[VLOW:%[0-9]+]] = sub i64 %{{[0-9]+}}, %{{[0-9]+}}
; CHECK-NEXT: [[VAT:%[0-9]+]] = and i64 [[VLOW]], -16
; CHECK-NEXT: icmp sge i64 [[VAT]], %{{[0-9]+}}
; CHECK: store i32 [[SP0]], i32* @__pnacl_sp
; CHECK-NEXT: ret i32
define internal i32 @frame(i32 %n) {
  %a = alloca [4 x i32], align 8
  %e = getelementptr [4 x i32], [4 x i32]* %a, i32 0, i32 1
  store i32 %n, i32* %e, align 4
  %v = alloca i8, i32 %n, align 1
  store i8 1, i8* %v, align 1
  %r = load i32, i32* %e, align 4
  %h = call i32 @helper(i32 %r)
  ret i32 %h
}

; A frame needed only on a rare path is taken there: the entry only reads the stack
; pointer, to give it back at the return; the check and the new stack pointer are where a
; local's address is first used (as free(NULL) and malloc's fast path need no frame).
; CHECK-LABEL: define {{.*}}rare
; CHECK: [[RSP:%[0-9]+]] = load i32, i32* @__pnacl_sp,
; CHECK-NOT: __pnacl_sp_limit
; CHECK: br i1
; CHECK: load i32, i32* @__pnacl_sp_limit
; CHECK: store i32 [[RSP]], i32* @__pnacl_sp
; CHECK-NEXT: ret i32
; CHECK: call void @__pnacl_trap(i32 2)
; CHECK: store i32 %{{[0-9]+}}, i32* @__pnacl_sp
; CHECK-NEXT: call {{.*}}helper
define internal i32 @rare(i32 %n) {
entry:
  %a = alloca i8, i32 8, align 4
  %z = icmp eq i32 %n, 0
  br i1 %z, label %use, label %out
use:
  %p = ptrtoint i8* %a to i32
  %h = call i32 @helper(i32 %p)
  br label %out
out:
  %r = phi i32 [ %h, %use ], [ %n, %entry ]
  ret i32 %r
}

; An address the pexe computes is the region's address 0 (null) plus it zero-extended, a
; getelementptr that LLVM's scalar evolution follows: a loop that steps through an array
; is vectorized as it would be natively (fasta's counting loop), where an inttoptr of the
; i32 hid the step.
; CHECK-LABEL: define {{.*}}count
; CHECK: [[Z:%[0-9]+]] = zext i32 %{{[0-9]+}} to i64
; CHECK-NEXT: [[G:%[0-9]+]] = getelementptr i8, i8* null, i64 [[Z]]
; CHECK-NEXT: bitcast i8* [[G]] to float*
; VEC-LABEL: define {{.*}}count
; VEC: load <4 x float>
define internal i32 @count(i32 %base, i32 %n, float %x) {
entry:
  %none = icmp sle i32 %n, 0
  br i1 %none, label %done, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %c = phi i32 [ 0, %entry ], [ %c1, %loop ]
  %off = mul i32 %i, 4
  %a = add i32 %base, %off
  %p = inttoptr i32 %a to float*
  %v = load float, float* %p, align 4
  %le = fcmp ole float %v, %x
  %b = zext i1 %le to i32
  %c1 = add i32 %c, %b
  %i1 = add i32 %i, 1
  %e = icmp eq i32 %i1, %n
  br i1 %e, label %done, label %loop
done:
  %r = phi i32 [ 0, %entry ], [ %c1, %loop ]
  ret i32 %r
}

; The region's address 0 is the pexe's to read (it faults, and the fault traps): LLVM
; keeps the load rather than take it for undefined behaviour and drop what follows.
; ZERO-LABEL: define {{.*}}at_zero
; ZERO-NEXT: load i32, i32* null
; ZERO-NEXT: ret i32
define internal i32 @at_zero() {
  %p = inttoptr i32 0 to i32*
  %v = load i32, i32* %p, align 4
  ret i32 %v
}

define void @_start(i32 %info) {
  call void @bump()
  %t = load i32, i32* getelementptr ([3 x i32], [3 x i32]* @table, i32 0, i32 1), align 4
  %r = call i32 @through(i32 %t, i32 %info)
  %s0 = call i32 @frame(i32 %r)
  %s = call i32 @rare(i32 %s0)
  %d = call double @odd(i32 %s, double 2.0)
  %w = zext i32 %s to i64
  %o = call i64 @as_other(i64 %w)
  %k = call i32 @count(i32 %info, i32 %s, float 2.0)
  %k0 = call i32 @at_zero()
  %l = load i32, i32* @last, align 4
  %z = icmp eq i32 %l, 0
  br i1 %z, label %no, label %yes
no:
  call void @never()
  unreachable
yes:
  store i8 1, i8* getelementptr ([3221225472 x i8], [3221225472 x i8]* @huge, i32 0, i32 5)
  ret void
}

; The pexe's unreachable traps, and an access at address 0 is no undefined behaviour to
; LLVM: nothing can fall through into the code after a function.
; CHECK-LABEL: define {{.*}}never
; CHECK-NEXT: call void @llvm.trap()
; CHECK-NEXT: unreachable
define internal void @never() {
  unreachable
}
; CHECK: attributes #0 = { nounwind null_pointer_is_valid }

; No native alloca, no pointer but from an i32, no getelementptr on the pexe's memory
; but by a constant.
; NONE-NOT: alloca
; NONE-NOT: getelementptr i8, i8* %{{[0-9]+}}, i64 %

; X8664-ASM-LABEL: {{.*}}frame:
; X8664-ASM: %fs:
