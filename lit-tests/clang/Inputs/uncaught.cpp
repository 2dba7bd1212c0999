#include <cstdio>
#include <stdexcept>

int main() {
  std::puts("before");
  std::fflush(stdout);
  throw std::runtime_error("boom");
}
