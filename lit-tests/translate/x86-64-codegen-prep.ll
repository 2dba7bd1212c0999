; What x86-64's translation gives LLVM's code generation after its optimizations
; (llvm::codegen: count_zeros_for_codegen, address_once), seen in the program's code.
; RUN: pnacl-finalize --no-strip-syms %s -o %t.pexe
; RUN: pnacl-translate -O2 --arch x86-64 %t.pexe -o %t
; RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=__pexe_f0.lowest %t | FileCheck %s --check-prefix=CTZ
; RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=__pexe_f1.walk %t | FileCheck %s --check-prefix=WALK
; RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=__pexe_f2.drop %t | FileCheck %s --check-prefix=DROP
; RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=__pexe_f4.locals %t | FileCheck %s --check-prefix=FRAME

target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:128:128-a0:0:32-f80:128:128-n8:16:32-S128"
target triple = "le32-unknown-nacl"

declare i64 @llvm.cttz.i64(i64, i1)

; A count of trailing zeros, which the ABI defines at zero (64), is x86's bsf and a cmov
; of 64, with no branch on zero (CodeGenPrepare made one, and began the function again
; after each: stockfish's move generator has 169).
; CTZ-LABEL: <__pexe_f0.lowest>:
; CTZ-NOT: j{{[a-z]+}} 
; CTZ: bsfq
; CTZ-NOT: j{{[a-z]+}} 
; CTZ: cmov
; CTZ-NOT: j{{[a-z]+}} 
; CTZ: ret
define internal i32 @lowest(i64 %x) {
  %c = call i64 @llvm.cttz.i64(i64 %x, i1 false)
  %t = trunc i64 %c to i32
  ret i32 %t
}

; A list walked through memory: each node's address is loaded in one block and used in
; others. It is extended to 64 bits once, where it is loaded (a 32-bit load clears the
; upper half), not again in each block with a move of a register to itself.
; WALK-LABEL: <__pexe_f1.walk>:
; WALK: movl ({{%r[a-z0-9]+}}), [[NEXT:%e[a-z]+]]
; WALK-NOT: movl [[NEXT]],
; WALK: ret
define internal i32 @walk(i32 %head, i32 %limit) {
entry:
  br label %loop
loop:
  %p = phi i32 [ %head, %entry ], [ %next, %more ]
  %sum = phi i32 [ 0, %entry ], [ %sum2, %more ]
  %null = icmp eq i32 %p, 0
  br i1 %null, label %done, label %node
node:
  %np = inttoptr i32 %p to i32*
  %next = load i32, i32* %np, align 4
  %big = icmp ugt i32 %next, %limit
  br i1 %big, label %done, label %value
value:
  %vaddr = add i32 %next, 4
  %vp = inttoptr i32 %vaddr to i32*
  %v = load i32, i32* %vp, align 4
  %odd = and i32 %v, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %twice, label %more0
twice:
  %waddr = add i32 %next, 8
  %wp = inttoptr i32 %waddr to i32*
  %w = load i32, i32* %wp, align 4
  br label %more
more0:
  br label %more
more:
  %add = phi i32 [ %w, %twice ], [ %v, %more0 ]
  %sum2 = add i32 %sum, %add
  br label %loop
done:
  ret i32 %sum
}

; A tree's node kept after calls, as an address and as an i32 (stored in the last block):
; the i32 is taken back from the address's register there (its lower half), so one
; callee-saved register holds both across the calls, not two (binarytrees' DeleteTree:
; 5% of its time).
; DROP-LABEL: <__pexe_f2.drop>:
; DROP: pushq
; DROP-NOT: push
; DROP: movl %edi, [[T:%e[a-z]+]]
; DROP-NOT: movl %edi, %e
; DROP: movl [[T]], 65536
; DROP-NOT: push
; DROP: ret
@freed = internal global [4 x i8] zeroinitializer, align 4

define internal void @drop(i32 %t) {
entry:
  %lp = inttoptr i32 %t to i32*
  %l = load i32, i32* %lp, align 4
  %leaf = icmp eq i32 %l, 0
  br i1 %leaf, label %done, label %kids
kids:
  call void @drop(i32 %l)
  %ra = add i32 %t, 4
  %rp = inttoptr i32 %ra to i32*
  %r = load i32, i32* %rp, align 4
  call void @drop(i32 %r)
  br label %done
done:
  %fp = bitcast [4 x i8]* @freed to i32*
  store i32 %t, i32* %fp, align 4
  ret void
}

; Locals (a frame in the region) used in a loop after a call: each access addresses its
; local from the one register that holds the frame, as x86-32 addresses its locals from
; its stack pointer, not from a register (or a spill slot) of each local's own.
; FRAME-LABEL: <__pexe_f4.locals>:
; FRAME: callq {{.*}}fill
; FRAME-NEXT: addl 20([[FP:%r[a-z0-9]+]]), [[S:%e[a-z]+]]
; FRAME-NEXT: addl 32([[FP]]), [[S]]
define internal void @fill(i32 %a, i32 %b, i32 %c) noinline {
  %p = inttoptr i32 %a to i32*
  store volatile i32 %b, i32* %p, align 4
  %q = inttoptr i32 %c to i32*
  store volatile i32 %a, i32* %q, align 4
  ret void
}

define internal i32 @locals(i32 %n) {
entry:
  %a = alloca i8, i32 16, align 4
  %b = alloca i8, i32 16, align 4
  %c = alloca i8, i32 16, align 4
  %ai = ptrtoint i8* %a to i32
  %bi = ptrtoint i8* %b to i32
  %ci = ptrtoint i8* %c to i32
  %a0 = bitcast i8* %a to i32*
  store i32 %n, i32* %a0, align 4
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i2, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s2, %loop ]
  call void @fill(i32 %ai, i32 %bi, i32 %ci)
  %bp = add i32 %bi, 4
  %bq = inttoptr i32 %bp to i32*
  %x = load i32, i32* %bq, align 4
  %cq = inttoptr i32 %ci to i32*
  %y = load i32, i32* %cq, align 4
  %s1 = add i32 %s, %x
  %s2 = add i32 %s1, %y
  %i2 = add i32 %i, 1
  %more = icmp ult i32 %i2, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %s2
}

define void @_start(i32 %info) {
  call void @drop(i32 %info)
  %l = call i32 @locals(i32 %info)
  %lp = inttoptr i32 %l to i32*
  store i32 %l, i32* %lp, align 4
  %w = call i32 @walk(i32 %info, i32 1000)
  %x = zext i32 %w to i64
  %c = call i32 @lowest(i64 %x)
  %p = inttoptr i32 %info to i32*
  store i32 %c, i32* %p, align 4
  ret void
}
