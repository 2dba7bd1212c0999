// A call-heavy C++ benchmark (scripts/bench cxx): expression trees of virtual nodes owned
// by unique_ptr, built from a seed, evaluated over many inputs, printed into strings by
// recursive calls whose locals have destructors (each such call an invoke when exceptions
// are on), and the printed forms' hashes counted in a std::map.
//   cxx_trees N   (N rounds; prints a checksum)
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Node {
  virtual ~Node() = default;
  virtual double eval(const std::vector<double> &env) const = 0;
  virtual void print(std::string &out) const = 0;
};

struct Const : Node {
  double v;
  explicit Const(double v) : v(v) {}
  double eval(const std::vector<double> &) const override { return v; }
  void print(std::string &out) const override { out += std::to_string(static_cast<int>(v)); }
};

struct Var : Node {
  size_t k;
  explicit Var(size_t k) : k(k) {}
  double eval(const std::vector<double> &env) const override { return env[k % env.size()]; }
  void print(std::string &out) const override {
    std::string name = "x";
    name += static_cast<char>('0' + k % 10);
    out += name;
  }
};

struct Bin : Node {
  char op;
  std::unique_ptr<Node> l, r;
  Bin(char op, std::unique_ptr<Node> l, std::unique_ptr<Node> r)
      : op(op), l(std::move(l)), r(std::move(r)) {}
  double eval(const std::vector<double> &env) const override {
    double a = l->eval(env), b = r->eval(env);
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      default: return b == 0 ? a : a / b;
    }
  }
  void print(std::string &out) const override {
    std::string left, right;  // destroyed on the way out
    l->print(left);
    r->print(right);
    out += '(';
    out += left;
    out += op;
    out += right;
    out += ')';
  }
};

struct Rng {
  unsigned s;
  unsigned next() { return s = s * 1103515245u + 12345u, (s >> 16) & 0x7fff; }
};

std::unique_ptr<Node> build(Rng &rng, int depth) {
  if (depth == 0 || rng.next() % 8 == 0) {
    if (rng.next() % 2) return std::make_unique<Const>(static_cast<double>(rng.next() % 10));
    return std::make_unique<Var>(rng.next());
  }
  static const char ops[] = "+-*/";
  char op = ops[rng.next() % 4];
  auto l = build(rng, depth - 1);
  auto r = build(rng, depth - 1);
  return std::make_unique<Bin>(op, std::move(l), std::move(r));
}

}  // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  std::map<unsigned, int> seen;
  double sum = 0;
  std::vector<double> env(16);
  for (int i = 0; i < rounds; i++) {
    Rng rng{static_cast<unsigned>(i) * 7919u + 1};
    auto tree = build(rng, 10);
    for (int e = 0; e < 64; e++) {
      for (size_t k = 0; k < env.size(); k++) env[k] = (e * 31 + k * 7) % 13 - 6;
      sum += tree->eval(env);
    }
    std::string text;
    tree->print(text);
    unsigned h = 2166136261u;
    for (unsigned char c : text) h = (h ^ c) * 16777619u;
    seen[h % 1024]++;
  }
  std::printf("%d distinct, checksum %.6g\n", static_cast<int>(seen.size()), sum);
  return 0;
}
