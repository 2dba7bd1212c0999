; A plugin that draws with OpenGL ES 2 (PPB_Graphics3D, PPB_OpenGLES2): with the
; tests/attacks prelude. In DidCreate (the main thread) it makes a 64 x 64 context, binds
; it, and starts a thread of its own, which draws with it (as Chrome allowed: a context
; made on one thread, used on another) a frame: cleared blue, a red square (a scissored
; clear of 32 x 32 at (16, 16)), and a green triangle over the lower-left quarter from a
; shader pair and a client-side vertex array (no buffer bound: copied by the host at the
; draw). It reads back the pixels at (2, 2), (32, 32) and (60, 60) (ReadPixels; RGBA
; bytes as a little-endian int32 each) and GetError, and posts the four numbers; then,
; for as long as it runs, it swaps (blocking, off the main thread), posts 1000 + the
; frames shown so far, and draws the frame again.
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@g3d_name = internal constant [19 x i8] c"PPB_Graphics3D;1.0\00"
@gles_name = internal constant [18 x i8] c"PPB_OpenGLES2;1.0\00"
@instance_name = internal constant [17 x i8] c"PPB_Instance;1.0\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@thread = internal global [12 x i8] zeroinitializer, align 4
@stack = internal global [65536 x i8] zeroinitializer, align 16
@blocking = internal global [12 x i8] zeroinitializer, align 4
@vs = internal constant [59 x i8] c"attribute vec2 p;void main(){gl_Position=vec4(p,0.0,1.0);}\00"
@fs = internal constant [73 x i8] c"precision mediump float;void main(){gl_FragColor=vec4(0.0,1.0,0.0,1.0);}\00"
@attr = internal constant [2 x i8] c"p\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
; get_browser_interface, instance, g3d, gles2, messaging, context, PPB_Instance, frames,
; program
@state = internal global [36 x i8] zeroinitializer, align 4
; the triangle: (-1, -1), (0, -1), (-1, 0)
@triangle = internal global [24 x i8] zeroinitializer, align 4

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

define internal i32 @fn(i32 %t, i32 %k) {
  %table = call i32 @state_at(i32 %t)
  %o = mul i32 %k, 4
  %a = add i32 %table, %o
  %f = call i32 @load32(i32 %a)
  ret i32 %f
}

define internal i32 @gl(i32 %k) {
  %f = call i32 @fn(i32 3, i32 %k)
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
  %f = call i32 @fn(i32 4, i32 0)
  %post = inttoptr i32 %f to void (i32, i32)*
  %inst = call i32 @state_at(i32 1)
  call void %post(i32 %inst, i32 %p)
  ret void
}

define internal i32 @shader(i32 %ctx, i32 %type, i32 %src) {
  %fc = call i32 @gl(i32 26)
  %create = inttoptr i32 %fc to i32 (i32, i32)*
  %sh = call i32 %create(i32 %ctx, i32 %type)
  %strs = alloca i8, i32 4, align 4
  %sp = ptrtoint i8* %strs to i32
  call void @store32(i32 %sp, i32 %src)
  %fs = call i32 @gl(i32 98)
  %source = inttoptr i32 %fs to void (i32, i32, i32, i32, i32)*
  call void %source(i32 %ctx, i32 %sh, i32 1, i32 %sp, i32 0)
  %fk = call i32 @gl(i32 20)
  %compile = inttoptr i32 %fk to void (i32, i32)*
  call void %compile(i32 %ctx, i32 %sh)
  ret i32 %sh
}

; Makes the program (once) and the triangle's vertices.
define internal void @setup(i32 %ctx) {
  %vsrc = ptrtoint [59 x i8]* @vs to i32
  %fsrc = ptrtoint [73 x i8]* @fs to i32
  %v = call i32 @shader(i32 %ctx, i32 35633, i32 %vsrc)
  %f = call i32 @shader(i32 %ctx, i32 35632, i32 %fsrc)
  %fcp = call i32 @gl(i32 25)
  %createp = inttoptr i32 %fcp to i32 (i32)*
  %prog = call i32 %createp(i32 %ctx)
  call void @set_state(i32 8, i32 %prog)
  %fa = call i32 @gl(i32 1)
  %attach = inttoptr i32 %fa to void (i32, i32, i32)*
  call void %attach(i32 %ctx, i32 %prog, i32 %v)
  call void %attach(i32 %ctx, i32 %prog, i32 %f)
  %fb = call i32 @gl(i32 2)
  %bind = inttoptr i32 %fb to void (i32, i32, i32, i32)*
  %an = ptrtoint [2 x i8]* @attr to i32
  call void %bind(i32 %ctx, i32 %prog, i32 0, i32 %an)
  %fl = call i32 @gl(i32 89)
  %link = inttoptr i32 %fl to void (i32, i32)*
  call void %link(i32 %ctx, i32 %prog)
  %t = ptrtoint [24 x i8]* @triangle to i32
  call void @store32(i32 %t, i32 -1082130432)
  %t4 = add i32 %t, 4
  call void @store32(i32 %t4, i32 -1082130432)
  %t8 = add i32 %t, 8
  call void @store32(i32 %t8, i32 0)
  %t12 = add i32 %t, 12
  call void @store32(i32 %t12, i32 -1082130432)
  %t16 = add i32 %t, 16
  call void @store32(i32 %t16, i32 -1082130432)
  %t20 = add i32 %t, 20
  call void @store32(i32 %t20, i32 0)
  ret void
}

