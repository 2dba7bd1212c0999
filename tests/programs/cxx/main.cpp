#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "shapes.h"

namespace {
struct Announce {
  Announce() { std::printf("static constructor of main.cpp\n"); }
  ~Announce() { std::printf("static destructor of main.cpp\n"); }
} announce;

// Templates: a function template, a class template with a specialization.
template <typename T>
T sum(const std::vector<T> &v) {
  return std::accumulate(v.begin(), v.end(), T{});
}

template <typename K, typename V>
struct Table {
  std::map<K, V> rows;
  void put(const K &k, const V &v) { rows[k] = v; }
  std::string show() const {
    std::ostringstream s;
    for (const auto &[k, v] : rows) s << k << "=" << v << ";";
    return s.str();
  }
};

template <>
struct Table<int, bool> {
  std::string show() const { return "specialized"; }
};

int depth_first(int n) {
  Counter<double> guard;  // destroyed as the exception passes
  if (n == 0) throw BadSize("too deep", -1.0);
  return depth_first(n - 1) + 1;
}

void rethrower() {
  try {
    depth_first(5);
  } catch (ShapeError &e) {
    std::cout << "rethrowing " << e.what() << ", counters alive " << Counter<double>::count
              << "\n";
    throw;
  }
}
}  // namespace

int main() {
  // Shapes through their bases.
  std::vector<std::unique_ptr<Shape>> shapes;
  shapes.push_back(make_shape("circle", 1.5, 0));
  shapes.push_back(make_shape("rect", 2, 3.25));
  shapes.push_back(make_shape("circle", 0.5, 0));
  std::sort(shapes.begin(), shapes.end(),
            [](const auto &a, const auto &b) { return a->area() < b->area(); });
  for (const auto &s : shapes) {
    std::cout << s->name() << " " << std::setprecision(6) << s->area() << " ";
    if (auto *p = dynamic_cast<Printable *>(s.get())) p->print(std::cout);
    std::cout << " " << (dynamic_cast<Rect *>(s.get()) ? "is" : "is not") << " a rect\n";
  }

  // Exceptions: across frames, by base class, rethrown, and the library's own.
  for (auto [kind, a] : std::vector<std::pair<std::string, double>>{
           {"rect", -2}, {"hexagon", 1}, {"circle", 1.0 / 0.0}, {"circle", 2}}) {
    try {
      auto s = make_shape(kind, a, 1);
      std::cout << "made " << s->name() << "\n";
    } catch (const BadSize &e) {
      std::cout << "BadSize: " << e.what() << " (" << e.size << ")\n";
    } catch (const ShapeError &e) {
      std::cout << "ShapeError: " << e.what() << "\n";
    } catch (const std::exception &e) {
      std::cout << "std::exception: " << e.what() << "\n";
    }
  }
  try {
    rethrower();
  } catch (const std::runtime_error &e) {
    std::cout << "caught again: " << e.what() << ", counters alive "
              << Counter<double>::count << "\n";
  }
  try {
    std::vector<int> v(3);
    v.at(7) = 1;
  } catch (const std::out_of_range &) {
    std::cout << "out of range\n";
  }
  try {
    throw 42;
  } catch (long) {
    std::cout << "wrong handler\n";
  } catch (...) {
    std::cout << "caught by catch-all\n";
  }

  // Containers and algorithms.
  std::vector<int> nums{9, 4, 7, 1, 8, 2};
  std::sort(nums.begin(), nums.end(), std::greater<int>());
  std::cout << "sorted:";
  for (int n : nums) std::cout << " " << n;
  std::cout << "; sum " << sum(nums) << "; sum of halves "
            << sum(std::vector<double>{0.5, 0.25, 0.125}) << "\n";
  std::unordered_map<std::string, int> words;
  std::istringstream text("the quick brown fox jumps over the lazy dog the end");
  for (std::string w; text >> w;) words[w]++;
  std::vector<std::pair<std::string, int>> counted(words.begin(), words.end());
  std::sort(counted.begin(), counted.end());
  for (const auto &[w, n] : counted) std::cout << w << ":" << n << " ";
  std::cout << "\n";
  Table<std::string, double> t;
  t.put("pi", 3.14159);
  t.put("e", 2.71828);
  std::cout << t.show() << " " << Table<int, bool>().show() << "\n";

  // Formatting.
  std::ostringstream f;
  f << std::hex << 255 << " " << std::oct << 8 << " " << std::dec << std::setw(6)
    << std::setfill('*') << 42 << " " << std::scientific << std::setprecision(3) << 12345.678
    << " " << std::fixed << std::setprecision(2) << 2.0 / 3 << " " << std::boolalpha << true;
  std::cout << f.str() << "\n";
  std::string s = "Hello, pexe";
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  std::cout << s << " " << s.size() << " " << s.substr(7) << " " << s.find("PEXE") << "\n";

  // Threads.
  int r = run_threads(std::cout);
  std::cout << "threads returned " << r << "\n";
  for (const auto &l : registry_log()) std::cout << "log: " << l << "\n";
  std::cout << "counters alive at the end " << Counter<double>::count << " "
            << Counter<int>::count << std::endl;
  return 0;
}
