target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:32:32"
target triple = "le32-unknown-nacl"

define void @_start(i32 %p) {
entry:
  %c = icmp eq i32 %p, 0
  br i1 %c, label %a, label %b
a:
  %x = add i32 %p, 1
  br label %j
b:
  br label %j
j:
  %y = add i32 %x, 1
  ret void
}
