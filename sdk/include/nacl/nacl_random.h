/* The NaCl SDK's secure random numbers (libnacl, over the IRT's random interface): what
 * libc++'s std::random_device reads on Native Client. Both return 0 or an errno value. */
#ifndef _NACL_NACL_RANDOM_H
#define _NACL_NACL_RANDOM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int nacl_secure_random_init(void);
int nacl_secure_random(void *dest, size_t bytes, size_t *bytes_written);

#ifdef __cplusplus
}
#endif

#endif
