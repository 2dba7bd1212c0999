; Helpers shared by the attack pexes (tests/containment.rs): each attack is this prelude
; followed by its own @_start, finalized into a pexe that pnacl-abicheck calls clean.
; Everything goes through the NaCl IRT, found in the startup vector, as real pexes do.
target datalayout = "e-p:32:32-i64:64"
target triple = "le32-unknown-nacl"

@fdio_name = internal constant [18 x i8] c"nacl-irt-fdio-0.1\00"
@basic_name = internal constant [19 x i8] c"nacl-irt-basic-0.1\00"
@file_name = internal constant [22 x i8] c"nacl-irt-filename-0.1\00"
@mem_name = internal constant [20 x i8] c"nacl-irt-memory-0.3\00"
@root_env = internal constant [16 x i8] c"PNACL_FS_ROOT=/\00"
@unsafe_env = internal constant [26 x i8] c"PNACL_ALLOW_UNSANDBOXED=1\00"
; How the second entry knows itself: the runtime hands the pexe this (as STAGE=2).
@stage_env = internal constant [18 x i8] c"PNACL_ENV_STAGE=2\00"
@newline = internal constant [2 x i8] c"\0A\00"
@escaped = internal constant [9 x i8] c"escaped\0A\00"
; The IRT tables, filled at start.
@fdio = internal global [32 x i8] zeroinitializer, align 4
@basic = internal global [24 x i8] zeroinitializer, align 4
@file = internal global [8 x i8] zeroinitializer, align 4
@mem = internal global [12 x i8] zeroinitializer, align 4
@query = internal global [4 x i8] zeroinitializer, align 4
@startinfo = internal global [4 x i8] zeroinitializer, align 4

define internal i32 @load32(i32 %a) {
  %p = inttoptr i32 %a to i32*
  %v = load i32, i32* %p, align 1
  ret i32 %v
}

define internal void @store32(i32 %a, i32 %v) {
  %p = inttoptr i32 %a to i32*
  store i32 %v, i32* %p, align 1
  ret void
}

define internal i32 @load8(i32 %a) {
  %p = inttoptr i32 %a to i8*
  %v = load i8, i8* %p, align 1
  %w = zext i8 %v to i32
  ret i32 %w
}

define internal void @store8(i32 %a, i32 %v) {
  %p = inttoptr i32 %a to i8*
  %b = trunc i32 %v to i8
  store i8 %b, i8* %p, align 1
  ret void
}

define internal i32 @strlen(i32 %s) {
entry:
  br label %loop
loop:
  %n = phi i32 [ 0, %entry ], [ %n1, %more ]
  %a = add i32 %s, %n
  %c = call i32 @load8(i32 %a)
  %end = icmp eq i32 %c, 0
  br i1 %end, label %done, label %more
more:
  %n1 = add i32 %n, 1
  br label %loop
done:
  ret i32 %n
}

; Whether the NUL-terminated strings at %a and %b are equal.
define internal i32 @streq(i32 %a, i32 %b) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %pa = add i32 %a, %i
  %pb = add i32 %b, %i
  %ca = call i32 @load8(i32 %pa)
  %cb = call i32 @load8(i32 %pb)
  %same = icmp eq i32 %ca, %cb
  br i1 %same, label %check, label %no
check:
  %end = icmp eq i32 %ca, 0
  br i1 %end, label %yes, label %next
next:
  %i1 = add i32 %i, 1
  br label %loop
yes:
  ret i32 1
no:
  ret i32 0
}

