#include <cstdio>
#include <vector>

int main() {
  std::vector<int> v(3, 4);
  std::printf("%d\n", v[2]);
}
