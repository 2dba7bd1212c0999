/* AArch64, a region target: process entry, system calls, stack switching, thread start,
   and setjmp/longjmp whose contexts the runtime keeps (region.h): the pexe's jmp_buf only
   names one. */

#include "arch.h"

    .text

/* The kernel enters here with argc, argv[], envp[], auxv on the stack. */
FUNC _start
    mov x29, #0
    mov x30, #0
    mov x0, sp
    bl __pnacl_main
    brk #0

/* long __pnacl_syscall(long n, long a, long b, long c, long d, long e, long f) */
FUNC __pnacl_syscall
    mov x8, x0
    mov x0, x1
    mov x1, x2
    mov x2, x3
    mov x3, x4
    mov x4, x5
    mov x5, x6
    svc #0
    ret

/* void __pnacl_switch_stack(void *sp, void (*fn)(void *), void *arg): never returns. */
FUNC __pnacl_switch_stack
    and x9, x0, #-16
    mov sp, x9
    mov x0, x2
    mov x29, #0
    mov x30, #0
    blr x1
    brk #0

/* long __pnacl_clone(u64 flags, void *stack_top, int *ctid, void (*fn)(void *), void *arg,
                      void *tls)
   The child runs fn(arg) on stack_top with its thread pointer tls, then exits the thread. */
FUNC __pnacl_clone
    and x1, x1, #-16
    sub x1, x1, #16
    stp x3, x4, [x1]             /* fn, arg */
    mov x9, x2
    mov x3, x5                   /* tls */
    mov x4, x9                   /* child tid */
    mov x2, #0                   /* parent tid */
    mov x8, #220                 /* clone(flags, stack, ptid, tls, ctid) */
    svc #0
    cbnz x0, 1f
    /* child: fn and arg on top of its stack, which is 16-byte aligned above them */
    ldp x9, x0, [sp], #16
    mov x29, #0
    mov x30, #0
    blr x9
    mov x0, #0                   /* exit(0): this thread only */
    mov x8, #93
    svc #0
    brk #0
1:
    ret

/* int __pnacl_setjmp(void *buf): a context of the runtime's for the caller's frame
   (region.h's __pnacl_setjmp_slot, given the caller's stack pointer), its callee-saved
   registers, stack pointer and return address stored there. */
FUNC __pnacl_setjmp
    stp x29, x30, [sp, #-16]!
    add x1, sp, #16              /* the caller's stack pointer */
    bl __pnacl_setjmp_slot       /* keeps x19-x28, d8-d15: they are the caller's still */
    ldp x29, x30, [sp], #16
    stp x19, x20, [x0, #0]
    stp x21, x22, [x0, #16]
    stp x23, x24, [x0, #32]
    stp x25, x26, [x0, #48]
    stp x27, x28, [x0, #64]
    stp x29, x30, [x0, #80]
    mov x9, sp
    str x9, [x0, #96]
    stp d8, d9, [x0, #104]
    stp d10, d11, [x0, #120]
    stp d12, d13, [x0, #136]
    stp d14, d15, [x0, #152]
    mov w0, #0
    ret

/* void __pnacl_longjmp(void *buf, int val): to the context buf names, if it is one of this
   thread's frames that are still live (region.h's __pnacl_longjmp_find traps otherwise). */
FUNC __pnacl_longjmp
    stp x29, x30, [sp, #-32]!
    str x1, [sp, #16]
    add x1, sp, #32              /* the caller's stack pointer */
    bl __pnacl_longjmp_find
    ldr x1, [sp, #16]
    ldp x19, x20, [x0, #0]
    ldp x21, x22, [x0, #16]
    ldp x23, x24, [x0, #32]
    ldp x25, x26, [x0, #48]
    ldp x27, x28, [x0, #64]
    ldp x29, x30, [x0, #80]
    ldr x9, [x0, #96]
    mov sp, x9
    ldp d8, d9, [x0, #104]
    ldp d10, d11, [x0, #120]
    ldp d12, d13, [x0, #136]
    ldp d14, d15, [x0, #152]
    cmp w1, #0
    csinc w0, w1, wzr, ne
    ret

/* void __pnacl_setjmp_leave(void): the caller, which called setjmp, returns; its contexts
   end (region.h's __pnacl_setjmp_forget, given the caller's stack pointer). */
FUNC __pnacl_setjmp_leave
    mov x0, sp
    b __pnacl_setjmp_forget

    .section .note.GNU-stack,"",%progbits
