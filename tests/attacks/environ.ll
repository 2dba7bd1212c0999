; What the environment gives: each entry of the start-up vector's environment, a line
; each on standard output ("ENV NAME=value"); then, if argv[1] is not 0, whether the text
; argv[2] is anywhere in the argv[1] bytes that start at argv[1]'s own string (where the
; kernel put the process's arguments and environment), as "found" or "not found".
@env_tag = internal constant [5 x i8] c"ENV \00"
@found = internal constant [7 x i8] c"found\0A\00"
@not_found = internal constant [11 x i8] c"not found\0A\00"

define internal void @out(i32 %s) {
  %n = call i32 @strlen(i32 %s)
  call void @write(i32 1, i32 %s, i32 %n)
  ret void
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %argc.p = add i32 %info, 8
  %argc = call i32 @load32(i32 %argc.p)
  %w = add i32 %argc, 4
  %off = mul i32 %w, 4
  %envp = add i32 %info, %off
  br label %env
env:
  %p = phi i32 [ %envp, %entry ], [ %p1, %show ]
  %e = call i32 @load32(i32 %p)
  %end = icmp eq i32 %e, 0
  br i1 %end, label %scan.start, label %show
show:
  %tag = ptrtoint [5 x i8]* @env_tag to i32
  call void @out(i32 %tag)
  call void @out(i32 %e)
  %nl = ptrtoint [2 x i8]* @newline to i32
  call void @out(i32 %nl)
  %p1 = add i32 %p, 4
  br label %env
scan.start:
  %ls = call i32 @arg(i32 1)
  %len = call i32 @parse(i32 %ls)
  %skip = icmp eq i32 %len, 0
  br i1 %skip, label %done, label %scan.init
scan.init:
  %from = call i32 @arg(i32 1)
  %what = call i32 @arg(i32 2)
  %wl = call i32 @strlen(i32 %what)
  %last = sub i32 %len, %wl
  br label %scan
scan:
  %i = phi i32 [ 0, %scan.init ], [ %i1, %next ]
  %over = icmp sgt i32 %i, %last
  br i1 %over, label %absent, label %cmp
cmp:
  %at = add i32 %from, %i
  %hit = call i32 @same_bytes(i32 %at, i32 %what, i32 %wl)
  %yes = icmp ne i32 %hit, 0
  br i1 %yes, label %present, label %next
next:
  %i1 = add i32 %i, 1
  br label %scan
present:
  %f = ptrtoint [7 x i8]* @found to i32
  call void @out(i32 %f)
  br label %done
absent:
  %nf = ptrtoint [11 x i8]* @not_found to i32
  call void @out(i32 %nf)
  br label %done
done:
  call void @exit(i32 0)
  unreachable
}

; Whether the %n bytes at %a are those at %b; %b's own bytes (argv[2]) are skipped as a
; match of themselves.
define internal i32 @same_bytes(i32 %a, i32 %b, i32 %n) {
entry:
  %self = icmp eq i32 %a, %b
  br i1 %self, label %no, label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %more ]
  %end = icmp eq i32 %j, %n
  br i1 %end, label %yes, label %cmp
cmp:
  %pa = add i32 %a, %j
  %pb = add i32 %b, %j
  %ca = call i32 @load8(i32 %pa)
  %cb = call i32 @load8(i32 %pb)
  %same = icmp eq i32 %ca, %cb
  br i1 %same, label %more, label %no
more:
  %j1 = add i32 %j, 1
  br label %loop
yes:
  ret i32 1
no:
  ret i32 0
}
