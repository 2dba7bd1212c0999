/* malloc for pexes: size classes over memory from the IRT's mmap. Small blocks (up to
   256 KiB) come from free lists, one per class, filled from 1 MiB arenas; larger ones
   are mapped and unmapped on their own. Every block has an 8-byte header before it (its
   capacity and its class), so blocks are 8-aligned, and a free of something malloc did
   not return is caught. One lock, over the IRT's futexes. (The SDK's libnacl had
   dlmalloc over mmap; this is a smaller allocator of our own with the same interface.) */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nacl.h"

struct head {
  uint32_t size; /* the capacity (or, for an offset header, the distance back) */
  uint32_t tag;  /* the class, or one of the tags below */
};

#define HEAD 8u
#define SMALL_CLASSES 64u                 /* 8, 16, …, 512 */
#define CLASSES (SMALL_CLASSES + 4u * 9u) /* then four per doubling up to 256 KiB */
#define MAX_SMALL (256u * 1024u)
#define TAG_LARGE 0x4c415247u
#define TAG_OFFSET 0x4f464653u
#define ARENA (1u << 20)

static void *free_list[CLASSES];
static char *bump, *bump_end;
static volatile int lock_word;

static void lock(void) {
  if (__sync_val_compare_and_swap(&lock_word, 0, 1) == 0) return;
  do {
    if (lock_word == 2 || __sync_val_compare_and_swap(&lock_word, 1, 2) != 0)
      __libnacl_futex_wait(&lock_word, 2, 0);
  } while (__sync_val_compare_and_swap(&lock_word, 0, 2) != 0);
}

static void unlock(void) {
  if (__sync_fetch_and_sub(&lock_word, 1) != 1) {
    lock_word = 0;
    __libnacl_futex_wake(&lock_word, 1);
  }
}

static unsigned class_of(size_t n) {
  if (n <= 512) return n == 0 ? 0 : (unsigned)((n + 7) / 8 - 1);
  size_t m = n - 1;
  unsigned b = 31 - (unsigned)__builtin_clz((unsigned)m); /* 2^b <= m < 2^(b+1) */
  return SMALL_CLASSES + (b - 9) * 4 + (unsigned)((m - ((size_t)1 << b)) >> (b - 2));
}

static size_t capacity(unsigned c) {
  if (c < SMALL_CLASSES) return (size_t)(c + 1) * 8;
  unsigned k = c - SMALL_CLASSES;
  unsigned b = 9 + k / 4;
  return ((size_t)1 << b) + (size_t)(k % 4 + 1) * ((size_t)1 << (b - 2));
}

static void *map(size_t len) {
  void *p = 0;
  if (__libnacl_irt_memory.mmap(&p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0) != 0)
    return 0;
  return p;
}

static void bad_free(void *p) {
  (void)p;
  __libnacl_fatal("free(): not a block malloc returned\n");
}

static void *large(size_t n) {
  size_t len = (n + HEAD + 0xffff) & ~(size_t)0xffff;
  if (len < n) return 0;
  struct head *h = map(len);
  if (!h) return 0;
  h->size = (uint32_t)(len - HEAD);
  h->tag = TAG_LARGE;
  return (char *)h + HEAD;
}

void *malloc(size_t n) {
  if (n > MAX_SMALL) {
    void *p = large(n);
    if (!p) errno = ENOMEM;
    return p;
  }
  unsigned c = class_of(n);
  lock();
  void *p = free_list[c];
  if (p) {
    free_list[c] = *(void **)p;
    unlock();
    return p;
  }
  size_t need = HEAD + capacity(c);
  if ((size_t)(bump_end - bump) < need) {
    char *a = map(ARENA);
    if (!a) {
      unlock();
      errno = ENOMEM;
      return 0;
    }
    bump = a;
    bump_end = a + ARENA;
  }
  struct head *h = (struct head *)bump;
  bump += need;
  unlock();
  h->size = (uint32_t)capacity(c);
  h->tag = c;
  return (char *)h + HEAD;
}

