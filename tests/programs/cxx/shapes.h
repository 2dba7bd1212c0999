// A small C++ program built by pnacl-clang++ and natively by clang++-14 -m32 (lit-tests/
// clang/cxx-program.test): the same output on every target, at -O0 and -O2.
#pragma once
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

// Classes: an abstract base, virtual and multiple inheritance, a virtual base.
struct Named {
  virtual ~Named() = default;
  virtual std::string name() const = 0;
};

struct Shape : virtual Named {
  virtual double area() const = 0;
};

struct Printable : virtual Named {
  virtual void print(std::ostream &os) const;
};

struct Circle : Shape, Printable {
  double r;
  explicit Circle(double r) : r(r) {}
  std::string name() const override { return "circle"; }
  double area() const override;
};

struct Rect : Shape, Printable {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  std::string name() const override { return "rect"; }
  double area() const override { return w * h; }
  void print(std::ostream &os) const override;
};

// Errors, thrown across frames and caught by their base.
struct ShapeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct BadSize : ShapeError {
  double size;
  BadSize(const std::string &what, double size) : ShapeError(what), size(size) {}
};

std::unique_ptr<Shape> make_shape(const std::string &kind, double a, double b);
std::vector<std::string> registry_log();

// A template with a static member per instantiation.
template <typename T>
struct Counter {
  static int count;
  T value{};
  Counter() { ++count; }
  Counter(const Counter &o) : value(o.value) { ++count; }
  ~Counter() { --count; }
};
template <typename T> int Counter<T>::count = 0;

int run_threads(std::ostream &os);
