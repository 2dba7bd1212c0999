; Parses, but fails LLVM's verifier: a phi after another instruction.
define void @_start(i32 %a) {
entry:
  ret void
dead:
  %x = add i32 %a, 1
  %p = phi i32 [ %x, %dead ]
  br label %dead
}
