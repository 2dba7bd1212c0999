; A browser plugin takes the host's message channel: its standard output carries the
; host's messages, so the plugin closes fd 1, opens a file (which would get fd 1 back if
; the close were real), writes to fd 1, dup2s the file onto fd 1 and writes again. Nothing
; may reach the file: the close is the plugin's alone, fd 1 stays the host's, and the
; message the plugin then posts (the number 7, through PPB_Messaging) reaches standard
; output.
; argv: [1] the file to create (beneath the root).
@hook_name = internal constant [23 x i8] c"nacl-irt-ppapihook-0.1\00"
@hook = internal global [8 x i8] zeroinitializer, align 4
@starts = internal global [12 x i8] zeroinitializer, align 4
@taken = internal constant [8 x i8] c"taken!\0A\00"
@messaging = internal constant [18 x i8] c"PPB_Messaging;1.0\00"
@done = internal constant [29 x i8] c"attack: fd 1 closed, reused\0A\00"

; fdio close(fd) and dup2(fd, newfd): their error numbers.
define internal i32 @close(i32 %fd) {
  %t = ptrtoint [32 x i8]* @fdio to i32
  %f = call i32 @load32(i32 %t)
  %fn = inttoptr i32 %f to i32 (i32)*
  %e = call i32 %fn(i32 %fd)
  ret i32 %e
}

define internal i32 @dup2(i32 %fd, i32 %newfd) {
  %t = ptrtoint [32 x i8]* @fdio to i32
  %p = add i32 %t, 8
  %f = call i32 @load32(i32 %p)
  %fn = inttoptr i32 %f to i32 (i32, i32)*
  %e = call i32 %fn(i32 %fd, i32 %newfd)
  ret i32 %e
}

define internal i32 @initialize(i32 %module, i32 %get) {
entry:
  %c = call i32 @close(i32 1)
  %path = call i32 @arg(i32 1)
  %fd = call i32 @open(i32 %path, i32 65, i32 420)
  %t = ptrtoint [8 x i8]* @taken to i32
  call void @write(i32 1, i32 %t, i32 7)
  %d = call i32 @dup2(i32 %fd, i32 1)
  call void @write(i32 1, i32 %t, i32 7)
  %m = ptrtoint [29 x i8]* @done to i32
  call void @print(i32 %m)
  %getf = inttoptr i32 %get to i32 (i32)*
  %mn = ptrtoint [18 x i8]* @messaging to i32
  %table = call i32 %getf(i32 %mn)
  %post.p = call i32 @load32(i32 %table)
  %post = inttoptr i32 %post.p to void (i32, i32)*
  %var = alloca i8, i32 16, align 8
  %v = ptrtoint i8* %var to i32
  call void @store32(i32 %v, i32 3)
  %v4 = add i32 %v, 4
  call void @store32(i32 %v4, i32 0)
  %v8 = add i32 %v, 8
  call void @store32(i32 %v8, i32 7)
  %v12 = add i32 %v, 12
  call void @store32(i32 %v12, i32 0)
  ; The instance Chrome's first one was, and the host's (ppapi.h).
  call void %post(i32 4097, i32 %v)
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
