; A plugin that uses files (PPB_FileSystem, PPB_FileRef;1.1, PPB_FileIO;1.0), with the
; tests/attacks prelude. In DidCreate it posts what a blocking FileIO Open on the main
; thread gets (PP_ERROR_BLOCKS_MAIN_THREAD, -13); makes a file system, releases it
; (PPB_Core), makes a temporary one, and posts whether the two ids differ (1), the type
; the released id now has (0: none, its slot is the new one's) and the new one's (3);
; then starts a thread that makes the
; persistent file system and, with blocking calls, posts each result in turn:
;   1 (a file system was made), Open 0,
;   opening /dir/a.txt to write (CREATE) before /dir exists: -20 (FILENOTFOUND),
;   MakeDirectory /dir: 0, again: -21 (FILEEXISTS),
;   the same Open: 0, Write "hello" at 0: 5, Close,
;   GetName "a.txt", GetPath "/dir/a.txt",
;   Rename to /dir/b.txt: 0, Query /dir/b.txt: 0 and its size 5, Query /dir/a.txt: -20,
;   open /dir/b.txt to read: 0, Read 16 at 1: 4 and the bytes "ello" as an int32,
;   Delete /dir/b.txt (open): 0, Read 16 at 0 from the open file: 5,
;   Delete /dir: 0, a reference with a ".." component: 0 (none), then 999.
@ppp_instance_name = internal constant [17 x i8] c"PPP_Instance;1.1\00"
@fs_name = internal constant [19 x i8] c"PPB_FileSystem;1.0\00"
@ref_name = internal constant [16 x i8] c"PPB_FileRef;1.1\00"
@io_name = internal constant [15 x i8] c"PPB_FileIO;1.0\00"
@messaging_name = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@core_name = internal constant [13 x i8] c"PPB_Core;1.0\00"
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@dir = internal constant [5 x i8] c"/dir\00"
@a = internal constant [11 x i8] c"/dir/a.txt\00"
@b = internal constant [11 x i8] c"/dir/b.txt\00"
@up = internal constant [14 x i8] c"/dir/../a.txt\00"
@hello = internal constant [6 x i8] c"hello\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@ppp_instance = internal global [20 x i8] zeroinitializer, align 4
@thread = internal global [12 x i8] zeroinitializer, align 4
@stack = internal global [65536 x i8] zeroinitializer, align 16
; get_browser_interface, instance, file system, file ref, file io, messaging tables
@state = internal global [24 x i8] zeroinitializer, align 4
; a blocking call's callback: all zero
@blocking = internal global [12 x i8] zeroinitializer, align 4

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
  %f = call i32 @fn(i32 5, i32 0)
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

define internal i32 @ref(i32 %fs, i32 %path) {
  %f = call i32 @fn(i32 3, i32 0)
  %create = inttoptr i32 %f to i32 (i32, i32)*
  %r = call i32 %create(i32 %fs, i32 %path)
  ret i32 %r
}

define internal i32 @io_open(i32 %io, i32 %ref, i32 %flags) {
  %f = call i32 @fn(i32 4, i32 2)
  %open = inttoptr i32 %f to i32 (i32, i32, i32, i32)*
  %cb = ptrtoint [12 x i8]* @blocking to i32
  %r = call i32 %open(i32 %io, i32 %ref, i32 %flags, i32 %cb)
  ret i32 %r
}

define internal i32 @io_new() {
  %f = call i32 @fn(i32 4, i32 0)
  %create = inttoptr i32 %f to i32 (i32)*
  %inst = call i32 @state_at(i32 1)
  %io = call i32 %create(i32 %inst)
  ret i32 %io
}

define internal i32 @io_read(i32 %io, i64 %at, i32 %buf) {
  %f = call i32 @fn(i32 4, i32 5)
  %read = inttoptr i32 %f to i32 (i32, i64, i32, i32, i32)*
  %cb = ptrtoint [12 x i8]* @blocking to i32
  %r = call i32 %read(i32 %io, i64 %at, i32 %buf, i32 16, i32 %cb)
  ret i32 %r
}

define internal i32 @ref_call(i32 %k, i32 %ref) {
  %f = call i32 @fn(i32 3, i32 %k)
  %call = inttoptr i32 %f to i32 (i32, i32)*
  %cb = ptrtoint [12 x i8]* @blocking to i32
  %r = call i32 %call(i32 %ref, i32 %cb)
  ret i32 %r
}

define internal i32 @ref_query(i32 %ref, i32 %info) {
  %f = call i32 @fn(i32 3, i32 10)
  %q = inttoptr i32 %f to i32 (i32, i32, i32)*
  %cb = ptrtoint [12 x i8]* @blocking to i32
  %r = call i32 %q(i32 %ref, i32 %info, i32 %cb)
  ret i32 %r
}

define internal void @thread_main() {
  %cb = ptrtoint [12 x i8]* @blocking to i32
  %inst = call i32 @state_at(i32 1)
  %fc = call i32 @fn(i32 2, i32 0)
  %fs_create = inttoptr i32 %fc to i32 (i32, i32)*
  %fs = call i32 %fs_create(i32 %inst, i32 2)
  %made = icmp ne i32 %fs, 0
  %made.i = zext i1 %made to i32
  call void @post_int(i32 %made.i)
  %fo = call i32 @fn(i32 2, i32 2)
  %fs_open = inttoptr i32 %fo to i32 (i32, i64, i32)*
  %ro = call i32 %fs_open(i32 %fs, i64 1048576, i32 %cb)
  call void @post_int(i32 %ro)
  %dirp = ptrtoint [5 x i8]* @dir to i32
  %ap = ptrtoint [11 x i8]* @a to i32
  %bp = ptrtoint [11 x i8]* @b to i32
  %dir = call i32 @ref(i32 %fs, i32 %dirp)
  %a = call i32 @ref(i32 %fs, i32 %ap)
  %b = call i32 @ref(i32 %fs, i32 %bp)
  %io = call i32 @io_new()
  %r1 = call i32 @io_open(i32 %io, i32 %a, i32 6)
  call void @post_int(i32 %r1)
  %fm = call i32 @fn(i32 3, i32 6)
  %mkdir = inttoptr i32 %fm to i32 (i32, i32, i32)*
  %r2 = call i32 %mkdir(i32 %dir, i32 0, i32 %cb)
  call void @post_int(i32 %r2)
  %r3 = call i32 %mkdir(i32 %dir, i32 0, i32 %cb)
  call void @post_int(i32 %r3)
  %r4 = call i32 @io_open(i32 %io, i32 %a, i32 6)
  call void @post_int(i32 %r4)
  %fw = call i32 @fn(i32 4, i32 6)
  %write = inttoptr i32 %fw to i32 (i32, i64, i32, i32, i32)*
  %hp = ptrtoint [6 x i8]* @hello to i32
  %r5 = call i32 %write(i32 %io, i64 0, i32 %hp, i32 5, i32 %cb)
  call void @post_int(i32 %r5)
  %fcl = call i32 @fn(i32 4, i32 9)
  %close = inttoptr i32 %fcl to void (i32)*
  call void %close(i32 %io)
  %var = alloca i8, i32 16, align 8
  %vp = ptrtoint i8* %var to i32
  %fn = call i32 @fn(i32 3, i32 3)
  %get_name = inttoptr i32 %fn to void (i32, i32)*
  call void %get_name(i32 %vp, i32 %a)
  call void @post_var(i32 %vp)
  %fp = call i32 @fn(i32 3, i32 4)
  %get_path = inttoptr i32 %fp to void (i32, i32)*
  call void %get_path(i32 %vp, i32 %a)
  call void @post_var(i32 %vp)
  %frn = call i32 @fn(i32 3, i32 9)
  %rename = inttoptr i32 %frn to i32 (i32, i32, i32)*
  %r6 = call i32 %rename(i32 %a, i32 %b, i32 %cb)
  call void @post_int(i32 %r6)
  %info = alloca i8, i32 40, align 8
  %ip = ptrtoint i8* %info to i32
  %r7 = call i32 @ref_query(i32 %b, i32 %ip)
  call void @post_int(i32 %r7)
  %size = call i32 @load32(i32 %ip)
  call void @post_int(i32 %size)
  %r8 = call i32 @ref_query(i32 %a, i32 %ip)
  call void @post_int(i32 %r8)
  %io2 = call i32 @io_new()
  %r9 = call i32 @io_open(i32 %io2, i32 %b, i32 1)
  call void @post_int(i32 %r9)
  %buf = alloca i8, i32 16, align 4
  %bufp = ptrtoint i8* %buf to i32
  %r10 = call i32 @io_read(i32 %io2, i64 1, i32 %bufp)
  call void @post_int(i32 %r10)
  %word = call i32 @load32(i32 %bufp)
  call void @post_int(i32 %word)
  %r11 = call i32 @ref_call(i32 8, i32 %b)
  call void @post_int(i32 %r11)
  %r12 = call i32 @io_read(i32 %io2, i64 0, i32 %bufp)
  call void @post_int(i32 %r12)
  %r13 = call i32 @ref_call(i32 8, i32 %dir)
  call void @post_int(i32 %r13)
  %upp = ptrtoint [14 x i8]* @up to i32
  %up = call i32 @ref(i32 %fs, i32 %upp)
  call void @post_int(i32 %up)
  call void @post_int(i32 999)
  call void @sleep_forever()
  ret void
}

define internal i32 @did_create(i32 %inst, i32 %argc, i32 %argn, i32 %argv) {
  call void @set_state(i32 1, i32 %inst)
  %g = call i32 @state_at(i32 0)
  %get = inttoptr i32 %g to i32 (i32)*
  %n2 = ptrtoint [19 x i8]* @fs_name to i32
  %t2 = call i32 %get(i32 %n2)
  call void @set_state(i32 2, i32 %t2)
  %n3 = ptrtoint [16 x i8]* @ref_name to i32
  %t3 = call i32 %get(i32 %n3)
  call void @set_state(i32 3, i32 %t3)
  %n4 = ptrtoint [15 x i8]* @io_name to i32
  %t4 = call i32 %get(i32 %n4)
  call void @set_state(i32 4, i32 %t4)
  %n5 = ptrtoint [18 x i8]* @messaging_name to i32
  %t5 = call i32 %get(i32 %n5)
  call void @set_state(i32 5, i32 %t5)
  %io = call i32 @io_new()
  %r = call i32 @io_open(i32 %io, i32 0, i32 1)
  call void @post_int(i32 %r)
  %fc = call i32 @fn(i32 2, i32 0)
  %fs_create = inttoptr i32 %fc to i32 (i32, i32)*
  %fs_a = call i32 %fs_create(i32 %inst, i32 2)
  %cn = ptrtoint [13 x i8]* @core_name to i32
  %core = call i32 %get(i32 %cn)
  %core_release.p = add i32 %core, 4
  %core_release = call i32 @load32(i32 %core_release.p)
  %release = inttoptr i32 %core_release to void (i32)*
  call void %release(i32 %fs_a)
  %fs_b = call i32 %fs_create(i32 %inst, i32 3)
  %differ = icmp ne i32 %fs_a, %fs_b
  %differ.i = zext i1 %differ to i32
  call void @post_int(i32 %differ.i)
  %ft = call i32 @fn(i32 2, i32 3)
  %get_type = inttoptr i32 %ft to i32 (i32)*
  %type_a = call i32 %get_type(i32 %fs_a)
  call void @post_int(i32 %type_a)
  %type_b = call i32 %get_type(i32 %fs_b)
  call void @post_int(i32 %type_b)
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
