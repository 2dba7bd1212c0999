; An attack on the page's GL (tests/site.rs): a plugin, with the tests/attacks prelude,
; that hands PPB_OpenGLES2 what its own memory cannot hold or the context does not have:
; each call's GL error is posted after it, so the page sees that each was refused as a
; GL error (nothing thrown, nothing read or written outside the plugin's memory), and at
; the end the context still draws (a clear, read back). In order:
;   ShaderSource on a shader that does not exist                  INVALID_VALUE 1281
;   ShaderSource of 2^30 strings at the end of memory             INVALID_VALUE 1281
;   BufferData of 2^31 - 1 bytes from address 16                  OUT_OF_MEMORY 1285
;   BufferData of 64 MiB from the last page of the address space  INVALID_VALUE 1281
;   TexImage2D of 16384 x 16384 RGBA from address 16              INVALID_VALUE 1281
;   ReadPixels of 64 x 64 into the end of the address space       INVALID_VALUE 1281
;   GenBuffers of 2^31 - 1 names                                  OUT_OF_MEMORY 1285
;   DeleteBuffers of -1 names                                     INVALID_VALUE 1281
;   DrawElements of 2^31 - 1 indices from the end of memory       INVALID_VALUE 1281
;   UniformMatrix4fv at a location no program has                 INVALID_OPERATION 1282
;   Clear and GetError on a resource that is no context           0, 0
;   then: ClearColor green, Clear, ReadPixels at (1, 1)           the pixel, then GetError 0
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@g3d_name = internal constant [19 x i8] c"PPB_Graphics3D;1.0\00"
@gles_name = internal constant [18 x i8] c"PPB_OpenGLES2;1.0\00"
@instance_name = internal constant [17 x i8] c"PPB_Instance;1.0\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
; get_browser_interface, instance, g3d, gles2, messaging, context, PPB_Instance, -, -
@state = internal global [36 x i8] zeroinitializer, align 4
@names = internal global [16 x i8] zeroinitializer, align 4

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

define internal i32 @pixel(i32 %ctx, i32 %x, i32 %y) {
  %px = alloca i8, i32 4, align 4
  %p = ptrtoint i8* %px to i32
  %fr = call i32 @gl(i32 92)
  %read = inttoptr i32 %fr to void (i32, i32, i32, i32, i32, i32, i32, i32)*
  call void %read(i32 %ctx, i32 %x, i32 %y, i32 1, i32 1, i32 6408, i32 5121, i32 %p)
  %v = call i32 @load32(i32 %p)
  ret i32 %v
}

define internal void @post_error(i32 %ctx) {
  %fg = call i32 @gl(i32 60)
  %get_error = inttoptr i32 %fg to i32 (i32)*
  %err = call i32 %get_error(i32 %ctx)
  call void @post_int(i32 %err)
  ret void
}

define internal void @attack(i32 %ctx) {
  ; ShaderSource(ctx, shader 77, 1, strings, NULL)
  %fss = call i32 @gl(i32 98)
  %source = inttoptr i32 %fss to void (i32, i32, i32, i32, i32)*
  %names = ptrtoint [16 x i8]* @names to i32
  call void %source(i32 %ctx, i32 77, i32 1, i32 %names, i32 0)
  call void @post_error(i32 %ctx)
  %fcs = call i32 @gl(i32 26)
  %create_shader = inttoptr i32 %fcs to i32 (i32, i32)*
  %sh = call i32 %create_shader(i32 %ctx, i32 35633)
  call void %source(i32 %ctx, i32 %sh, i32 1073741824, i32 -16, i32 0)
  call void @post_error(i32 %ctx)
  ; a buffer bound, then BufferData
  %fgb = call i32 @gl(i32 49)
  %gen_buffers = inttoptr i32 %fgb to void (i32, i32, i32)*
  call void %gen_buffers(i32 %ctx, i32 1, i32 %names)
  %buffer = call i32 @load32(i32 %names)
  %fbb = call i32 @gl(i32 3)
  %bind_buffer = inttoptr i32 %fbb to void (i32, i32, i32)*
  call void %bind_buffer(i32 %ctx, i32 34962, i32 %buffer)
  %fbd = call i32 @gl(i32 12)
  %buffer_data = inttoptr i32 %fbd to void (i32, i32, i32, i32, i32)*
  call void %buffer_data(i32 %ctx, i32 34962, i32 2147483647, i32 16, i32 35044)
  call void @post_error(i32 %ctx)
  call void %buffer_data(i32 %ctx, i32 34962, i32 67108864, i32 -4096, i32 35044)
  call void @post_error(i32 %ctx)
  ; TexImage2D 16384 x 16384
  %fti = call i32 @gl(i32 105)
  %tex_image = inttoptr i32 %fti to void (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)*
  call void %tex_image(i32 %ctx, i32 3553, i32 0, i32 6408, i32 16384, i32 16384, i32 0, i32 6408, i32 5121, i32 16)
  call void @post_error(i32 %ctx)
  ; ReadPixels into the end of the address space
  %frp = call i32 @gl(i32 92)
  %read = inttoptr i32 %frp to void (i32, i32, i32, i32, i32, i32, i32, i32)*
  call void %read(i32 %ctx, i32 0, i32 0, i32 64, i32 64, i32 6408, i32 5121, i32 -256)
  call void @post_error(i32 %ctx)
  ; GenBuffers of 2^31 - 1, DeleteBuffers of -1
  call void %gen_buffers(i32 %ctx, i32 2147483647, i32 %names)
  call void @post_error(i32 %ctx)
  %fdb = call i32 @gl(i32 28)
  %delete_buffers = inttoptr i32 %fdb to void (i32, i32, i32)*
  call void %delete_buffers(i32 %ctx, i32 -1, i32 %names)
  call void @post_error(i32 %ctx)
  ; DrawElements from client memory at the end (no element buffer bound)
  %fde = call i32 @gl(i32 41)
  %draw_elements = inttoptr i32 %fde to void (i32, i32, i32, i32, i32)*
  call void %draw_elements(i32 %ctx, i32 4, i32 2147483647, i32 5123, i32 -16)
  call void @post_error(i32 %ctx)
  ; UniformMatrix4fv at location 12345 with no program
  %fum = call i32 @gl(i32 129)
  %matrix = inttoptr i32 %fum to void (i32, i32, i32, i32, i32)*
  call void %matrix(i32 %ctx, i32 12345, i32 1, i32 0, i32 %names)
  call void @post_error(i32 %ctx)
  ; a resource that is no context
  %fc = call i32 @gl(i32 15)
  %clear = inttoptr i32 %fc to void (i32, i32)*
  call void %clear(i32 12287, i32 16384)
  call void @post_int(i32 0)
  call void @post_error(i32 12287)
  ; still a context that draws
  %fcc = call i32 @gl(i32 16)
  %clear_color = inttoptr i32 %fcc to void (i32, float, float, float, float)*
  call void %clear_color(i32 %ctx, float 0.0, float 1.0, float 0.0, float 1.0)
  call void %clear(i32 %ctx, i32 16384)
  %p = call i32 @pixel(i32 %ctx, i32 1, i32 1)
  call void @post_int(i32 %p)
  call void @post_error(i32 %ctx)
  ret void
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
  call void @attack(i32 %ctx)
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
