/* x86-64, a region target: process entry, system calls, stack switching, thread start,
   and setjmp/longjmp whose contexts the runtime keeps (region.h): the pexe's jmp_buf only
   names one. */

#include "arch.h"

    .text

/* The kernel enters here with argc, argv[], envp[], auxv on the stack. */
FUNC _start
    xorl %ebp, %ebp
    movq %rsp, %rdi
    andq $-16, %rsp
    call __pnacl_main
    hlt

/* long __pnacl_syscall(long n, long a, long b, long c, long d, long e, long f) */
FUNC __pnacl_syscall
    movq %rdi, %rax
    movq %rsi, %rdi
    movq %rdx, %rsi
    movq %rcx, %rdx
    movq %r8, %r10
    movq %r9, %r8
    movq 8(%rsp), %r9
    syscall
    ret

/* void __pnacl_switch_stack(void *sp, void (*fn)(void *), void *arg): never returns. */
FUNC __pnacl_switch_stack
    movq %rdi, %rsp
    andq $-16, %rsp
    movq %rdx, %rdi
    xorl %ebp, %ebp
    call *%rsi
    hlt

/* long __pnacl_clone(u64 flags, void *stack_top, int *ctid, void (*fn)(void *), void *arg,
                      void *tls)
   The child runs fn(arg) on stack_top with its thread pointer tls, then exits the thread. */
FUNC __pnacl_clone
    andq $-16, %rsi
    subq $16, %rsi
    movq %rcx, 0(%rsi)           /* fn */
    movq %r8, 8(%rsi)            /* arg */
    movq %rdx, %r10              /* child tid */
    movq %r9, %r8                /* tls */
    xorl %edx, %edx              /* parent tid */
    movl $56, %eax               /* clone(flags, stack, ptid, ctid, tls) */
    syscall
    testq %rax, %rax
    jnz 1f
    /* child: fn and arg on top of its stack, which is 16-byte aligned below them */
    xorl %ebp, %ebp
    popq %rcx
    popq %rdi
    call *%rcx
    movl $60, %eax               /* exit(0): this thread only */
    xorl %edi, %edi
    syscall
    hlt
1:
    ret

/* int __pnacl_setjmp(void *buf): a context of the runtime's for the caller's frame
   (region.h's __pnacl_setjmp_slot, given the caller's stack pointer), its callee-saved
   registers and return address stored there. */
FUNC __pnacl_setjmp
    pushq %rdi
    leaq 16(%rsp), %rsi          /* the caller's stack pointer once this returns */
    call __pnacl_setjmp_slot     /* keeps rbx, rbp, r12-r15: they are the caller's still */
    popq %rdi
    movq %rbx, 0(%rax)
    movq %rbp, 8(%rax)
    movq %r12, 16(%rax)
    movq %r13, 24(%rax)
    movq %r14, 32(%rax)
    movq %r15, 40(%rax)
    leaq 8(%rsp), %rcx
    movq %rcx, 48(%rax)
    movq (%rsp), %rcx
    movq %rcx, 56(%rax)
    xorl %eax, %eax
    ret

/* void __pnacl_longjmp(void *buf, int val): to the context buf names, if it is one of this
   thread's frames that are still live (region.h's __pnacl_longjmp_find traps otherwise). */
FUNC __pnacl_longjmp
    pushq %rsi
    leaq 16(%rsp), %rsi          /* the caller's stack pointer */
    call __pnacl_longjmp_find
    popq %rsi
    movl %esi, %edx
    testl %edx, %edx
    jnz 1f
    incl %edx
1:
    movq 0(%rax), %rbx
    movq 8(%rax), %rbp
    movq 16(%rax), %r12
    movq 24(%rax), %r13
    movq 32(%rax), %r14
    movq 40(%rax), %r15
    movq 48(%rax), %rsp
    movq 56(%rax), %rcx
    movl %edx, %eax
    jmp *%rcx

/* The return from a signal handler the kernel requires of x86-64 (the runtime's handlers
   never return: region.h). */
FUNC __pnacl_sigreturn
    movl $15, %eax               /* rt_sigreturn */
    syscall
    hlt

/* void __pnacl_setjmp_leave(void): the caller, which called setjmp, returns; its contexts
   end (region.h's __pnacl_setjmp_forget, given the caller's stack pointer). */
FUNC __pnacl_setjmp_leave
    leaq 8(%rsp), %rdi
    jmp __pnacl_setjmp_forget

    .section .note.GNU-stack,"",@progbits
