/* The runtime's integer types (every target it is built for is 32-bit). */
#ifndef PNACL_RT_TYPES_H
#define PNACL_RT_TYPES_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned long uptr;
typedef __SIZE_TYPE__ size_t;
#define NULL ((void *)0)

#endif
