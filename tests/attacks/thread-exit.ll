; Not an attack: a program whose second thread ends it (exit(7), after writing "bye" to
; standard output) while its first thread, by argv[1], spins ("spin") or waits on a futex
; that no one wakes ("wait"). The process must end at once with the second thread's status
; and output, whatever the first thread is doing. With "nested", the second thread is
; started by a third, which then spins, while the first waits. With "alone", it starts no
; thread and spins (for as long as it is let).
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@futex_name = internal constant [19 x i8] c"nacl-irt-futex-0.1\00"
@spin_word = internal constant [5 x i8] c"spin\00"
@alone_word = internal constant [6 x i8] c"alone\00"
@nested_word = internal constant [7 x i8] c"nested\00"
@bye = internal constant [5 x i8] c"bye\0A\00"
; thread_create, thread_exit, thread_nice; futex_wait_abs, futex_wake.
@thread = internal global [12 x i8] zeroinitializer, align 4
@futex = internal global [8 x i8] zeroinitializer, align 4
@word = internal global [4 x i8] zeroinitializer, align 4
@tp = internal global [64 x i8] zeroinitializer, align 4
@stack = internal global [65536 x i8] zeroinitializer, align 16
@stack2 = internal global [65536 x i8] zeroinitializer, align 16
@tp2 = internal global [64 x i8] zeroinitializer, align 4

; Starts @child on @stack.
define internal void @start_child() {
  %t1 = ptrtoint [12 x i8]* @thread to i32
  %create.a = call i32 @load32(i32 %t1)
  %create = inttoptr i32 %create.a to i32 (i32, i32, i32)*
  %start = ptrtoint void ()* @child to i32
  %stack.base = ptrtoint [65536 x i8]* @stack to i32
  %stack.top = add i32 %stack.base, 65536
  %tp = ptrtoint [64 x i8]* @tp to i32
  %e = call i32 %create(i32 %start, i32 %stack.top, i32 %tp)
  ret void
}

; The third thread of "nested": starts the second, then spins.
define internal void @spawner() {
entry:
  call void @start_child()
  br label %spin
spin:
  br label %spin
}

define internal void @child() {
  %b = ptrtoint [5 x i8]* @bye to i32
  call void @write(i32 1, i32 %b, i32 4)
  call void @exit(i32 7)
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
  %n2 = ptrtoint [19 x i8]* @futex_name to i32
  %t2 = ptrtoint [8 x i8]* @futex to i32
  %r2 = call i32 %query(i32 %n2, i32 %t2, i32 8)
  %mode = call i32 @arg(i32 1)
  %aw = ptrtoint [6 x i8]* @alone_word to i32
  %alone.i = call i32 @streq(i32 %mode, i32 %aw)
  %alone = icmp ne i32 %alone.i, 0
  br i1 %alone, label %spinning, label %spawn
spawn:
  %nw = ptrtoint [7 x i8]* @nested_word to i32
  %nested.i = call i32 @streq(i32 %mode, i32 %nw)
  %nested = icmp ne i32 %nested.i, 0
  br i1 %nested, label %nest, label %direct
nest:
  %create.a = call i32 @load32(i32 %t1)
  %create = inttoptr i32 %create.a to i32 (i32, i32, i32)*
  %start2 = ptrtoint void ()* @spawner to i32
  %stack2.base = ptrtoint [65536 x i8]* @stack2 to i32
  %stack2.top = add i32 %stack2.base, 65536
  %tp2 = ptrtoint [64 x i8]* @tp2 to i32
  %e2 = call i32 %create(i32 %start2, i32 %stack2.top, i32 %tp2)
  br label %waiting
direct:
  call void @start_child()
  %sw = ptrtoint [5 x i8]* @spin_word to i32
  %spin.i = call i32 @streq(i32 %mode, i32 %sw)
  %spin = icmp ne i32 %spin.i, 0
  br i1 %spin, label %spinning, label %waiting
spinning:
  br label %spinning
waiting:
  %wait.a = call i32 @load32(i32 %t2)
  %wait = inttoptr i32 %wait.a to i32 (i32, i32, i32)*
  %w = ptrtoint [4 x i8]* @word to i32
  %r = call i32 %wait(i32 %w, i32 0, i32 0)
  br label %waiting
}
