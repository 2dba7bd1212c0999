; Conversions between 64-bit integers and floating point, which code generation leaves
; to the runtime's helpers on x86-32 and ARM (__floatdidf, __aeabi_l2d, ...). With the
; tests/attacks prelude (the IRT's write and exit). argv[1]: a small number n, so that
; nothing is folded at translation; prints, one per line in hex, the bits of:
;   a = n * -1000000007000 (i64), b = (n << 60) | 12345 (u64),
;   double(a), double(b) unsigned, float(a), float(b) unsigned,
;   i64(double(a) * 1.5), u64(double(b)), i64(float(a)), u64(float(b)).
@hexdigits = internal constant [17 x i8] c"0123456789abcdef\00"

define internal void @hex64(i64 %v) {
entry:
  %buf = alloca i8, i32 17, align 4
  %b = ptrtoint i8* %buf to i32
  %d = ptrtoint [17 x i8]* @hexdigits to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %shift.i = sub i32 60, %i
  %shift.4 = mul i32 %shift.i, 4
  %shift = zext i32 %i to i64
  %s4 = mul i64 %shift, 4
  %s = sub i64 60, %s4
  %nib64 = lshr i64 %v, %s
  %nib.w = trunc i64 %nib64 to i32
  %nib = and i32 %nib.w, 15
  %dp = add i32 %d, %nib
  %c = call i32 @load8(i32 %dp)
  %at = add i32 %b, %i
  call void @store8(i32 %at, i32 %c)
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 16
  br i1 %more, label %loop, label %done
done:
  %nl = add i32 %b, 16
  call void @store8(i32 %nl, i32 10)
  call void @write(i32 1, i32 %b, i32 17)
  ret void
}

define void @_start(i32 %info) {
  call void @init(i32 %info)
  %s = call i32 @arg(i32 1)
  %n32 = call i32 @parse(i32 %s)
  %n = zext i32 %n32 to i64
  %a = mul i64 %n, -1000000007000
  %nb = shl i64 %n, 60
  %b = or i64 %nb, 12345
  call void @hex64(i64 %a)
  call void @hex64(i64 %b)
  %da = sitofp i64 %a to double
  %da.bits = bitcast double %da to i64
  call void @hex64(i64 %da.bits)
  %db = uitofp i64 %b to double
  %db.bits = bitcast double %db to i64
  call void @hex64(i64 %db.bits)
  %fa = sitofp i64 %a to float
  %fa.bits32 = bitcast float %fa to i32
  %fa.bits = zext i32 %fa.bits32 to i64
  call void @hex64(i64 %fa.bits)
  %fb = uitofp i64 %b to float
  %fb.bits32 = bitcast float %fb to i32
  %fb.bits = zext i32 %fb.bits32 to i64
  call void @hex64(i64 %fb.bits)
  %da15 = fmul double %da, 1.5
  %ia = fptosi double %da15 to i64
  call void @hex64(i64 %ia)
  %ub = fptoui double %db to i64
  call void @hex64(i64 %ub)
  %ifa = fptosi float %fa to i64
  call void @hex64(i64 %ifa)
  %ufb = fptoui float %fb to i64
  call void @hex64(i64 %ufb)
  call void @exit(i32 0)
  unreachable
}
