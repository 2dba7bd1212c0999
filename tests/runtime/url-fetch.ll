; A plugin that fetches what the page names, with the tests/attacks prelude: each string
; message is a URL; it makes a PPB_URLRequestInfo with it, opens a PPB_URLLoader (a
; required callback), posts the response's status code (PPB_URLResponseInfo), reads the
; body with ReadResponseBody until it ends (required callbacks, 64 KiB at most), and
; posts it as a string. A failure is posted as its (negative) error number.
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@ppp_messaging_name = internal constant [18 x i8] c"PPP_Messaging;1.0\00"
@request_name = internal constant [23 x i8] c"PPB_URLRequestInfo;1.0\00"
@loader_name = internal constant [18 x i8] c"PPB_URLLoader;1.0\00"
@response_name = internal constant [24 x i8] c"PPB_URLResponseInfo;1.0\00"
@var_name = internal constant [12 x i8] c"PPB_Var;1.2\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
@ppp_messaging = internal global [4 x i8] zeroinitializer, align 4
; get_browser_interface, instance, request, loader, response, var, messaging tables; the
; loader; the body's length
@state = internal global [36 x i8] zeroinitializer, align 4
@body = internal global [65536 x i8] zeroinitializer, align 4
@callback = internal global [12 x i8] zeroinitializer, align 4

