; A plugin that takes its messages through PPB_Messaging 1.2's RegisterMessageHandler on
; a message loop of its own thread (it has no PPP_Messaging), with the tests/attacks
; prelude. In DidCreate it posts RegisterMessageHandler's result for the main thread's
; loop (PP_ERROR_WRONG_THREAD, -52), starts a thread that attaches its loop and runs it,
; and posts the result of registering on that loop (PP_OK, 0). Its handler echoes each
; message, then posts 1 if it runs on that loop's thread (0 if not); the message 99 makes
; it unregister, and its Destroy posts 1000. Messages after that reach nobody.
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.2\00"
@loop_name = internal constant [20 x i8] c"PPB_MessageLoop;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@thread = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
@handler = internal global [12 x i8] zeroinitializer, align 4
; get_browser_interface, the instance, PPB_Messaging, PPB_MessageLoop, the loop
@state = internal global [20 x i8] zeroinitializer, align 4
@stack = internal global [65536 x i8] zeroinitializer, align 16

define internal i32 @state_at(i32 %k) {
  %s = ptrtoint [20 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  %v = call i32 @load32(i32 %a)
  ret i32 %v
}

define internal void @set_state(i32 %k, i32 %v) {
  %s = ptrtoint [20 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  call void @store32(i32 %a, i32 %v)
  ret void
}

; Entry %k of the table at %t, as a number.
define internal i32 @entry(i32 %t, i32 %k) {
  %o = mul i32 %k, 4
  %a = add i32 %t, %o
  %f = call i32 @load32(i32 %a)
  ret i32 %f
}

define internal void @post_var(i32 %var) {
  %m = call i32 @state_at(i32 2)
  %f = call i32 @entry(i32 %m, i32 0)
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

; MessageLoop function %k.
define internal i32 @loop_fn(i32 %k) {
  %l = call i32 @state_at(i32 3)
  %f = call i32 @entry(i32 %l, i32 %k)
  ret i32 %f
}

define internal void @handle(i32 %inst, i32 %user, i32 %var) {
entry:
  call void @post_var(i32 %var)
  %gc = call i32 @loop_fn(i32 2)
  %get_current = inttoptr i32 %gc to i32 ()*
  %cur = call i32 %get_current()
  %mine = call i32 @state_at(i32 4)
  %same = icmp eq i32 %cur, %mine
  %same.i = zext i1 %same to i32
  call void @post_int(i32 %same.i)
  %type = call i32 @load32(i32 %var)
  %vp = add i32 %var, 8
  %value = call i32 @load32(i32 %vp)
  %is.int = icmp eq i32 %type, 3
  %is.99 = icmp eq i32 %value, 99
  %stop = and i1 %is.int, %is.99
  br i1 %stop, label %unregister, label %done
unregister:
  %m = call i32 @state_at(i32 2)
  %f = call i32 @entry(i32 %m, i32 2)
  %unreg = inttoptr i32 %f to void (i32)*
  call void %unreg(i32 %inst)
  br label %done
done:
  ret void
}

define internal void @blocking(i32 %inst, i32 %user, i32 %var, i32 %response) {
  ret void
}

define internal void @destroy(i32 %inst, i32 %user) {
  call void @post_int(i32 1000)
  ret void
}

define internal void @thread_main() {
  %loop = call i32 @state_at(i32 4)
  %a = call i32 @loop_fn(i32 3)
  %attach = inttoptr i32 %a to i32 (i32)*
  %ra = call i32 %attach(i32 %loop)
  %r = call i32 @loop_fn(i32 4)
  %run = inttoptr i32 %r to i32 (i32)*
  %rr = call i32 %run(i32 %loop)
  call void @sleep_forever()
  unreachable
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %mn = ptrtoint [18 x i8]* @messaging_name to i32
  %messaging = call i32 %get(i32 %mn)
  call void @set_state(i32 2, i32 %messaging)
  %ln = ptrtoint [20 x i8]* @loop_name to i32
  %loops = call i32 %get(i32 %ln)
  call void @set_state(i32 3, i32 %loops)
  %c = call i32 @loop_fn(i32 0)
  %create = inttoptr i32 %c to i32 (i32)*
  %loop = call i32 %create(i32 %inst)
  call void @set_state(i32 4, i32 %loop)
  %h = ptrtoint [12 x i8]* @handler to i32
  %hf = ptrtoint void (i32, i32, i32)* @handle to i32
  call void @store32(i32 %h, i32 %hf)
  %h4 = add i32 %h, 4
  %bf = ptrtoint void (i32, i32, i32, i32)* @blocking to i32
  call void @store32(i32 %h4, i32 %bf)
  %h8 = add i32 %h, 8
  %df = ptrtoint void (i32, i32)* @destroy to i32
  call void @store32(i32 %h8, i32 %df)
  %rf = call i32 @entry(i32 %messaging, i32 1)
  %register = inttoptr i32 %rf to i32 (i32, i32, i32, i32)*
  %mf = call i32 @loop_fn(i32 1)
  %for_main = inttoptr i32 %mf to i32 ()*
  %main = call i32 %for_main()
  %r1 = call i32 %register(i32 %inst, i32 0, i32 %h, i32 %main)
  call void @post_int(i32 %r1)
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %tn = ptrtoint [20 x i8]* @thread_name to i32
  %tt = ptrtoint [12 x i8]* @thread to i32
  %got = call i32 %query(i32 %tn, i32 %tt, i32 12)
  %tc = call i32 @load32(i32 %tt)
  %thread_create = inttoptr i32 %tc to i32 (i32, i32, i32)*
  %tm = ptrtoint void ()* @thread_main to i32
  %st = ptrtoint [65536 x i8]* @stack to i32
  %top = add i32 %st, 65536
  %e = call i32 %thread_create(i32 %tm, i32 %top, i32 0)
  %r2 = call i32 %register(i32 %inst, i32 0, i32 %h, i32 %loop)
  call void @post_int(i32 %r2)
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
  br i1 %yes, label %instance, label %none
instance:
  %t = ptrtoint [20 x i8]* @ppp_instance to i32
  ret i32 %t
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
