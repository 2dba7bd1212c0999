// Dynamic exception specifications (C++14): the unexpected handler runs; what it throws
// goes on when the specification allows it, std::bad_exception when only that is
// allowed, and otherwise the program terminates.
#include <cstdio>
#include <cstdlib>
#include <exception>

struct A {
  int v;
};
struct B {
  ~B() { std::printf("~B\n"); }
};
struct C {};
struct Base {
  virtual ~Base() {}
};
struct Derived : Base {};

static int mode;

static void handler() {
  std::printf("unexpected handler, mode %d\n", mode);
  if (mode == 0) throw A{7};
  if (mode == 1) throw C();
  if (mode == 2) throw Derived();
  throw;
}

static void terminated() {
  std::printf("terminate handler\n");
  std::fflush(stdout);
  std::_Exit(3);
}

static void allows_a() throw(A) { throw B(); }
static void allows_a_and_bad() throw(A, std::bad_exception) { throw B(); }
static void allows_base() throw(Base) { throw 1; }
static void allows_nothing() throw() { throw B(); }

int main() {
  std::set_unexpected(handler);
  std::set_terminate(terminated);
  try {
    allows_a();
  } catch (A &a) {
    std::printf("caught A %d\n", a.v);
  }
  mode = 1;
  try {
    allows_a_and_bad();
  } catch (std::bad_exception &) {
    std::printf("caught std::bad_exception\n");
  }
  mode = 2;
  try {
    allows_base();
  } catch (Base &) {
    std::printf("caught Base (a Derived)\n");
  }
  mode = 3;
  try {
    allows_a_and_bad();
  } catch (std::bad_exception &) {
    std::printf("caught std::bad_exception for a rethrown B\n");
  }
  mode = 1;
  try {
    allows_nothing();
  } catch (...) {
    std::printf("not reached\n");
  }
  std::printf("not reached either\n");
}
