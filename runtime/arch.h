/* What the ELF targets' arch_*.S share: FUNC name, a global function whose code follows.
   (`%function`, which every ELF assembler takes: `@` starts a comment on ARM.) */
.macro FUNC name
    .globl \name
    .type \name, %function
\name:
.endm
