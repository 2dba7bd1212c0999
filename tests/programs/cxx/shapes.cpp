#include "shapes.h"

#include <cmath>
#include <cstdio>
#include <iomanip>

void Printable::print(std::ostream &os) const { os << "<" << name() << ">"; }

double Circle::area() const { return 3.14159265358979 * r * r; }

void Rect::print(std::ostream &os) const {
  os << "<rect " << std::fixed << std::setprecision(1) << w << "x" << h << ">";
  os.unsetf(std::ios::floatfield);
}

namespace {
// Static constructors and destructors in this file: the registry is built before main
// and says goodbye after it.
struct Registry {
  std::vector<std::string> log;
  Registry() {
    log.push_back("registry built");
    std::printf("static constructor of shapes.cpp\n");
  }
  ~Registry() { std::printf("static destructor of shapes.cpp (%zu entries)\n", log.size()); }
} registry;
}  // namespace

std::vector<std::string> registry_log() { return registry.log; }

static void check_size(double a) {
  if (!(a > 0)) throw BadSize("size must be positive", a);
  if (std::isinf(a)) throw ShapeError("size is infinite");
}

std::unique_ptr<Shape> make_shape(const std::string &kind, double a, double b) {
  registry.log.push_back("make " + kind);
  check_size(a);
  if (kind == "circle") return std::make_unique<Circle>(a);
  check_size(b);
  if (kind == "rect") return std::make_unique<Rect>(a, b);
  throw std::invalid_argument("unknown shape: " + kind);
}
