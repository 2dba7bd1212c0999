; Files through the IRT only, with the flags and modes an attacker picks:
;   o PATH FLAGS MODE   filename open (then writes "data\n" into what it opened)
;   m PATH MODE         dev-filename mkdir
; Exits with 0, or the IRT's error number.
@dev_file_name = internal constant [26 x i8] c"nacl-irt-dev-filename-0.2\00"
@dev_file = internal global [28 x i8] zeroinitializer, align 4
@data = internal constant [6 x i8] c"data\0A\00"

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %op.s = call i32 @arg(i32 1)
  %op = call i32 @load8(i32 %op.s)
  %path = call i32 @arg(i32 2)
  %is.open = icmp eq i32 %op, 111
  br i1 %is.open, label %open, label %mkdir
open:
  %fs = call i32 @arg(i32 3)
  %flags = call i32 @parse(i32 %fs)
  %ms = call i32 @arg(i32 4)
  %mode = call i32 @parse(i32 %ms)
  %t = ptrtoint [8 x i8]* @file to i32
  %f = call i32 @load32(i32 %t)
  %fn = inttoptr i32 %f to i32 (i32, i32, i32, i32)*
  %out = alloca i8, i32 4, align 4
  %o = ptrtoint i8* %out to i32
  %e = call i32 %fn(i32 %path, i32 %flags, i32 %mode, i32 %o)
  %ok = icmp eq i32 %e, 0
  br i1 %ok, label %write, label %fail
write:
  %fd = call i32 @load32(i32 %o)
  %d = ptrtoint [6 x i8]* @data to i32
  call void @write(i32 %fd, i32 %d, i32 5)
  call void @exit(i32 0)
  unreachable
mkdir:
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %n = ptrtoint [26 x i8]* @dev_file_name to i32
  %tbl = ptrtoint [28 x i8]* @dev_file to i32
  %got = call i32 %query(i32 %n, i32 %tbl, i32 28)
  %mk.p = add i32 %tbl, 8
  %mk = call i32 @load32(i32 %mk.p)
  %mkfn = inttoptr i32 %mk to i32 (i32, i32)*
  %ms2 = call i32 @arg(i32 3)
  %mode2 = call i32 @parse(i32 %ms2)
  %e2 = call i32 %mkfn(i32 %path, i32 %mode2)
  call void @exit(i32 %e2)
  unreachable
fail:
  call void @exit(i32 %e)
  unreachable
}
