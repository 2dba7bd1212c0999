; A call that loops long, with state of every kind live across its loops: in WebAssembly
; it hands over to new calls of itself (src/llvm/resume.rs), which must go on with the
; same state. With the tests/attacks prelude. argv[1]: n, the iterations of each of the
; two loops of @run. Prints, one per line: the i64 accumulator's low and high words, the
; double and float sums, the vector's four lanes, the second loop's result, the sum of the
; stack array both loops use, and 1 if a callee's frame (@depth, called through a pointer)
; sat lower at the end than at the first iteration, else 0 (a hand-over is a tail call:
; the loop goes on in a call whose frame is where the first one's was).
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

define internal void @run(i32 %n) {
entry:
  %arr = alloca i8, i32 32, align 4
  %p = ptrtoint i8* %arr to i32
  br label %fill
fill:
  %fi = phi i32 [ 0, %entry ], [ %fi1, %fill ]
  %fo = mul i32 %fi, 4
  %fa = add i32 %p, %fo
  %fv = add i32 %fi, 1
  call void @store32(i32 %fa, i32 %fv)
  %fi1 = add i32 %fi, 1
  %fm = icmp ult i32 %fi1, 8
  br i1 %fm, label %fill, label %pre
pre:
  %k = mul i32 %n, 3
  %fpa = ptrtoint [4 x i8]* @fp to i32
  %fpv = call i32 @load32(i32 %fpa)
  %dfn = inttoptr i32 %fpv to void (i32)*
  %w0 = insertelement <4 x i32> undef, i32 1, i32 0
  %w1 = insertelement <4 x i32> %w0, i32 2, i32 1
  %w2 = insertelement <4 x i32> %w1, i32 3, i32 2
  %w = insertelement <4 x i32> %w2, i32 %k, i32 3
  %z0 = insertelement <4 x i32> undef, i32 0, i32 0
  %z1 = insertelement <4 x i32> %z0, i32 0, i32 1
  %z2 = insertelement <4 x i32> %z1, i32 0, i32 2
  %z = insertelement <4 x i32> %z2, i32 0, i32 3
  br label %outer
outer:
  %i = phi i32 [ 0, %pre ], [ %i1, %latch ]
  %acc = phi i64 [ 1, %pre ], [ %acc1, %latch ]
  %d = phi double [ 0.0, %pre ], [ %d1, %latch ]
  %f = phi float [ 0.0, %pre ], [ %f1, %latch ]
  %v = phi <4 x i32> [ %z, %pre ], [ %v1, %latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %inner ]
  %s = phi i32 [ 0, %outer ], [ %s1, %inner ]
  %jo = mul i32 %j, 4
  %ja = add i32 %p, %jo
  %x = call i32 @load32(i32 %ja)
  %s1 = add i32 %s, %x
  %j1 = add i32 %j, 1
  %jm = icmp ult i32 %j1, 8
  br i1 %jm, label %inner, label %latch
latch:
  %sk = add i32 %s1, %k
  %sk64 = zext i32 %sk to i64
  %am = mul i64 %acc, 6364136223846793005
  %acc1 = add i64 %am, %sk64
  %i7 = and i32 %i, 7
  %di = uitofp i32 %i7 to double
  %d1 = fadd double %d, %di
  %i3 = and i32 %i, 3
  %fi3 = uitofp i32 %i3 to float
  %f1 = fadd float %f, %fi3
  %v1 = add <4 x i32> %v, %w
  call void %dfn(i32 %i)
  %i1 = add i32 %i, 1
  %om = icmp ult i32 %i1, %n
  br i1 %om, label %outer, label %second
second:
  %m = phi i32 [ 0, %latch ], [ %m1, %second ]
  %t = phi i32 [ %k, %latch ], [ %t1, %second ]
  %t5 = mul i32 %t, 5
  %tm = add i32 %t5, %m
  %t1 = xor i32 %tm, %k
  %m7 = and i32 %m, 7
  %mo = mul i32 %m7, 4
  %ma = add i32 %p, %mo
  %old = call i32 @load32(i32 %ma)
  %new = add i32 %old, 1
  call void @store32(i32 %ma, i32 %new)
  call void %dfn(i32 1)
  %m1 = add i32 %m, 1
  %mm = icmp ult i32 %m1, %n
  br i1 %mm, label %second, label %done
done:
  %lo = trunc i64 %acc1 to i32
  call void @print_num(i32 %lo)
  %hi64 = lshr i64 %acc1, 32
  %hi = trunc i64 %hi64 to i32
  call void @print_num(i32 %hi)
  %dn = fptoui double %d1 to i32
  call void @print_num(i32 %dn)
  %fn = fptoui float %f1 to i32
  call void @print_num(i32 %fn)
  %v0e = extractelement <4 x i32> %v1, i32 0
  call void @print_num(i32 %v0e)
  %v1e = extractelement <4 x i32> %v1, i32 1
  call void @print_num(i32 %v1e)
  %v2e = extractelement <4 x i32> %v1, i32 2
  call void @print_num(i32 %v2e)
  %v3e = extractelement <4 x i32> %v1, i32 3
  call void @print_num(i32 %v3e)
  call void @print_num(i32 %t1)
  br label %sum
sum:
  %q = phi i32 [ 0, %done ], [ %q1, %sum ]
  %tot = phi i32 [ 0, %done ], [ %tot1, %sum ]
  %qo = mul i32 %q, 4
  %qa = add i32 %p, %qo
  %qv = call i32 @load32(i32 %qa)
  %tot1 = add i32 %tot, %qv
  %q1 = add i32 %q, 1
  %qm = icmp ult i32 %q1, 8
  br i1 %qm, label %sum, label %end
end:
  call void @print_num(i32 %tot1)
  %fa2 = ptrtoint [4 x i8]* @first to i32
  %first = call i32 @load32(i32 %fa2)
  %la2 = ptrtoint [4 x i8]* @last to i32
  %last = call i32 @load32(i32 %la2)
  %moved = icmp ult i32 %last, %first
  %mv = zext i1 %moved to i32
  call void @print_num(i32 %mv)
  ret void
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %fpa = ptrtoint [4 x i8]* @fp to i32
  %dp = ptrtoint void (i32)* @depth to i32
  call void @store32(i32 %fpa, i32 %dp)
  %s1 = call i32 @arg(i32 1)
  %n = call i32 @parse(i32 %s1)
  call void @run(i32 %n)
  call void @exit(i32 0)
  unreachable
}
