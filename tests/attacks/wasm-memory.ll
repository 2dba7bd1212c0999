; WebAssembly, memory: reads the 32-bit word at the address argv[1] (beyond the program's
; memory, in tests/wasm.rs) and prints it as four bytes (to standard error); then, with argv[2] "call", calls
; the IRT query function through a pointer of another type (a function a WebAssembly
; table holds may only be called as what it is).
@call_word = internal constant [5 x i8] c"call\00"

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %s = call i32 @arg(i32 1)
  %addr = call i32 @parse(i32 %s)
  %v = call i32 @load32(i32 %addr)
  %buf = alloca i8, i32 4, align 4
  %b = ptrtoint i8* %buf to i32
  call void @store32(i32 %b, i32 %v)
  call void @write(i32 2, i32 %b, i32 4)
  %mode = call i32 @arg(i32 2)
  %cw = ptrtoint [5 x i8]* @call_word to i32
  %is.i = call i32 @streq(i32 %mode, i32 %cw)
  %is = icmp ne i32 %is.i, 0
  br i1 %is, label %call, label %done
call:
  %q = call i32 @query_addr()
  %f = inttoptr i32 %q to void (i64, double)*
  call void %f(i64 1, double 2.0)
  br label %done
done:
  call void @exit(i32 0)
  unreachable
}