; Decimal, or hexadecimal after "0x".
define internal i32 @parse(i32 %s) {
entry:
  %c0 = call i32 @load8(i32 %s)
  %s1 = add i32 %s, 1
  %c1 = call i32 @load8(i32 %s1)
  %z = icmp eq i32 %c0, 48
  %x = icmp eq i32 %c1, 120
  %hex = and i1 %z, %x
  %start = select i1 %hex, i32 2, i32 0
  %base = select i1 %hex, i32 16, i32 10
  br label %loop
loop:
  %i = phi i32 [ %start, %entry ], [ %i1, %more ]
  %v = phi i32 [ 0, %entry ], [ %v1, %more ]
  %a = add i32 %s, %i
  %c = call i32 @load8(i32 %a)
  %end = icmp eq i32 %c, 0
  br i1 %end, label %done, label %digit
digit:
  %letter = icmp uge i32 %c, 97
  %dl = sub i32 %c, 87
  %dd = sub i32 %c, 48
  %d = select i1 %letter, i32 %dl, i32 %dd
  br label %more
more:
  %m = mul i32 %v, %base
  %v1 = add i32 %m, %d
  %i1 = add i32 %i, 1
  br label %loop
done:
  ret i32 %v
}

; Two hex digits at %s.
define internal i32 @hexbyte(i32 %s) {
  %c0 = call i32 @load8(i32 %s)
  %s1 = add i32 %s, 1
  %c1 = call i32 @load8(i32 %s1)
  %l0 = icmp uge i32 %c0, 97
  %a0 = sub i32 %c0, 87
  %b0 = sub i32 %c0, 48
  %d0 = select i1 %l0, i32 %a0, i32 %b0
  %l1 = icmp uge i32 %c1, 97
  %a1 = sub i32 %c1, 87
  %b1 = sub i32 %c1, 48
  %d1 = select i1 %l1, i32 %a1, i32 %b1
  %h = shl i32 %d0, 4
  %v = or i32 %h, %d1
  ret i32 %v
}

