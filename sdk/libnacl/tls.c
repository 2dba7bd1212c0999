/* Thread-local storage and each thread's newlib state. A thread's block holds its TLS
   variables (the template the simplification made: initialized data, then zeros) right
   below its thread pointer, and its descriptor at the thread pointer, as ExpandTls laid
   it out for every architecture. */
#include <stdlib.h>
#include <string.h>

#include "nacl.h"

extern char __tls_template_start[];
extern char __tls_template_tdata_end[];
extern char __tls_template_end[];
extern uint32_t __tls_template_alignment;

extern void __sinit(struct _reent *);

struct __pnacl_thread *__libnacl_new_thread_block(void) {
  size_t data = __tls_template_tdata_end - __tls_template_start;
  size_t total = __tls_template_end - __tls_template_start;
  size_t align = __tls_template_alignment;
  if (align < 16) align = 16;
  size_t size = total + align + sizeof(struct __pnacl_thread);
  char *block = malloc(size);
  if (!block) return 0;
  uintptr_t tp = ((uintptr_t)block + total + align - 1) & ~(uintptr_t)(align - 1);
  char *tls = (char *)tp - total;
  memcpy(tls, __tls_template_start, data);
  memset(tls + data, 0, total - data);
  struct __pnacl_thread *t = (struct __pnacl_thread *)tp;
  memset(t, 0, sizeof *t);
  t->self = t;
  t->block = block;
  /* A thread's newlib state is its own (errno, strtok's place, …); the standard
     streams are the program's (the global state's), as NaCl's newlib had them. */
  struct _reent *r = &t->reent_storage;
  _REENT_INIT_PTR(r);
  struct _reent *g = _GLOBAL_REENT;
  if (!g->__sdidinit) __sinit(g);
  r->_stdin = g->_stdin;
  r->_stdout = g->_stdout;
  r->_stderr = g->_stderr;
  r->__sdidinit = 1;
  t->reent = r;
  return t;
}

static struct __pnacl_thread *main_thread;

void __libnacl_init_main_thread(void) {
  struct __pnacl_thread *t = __libnacl_new_thread_block();
  if (!t) __libnacl_fatal("no memory for the main thread's TLS block\n");
  /* The main thread's newlib state is the global one. */
  t->reent = _GLOBAL_REENT;
  main_thread = t;
  if (__libnacl_irt_tls.tls_init(t) != 0) __libnacl_fatal("tls_init failed\n");
}

struct _reent *__getreent(void) {
  struct __pnacl_thread *t = __libnacl_self();
  return t ? t->reent : _GLOBAL_REENT;
}
