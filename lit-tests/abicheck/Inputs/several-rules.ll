; Input of several-rules.test: breaks many rules at once.
target datalayout = "e-p:32:32-i64:64"
target triple = "le32-unknown-nacl"
@gv = global i32 0
@0 = private global [1 x i8] zeroinitializer
define weak hidden fastcc i8 @f(i16 %x) section "t" align 16 gc "g" {
  ret i8 0
}
!foo = !{}
define internal void @_start(i32 %a) {
  %p = inttoptr i32 %a to i32*
  %l = load i32, i32* %p
  %x = add nsw i32 %l, 1
  ret void
}
