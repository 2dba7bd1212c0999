; A plugin that reports the mouse: with the tests/attacks prelude. In DidCreate it asks
; for mouse, keyboard, wheel and touch events (RequestInputEvents); for each MOUSEDOWN it
; posts 1000 * x + y of the event's position (PPB_MouseInputEvent GetPosition) plus
; 1000000 * its click count, for each KEYDOWN minus its key code, and for each TOUCHSTART
; 2000000 + 1000 * x + y of its first touch (PPB_TouchInputEvent GetTouchByIndex) plus
; 100000 * the number of changed touches, and (it asks for IME events too) for each
; IME_COMPOSITION_UPDATE and IME_TEXT 3000000 + 1000 * its type + the end of its first
; segment (PPB_IMEInputEvent GetSegmentOffset 1: the text's bytes); it handles every
; event. In
; DidCreate it also logs the number 42 to the console at level WARNING (PPB_Console).
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@ppp_input_name = internal constant [19 x i8] c"PPP_InputEvent;0.1\00"
@input_name = internal constant [19 x i8] c"PPB_InputEvent;1.0\00"
@mouse_name = internal constant [24 x i8] c"PPB_MouseInputEvent;1.1\00"
@key_name = internal constant [27 x i8] c"PPB_KeyboardInputEvent;1.2\00"
@touch_name = internal constant [24 x i8] c"PPB_TouchInputEvent;1.0\00"
@ime_name = internal constant [22 x i8] c"PPB_IMEInputEvent;1.0\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@console_name = internal constant [16 x i8] c"PPB_Console;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
@ppp_input = internal global [4 x i8] zeroinitializer, align 4
; get_browser_interface, instance, input, mouse, keyboard, messaging, touch, IME tables
@state = internal global [32 x i8] zeroinitializer, align 4

define internal i32 @state_at(i32 %k) {
  %s = ptrtoint [32 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  %v = call i32 @load32(i32 %a)
  ret i32 %v
}

define internal void @set_state(i32 %k, i32 %v) {
  %s = ptrtoint [32 x i8]* @state to i32
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
  %f = call i32 @fn(i32 5, i32 0)
  %post = inttoptr i32 %f to void (i32, i32)*
  %inst = call i32 @state_at(i32 1)
  call void %post(i32 %inst, i32 %p)
  ret void
}

define internal i32 @handle_input(i32 %inst, i32 %event) {
entry:
  %ft = call i32 @fn(i32 2, i32 4)
  %get_type = inttoptr i32 %ft to i32 (i32)*
  %type = call i32 %get_type(i32 %event)
  %down = icmp eq i32 %type, 0
  br i1 %down, label %mouse, label %other
mouse:
  %fp = call i32 @fn(i32 3, i32 3)
  %position = inttoptr i32 %fp to void (i32, i32)*
  %pt = alloca i8, i32 8, align 4
  %ptp = ptrtoint i8* %pt to i32
  call void %position(i32 %ptp, i32 %event)
  %x = call i32 @load32(i32 %ptp)
  %yp = add i32 %ptp, 4
  %y = call i32 @load32(i32 %yp)
  %fc = call i32 @fn(i32 3, i32 4)
  %clicks.f = inttoptr i32 %fc to i32 (i32)*
  %clicks = call i32 %clicks.f(i32 %event)
  %x1000 = mul i32 %x, 1000
  %c = mul i32 %clicks, 1000000
  %xy = add i32 %x1000, %y
  %v = add i32 %xy, %c
  call void @post_int(i32 %v)
  ret i32 1
other:
  %kd = icmp eq i32 %type, 7
  br i1 %kd, label %key, label %touch.check
touch.check:
  %td = icmp eq i32 %type, 15
  br i1 %td, label %touch, label %ime.check
ime.check:
  %iu = icmp eq i32 %type, 12
  %it = icmp eq i32 %type, 14
  %ie = or i1 %iu, %it
  br i1 %ie, label %ime, label %done
ime:
  %fo = call i32 @fn(i32 7, i32 4)
  %offset.f = inttoptr i32 %fo to i32 (i32, i32)*
  %end = call i32 %offset.f(i32 %event, i32 1)
  %t1000 = mul i32 %type, 1000
  %iv0 = add i32 %t1000, %end
  %iv = add i32 %iv0, 3000000
  call void @post_int(i32 %iv)
  ret i32 1
touch:
  %tp = alloca i8, i32 28, align 4
  %tpp = ptrtoint i8* %tp to i32
  %fb = call i32 @fn(i32 6, i32 4)
  %by_index = inttoptr i32 %fb to void (i32, i32, i32, i32)*
  call void %by_index(i32 %tpp, i32 %event, i32 0, i32 0)
  %txp = add i32 %tpp, 4
  %txi = call i32 @load32(i32 %txp)
  %typ = add i32 %tpp, 8
  %tyi = call i32 @load32(i32 %typ)
  %txf = bitcast i32 %txi to float
  %tyf = bitcast i32 %tyi to float
  %tx = fptosi float %txf to i32
  %ty = fptosi float %tyf to i32
  %fcount = call i32 @fn(i32 6, i32 3)
  %count.f = inttoptr i32 %fcount to i32 (i32, i32)*
  %changed = call i32 %count.f(i32 %event, i32 1)
  %tx1000 = mul i32 %tx, 1000
  %txy = add i32 %tx1000, %ty
  %tc = mul i32 %changed, 100000
  %tv0 = add i32 %txy, %tc
  %tv = add i32 %tv0, 2000000
  call void @post_int(i32 %tv)
  ret i32 1
key:
  %fk = call i32 @fn(i32 4, i32 2)
  %code.f = inttoptr i32 %fk to i32 (i32)*
  %code = call i32 %code.f(i32 %event)
  %neg = sub i32 0, %code
  call void @post_int(i32 %neg)
  ret i32 1
done:
  ret i32 1
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %n2 = ptrtoint [19 x i8]* @input_name to i32
  %t2 = call i32 %get(i32 %n2)
  call void @set_state(i32 2, i32 %t2)
  %n3 = ptrtoint [24 x i8]* @mouse_name to i32
  %t3 = call i32 %get(i32 %n3)
  call void @set_state(i32 3, i32 %t3)
  %n4 = ptrtoint [27 x i8]* @key_name to i32
  %t4 = call i32 %get(i32 %n4)
  call void @set_state(i32 4, i32 %t4)
  %n5 = ptrtoint [18 x i8]* @messaging_name to i32
  %t5 = call i32 %get(i32 %n5)
  call void @set_state(i32 5, i32 %t5)
  %n6 = ptrtoint [24 x i8]* @touch_name to i32
  %t6 = call i32 %get(i32 %n6)
  call void @set_state(i32 6, i32 %t6)
  %fr = call i32 @fn(i32 2, i32 0)
  %request = inttoptr i32 %fr to i32 (i32, i32)*
  %n7 = ptrtoint [22 x i8]* @ime_name to i32
  %t7 = call i32 %get(i32 %n7)
  call void @set_state(i32 7, i32 %t7)
  %r = call i32 %request(i32 %inst, i32 31)
  %cn = ptrtoint [16 x i8]* @console_name to i32
  %console = call i32 %get(i32 %cn)
  %logp = call i32 @load32(i32 %console)
  %log = inttoptr i32 %logp to void (i32, i32, i32)*
  %var = alloca i8, i32 16, align 8
  %p = ptrtoint i8* %var to i32
  call void @store32(i32 %p, i32 3)
  %p4 = add i32 %p, 4
  call void @store32(i32 %p4, i32 0)
  %p8 = add i32 %p, 8
  call void @store32(i32 %p8, i32 42)
  %p12 = add i32 %p, 12
  call void @store32(i32 %p12, i32 0)
  call void %log(i32 %inst, i32 2, i32 %p)
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
  %in = ptrtoint [19 x i8]* @ppp_input_name to i32
  %isi = call i32 @streq(i32 %name, i32 %in)
  %yesi = icmp ne i32 %isi, 0
  br i1 %yesi, label %input, label %none
input:
  %i = ptrtoint [4 x i8]* @ppp_input to i32
  ret i32 %i
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
  %ip = ptrtoint [4 x i8]* @ppp_input to i32
  %hi = ptrtoint i32 (i32, i32)* @handle_input to i32
  call void @store32(i32 %ip, i32 %hi)
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
