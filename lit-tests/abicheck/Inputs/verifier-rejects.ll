target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:32:32"
target triple = "le32-unknown-nacl"
@c = common global i32 5
declare void @llvm.trap()
define void @_start(i32 %p) {
  %a = ptrtoint void ()* @llvm.trap to i32
  %q = inttoptr i32 %p to <4 x i32>*
  %v = load atomic <4 x i32>, <4 x i32>* %q seq_cst, align 16
  ret void
}
