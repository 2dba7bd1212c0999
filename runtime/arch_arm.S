/* 32-bit ARM (EABI, hard float): process entry, system calls, stack switching,
   setjmp/longjmp, thread start, and the 64-bit division helpers' register shims. */

#include "arch.h"
    .syntax unified
    .arm
    .text

FUNC _start
    mov fp, #0
    mov lr, #0
    mov r0, sp
    bic sp, sp, #15
    bl __pnacl_main
    udf #0

/* long __pnacl_syscall(long n, long a, long b, long c, long d, long e, long f) */
FUNC __pnacl_syscall
    push {r4, r5, r7, lr}
    mov r7, r0
    mov r0, r1
    mov r1, r2
    mov r2, r3
    ldr r3, [sp, #16]
    ldr r4, [sp, #20]
    ldr r5, [sp, #24]
    svc #0
    pop {r4, r5, r7, pc}

/* void __pnacl_switch_stack(void *sp, void (*fn)(void *), void *arg) */
FUNC __pnacl_switch_stack
    bic sp, r0, #15
    mov r0, r2
    mov fp, #0
    blx r1
    udf #0

/* int __pnacl_setjmp(void *buf): r4-r11, sp, lr, d8-d15. */
FUNC __pnacl_setjmp
    stmia r0!, {r4-r11}
    str sp, [r0], #4
    str lr, [r0], #4
    vstmia r0, {d8-d15}
    mov r0, #0
    bx lr

/* void __pnacl_longjmp(void *buf, int val) */
FUNC __pnacl_longjmp
    ldmia r0!, {r4-r11}
    ldr sp, [r0], #4
    ldr lr, [r0], #4
    vldmia r0, {d8-d15}
    movs r0, r1
    moveq r0, #1
    bx lr

/* int __pnacl_clone(u32 flags, void *stack_top, int *ctid, void (*fn)(void *), void *arg) */
FUNC __pnacl_clone
    push {r4, r5, r7, lr}
    bic r1, r1, #15
    ldr r5, [sp, #16]            /* arg */
    stmdb r1!, {r3, r5}          /* fn, arg on the child's stack */
    mov r4, r2                   /* child tid */
    mov r2, #0                   /* parent tid */
    mov r3, #0                   /* tls */
    mov r7, #120
    svc #0
    cmp r0, #0
    bne 1f
    /* child */
    mov fp, #0
    pop {r1, r2}                 /* fn, arg */
    sub sp, sp, #8
    mov r0, r2
    blx r1
    mov r0, #0
    mov r7, #1                   /* exit: this thread only */
    svc #0
    udf #0
1:
    pop {r4, r5, r7, pc}

/* The EABI's 64-bit division: quotient in r0:r1, remainder in r2:r3, from a C worker
   that writes the remainder through a pointer (builtins.c). */
.macro divmod name, worker
FUNC \name
    push {r11, lr}
    sub sp, sp, #16
    add r12, sp, #8
    str r12, [sp]
    bl \worker
    ldr r2, [sp, #8]
    ldr r3, [sp, #12]
    add sp, sp, #16
    pop {r11, pc}
.endm

    divmod __aeabi_uldivmod, __pnacl_udivmoddi4
    divmod __aeabi_ldivmod, __pnacl_divmoddi4

    .section .note.GNU-stack,"",%progbits