; Finds the IRT query function (AT_SYSINFO in the startup vector's auxv) and fills the
; fdio, basic, filename and memory tables.
define internal void @init(i32 %info) {
entry:
  %si = ptrtoint [4 x i8]* @startinfo to i32
  call void @store32(i32 %si, i32 %info)
  %envc.p = add i32 %info, 4
  %envc = call i32 @load32(i32 %envc.p)
  %argc.p = add i32 %info, 8
  %argc = call i32 @load32(i32 %argc.p)
  %words = add i32 %argc, %envc
  %auxv.word = add i32 %words, 5
  %auxv.off = mul i32 %auxv.word, 4
  %auxv = add i32 %info, %auxv.off
  br label %scan
scan:
  %pair = phi i32 [ %auxv, %entry ], [ %next, %other ]
  %type = call i32 @load32(i32 %pair)
  %found = icmp eq i32 %type, 32
  br i1 %found, label %got, label %other
other:
  %next = add i32 %pair, 8
  br label %scan
got:
  %vp = add i32 %pair, 4
  %q = call i32 @load32(i32 %vp)
  %qa = ptrtoint [4 x i8]* @query to i32
  call void @store32(i32 %qa, i32 %q)
  %query = inttoptr i32 %q to i32 (i32, i32, i32)*
  %n1 = ptrtoint [18 x i8]* @fdio_name to i32
  %t1 = ptrtoint [32 x i8]* @fdio to i32
  %r1 = call i32 %query(i32 %n1, i32 %t1, i32 32)
  %n2 = ptrtoint [19 x i8]* @basic_name to i32
  %t2 = ptrtoint [24 x i8]* @basic to i32
  %r2 = call i32 %query(i32 %n2, i32 %t2, i32 24)
  %n3 = ptrtoint [22 x i8]* @file_name to i32
  %t3 = ptrtoint [8 x i8]* @file to i32
  %r3 = call i32 %query(i32 %n3, i32 %t3, i32 8)
  %n4 = ptrtoint [20 x i8]* @mem_name to i32
  %t4 = ptrtoint [12 x i8]* @mem to i32
  %r4 = call i32 %query(i32 %n4, i32 %t4, i32 12)
  ret void
}

; The address of the IRT query function (a code address in the runtime).
define internal i32 @query_addr() {
  %qa = ptrtoint [4 x i8]* @query to i32
  %q = call i32 @load32(i32 %qa)
  ret i32 %q
}

; fdio write(fd, buf, n).
define internal void @write(i32 %fd, i32 %buf, i32 %n) {
  %t = ptrtoint [32 x i8]* @fdio to i32
  %p = add i32 %t, 16
  %f = call i32 @load32(i32 %p)
  %fn = inttoptr i32 %f to i32 (i32, i32, i32, i32)*
  %out = alloca i8, i32 4, align 4
  %o = ptrtoint i8* %out to i32
  %e = call i32 %fn(i32 %fd, i32 %buf, i32 %n, i32 %o)
  ret void
}

; Everything an attack says, and what it gets, goes to standard error: the runtime sends
; it at once (standard output it gathers in blocks, which a killed process never sends).
define internal void @print(i32 %s) {
  %n = call i32 @strlen(i32 %s)
  call void @write(i32 2, i32 %s, i32 %n)
  ret void
}

; fdio read(fd, buf, n): the count read, or -1.
define internal i32 @read(i32 %fd, i32 %buf, i32 %n) {
  %t = ptrtoint [32 x i8]* @fdio to i32
  %p = add i32 %t, 12
  %f = call i32 @load32(i32 %p)
  %fn = inttoptr i32 %f to i32 (i32, i32, i32, i32)*
  %out = alloca i8, i32 4, align 4
  %o = ptrtoint i8* %out to i32
  %e = call i32 %fn(i32 %fd, i32 %buf, i32 %n, i32 %o)
  %ok = icmp eq i32 %e, 0
  %got = call i32 @load32(i32 %o)
  %r = select i1 %ok, i32 %got, i32 -1
  ret i32 %r
}

; filename open(path, flags, mode): the descriptor, or -1.
define internal i32 @open(i32 %path, i32 %flags, i32 %mode) {
  %t = ptrtoint [8 x i8]* @file to i32
  %f = call i32 @load32(i32 %t)
  %fn = inttoptr i32 %f to i32 (i32, i32, i32, i32)*
  %out = alloca i8, i32 4, align 4
  %o = ptrtoint i8* %out to i32
  %e = call i32 %fn(i32 %path, i32 %flags, i32 %mode, i32 %o)
  %ok = icmp eq i32 %e, 0
  %got = call i32 @load32(i32 %o)
  %r = select i1 %ok, i32 %got, i32 -1
  ret i32 %r
}

; basic exit(status).
define internal void @exit(i32 %status) {
  %t = ptrtoint [24 x i8]* @basic to i32
  %f = call i32 @load32(i32 %t)
  %fn = inttoptr i32 %f to void (i32)*
  call void %fn(i32 %status)
  unreachable
}

; argv[k] of the startup vector.
define internal i32 @arg(i32 %k) {
  %si = ptrtoint [4 x i8]* @startinfo to i32
  %info = call i32 @load32(i32 %si)
  %w = add i32 %k, 3
  %off = mul i32 %w, 4
  %p = add i32 %info, %off
  %a = call i32 @load32(i32 %p)
  ret i32 %a
}

; Whether the environment holds exactly the string %s.
define internal i32 @env_has(i32 %s) {
entry:
  %si = ptrtoint [4 x i8]* @startinfo to i32
  %info = call i32 @load32(i32 %si)
  %argc.p = add i32 %info, 8
  %argc = call i32 @load32(i32 %argc.p)
  %w = add i32 %argc, 4
  %off = mul i32 %w, 4
  %envp = add i32 %info, %off
  br label %loop
loop:
  %p = phi i32 [ %envp, %entry ], [ %p1, %next ]
  %e = call i32 @load32(i32 %p)
  %end = icmp eq i32 %e, 0
  br i1 %end, label %no, label %cmp
cmp:
  %same.i = call i32 @streq(i32 %e, i32 %s)
  %same = icmp ne i32 %same.i, 0
  br i1 %same, label %yes, label %next
next:
  %p1 = add i32 %p, 4
  br label %loop
yes:
  ret i32 1
no:
  ret i32 0
}

; Reads up to 200 bytes of the file at %path (beneath the root, through the IRT) and
; prints them (to standard error); then creates %out (O_WRONLY|O_CREAT) and writes "escaped" into it.
define internal void @steal_through_irt(i32 %path, i32 %out) {
entry:
  %fd = call i32 @open(i32 %path, i32 0, i32 0)
  %bad = icmp slt i32 %fd, 0
  br i1 %bad, label %create, label %readit
readit:
  %buf = alloca i8, i32 256, align 4
  %b = ptrtoint i8* %buf to i32
  %n = call i32 @read(i32 %fd, i32 %b, i32 200)
  %none = icmp slt i32 %n, 1
  br i1 %none, label %create, label %show
show:
  call void @write(i32 2, i32 %b, i32 %n)
  br label %create
create:
  %fd2 = call i32 @open(i32 %out, i32 65, i32 420)
  %bad2 = icmp slt i32 %fd2, 0
  br i1 %bad2, label %done, label %mark
mark:
  %esc = ptrtoint [9 x i8]* @escaped to i32
  call void @write(i32 %fd2, i32 %esc, i32 8)
  br label %done
done:
  ret void
}

; The forged initial stack of a new process start: argc, argv (this one's), 0, an
; environment holding PNACL_FS_ROOT=/ (and the opt-out, for targets with no sandbox, and
; the stage's mark), 0,
; then an empty auxv. Returns its address.
define internal i32 @forge_stack(i32 %mem) {
entry:
  %si = ptrtoint [4 x i8]* @startinfo to i32
  %info = call i32 @load32(i32 %si)
  %argc.p = add i32 %info, 8
  %argc = call i32 @load32(i32 %argc.p)
  call void @store32(i32 %mem, i32 %argc)
  br label %copy
copy:
  %k = phi i32 [ 0, %entry ], [ %k1, %more ]
  %done = icmp eq i32 %k, %argc
  br i1 %done, label %env, label %more
more:
  %a = call i32 @arg(i32 %k)
  %slot.w = add i32 %k, 1
  %slot.o = mul i32 %slot.w, 4
  %slot = add i32 %mem, %slot.o
  call void @store32(i32 %slot, i32 %a)
  %k1 = add i32 %k, 1
  br label %copy
env:
  %e.w = add i32 %argc, 1
  %e.o = mul i32 %e.w, 4
  %e0 = add i32 %mem, %e.o
  call void @store32(i32 %e0, i32 0)
  %e1 = add i32 %e0, 4
  %root = ptrtoint [16 x i8]* @root_env to i32
  call void @store32(i32 %e1, i32 %root)
  %e2 = add i32 %e0, 8
  %uns = ptrtoint [26 x i8]* @unsafe_env to i32
  call void @store32(i32 %e2, i32 %uns)
  %e3 = add i32 %e0, 12
  %stage = ptrtoint [18 x i8]* @stage_env to i32
  call void @store32(i32 %e3, i32 %stage)
  %e4 = add i32 %e0, 16
  call void @store32(i32 %e4, i32 0)
  %e5 = add i32 %e0, 20
  call void @store32(i32 %e5, i32 0)
  %e6 = add i32 %e0, 24
  call void @store32(i32 %e6, i32 0)
  ret i32 %mem
}

; Stage two of the re-entry attacks: started again with PNACL_FS_ROOT=/ (and STAGE=2 to
; say so), the program steals argv[2] and creates argv[3] through the IRT's own file
; interface.
define internal i32 @stage_two() {
entry:
  %stage = ptrtoint [18 x i8]* @stage_env to i32
  %root.i = add i32 %stage, 10
  %again.i = call i32 @env_has(i32 %root.i)
  %again = icmp ne i32 %again.i, 0
  br i1 %again, label %steal, label %no
steal:
  %secret = call i32 @arg(i32 2)
  %out = call i32 @arg(i32 3)
  call void @steal_through_irt(i32 %secret, i32 %out)
  call void @exit(i32 0)
  unreachable
no:
  ret i32 0
}

define internal i32 @matches(i32 %a, i32 %pat, i32 %len) {
entry:
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %next ]
  %end = icmp eq i32 %j, %len
  br i1 %end, label %yes, label %cmp
cmp:
  %pa = add i32 %a, %j
  %c = call i32 @load8(i32 %pa)
  %h = mul i32 %j, 2
  %ph = add i32 %pat, %h
  %want = call i32 @hexbyte(i32 %ph)
  %same = icmp eq i32 %c, %want
  br i1 %same, label %next, label %no
next:
  %j1 = add i32 %j, 1
  br label %loop
yes:
  ret i32 1
no:
  ret i32 0
}

; The address of the first code at or after %from whose bytes are the hex string %pat, or
; 0 (within 4 MiB): how an attacker finds the runtime's raw system-call function.
define internal i32 @find_code(i32 %from, i32 %pat) {
entry:
  %hexlen = call i32 @strlen(i32 %pat)
  %len = udiv i32 %hexlen, 2
  %limit = add i32 %from, 4194304
  br label %scan
scan:
  %a = phi i32 [ %from, %entry ], [ %a1, %next ]
  %hit.i = call i32 @matches(i32 %a, i32 %pat, i32 %len)
  %hit = icmp ne i32 %hit.i, 0
  br i1 %hit, label %found, label %next
next:
  %a1 = add i32 %a, 1
  %over = icmp uge i32 %a1, %limit
  br i1 %over, label %missing, label %scan
missing:
  ret i32 0
found:
  ret i32 %a
}

@numbuf = internal global [16 x i8] zeroinitializer, align 4

; Prints %v (unsigned, decimal) and a newline to standard error.
define internal void @print_num(i32 %v) {
entry:
  %b = ptrtoint [16 x i8]* @numbuf to i32
  %end = add i32 %b, 15
  call void @store8(i32 %end, i32 0)
  br label %loop
loop:
  %p = phi i32 [ %end, %entry ], [ %p1, %loop ]
  %x = phi i32 [ %v, %entry ], [ %q, %loop ]
  %p1 = sub i32 %p, 1
  %d = urem i32 %x, 10
  %c = add i32 %d, 48
  call void @store8(i32 %p1, i32 %c)
  %q = udiv i32 %x, 10
  %more = icmp ne i32 %q, 0
  br i1 %more, label %loop, label %done
done:
  call void @print(i32 %p1)
  %nl = ptrtoint [2 x i8]* @newline to i32
  call void @print(i32 %nl)
  ret void
}

; memory mmap of %len bytes, readable and writable: the address, or 0.
define internal i32 @map(i32 %len) {
  %t = ptrtoint [12 x i8]* @mem to i32
  %f = call i32 @load32(i32 %t)
  %fn = inttoptr i32 %f to i32 (i32, i32, i32, i32, i32, i64)*
  %slot = alloca i8, i32 4, align 4
  %s = ptrtoint i8* %slot to i32
  call void @store32(i32 %s, i32 0)
  %e = call i32 %fn(i32 %s, i32 %len, i32 3, i32 34, i32 -1, i64 0)
  %ok = icmp eq i32 %e, 0
  %a = call i32 @load32(i32 %s)
  %r = select i1 %ok, i32 %a, i32 0
  ret i32 %r
}

; basic nanosleep, a second at a time, for ever.
define internal void @sleep_forever() {
entry:
  %ts = alloca i8, i32 16, align 8
  %p = ptrtoint i8* %ts to i32
  call void @store32(i32 %p, i32 1)
  %p4 = add i32 %p, 4
  call void @store32(i32 %p4, i32 0)
  %p8 = add i32 %p, 8
  call void @store32(i32 %p8, i32 0)
  %t = ptrtoint [24 x i8]* @basic to i32
  %fp = add i32 %t, 12
  %f = call i32 @load32(i32 %fp)
  %fn = inttoptr i32 %f to i32 (i32, i32)*
  br label %loop
loop:
  %r = call i32 %fn(i32 %p, i32 0)
  br label %loop
}