static struct head *head_of(void *p) { return (struct head *)((char *)p - HEAD); }

void free(void *p) {
  if (!p) return;
  if ((uintptr_t)p & 7) bad_free(p);
  struct head *h = head_of(p);
  if (h->tag == TAG_OFFSET) {
    free((char *)p - h->size);
    return;
  }
  if (h->tag == TAG_LARGE) {
    __libnacl_irt_memory.munmap(h, h->size + HEAD);
    return;
  }
  if (h->tag >= CLASSES || h->size != capacity(h->tag)) bad_free(p);
  lock();
  *(void **)p = free_list[h->tag];
  free_list[h->tag] = p;
  unlock();
}

size_t malloc_usable_size(void *p) {
  if (!p) return 0;
  struct head *h = head_of(p);
  if (h->tag == TAG_OFFSET) {
    char *base = (char *)p - h->size;
    return malloc_usable_size(base) - h->size;
  }
  return h->size;
}

void *calloc(size_t a, size_t b) {
  size_t n = a * b;
  if (b && n / b != a) {
    errno = ENOMEM;
    return 0;
  }
  void *p = malloc(n);
  if (p && n <= MAX_SMALL) memset(p, 0, n);
  return p;
}

void *realloc(void *p, size_t n) {
  if (!p) return malloc(n);
  if (n == 0) {
    free(p);
    return 0;
  }
  size_t have = malloc_usable_size(p);
  if (n <= have && (have <= MAX_SMALL || n > have / 2)) return p;
  void *q = malloc(n);
  if (!q) return 0;
  memcpy(q, p, have < n ? have : n);
  free(p);
  return q;
}

void *memalign(size_t align, size_t n) {
  if (align <= HEAD) return malloc(n);
  if (align & (align - 1)) {
    errno = EINVAL;
    return 0;
  }
  if (n + align + HEAD < n) {
    errno = ENOMEM;
    return 0;
  }
  char *p = malloc(n + align + HEAD);
  if (!p) return 0;
  uintptr_t q = ((uintptr_t)p + HEAD + align - 1) & ~(uintptr_t)(align - 1);
  struct head *h = head_of((void *)q);
  h->size = (uint32_t)(q - (uintptr_t)p);
  h->tag = TAG_OFFSET;
  return (void *)q;
}

int posix_memalign(void **out, size_t align, size_t n) {
  if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
void *valloc(size_t n) { return memalign(4096, n); }
void *pvalloc(size_t n) { return memalign(4096, (n + 4095) & ~(size_t)4095); }
void cfree(void *p) { free(p); }
int mallopt(int param, int value) { (void)param; (void)value; return 0; }
int malloc_trim(size_t pad) { (void)pad; return 0; }
void malloc_stats(void) {}
struct mallinfo mallinfo(void) {
  struct mallinfo m;
  memset(&m, 0, sizeof m);
  return m;
}

/* newlib's own calls, with its state (unused here). */
void *_malloc_r(struct _reent *r, size_t n) { (void)r; return malloc(n); }
void _free_r(struct _reent *r, void *p) { (void)r; free(p); }
void *_calloc_r(struct _reent *r, size_t a, size_t b) { (void)r; return calloc(a, b); }
void *_realloc_r(struct _reent *r, void *p, size_t n) { (void)r; return realloc(p, n); }
void *_memalign_r(struct _reent *r, size_t a, size_t n) { (void)r; return memalign(a, n); }
void *_valloc_r(struct _reent *r, size_t n) { (void)r; return valloc(n); }
void *_pvalloc_r(struct _reent *r, size_t n) { (void)r; return pvalloc(n); }
size_t _malloc_usable_size_r(struct _reent *r, void *p) { (void)r; return malloc_usable_size(p); }
void _cfree_r(struct _reent *r, void *p) { (void)r; free(p); }
struct mallinfo _mallinfo_r(struct _reent *r) { (void)r; return mallinfo(); }
void _malloc_stats_r(struct _reent *r) { (void)r; }
int _mallopt_r(struct _reent *r, int p, int v) { (void)r; return mallopt(p, v); }
