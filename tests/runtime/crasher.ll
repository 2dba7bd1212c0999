; A plugin that ends itself: with the tests/attacks prelude. Its instance starts as any
; other, and prints HTML to standard error (which a page must never get as lastError); a
; message that is a number N makes it call exit(N) (what a page sees as a crash,
; exitStatus N), any other message makes it trap.
@html = internal constant [35 x i8] c"<img src=x onerror=alert('pexe')>\0A\00"
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@ppp_messaging_name = internal constant [18 x i8] c"PPP_Messaging;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
@ppp_messaging = internal global [4 x i8] zeroinitializer, align 4

define internal void @handle_message(i32 %inst, i32 %var) {
entry:
  %type = call i32 @load32(i32 %var)
  %is.int = icmp eq i32 %type, 3
  br i1 %is.int, label %exit, label %trap
exit:
  %vp = add i32 %var, 8
  %n = call i32 @load32(i32 %vp)
  call void @exit(i32 %n)
  unreachable
trap:
  call void @llvm.trap()
  unreachable
}

declare void @llvm.trap()

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  %h = ptrtoint [35 x i8]* @html to i32
  call void @print(i32 %h)
  ret i32 1
}

define internal void @did_destroy(i32 %inst) {
  ret void
}

define internal void @did_change_view(i32 %inst, i32 %view) {
  ret void
}

define internal void @did_change_focus(i32 %inst, i32 %focus) {
  ret void
}

define internal i32 @handle_document_load(i32 %inst, i32 %loader) {
  ret i32 0
}

define internal i32 @initialize(i32 %module, i32 %get) {
  ret i32 0
}

define internal void @shutdown() {
  ret void
}

define internal i32 @get_interface(i32 %name) {
entry:
  %pn = ptrtoint [17 x i8]* @ppp_instance_name to i32
  %is = call i32 @streq(i32 %name, i32 %pn)
  %yes = icmp ne i32 %is, 0
  br i1 %yes, label %instance, label %other
instance:
  %t = ptrtoint [20 x i8]* @ppp_instance to i32
  ret i32 %t
other:
  %mn = ptrtoint [18 x i8]* @ppp_messaging_name to i32
  %ism = call i32 @streq(i32 %name, i32 %mn)
  %yesm = icmp ne i32 %ism, 0
  br i1 %yesm, label %messaging, label %none
messaging:
  %m = ptrtoint [4 x i8]* @ppp_messaging to i32
  ret i32 %m
none:
  ret i32 0
}

define void @_start(i32 %info) {
  call void @init(i32 %info)
  %t = ptrtoint [20 x i8]* @ppp_instance to i32
  %f0 = ptrtoint i32 (i32, i32, i32, i32)* @did_create to i32
  call void @store32(i32 %t, i32 %f0)
  %t4 = add i32 %t, 4
  %f1 = ptrtoint void (i32)* @did_destroy to i32
  call void @store32(i32 %t4, i32 %f1)
  %t8 = add i32 %t, 8
  %f2 = ptrtoint void (i32, i32)* @did_change_view to i32
  call void @store32(i32 %t8, i32 %f2)
  %t12 = add i32 %t, 12
  %f3 = ptrtoint void (i32, i32)* @did_change_focus to i32
  call void @store32(i32 %t12, i32 %f3)
  %t16 = add i32 %t, 16
  %f4 = ptrtoint i32 (i32, i32)* @handle_document_load to i32
  call void @store32(i32 %t16, i32 %f4)
  %m = ptrtoint [4 x i8]* @ppp_messaging to i32
  %hm = ptrtoint void (i32, i32)* @handle_message to i32
  call void @store32(i32 %m, i32 %hm)
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
