; A thread bomb through the IRT: thread_create as many times as argv[1] says or until it
; fails, each thread on a 64 KiB stack of its own, sleeping for ever. Prints (to standard
; error) how many threads it made, then ends the process. For every target, WebAssembly
; included (where each thread is a worker of the host's).
@thread_name = internal constant [20 x i8] c"nacl-irt-thread-0.1\00"
@thread = internal global [12 x i8] zeroinitializer, align 4

define internal void @sleeper() {
  call void @sleep_forever()
  unreachable
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %q = call i32 @query_addr()
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %name = ptrtoint [20 x i8]* @thread_name to i32
  %table = ptrtoint [12 x i8]* @thread to i32
  %got = call i32 %query(i32 %name, i32 %table, i32 12)
  %f = call i32 @load32(i32 %table)
  %create = inttoptr i32 %f to i32 (i32, i32, i32)*
  %nstr = call i32 @arg(i32 1)
  %n = call i32 @parse(i32 %nstr)
  %child = ptrtoint void ()* @sleeper to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %made.one ]
  %done = icmp eq i32 %i, %n
  br i1 %done, label %report, label %try
try:
  %i1 = add i32 %i, 1
  %stack = call i32 @map(i32 65536)
  %nomem = icmp eq i32 %stack, 0
  br i1 %nomem, label %report, label %create.it
create.it:
  %top = add i32 %stack, 65536
  %e = call i32 %create(i32 %child, i32 %top, i32 0)
  %bad = icmp ne i32 %e, 0
  br i1 %bad, label %report, label %made.one
made.one:
  br label %loop
report:
  %made = phi i32 [ %i, %loop ], [ %i, %try ], [ %i, %create.it ]
  call void @print_num(i32 %made)
  call void @exit(i32 0)
  unreachable
}
