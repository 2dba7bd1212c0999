; A freestanding program in the PNaCl subset of LLVM 14 IR: it finds the IRT query function
; in the startup vector's auxv (AT_SYSINFO), asks for nacl-irt-fdio-0.1 and
; nacl-irt-basic-0.1, writes a line with fdio's write and ends with basic's exit.
target datalayout = "e-p:32:32-i64:64"
target triple = "le32-unknown-nacl"

@fdio_name = internal constant [18 x i8] c"nacl-irt-fdio-0.1\00"
@basic_name = internal constant [19 x i8] c"nacl-irt-basic-0.1\00"
@msg = internal constant [24 x i8] c"hello from a new pexe!\0A\00"

; The startup vector: cleanup, envc, argc, argv..., 0, envp..., 0, auxv pairs.
define void @_start(i32 %info) {
entry:
  %envc.p = add i32 %info, 4
  %envc.ptr = inttoptr i32 %envc.p to i32*
  %envc = load i32, i32* %envc.ptr, align 1
  %argc.p = add i32 %info, 8
  %argc.ptr = inttoptr i32 %argc.p to i32*
  %argc = load i32, i32* %argc.ptr, align 1
  %words = add i32 %argc, %envc
  %auxv.word = add i32 %words, 5
  %auxv.off = mul i32 %auxv.word, 4
  %auxv = add i32 %info, %auxv.off
  br label %scan

scan:
  %pair = phi i32 [ %auxv, %entry ], [ %next, %other ]
  %type.ptr = inttoptr i32 %pair to i32*
  %type = load i32, i32* %type.ptr, align 1
  %sysinfo = icmp eq i32 %type, 32
  br i1 %sysinfo, label %found, label %other

other:
  %end = icmp eq i32 %type, 0
  %next = add i32 %pair, 8
  br i1 %end, label %no_irt, label %scan

no_irt:
  unreachable

found:
  %value.p = add i32 %pair, 4
  %value.ptr = inttoptr i32 %value.p to i32*
  %query.addr = load i32, i32* %value.ptr, align 1
  %query = inttoptr i32 %query.addr to i32 (i32, i32, i32)*
  %fdio = alloca i8, i32 32, align 4
  %fdio.addr = ptrtoint i8* %fdio to i32
  %fdio.name = ptrtoint [18 x i8]* @fdio_name to i32
  %fdio.size = call i32 %query(i32 %fdio.name, i32 %fdio.addr, i32 32)
  ; write is the fifth entry of nacl-irt-fdio-0.1.
  %write.p = add i32 %fdio.addr, 16
  %write.ptr = inttoptr i32 %write.p to i32*
  %write.addr = load i32, i32* %write.ptr, align 1
  %write = inttoptr i32 %write.addr to i32 (i32, i32, i32, i32)*
  %nwrote = alloca i8, i32 4, align 4
  %nwrote.addr = ptrtoint i8* %nwrote to i32
  %msg.addr = ptrtoint [24 x i8]* @msg to i32
  %err = call i32 %write(i32 1, i32 %msg.addr, i32 23, i32 %nwrote.addr)
  %basic = alloca i8, i32 24, align 4
  %basic.addr = ptrtoint i8* %basic to i32
  %basic.name = ptrtoint [19 x i8]* @basic_name to i32
  %basic.size = call i32 %query(i32 %basic.name, i32 %basic.addr, i32 24)
  ; exit is the first entry of nacl-irt-basic-0.1.
  %exit.ptr = inttoptr i32 %basic.addr to i32*
  %exit.addr = load i32, i32* %exit.ptr, align 1
  %exit = inttoptr i32 %exit.addr to void (i32)*
  call void %exit(i32 0)
  unreachable
}
