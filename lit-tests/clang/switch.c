// Switches: dense (a table at -O2), with holes, on 64-bit values, on chars and on _Bool,
// with cases falling through; and a table of strings.
// RUN: %c-vs-native %s %t
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static int dense(int x) {
  switch (x) {
    case 0: return 10;
    case 1: return 11;
    case 2: return 13;
    case 3: return 17;
    case 4: return 19;
    case 5: return 23;
    case 6: return 29;
    case 7: return 31;
    default: return -1;
  }
}

static const char *holes(unsigned x) {
  switch (x) {
    case 1: return "one";
    case 10: return "ten";
    case 100: return "hundred";
    case 1000: return "thousand";
    case 65536: return "2^16";
    case 4000000000u: return "4e9";
    default: return "?";
  }
}

static int wide(int64_t x) {
  switch (x) {
    case -1: return 1;
    case 0x100000000LL: return 2;
    case 0x7fffffffffffffffLL: return 3;
    case -0x100000001LL: return 4;
    case 12: return 5;
    default: return 0;
  }
}

static int chars(char c) {
  int n = 0;
  switch (c) {
    case 'a': n += 1;
    case 'b': n += 2; break;
    case 'z': n += 26;
    case '\0': n += 100;
    default: n += 1000;
  }
  return n;
}

static int flag(bool b) {
  switch (b) {
    case true: return 7;
    case false: return 9;
  }
  return 0;
}

static int small(uint8_t x) {
  switch (x & 7) {
    case 0: case 2: case 4: return x * 3;
    case 1: return -x;
    case 7: return 77;
    default: return 5;
  }
}

int main(void) {
  int s = 0;
  for (int i = -2; i < 10; i++) s = s * 7 + dense(i);
  printf("dense %d\n", s);
  unsigned hs[] = {0, 1, 10, 11, 100, 1000, 65536, 4000000000u, 4000000001u};
  for (unsigned i = 0; i < sizeof hs / sizeof hs[0]; i++) printf("%s ", holes(hs[i]));
  printf("\n");
  int64_t ws[] = {-1, 0x100000000LL, 0x7fffffffffffffffLL, -0x100000001LL, 12, 13, 0};
  for (unsigned i = 0; i < 7; i++) printf("%d", wide(ws[i]));
  printf("\n");
  const char *cs = "abz\001q";
  for (int i = 0; i < 6; i++) printf("%d ", chars(cs[i]));
  printf("\n%d %d\n", flag(1), flag(0));
  int t = 0;
  for (int i = 0; i < 256; i++) t += small((uint8_t)i);
  printf("small %d\n", t);
  return 0;
}
