/* i386: process entry, system calls, stack switching, setjmp/longjmp, thread start. */

#include "arch.h"

    .text

/* The kernel enters here with argc, argv[], envp[], auxv on the stack. */
FUNC _start
    xorl %ebp, %ebp
    movl %esp, %eax
    andl $-16, %esp
    subl $12, %esp
    pushl %eax
    call __pnacl_main
    hlt

/* long __pnacl_syscall(long n, long a, long b, long c, long d, long e, long f) */
FUNC __pnacl_syscall
    pushl %ebp
    pushl %edi
    pushl %esi
    pushl %ebx
    movl 20(%esp), %eax
    movl 24(%esp), %ebx
    movl 28(%esp), %ecx
    movl 32(%esp), %edx
    movl 36(%esp), %esi
    movl 40(%esp), %edi
    movl 44(%esp), %ebp
    int $0x80
    popl %ebx
    popl %esi
    popl %edi
    popl %ebp
    ret

/* void __pnacl_switch_stack(void *sp, void (*fn)(void *), void *arg): never returns. */
FUNC __pnacl_switch_stack
    movl 4(%esp), %eax
    movl 8(%esp), %ecx
    movl 12(%esp), %edx
    movl %eax, %esp
    andl $-16, %esp
    subl $12, %esp
    pushl %edx
    xorl %ebp, %ebp
    call *%ecx
    hlt

/* int __pnacl_setjmp(void *buf): saves ebx esi edi ebp esp eip. */
FUNC __pnacl_setjmp
    movl 4(%esp), %eax
    movl %ebx, 0(%eax)
    movl %esi, 4(%eax)
    movl %edi, 8(%eax)
    movl %ebp, 12(%eax)
    leal 4(%esp), %ecx
    movl %ecx, 16(%eax)
    movl (%esp), %ecx
    movl %ecx, 20(%eax)
    xorl %eax, %eax
    ret

/* void __pnacl_longjmp(void *buf, int val) */
FUNC __pnacl_longjmp
    movl 4(%esp), %edx
    movl 8(%esp), %eax
    testl %eax, %eax
    jnz 1f
    incl %eax
1:
    movl 0(%edx), %ebx
    movl 4(%edx), %esi
    movl 8(%edx), %edi
    movl 12(%edx), %ebp
    movl 16(%edx), %esp
    jmp *20(%edx)

/* int __pnacl_clone(u32 flags, void *stack_top, int *ctid, void (*fn)(void *), void *arg)
   The child runs fn(arg) on stack_top, then exits the thread. */
FUNC __pnacl_clone
    pushl %ebp
    pushl %edi
    pushl %esi
    pushl %ebx
    movl 24(%esp), %ecx          /* child stack */
    andl $-16, %ecx
    subl $16, %ecx
    movl 32(%esp), %eax          /* fn */
    movl %eax, 0(%ecx)
    movl 36(%esp), %eax          /* arg */
    movl %eax, 4(%ecx)
    movl 20(%esp), %ebx          /* flags */
    xorl %edx, %edx              /* parent tid */
    xorl %esi, %esi              /* tls */
    movl 28(%esp), %edi          /* child tid */
    movl $120, %eax
    int $0x80
    testl %eax, %eax
    jnz 2f
    /* child */
    xorl %ebp, %ebp
    popl %ecx                    /* fn */
    popl %eax                    /* arg */
    subl $4, %esp                /* 16-byte aligned at the call, as the i386 ABI wants */
    pushl %eax
    call *%ecx
    movl $1, %eax                /* exit(0): this thread only */
    xorl %ebx, %ebx
    int $0x80
    hlt
2:
    popl %ebx
    popl %esi
    popl %edi
    popl %ebp
    ret

    .section .note.GNU-stack,"",@progbits
