; A plugin that plays a sound (PPB_AudioConfig;1.1, PPB_Audio;1.1), with the tests/attacks
; prelude. In DidCreate it asks for the frames a buffer should have at 48,000 frames a
; second (512 asked for), makes a stereo 16-bit configuration and a sound whose callback
; fills each buffer with a square wave and counts the buffers, starts it (posting what
; StartPlayback answers, 1), and then, once a second (CallOnMainThread), posts the
; buffers filled so far: as the page plays them, about 48,000 / 512 a second.
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@config_name = internal constant [20 x i8] c"PPB_AudioConfig;1.1\00"
@audio_name = internal constant [14 x i8] c"PPB_Audio;1.1\00"
@core_name = internal constant [13 x i8] c"PPB_Core;1.0\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
; get_browser_interface, instance, config, audio, core, messaging tables, buffers filled
@state = internal global [28 x i8] zeroinitializer, align 4

define internal i32 @state_at(i32 %k) {
  %s = ptrtoint [28 x i8]* @state to i32
  %o = mul i32 %k, 4
  %a = add i32 %s, %o
  %v = call i32 @load32(i32 %a)
  ret i32 %v
}

define internal void @set_state(i32 %k, i32 %v) {
  %s = ptrtoint [28 x i8]* @state to i32
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

; The sound's callback (1.1): a square wave, +-8000 every 50 frames; one more buffer.
define internal void @fill(i32 %buffer, i32 %size, double %latency, i32 %data) {
entry:
  %frames = udiv i32 %size, 4
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %half = udiv i32 %k, 50
  %odd = and i32 %half, 1
  %high = icmp eq i32 %odd, 0
  %v = select i1 %high, i32 8000, i32 -8000
  %lo = and i32 %v, 65535
  %hi = shl i32 %lo, 16
  %both = or i32 %hi, %lo
  %o = mul i32 %k, 4
  %a = add i32 %buffer, %o
  call void @store32(i32 %a, i32 %both)
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %frames
  br i1 %more, label %loop, label %done
done:
  %n = call i32 @state_at(i32 6)
  %n1 = add i32 %n, 1
  call void @set_state(i32 6, i32 %n1)
  ret void
}

define internal void @later(i32 %f) {
  %cb = alloca i8, i32 12, align 4
  %c = ptrtoint i8* %cb to i32
  call void @store32(i32 %c, i32 %f)
  %c4 = add i32 %c, 4
  call void @store32(i32 %c4, i32 0)
  %c8 = add i32 %c, 8
  call void @store32(i32 %c8, i32 0)
  %fc = call i32 @fn(i32 4, i32 4)
  %call_on_main = inttoptr i32 %fc to void (i32, i32, i32)*
  call void %call_on_main(i32 1000, i32 %c, i32 0)
  ret void
}

define internal void @report(i32 %data, i32 %result) {
  %n = call i32 @state_at(i32 6)
  call void @post_int(i32 %n)
  %f = ptrtoint void (i32, i32)* @report to i32
  call void @later(i32 %f)
  ret void
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %n2 = ptrtoint [20 x i8]* @config_name to i32
  %t2 = call i32 %get(i32 %n2)
  call void @set_state(i32 2, i32 %t2)
  %n3 = ptrtoint [14 x i8]* @audio_name to i32
  %t3 = call i32 %get(i32 %n3)
  call void @set_state(i32 3, i32 %t3)
  %n4 = ptrtoint [13 x i8]* @core_name to i32
  %t4 = call i32 %get(i32 %n4)
  call void @set_state(i32 4, i32 %t4)
  %n5 = ptrtoint [18 x i8]* @messaging_name to i32
  %t5 = call i32 %get(i32 %n5)
  call void @set_state(i32 5, i32 %t5)
  %fr = call i32 @fn(i32 2, i32 1)
  %recommend = inttoptr i32 %fr to i32 (i32, i32, i32)*
  %frames = call i32 %recommend(i32 %inst, i32 48000, i32 512)
  %fc = call i32 @fn(i32 2, i32 0)
  %create_config = inttoptr i32 %fc to i32 (i32, i32, i32)*
  %config = call i32 %create_config(i32 %inst, i32 48000, i32 %frames)
  %fa = call i32 @fn(i32 3, i32 0)
  %create = inttoptr i32 %fa to i32 (i32, i32, i32, i32)*
  %fill = ptrtoint void (i32, i32, double, i32)* @fill to i32
  %audio = call i32 %create(i32 %inst, i32 %config, i32 %fill, i32 0)
  %fs = call i32 @fn(i32 3, i32 3)
  %start = inttoptr i32 %fs to i32 (i32)*
  %ok = call i32 %start(i32 %audio)
  call void @post_int(i32 %ok)
  %f = ptrtoint void (i32, i32)* @report to i32
  call void @later(i32 %f)
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
