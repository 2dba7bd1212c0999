#ifndef GREETING
#define GREETING "hello"
#endif
int twice(int);
