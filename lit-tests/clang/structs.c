// Structs and arrays as values: passed and returned by value (small, large, nested, with
// doubles and arrays), assigned, in unions; bit-fields of odd widths, signed and not;
// _Bool; a flexible array member.
// RUN: %c-vs-native %s %t
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pt { int x, y; };
struct rect { struct pt a, b; double area; char name[5]; };
struct tiny { char c; };
struct bits {
  unsigned a : 3;
  signed b : 5;
  unsigned c : 11;
  signed d : 13;
  unsigned long long e : 41;
  bool f : 1;
  signed long long g : 23;
};
union u { float f; unsigned i; unsigned char b[4]; };
struct flex { int n; short v[]; };

static struct pt add(struct pt p, struct pt q) { return (struct pt){p.x + q.x, p.y * q.y}; }
static struct rect grow(struct rect r, int by) {
  r.b.x += by;
  r.b.y += by;
  r.area = (double)(r.b.x - r.a.x) * (r.b.y - r.a.y);
  r.name[0] = 'G';
  return r;
}
static struct tiny next(struct tiny t) { t.c++; return t; }
static bool odd(int x) { return x & 1; }
static struct bits twiddle(struct bits s, int k) {
  s.a += k;
  s.b -= k;
  s.c *= k;
  s.d = -s.d + k;
  s.e = (s.e << 3) | k;
  s.f = !s.f;
  s.g = s.g * -3;
  return s;
}

int main(void) {
  struct pt p = add((struct pt){1, 2}, (struct pt){3, 4});
  printf("pt %d %d\n", p.x, p.y);
  struct rect r = {{0, 0}, {3, 4}, 0, "rect"};
  struct rect g = grow(r, 2);
  printf("rect %d %d %d %d %.1f %s / %s\n", g.a.x, g.a.y, g.b.x, g.b.y, g.area, g.name, r.name);
  struct rect arr[3];
  for (int i = 0; i < 3; i++) arr[i] = grow(r, i);
  struct rect copy = arr[2];
  printf("copy %.1f %d\n", copy.area, copy.b.x);
  struct tiny t = {'a'};
  for (int i = 0; i < 5; i++) t = next(t);
  printf("tiny %c\n", t.c);
  struct bits b = {5, -7, 1000, -4000, 0x1234567890ULL, true, -1234567};
  for (int k = 1; k < 6; k++) {
    b = twiddle(b, k);
    printf("bits %u %d %u %d %llx %d %lld\n", b.a, b.b, b.c, b.d, (unsigned long long)b.e, b.f, (long long)b.g);
  }
  printf("sizeof bits %zu rect %zu\n", sizeof(struct bits), sizeof(struct rect));
  union u v;
  v.f = -1.5f;
  printf("union %08x %u %u\n", v.i, v.b[0], v.b[3]);
  int n = 0;
  for (int i = 0; i < 10; i++) n += odd(i) ? i : -i;
  bool flags[4] = {true, false, odd(3), odd(4)};
  printf("bool %d %d %d %d %d %zu\n", n, flags[0], flags[1], flags[2], flags[3], sizeof(bool));
  struct flex *f = malloc(sizeof *f + 5 * sizeof(short));
  f->n = 5;
  for (int i = 0; i < 5; i++) f->v[i] = (short)(i * -1000);
  int s = 0;
  for (int i = 0; i < f->n; i++) s += f->v[i];
  printf("flex %d\n", s);
  free(f);
  struct pt many[4] = {{1, 1}, {2, 2}};
  memcpy(&many[2], &many[0], 2 * sizeof(struct pt));
  printf("many %d %d\n", many[3].x, many[2].y);
  return 0;
}
