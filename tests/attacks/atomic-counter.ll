; Not an attack: atomic operations while threads come. The first thread adds 1 to @count
; 200,000 times with an atomic add, starting a new thread at four moments on the way
; (each one while the threads before it are busy with their own atomic operations). Each
; new thread adds 1 to @count 100,000 times with an atomic add and 100,000 times with a
; compare-exchange loop, and 50,000 times adds 1 to @plain, a plain word, under a spin lock
; (an atomic exchange to take it, an atomic store to give it back), as the first thread
; also does 50,000 times after its adds; then it says it is done (atomic add to @done).
; The first thread waits for all four and prints @count and @plain to standard error:
; 1000000 and 250000.
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@thread = internal global [12 x i8] zeroinitializer, align 4
@count = internal global [4 x i8] zeroinitializer, align 4
@plain = internal global [4 x i8] zeroinitializer, align 4
@lock = internal global [4 x i8] zeroinitializer, align 4
@done = internal global [4 x i8] zeroinitializer, align 4
@tps = internal global [256 x i8] zeroinitializer, align 4
@stacks = internal global [262144 x i8] zeroinitializer, align 16

declare i32 @llvm.nacl.atomic.rmw.i32(i32, i32*, i32, i32)
declare i32 @llvm.nacl.atomic.cmpxchg.i32(i32*, i32, i32, i32, i32)
declare i32 @llvm.nacl.atomic.load.i32(i32*, i32)
declare void @llvm.nacl.atomic.store.i32(i32, i32*, i32)

define internal void @yield() {
  %t = ptrtoint [24 x i8]* @basic to i32
  %p = add i32 %t, 16
  %f = call i32 @load32(i32 %p)
  %fn = inttoptr i32 %f to i32 ()*
  %r = call i32 %fn()
  ret void
}

; %n atomic adds of 1 to @count.
define internal void @adds(i32 %n) {
entry:
  %c = bitcast [4 x i8]* @count to i32*
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %old = call i32 @llvm.nacl.atomic.rmw.i32(i32 1, i32* %c, i32 1, i32 6)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

; %n adds of 1 to @count, each a compare-exchange loop.
define internal void @cas_adds(i32 %n) {
entry:
  %c = bitcast [4 x i8]* @count to i32*
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %retry ]
  br label %retry0
retry0:
  %seen = call i32 @llvm.nacl.atomic.load.i32(i32* %c, i32 6)
  %want = add i32 %seen, 1
  %got = call i32 @llvm.nacl.atomic.cmpxchg.i32(i32* %c, i32 %seen, i32 %want, i32 6, i32 6)
  %ok = icmp eq i32 %got, %seen
  br i1 %ok, label %retry, label %retry0
retry:
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

; %n plain adds of 1 to @plain, each under the spin lock @lock.
define internal void @locked_adds(i32 %n) {
entry:
  %l = bitcast [4 x i8]* @lock to i32*
  %pw = ptrtoint [4 x i8]* @plain to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %held ]
  br label %take
take:
  %was = call i32 @llvm.nacl.atomic.rmw.i32(i32 6, i32* %l, i32 1, i32 6)
  %free = icmp eq i32 %was, 0
  br i1 %free, label %held, label %take
held:
  %v = call i32 @load32(i32 %pw)
  %v1 = add i32 %v, 1
  call void @store32(i32 %pw, i32 %v1)
  call void @llvm.nacl.atomic.store.i32(i32 0, i32* %l, i32 6)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

define internal void @worker() {
entry:
  call void @adds(i32 100000)
  call void @cas_adds(i32 100000)
  call void @locked_adds(i32 50000)
  %d = bitcast [4 x i8]* @done to i32*
  %old = call i32 @llvm.nacl.atomic.rmw.i32(i32 1, i32* %d, i32 1, i32 6)
  br label %idle
idle:
  call void @yield()
  br label %idle
}

; Starts worker thread %k (0-3) on its own stack.
define internal void @start(i32 %k) {
  %t1 = ptrtoint [12 x i8]* @thread to i32
  %create.a = call i32 @load32(i32 %t1)
  %create = inttoptr i32 %create.a to i32 (i32, i32, i32)*
  %fn = ptrtoint void ()* @worker to i32
  %base = ptrtoint [262144 x i8]* @stacks to i32
  %k1 = add i32 %k, 1
  %off = mul i32 %k1, 65536
  %top = add i32 %base, %off
  %tpb = ptrtoint [256 x i8]* @tps to i32
  %tpo = mul i32 %k, 64
  %tp = add i32 %tpb, %tpo
  %e = call i32 %create(i32 %fn, i32 %top, i32 %tp)
  %bad = icmp ne i32 %e, 0
  br i1 %bad, label %fail, label %ok
fail:
  call void @exit(i32 3)
  unreachable
ok:
  ret void
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %n1 = ptrtoint [20 x i8]* @thread_name to i32
  %t1 = ptrtoint [12 x i8]* @thread to i32
  %r1 = call i32 %query(i32 %n1, i32 %t1, i32 12)
  call void @adds(i32 20000)
  call void @start(i32 0)
  call void @adds(i32 30000)
  call void @start(i32 1)
  call void @adds(i32 50000)
  call void @start(i32 2)
  call void @adds(i32 50000)
  call void @start(i32 3)
  call void @adds(i32 50000)
  call void @locked_adds(i32 50000)
  %d = bitcast [4 x i8]* @done to i32*
  br label %wait
wait:
  call void @yield()
  %n = call i32 @llvm.nacl.atomic.load.i32(i32* %d, i32 6)
  %all = icmp eq i32 %n, 4
  br i1 %all, label %report, label %wait
report:
  %cw = ptrtoint [4 x i8]* @count to i32
  %count = call i32 @load32(i32 %cw)
  call void @print_num(i32 %count)
  %pw = ptrtoint [4 x i8]* @plain to i32
  %plain = call i32 @load32(i32 %pw)
  call void @print_num(i32 %plain)
  call void @exit(i32 0)
  unreachable
}
