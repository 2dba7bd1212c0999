; WebAssembly, the host's random numbers: the IRT's get_random_bytes(buf, count, &n) with
; the buffer address argv[1] and the count argv[2] an attacker picks (a count of 4 GiB
; less a little, tests/wasm.rs). Exits with 0 or the IRT's error number.
@random_name = internal constant [20 x i8] c"nacl-irt-random-0.1\00"
@random = internal global [4 x i8] zeroinitializer, align 4

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %n = ptrtoint [20 x i8]* @random_name to i32
  %tbl = ptrtoint [4 x i8]* @random to i32
  %got = call i32 %query(i32 %n, i32 %tbl, i32 4)
  %f = call i32 @load32(i32 %tbl)
  %fn = inttoptr i32 %f to i32 (i32, i32, i32)*
  %bs = call i32 @arg(i32 1)
  %buf = call i32 @parse(i32 %bs)
  %cs = call i32 @arg(i32 2)
  %count = call i32 @parse(i32 %cs)
  %out = alloca i8, i32 4, align 4
  %o = ptrtoint i8* %out to i32
  %e = call i32 %fn(i32 %buf, i32 %count, i32 %o)
  call void @exit(i32 %e)
  unreachable
}
