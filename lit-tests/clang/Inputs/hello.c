#include <stdio.h>
#include "greeting.h"

int main(int argc, char **argv) {
  printf("%s, %s! (%d)\n", GREETING, argc > 1 ? argv[1] : "world", twice(argc));
  return 0;
}
