; A plugin that makes string vars and never releases them (PPB_Var;1.1 VarFromUtf8 in a
; loop, from PPP_InitializeModule): the host ends it with an error at its bound, its
; memory bounded, where it would otherwise grow without end.
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@var_name = internal constant [12 x i8] c"PPB_Var;1.1\00"
@text = internal constant [9 x i8] c"flooding\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4

define internal i32 @initialize(i32 %module, i32 %get) {
entry:
  %get.fn = inttoptr i32 %get to i32 (i32)*
  %vn = ptrtoint [12 x i8]* @var_name to i32
  %table = call i32 %get.fn(i32 %vn)
  %fp = add i32 %table, 8
  %f = call i32 @load32(i32 %fp)
  %from = inttoptr i32 %f to void (i32, i32, i32)*
  %var = alloca i8, i32 16, align 8
  %v = ptrtoint i8* %var to i32
  %t = ptrtoint [9 x i8]* @text to i32
  br label %loop
loop:
  call void %from(i32 %v, i32 %t, i32 8)
  br label %loop
}

define internal void @shutdown() {
  ret void
}

define internal i32 @get_interface(i32 %name) {
  ret i32 0
}

define void @_start(i32 %info) {
  call void @init(i32 %info)
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %hn = ptrtoint [23 x i8]* @hook_name to i32
  %h = ptrtoint [8 x i8]* @hook to i32
  %got = call i32 %query(i32 %hn, i32 %h, i32 8)
  %s = ptrtoint [12 x i8]* @starts to i32
  %i = ptrtoint i32 (i32, i32)* @initialize to i32
  call void @store32(i32 %s, i32 %i)
  %s4 = add i32 %s, 4
  %d = ptrtoint void ()* @shutdown to i32
  call void @store32(i32 %s4, i32 %d)
  %s8 = add i32 %s, 8
  %g = ptrtoint i32 (i32)* @get_interface to i32
  call void @store32(i32 %s8, i32 %g)
  %start.p = call i32 @load32(i32 %h)
  %start = inttoptr i32 %start.p to i32 (i32)*
  %r = call i32 %start(i32 %s)
  call void @exit(i32 %r)
  unreachable
}
