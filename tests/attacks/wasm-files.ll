; WebAssembly, files: reads the file at argv[1] through the IRT (printing what it gets)
; and creates argv[2] with "escaped" in it. tests/wasm.rs gives it paths out of any root:
; absolute ones with no root, `..` above the root, a symbolic link in the root that
; points out.
define void @_start(i32 %info) {
  call void @init(i32 %info)
  %path = call i32 @arg(i32 1)
  %out = call i32 @arg(i32 2)
  call void @steal_through_irt(i32 %path, i32 %out)
  call void @exit(i32 0)
  unreachable
}