define internal i32 @state_at(i32 %k) {
  %s = ptrtoint [36 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  %v = call i32 @load32(i32 %a)
  ret i32 %v
}

define internal void @set_state(i32 %k, i32 %v) {
  %s = ptrtoint [36 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  call void @store32(i32 %a, i32 %v)
  ret void
}

; Function %k of the table in state slot %t.
define internal i32 @fn(i32 %t, i32 %k) {
  %table = call i32 @state_at(i32 %t)
  %o = mul i32 %k, 4
  %a = add i32 %table, %o
  %f = call i32 @load32(i32 %a)
  ret i32 %f
}

define internal void @post_var(i32 %var) {
  %f = call i32 @fn(i32 6, i32 0)
  %post = inttoptr i32 %f to void (i32, i32)*
  %inst = call i32 @state_at(i32 1)
  call void %post(i32 %inst, i32 %var)
  ret void
}

define internal void @post_int(i32 %v) {
  %var = alloca i8, i32 16, align 8
  %p = ptrtoint i8* %var to i32
  call void @store32(i32 %p, i32 3)
  %p4 = add i32 %p, 4
  call void @store32(i32 %p4, i32 0)
  %p8 = add i32 %p, 8
  call void @store32(i32 %p8, i32 %v)
  %p12 = add i32 %p, 12
  call void @store32(i32 %p12, i32 0)
  call void @post_var(i32 %p)
  ret void
}

; The callback struct {func, 0, 0 (required)} for %func.
define internal i32 @callback_for(i32 %func) {
  %c = ptrtoint [12 x i8]* @callback to i32
  call void @store32(i32 %c, i32 %func)
  %c4 = add i32 %c, 4
  call void @store32(i32 %c4, i32 0)
  %c8 = add i32 %c, 8
  call void @store32(i32 %c8, i32 0)
  ret i32 %c
}

define internal void @read_more() {
  %len = call i32 @state_at(i32 8)
  %b = ptrtoint [65536 x i8]* @body to i32
  %at = add i32 %b, %len
  %room = sub i32 65536, %len
  %f = call i32 @fn(i32 3, i32 7)
  %read = inttoptr i32 %f to i32 (i32, i32, i32, i32)*
  %loader = call i32 @state_at(i32 7)
  %rd = ptrtoint void (i32, i32)* @read_done to i32
  %cb = call i32 @callback_for(i32 %rd)
  %r = call i32 %read(i32 %loader, i32 %at, i32 %room, i32 %cb)
  %pending = icmp eq i32 %r, -1
  br i1 %pending, label %done, label %odd
odd:
  call void @post_int(i32 %r)
  br label %done
done:
  ret void
}

define internal void @read_done(i32 %user, i32 %result) {
entry:
  %more = icmp sgt i32 %result, 0
  br i1 %more, label %got, label %other
got:
  %len = call i32 @state_at(i32 8)
  %len2 = add i32 %len, %result
  call void @set_state(i32 8, i32 %len2)
  call void @read_more()
  ret void
other:
  %end = icmp eq i32 %result, 0
  br i1 %end, label %finished, label %failed
finished:
  %v = alloca i8, i32 16, align 8
  %vp = ptrtoint i8* %v to i32
  %f = call i32 @fn(i32 5, i32 2)
  %from_utf8 = inttoptr i32 %f to void (i32, i32, i32)*
  %b = ptrtoint [65536 x i8]* @body to i32
  %n = call i32 @state_at(i32 8)
  call void %from_utf8(i32 %vp, i32 %b, i32 %n)
  call void @post_var(i32 %vp)
  ret void
failed:
  call void @post_int(i32 %result)
  ret void
}

define internal void @opened(i32 %user, i32 %result) {
entry:
  %ok = icmp eq i32 %result, 0
  br i1 %ok, label %open, label %failed
open:
  %f = call i32 @fn(i32 3, i32 6)
  %info = inttoptr i32 %f to i32 (i32)*
  %loader = call i32 @state_at(i32 7)
  %resp = call i32 %info(i32 %loader)
  %g = call i32 @fn(i32 4, i32 1)
  %get = inttoptr i32 %g to void (i32, i32, i32)*
  %v = alloca i8, i32 16, align 8
  %vp = ptrtoint i8* %v to i32
  call void %get(i32 %vp, i32 %resp, i32 3)
  call void @post_var(i32 %vp)
  call void @set_state(i32 8, i32 0)
  call void @read_more()
  ret void
failed:
  call void @post_int(i32 %result)
  ret void
}

define internal void @handle_message(i32 %inst, i32 %var) {
  %fc = call i32 @fn(i32 2, i32 0)
  %create = inttoptr i32 %fc to i32 (i32)*
  %req = call i32 %create(i32 %inst)
  %fs = call i32 @fn(i32 2, i32 2)
  %set = inttoptr i32 %fs to i32 (i32, i32, i32)*
  %ok = call i32 %set(i32 %req, i32 0, i32 %var)
  %fl = call i32 @fn(i32 3, i32 0)
  %lcreate = inttoptr i32 %fl to i32 (i32)*
  %loader = call i32 %lcreate(i32 %inst)
  call void @set_state(i32 7, i32 %loader)
  %fo = call i32 @fn(i32 3, i32 2)
  %open = inttoptr i32 %fo to i32 (i32, i32, i32)*
  %op = ptrtoint void (i32, i32)* @opened to i32
  %cb = call i32 @callback_for(i32 %op)
  %r = call i32 %open(i32 %loader, i32 %req, i32 %cb)
  %pending = icmp eq i32 %r, -1
  br i1 %pending, label %done, label %odd
odd:
  call void @post_int(i32 %r)
  br label %done
done:
  ret void
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %n2 = ptrtoint [23 x i8]* @request_name to i32
  %t2 = call i32 %get(i32 %n2)
  call void @set_state(i32 2, i32 %t2)
  %n3 = ptrtoint [18 x i8]* @loader_name to i32
  %t3 = call i32 %get(i32 %n3)
  call void @set_state(i32 3, i32 %t3)
  %n4 = ptrtoint [24 x i8]* @response_name to i32
  %t4 = call i32 %get(i32 %n4)
  call void @set_state(i32 4, i32 %t4)
  %n5 = ptrtoint [12 x i8]* @var_name to i32
  %t5 = call i32 %get(i32 %n5)
  call void @set_state(i32 5, i32 %t5)
  %n6 = ptrtoint [18 x i8]* @messaging_name to i32
  %t6 = call i32 %get(i32 %n6)
  call void @set_state(i32 6, i32 %t6)
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
  call void @set_state(i32 0, i32 %get)
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
