; A hand-over (src/llvm/resume.rs) takes no stack: it is a tail call, and the new call's
; frame is where the old one's was, its arrays' contents in it. With the tests/attacks
; prelude. argv[1]: n, the iterations of each loop. @mid loops with a 3,000-byte array on
; its stack, @big with a 16 KiB one; each calls @depth through a pointer every iteration,
; which keeps the address of a local of its own at its first call and at its latest.
; Prints how far below the first the latest sat, for @mid and then for @big; then @vla's
; sum and the same for it.
@fp = internal global [4 x i8] zeroinitializer, align 4
@first = internal global [4 x i8] zeroinitializer, align 4
@last = internal global [4 x i8] zeroinitializer, align 4

define internal void @depth(i32 %i) {
entry:
  %x = alloca i8, i32 4, align 4
  %a = ptrtoint i8* %x to i32
  call void @store32(i32 %a, i32 %i)
  %is0 = icmp eq i32 %i, 0
  br i1 %is0, label %set, label %rest
set:
  %f = ptrtoint [4 x i8]* @first to i32
  call void @store32(i32 %f, i32 %a)
  br label %rest
rest:
  %l = ptrtoint [4 x i8]* @last to i32
  call void @store32(i32 %l, i32 %a)
  ret void
}

define internal void @report() {
  %fa = ptrtoint [4 x i8]* @first to i32
  %first = call i32 @load32(i32 %fa)
  %la = ptrtoint [4 x i8]* @last to i32
  %last = call i32 @load32(i32 %la)
  %below = sub i32 %first, %last
  call void @print_num(i32 %below)
  ret void
}

; Sums its array's words, written as it goes, n times over.
define internal i32 @mid(i32 %n) {
entry:
  %arr = alloca i8, i32 3000, align 4
  %p = ptrtoint i8* %arr to i32
  %fpa = ptrtoint [4 x i8]* @fp to i32
  %fpv = call i32 @load32(i32 %fpa)
  %dfn = inttoptr i32 %fpv to void (i32)*
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %w = urem i32 %i, 750
  %o = mul i32 %w, 4
  %a = add i32 %p, %o
  call void @store32(i32 %a, i32 %i)
  %v = call i32 @load32(i32 %a)
  %s1 = add i32 %s, %v
  call void %dfn(i32 %i)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %s1
}

define internal i32 @big(i32 %n) {
entry:
  %arr = alloca i8, i32 16384, align 4
  %p = ptrtoint i8* %arr to i32
  %fpa = ptrtoint [4 x i8]* @fp to i32
  %fpv = call i32 @load32(i32 %fpa)
  %dfn = inttoptr i32 %fpv to void (i32)*
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %w = urem i32 %i, 4096
  %o = mul i32 %w, 4
  %a = add i32 %p, %o
  call void @store32(i32 %a, i32 %i)
  %v = call i32 @load32(i32 %a)
  %s1 = add i32 %s, %v
  call void %dfn(i32 %i)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %s1
}

; Arrays whose sizes are known only as the call runs (C's arrays of variable length, as
; fasta.pexe's generator keeps): @vla's two, 3,000 and 1,500 bytes for any n below 2^30,
; zeroed, and a fixed one after them. Each iteration reads the word it wrote to the first
; 750 iterations before and to the second 375 before, and writes its own; the sum of what
; it read is kept in the fixed array. A hand-over allocates the two again before going on:
; if they moved, or their contents or the fixed array's were lost, the sum is another.
declare void @llvm.memset.p0i8.i32(i8*, i8, i32, i1)

define internal i32 @vla(i32 %n) {
entry:
  %hi = lshr i32 %n, 30
  %len = add i32 %hi, 3000
  %arr = alloca i8, i32 %len, align 4
  %half = lshr i32 %len, 1
  %arr2 = alloca i8, i32 %half, align 4
  %sum = alloca i8, i32 4, align 4
  call void @llvm.memset.p0i8.i32(i8* %arr, i8 0, i32 %len, i1 false)
  call void @llvm.memset.p0i8.i32(i8* %arr2, i8 0, i32 %half, i1 false)
  %p = ptrtoint i8* %arr to i32
  %p2 = ptrtoint i8* %arr2 to i32
  %sp = ptrtoint i8* %sum to i32
  call void @store32(i32 %sp, i32 0)
  %fpa = ptrtoint [4 x i8]* @fp to i32
  %fpv = call i32 @load32(i32 %fpa)
  %dfn = inttoptr i32 %fpv to void (i32)*
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %w = urem i32 %i, 750
  %o = mul i32 %w, 4
  %a = add i32 %p, %o
  %old = call i32 @load32(i32 %a)
  call void @store32(i32 %a, i32 %i)
  %w2 = urem i32 %i, 375
  %o2 = mul i32 %w2, 4
  %a2 = add i32 %p2, %o2
  %old2 = call i32 @load32(i32 %a2)
  call void @store32(i32 %a2, i32 %i)
  %s = call i32 @load32(i32 %sp)
  %s1 = add i32 %s, %old
  %s2 = add i32 %s1, %old2
  call void @store32(i32 %sp, i32 %s2)
  call void %dfn(i32 %i)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %r = call i32 @load32(i32 %sp)
  ret i32 %r
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %fpa = ptrtoint [4 x i8]* @fp to i32
  %dp = ptrtoint void (i32)* @depth to i32
  call void @store32(i32 %fpa, i32 %dp)
  %s1 = call i32 @arg(i32 1)
  %n = call i32 @parse(i32 %s1)
  %r1 = call i32 @mid(i32 %n)
  call void @report()
  %r2 = call i32 @big(i32 %n)
  call void @report()
  %r3 = call i32 @vla(i32 %n)
  call void @print_num(i32 %r3)
  call void @report()
  call void @exit(i32 0)
  unreachable
}
