// C++ exceptions, as the SDK lowered them (setjmp frames and tables, simplify::eh): through
// destructors of deep frames, by base class and through a second base (the adjusted
// pointer), by pointer, rethrown, from the library (vector::at), catch-all, exception_ptr,
// a dynamic exception specification a throw passes, noexcept functions, in loops, and
// std::uncaught_exceptions, and from 3,000 frames deep (a setjmp context live in each:
// more than region targets once kept). The same output as clang++-14 -m32 on every target.
// RUN: %c-vs-native %s %t --cflags=-Wno-deprecated --arch x86-32,arm,wasm32,x86-64,aarch64
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
#include <memory>
struct Noisy { const char *n; Noisy(const char *n) : n(n) { printf("ctor %s\n", n); } ~Noisy() { printf("dtor %s\n", n); } };
struct Base { virtual ~Base() {} virtual const char *what() const { return "Base"; } };
struct Derived : Base { int v; Derived(int v) : v(v) {} const char *what() const override { return "Derived"; } };
struct Other { int x; };
struct Multi : Other, Base { Multi() { x = 7; } const char *what() const override { return "Multi"; } };
static int deep(int n) { std::string s(20, 'x'); if (n == 0) throw n; return deep(n - 1) + (int)s.size(); }
static int depth(int n) { Noisy a("depth"); if (n == 0) throw Derived(42); return depth(n - 1) + 1; }
static void rethrow() { try { throw std::runtime_error("inner"); } catch (std::exception &e) { printf("caught inner %s, rethrowing\n", e.what()); throw; } }
static int noexc(int x) noexcept { return x * 2; }
static void allowed(int x) throw(int, Base) { if (x) throw x; }
struct InDtor { ~InDtor() { try { throw 7; } catch (int i) { printf("caught %d in a destructor during unwinding: %d\n", i, std::uncaught_exceptions()); } } };
static void unwind_through() { InDtor d; throw std::string("passing"); }
int main() {
  try { depth(3); } catch (Base &b) { printf("caught %s\n", b.what()); }
  try { rethrow(); } catch (const std::runtime_error &e) { printf("caught again %s\n", e.what()); }
  try { throw 5; } catch (long) { printf("wrong\n"); } catch (int i) { printf("int %d\n", i); }
  try { throw Multi(); } catch (Other &o) { printf("Other x=%d\n", o.x); }
  try { throw Multi(); } catch (Base *p) { printf("wrong ptr\n"); } catch (Base &b) { printf("Multi as Base: %s\n", b.what()); }
  Multi m; try { throw &m; } catch (Base *p) { printf("ptr %s\n", p->what()); }
  try { std::vector<int> v; v.at(3); } catch (std::out_of_range &e) { printf("out_of_range\n"); }
  try { try { throw std::string("str"); } catch (int) {} } catch (...) { printf("catch-all\n"); }
  try { std::unique_ptr<Noisy> p(new Noisy("heap")); throw 1.5; } catch (double d) { printf("double %g\n", d); }
  std::exception_ptr ep;
  try { throw std::logic_error("saved"); } catch (...) { ep = std::current_exception(); }
  try { std::rethrow_exception(ep); } catch (std::logic_error &e) { printf("rethrown %s\n", e.what()); }
  printf("%d\n", noexc(21));
  try { allowed(0); allowed(3); } catch (int i) { printf("allowed %d\n", i); }
  try { unwind_through(); } catch (std::string &s) { printf("then %s\n", s.c_str()); }
  for (int i = 0; i < 3; i++) { try { if (i & 1) throw i; printf("no throw %d\n", i); } catch (int k) { printf("loop %d\n", k); } }
  try { deep(3000); } catch (int) { printf("caught 3000 frames deep\n"); }
  printf("uncaught: %d\n", std::uncaught_exceptions());
  return 0;
}
