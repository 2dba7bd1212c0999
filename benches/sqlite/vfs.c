/* The smallest VFS SQLite needs for in-memory databases (SQLITE_OS_OTHER): randomness,
   sleep and the time, from the C library. */
#include <string.h>
#include <time.h>
#include "sqlite3.h"
static int rnd(sqlite3_vfs *v, int n, char *out) { (void)v; for (int i = 0; i < n; i++) out[i] = (char)(i * 131 + 7); return n; }
static int slp(sqlite3_vfs *v, int us) { (void)v; return us; }
static int now(sqlite3_vfs *v, double *t) { (void)v; *t = 2440587.5 + time(0) / 86400.0; return 0; }
static int nope(sqlite3_vfs *v, const char *n, sqlite3_file *f, int fl, int *o) { (void)v; (void)n; (void)f; (void)fl; (void)o; return SQLITE_CANTOPEN; }
static sqlite3_vfs vfs = {1, 0, 256, 0, "mem", 0, nope, 0, 0, 0, 0, 0, 0, 0, rnd, slp, now, 0};
int sqlite3_os_init(void) { return sqlite3_vfs_register(&vfs, 1); }
int sqlite3_os_end(void) { return SQLITE_OK; }
