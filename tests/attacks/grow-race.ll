; Not an attack: memory another thread has just grown, used at once. The first thread maps
; 64 KiB at a time (in WebAssembly, each one grows the shared memory), puts a dot in its
; first byte and hands the block to a second thread through @slot; that one writes the
; byte to standard error (the host reads it from the memory), fills the block with a fill
; of a length it computes (a call of memset, not stores it could unroll), writes its last
; byte too, and hands the slot back. 1,000 blocks: 2,000 dots, status 0.
; (V8 brought another thread's bounds for memory.fill and memory.copy, and its view of
; the memory from JavaScript, up to date only lazily: this trapped, or lost a write.)
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@thread = internal global [12 x i8] zeroinitializer, align 4
@slot = internal global [4 x i8] zeroinitializer, align 4
@tp = internal global [64 x i8] zeroinitializer, align 4
@stack = internal global [65536 x i8] zeroinitializer, align 16

declare void @llvm.memset.p0i8.i32(i8*, i8, i32, i1)

; basic sched_yield: an opaque call, so that a loop reloads @slot each time round.
define internal void @yield() {
  %t = ptrtoint [24 x i8]* @basic to i32
  %p = add i32 %t, 16
  %f = call i32 @load32(i32 %p)
  %fn = inttoptr i32 %f to i32 ()*
  %r = call i32 %fn()
  ret void
}

; @slot's value once it is not %not.
define internal i32 @slot_other_than(i32 %not) {
entry:
  %s = ptrtoint [4 x i8]* @slot to i32
  br label %loop
loop:
  call void @yield()
  %v = call i32 @load32(i32 %s)
  %same = icmp eq i32 %v, %not
  br i1 %same, label %loop, label %done
done:
  ret i32 %v
}

; The first thread: maps the blocks and hands them over.
define internal void @mapper() {
entry:
  %s = ptrtoint [4 x i8]* @slot to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %a = call i32 @map(i32 65536)
  %bad = icmp eq i32 %a, 0
  br i1 %bad, label %fail, label %hand
hand:
  call void @store8(i32 %a, i32 46)
  call void @store32(i32 %s, i32 %a)
  %back = call i32 @slot_other_than(i32 %a)
  br label %next
next:
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, 1000
  br i1 %more, label %loop, label %idle
idle:
  call void @yield()
  br label %idle
fail:
  call void @exit(i32 3)
  unreachable
}

; The second thread: uses each block at once, and ends the program after the last.
define internal void @user() {
entry:
  %s = ptrtoint [4 x i8]* @slot to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a = call i32 @slot_other_than(i32 0)
  call void @write(i32 2, i32 %a, i32 1)
  %p = inttoptr i32 %a to i8*
  %low = and i32 %i, 15
  %n = sub i32 65536, %low
  call void @llvm.memset.p0i8.i32(i8* %p, i8 46, i32 %n, i1 false)
  %last = add i32 %a, 65519
  call void @write(i32 2, i32 %last, i32 1)
  call void @store32(i32 %s, i32 0)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, 1000
  br i1 %more, label %loop, label %done
done:
  call void @exit(i32 0)
  unreachable
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %n1 = ptrtoint [20 x i8]* @thread_name to i32
  %t1 = ptrtoint [12 x i8]* @thread to i32
  %r1 = call i32 %query(i32 %n1, i32 %t1, i32 12)
  %create.a = call i32 @load32(i32 %t1)
  %create = inttoptr i32 %create.a to i32 (i32, i32, i32)*
  %start = ptrtoint void ()* @user to i32
  %stack.base = ptrtoint [65536 x i8]* @stack to i32
  %stack.top = add i32 %stack.base, 65536
  %tp = ptrtoint [64 x i8]* @tp to i32
  %e = call i32 %create(i32 %start, i32 %stack.top, i32 %tp)
  call void @mapper()
  unreachable
}
