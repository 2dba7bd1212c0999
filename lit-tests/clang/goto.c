// Computed goto: a little interpreter dispatching through a table of label addresses.
// RUN: %c-vs-native %s %t
#include <stdio.h>

enum { PUSH, ADD, MUL, DUP, SWAP, JNZ, DEC, PRINT, HALT };

static long run(const int *code) {
  static void *const labels[] = {&&push, &&add, &&mul, &&dup, &&swap, &&jnz, &&dec, &&print, &&halt};
  long stack[64];
  int sp = 0, pc = 0;
#define NEXT goto *labels[code[pc++]]
  NEXT;
push: stack[sp++] = code[pc++]; NEXT;
add: sp--; stack[sp - 1] += stack[sp]; NEXT;
mul: sp--; stack[sp - 1] *= stack[sp]; NEXT;
dup: stack[sp] = stack[sp - 1]; sp++; NEXT;
swap: { long t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } NEXT;
jnz: { int to = code[pc++]; if (stack[--sp]) pc = to; } NEXT;
dec: stack[sp - 1]--; NEXT;
print: printf("%ld\n", stack[sp - 1]); NEXT;
halt: return stack[sp - 1];
}

int main(void) {
  /* acc = 1; n = 10; do { acc *= n; } while (--n); */
  const int code[] = {PUSH, 1, PUSH, 10, /* 4: */ SWAP, PUSH, 0, ADD, SWAP, DUP, PRINT,
                      SWAP, /* acc n */ PUSH, 0, ADD, SWAP, DUP, PUSH, 0, ADD, SWAP,
                      /* acc n n */ SWAP, MUL, SWAP, DEC, DUP, JNZ, 4, SWAP, PRINT, HALT};
  (void)code;
  const int fact[] = {PUSH, 1, PUSH, 12, /* 4 */ DUP, SWAP, PRINT, SWAP, PRINT, SWAP, HALT};
  long r = run(fact);
  printf("run %ld\n", r);
  const int loop[] = {PUSH, 5, /* 2 */ PRINT, DEC, DUP, JNZ, 2, HALT};
  printf("loop %ld\n", run(loop));
  return 0;
}