define internal void @draw(i32 %ctx) {
  %fcc = call i32 @gl(i32 16)
  %clear_color = inttoptr i32 %fcc to void (i32, float, float, float, float)*
  %fc = call i32 @gl(i32 15)
  %clear = inttoptr i32 %fc to void (i32, i32)*
  call void %clear_color(i32 %ctx, float 0.0, float 0.0, float 1.0, float 1.0)
  call void %clear(i32 %ctx, i32 16384)
  %fe = call i32 @gl(i32 42)
  %enable = inttoptr i32 %fe to void (i32, i32)*
  call void %enable(i32 %ctx, i32 3089)
  %fsc = call i32 @gl(i32 96)
  %scissor = inttoptr i32 %fsc to void (i32, i32, i32, i32, i32)*
  call void %scissor(i32 %ctx, i32 16, i32 16, i32 32, i32 32)
  call void %clear_color(i32 %ctx, float 1.0, float 0.0, float 0.0, float 1.0)
  call void %clear(i32 %ctx, i32 16384)
  %fd = call i32 @gl(i32 38)
  %disable = inttoptr i32 %fd to void (i32, i32)*
  call void %disable(i32 %ctx, i32 3089)
  %prog = call i32 @state_at(i32 8)
  %fu = call i32 @gl(i32 130)
  %use = inttoptr i32 %fu to void (i32, i32)*
  call void %use(i32 %ctx, i32 %prog)
  %fp = call i32 @gl(i32 140)
  %pointer = inttoptr i32 %fp to void (i32, i32, i32, i32, i32, i32, i32)*
  %t = ptrtoint [24 x i8]* @triangle to i32
  call void %pointer(i32 %ctx, i32 0, i32 2, i32 5126, i32 0, i32 0, i32 %t)
  %fen = call i32 @gl(i32 43)
  %enable_attr = inttoptr i32 %fen to void (i32, i32)*
  call void %enable_attr(i32 %ctx, i32 0)
  %fdr = call i32 @gl(i32 40)
  %draw_arrays = inttoptr i32 %fdr to void (i32, i32, i32, i32)*
  call void %draw_arrays(i32 %ctx, i32 4, i32 0, i32 3)
  ret void
}

define internal i32 @pixel(i32 %ctx, i32 %x, i32 %y) {
  %px = alloca i8, i32 4, align 4
  %p = ptrtoint i8* %px to i32
  %fr = call i32 @gl(i32 92)
  %read = inttoptr i32 %fr to void (i32, i32, i32, i32, i32, i32, i32, i32)*
  call void %read(i32 %ctx, i32 %x, i32 %y, i32 1, i32 1, i32 6408, i32 5121, i32 %p)
  %v = call i32 @load32(i32 %p)
  ret i32 %v
}

define internal void @thread_main() {
entry:
  %ctx = call i32 @state_at(i32 5)
  call void @setup(i32 %ctx)
  call void @draw(i32 %ctx)
  %p0 = call i32 @pixel(i32 %ctx, i32 2, i32 2)
  call void @post_int(i32 %p0)
  %p1 = call i32 @pixel(i32 %ctx, i32 32, i32 32)
  call void @post_int(i32 %p1)
  %p2 = call i32 @pixel(i32 %ctx, i32 60, i32 60)
  call void @post_int(i32 %p2)
  %fg = call i32 @gl(i32 60)
  %get_error = inttoptr i32 %fg to i32 (i32)*
  %err = call i32 %get_error(i32 %ctx)
  call void @post_int(i32 %err)
  br label %loop
loop:
  %n = phi i32 [ 0, %entry ], [ %n1, %loop ]
  %fs = call i32 @fn(i32 2, i32 7)
  %swapf = inttoptr i32 %fs to i32 (i32, i32)*
  %cb = ptrtoint [12 x i8]* @blocking to i32
  %r = call i32 %swapf(i32 %ctx, i32 %cb)
  %n1 = add i32 %n, 1
  %v = add i32 %n1, 1000
  call void @post_int(i32 %v)
  call void @draw(i32 %ctx)
  br label %loop
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %n2 = ptrtoint [19 x i8]* @g3d_name to i32
  %t2 = call i32 %get(i32 %n2)
  call void @set_state(i32 2, i32 %t2)
  %n3 = ptrtoint [18 x i8]* @gles_name to i32
  %t3 = call i32 %get(i32 %n3)
  call void @set_state(i32 3, i32 %t3)
  %n4 = ptrtoint [18 x i8]* @messaging_name to i32
  %t4 = call i32 %get(i32 %n4)
  call void @set_state(i32 4, i32 %t4)
  %n6 = ptrtoint [17 x i8]* @instance_name to i32
  %t6 = call i32 %get(i32 %n6)
  call void @set_state(i32 6, i32 %t6)
  ; attributes: WIDTH 64, HEIGHT 64, NONE
  %attrs = alloca i8, i32 20, align 4
  %a = ptrtoint i8* %attrs to i32
  call void @store32(i32 %a, i32 12375)
  %a4 = add i32 %a, 4
  call void @store32(i32 %a4, i32 64)
  %a8 = add i32 %a, 8
  call void @store32(i32 %a8, i32 12374)
  %a12 = add i32 %a, 12
  call void @store32(i32 %a12, i32 64)
  %a16 = add i32 %a, 16
  call void @store32(i32 %a16, i32 12344)
  %fc = call i32 @fn(i32 2, i32 1)
  %create = inttoptr i32 %fc to i32 (i32, i32, i32)*
  %ctx = call i32 %create(i32 %inst, i32 0, i32 %a)
  call void @set_state(i32 5, i32 %ctx)
  %fb = call i32 @fn(i32 6, i32 0)
  %bind = inttoptr i32 %fb to i32 (i32, i32)*
  %bound = call i32 %bind(i32 %inst, i32 %ctx)
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
