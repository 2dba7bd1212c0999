; A plugin that asks the host for vars of impossible sizes: an ArrayBuffer of 4 GiB - 1
; bytes (PPB_VarArrayBuffer Create) and a string of as many (PPB_Var VarFromUtf8): each must
; come back as a NULL var, never a small buffer that claims that length. Prints
; "refused" (or "accepted") for each to standard error, then ends the program.
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@var_name = internal constant [12 x i8] c"PPB_Var;1.1\00"
@buffer_name = internal constant [23 x i8] c"PPB_VarArrayBuffer;1.0\00"
@text = internal constant [2 x i8] c"x\00"
@refused = internal constant [9 x i8] c"refused\0A\00"
@accepted = internal constant [10 x i8] c"accepted\0A\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4

; Prints whether the var at %v is NULL (type 1).
define internal void @judge(i32 %v) {
  %t = call i32 @load32(i32 %v)
  %null = icmp eq i32 %t, 1
  %r = ptrtoint [9 x i8]* @refused to i32
  %a = ptrtoint [10 x i8]* @accepted to i32
  %m = select i1 %null, i32 %r, i32 %a
  call void @print(i32 %m)
  ret void
}

define internal i32 @initialize(i32 %module, i32 %get) {
entry:
  %get.fn = inttoptr i32 %get to i32 (i32)*
  %var = alloca i8, i32 16, align 8
  %v = ptrtoint i8* %var to i32
  %bn = ptrtoint [23 x i8]* @buffer_name to i32
  %buffers = call i32 %get.fn(i32 %bn)
  %create.p = call i32 @load32(i32 %buffers)
  %create = inttoptr i32 %create.p to void (i32, i32)*
  call void %create(i32 %v, i32 -1)
  call void @judge(i32 %v)
  %vn = ptrtoint [12 x i8]* @var_name to i32
  %vars = call i32 %get.fn(i32 %vn)
  %from.pp = add i32 %vars, 8
  %from.p = call i32 @load32(i32 %from.pp)
  %from = inttoptr i32 %from.p to void (i32, i32, i32)*
  %t = ptrtoint [2 x i8]* @text to i32
  call void %from(i32 %v, i32 %t, i32 -1)
  call void @judge(i32 %v)
  call void @exit(i32 0)
  unreachable
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
