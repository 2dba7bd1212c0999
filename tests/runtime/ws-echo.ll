; A plugin that talks to a WebSocket server (PPB_WebSocket;1.0), with the tests/attacks
; prelude. Its first message is the server's URL: it connects (posting Connect's answer,
; PP_OK_COMPLETIONPENDING -1), and when connected posts the result (0), sends the text
; "hello" (posting SendMessage's answer, 0), waits for a message and posts what it got
; (the result 0, then the message itself), closes with 1000 and "bye" (posting -1), and
; when closed posts the result (0), the close code (1000), whether it was clean (1) and
; the ready state (CLOSED, 3).
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@ppp_messaging_name = internal constant [18 x i8] c"PPP_Messaging;1.0\00"
@ws_name = internal constant [18 x i8] c"PPB_WebSocket;1.0\00"
@var_name = internal constant [12 x i8] c"PPB_Var;1.1\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hello = internal constant [6 x i8] c"hello\00"
@bye = internal constant [4 x i8] c"bye\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
@ppp_messaging = internal global [4 x i8] zeroinitializer, align 4
; get_browser_interface, instance, websocket, var, messaging tables, the socket
@state = internal global [24 x i8] zeroinitializer, align 4
@received = internal global [16 x i8] zeroinitializer, align 8

define internal i32 @state_at(i32 %k) {
  %s = ptrtoint [24 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  %v = call i32 @load32(i32 %a)
  ret i32 %v
}

define internal void @set_state(i32 %k, i32 %v) {
  %s = ptrtoint [24 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  call void @store32(i32 %a, i32 %v)
  ret void
}

define internal i32 @fn(i32 %t, i32 %k) {
  %table = call i32 @state_at(i32 %t)
  %o = mul i32 %k, 4
  %a = add i32 %table, %o
  %f = call i32 @load32(i32 %a)
  ret i32 %f
}

define internal void @post_var(i32 %p) {
  %f = call i32 @fn(i32 4, i32 0)
  %post = inttoptr i32 %f to void (i32, i32)*
  %inst = call i32 @state_at(i32 1)
  call void %post(i32 %inst, i32 %p)
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

; A string var of `n` bytes at `s`, written at `out`.
define internal void @string(i32 %out, i32 %s, i32 %n) {
  %f = call i32 @fn(i32 3, i32 2)
  %from = inttoptr i32 %f to void (i32, i32, i32)*
  call void %from(i32 %out, i32 %s, i32 %n)
  ret void
}

; A callback {f, 0, 0} at `cb`.
define internal void @callback(i32 %cb, i32 %f) {
  call void @store32(i32 %cb, i32 %f)
  %c4 = add i32 %cb, 4
  call void @store32(i32 %c4, i32 0)
  %c8 = add i32 %cb, 8
  call void @store32(i32 %c8, i32 0)
  ret void
}

define internal void @handle_message(i32 %inst, i32 %message) {
  %ws = call i32 @state_at(i32 5)
  %cb = alloca i8, i32 12, align 4
  %c = ptrtoint i8* %cb to i32
  %f = ptrtoint void (i32, i32)* @connected to i32
  call void @callback(i32 %c, i32 %f)
  %fc = call i32 @fn(i32 2, i32 2)
  %connect = inttoptr i32 %fc to i32 (i32, i32, i32, i32, i32)*
  %r = call i32 %connect(i32 %ws, i32 %message, i32 0, i32 0, i32 %c)
  call void @post_int(i32 %r)
  ret void
}

define internal void @connected(i32 %data, i32 %result) {
entry:
  call void @post_int(i32 %result)
  %ws = call i32 @state_at(i32 5)
  %var = alloca i8, i32 16, align 8
  %v = ptrtoint i8* %var to i32
  %hp = ptrtoint [6 x i8]* @hello to i32
  call void @string(i32 %v, i32 %hp, i32 5)
  %fs = call i32 @fn(i32 2, i32 5)
  %send = inttoptr i32 %fs to i32 (i32, i32)*
  %rs = call i32 %send(i32 %ws, i32 %v)
  call void @post_int(i32 %rs)
  %cb = alloca i8, i32 12, align 4
  %c = ptrtoint i8* %cb to i32
  %f = ptrtoint void (i32, i32)* @got to i32
  call void @callback(i32 %c, i32 %f)
  %fr = call i32 @fn(i32 2, i32 4)
  %receive = inttoptr i32 %fr to i32 (i32, i32, i32)*
  %out = ptrtoint [16 x i8]* @received to i32
  %rr = call i32 %receive(i32 %ws, i32 %out, i32 %c)
  %now = icmp eq i32 %rr, 0
  br i1 %now, label %at_once, label %later
at_once:
  call void @got(i32 0, i32 0)
  ret void
later:
  ret void
}

define internal void @got(i32 %data, i32 %result) {
  call void @post_int(i32 %result)
  %out = ptrtoint [16 x i8]* @received to i32
  call void @post_var(i32 %out)
  %ws = call i32 @state_at(i32 5)
  %var = alloca i8, i32 16, align 8
  %v = ptrtoint i8* %var to i32
  %bp = ptrtoint [4 x i8]* @bye to i32
  call void @string(i32 %v, i32 %bp, i32 3)
  %cb = alloca i8, i32 12, align 4
  %c = ptrtoint i8* %cb to i32
  %f = ptrtoint void (i32, i32)* @closed to i32
  call void @callback(i32 %c, i32 %f)
  %fc = call i32 @fn(i32 2, i32 3)
  %close = inttoptr i32 %fc to i32 (i32, i32, i32, i32)*
  %r = call i32 %close(i32 %ws, i32 1000, i32 %v, i32 %c)
  call void @post_int(i32 %r)
  ret void
}

define internal void @closed(i32 %data, i32 %result) {
  call void @post_int(i32 %result)
  %ws = call i32 @state_at(i32 5)
  %fc = call i32 @fn(i32 2, i32 7)
  %code = inttoptr i32 %fc to i32 (i32)*
  %c = call i32 %code(i32 %ws)
  call void @post_int(i32 %c)
  %fk = call i32 @fn(i32 2, i32 9)
  %clean = inttoptr i32 %fk to i32 (i32)*
  %k = call i32 %clean(i32 %ws)
  call void @post_int(i32 %k)
  %fs = call i32 @fn(i32 2, i32 12)
  %state = inttoptr i32 %fs to i32 (i32)*
  %s = call i32 %state(i32 %ws)
  call void @post_int(i32 %s)
  ret void
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %n2 = ptrtoint [18 x i8]* @ws_name to i32
  %t2 = call i32 %get(i32 %n2)
  call void @set_state(i32 2, i32 %t2)
  %n3 = ptrtoint [12 x i8]* @var_name to i32
  %t3 = call i32 %get(i32 %n3)
  call void @set_state(i32 3, i32 %t3)
  %n4 = ptrtoint [18 x i8]* @messaging_name to i32
  %t4 = call i32 %get(i32 %n4)
  call void @set_state(i32 4, i32 %t4)
  %fc = call i32 @fn(i32 2, i32 0)
  %create = inttoptr i32 %fc to i32 (i32)*
  %ws = call i32 %create(i32 %inst)
  call void @set_state(i32 5, i32 %ws)
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
  %mp = ptrtoint [4 x i8]* @ppp_messaging to i32
  %hm = ptrtoint void (i32, i32)* @handle_message to i32
  call void @store32(i32 %mp, i32 %hm)
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
