/*
 * A stand-in for a pexe, linked directly with the runtime (tests/runtime_sandbox.rs): it
 * finds the IRT query function in the start-up vector as newlib does, and, as an attacker
 * who controls the process would, also calls the runtime's raw system-call function.
 *   probe fs              IRT opens of paths in and around $PNACL_FS_ROOT, each result
 *   probe rename          an IRT entry that is not implemented
 *   probe raw PATH        raw openat(AT_FDCWD, PATH): the error, or what it reads
 *   probe rawroot PATH    raw openat(the root's descriptor, PATH)
 *   probe readfd N        raw read of descriptor N (one inherited from the parent)
 *   probe write PATH      IRT open(PATH, O_WRONLY | O_CREAT) and a write
 *   probe race PATH N     N IRT opens of PATH, printing what each reads
 *   probe call NR A...    raw system call NR with up to six arguments, each a number or
 *                         @TEXT, TEXT's address (a forbidden call ends the process)
 *   probe filter ARCH [ROOT [RO]]  the seccomp program for i386, arm, x86-64 or aarch64, with a root or not,
 *                         read-only or not (1 for yes), one instruction a line
 *   probe filter ARCH keeper  the thread keeper's filter
 *   probe ruleset ABI RO  the Landlock rule set for that ABI, read-only or not
 *   probe memory          the runtime's memcpy, memmove and memset (what the pexe's code
 *                         calls) against byte loops, every length to 80 at every alignment
 *                         and, for memmove, every overlap: "memory: ok" or the first case
 *                         that differs
 */
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned int size_t;
typedef size_t (*query_fn)(const char *, void *, size_t);

long __pnacl_syscall(long n, long a, long b, long c, long d, long e, long f);

struct sock_filter { unsigned short code; unsigned char jt, jf; u32 k; };
struct landlock_ruleset_attr { u64 fs, net, scoped; };
struct sandbox_policy { int arch, root, readonly; };
int sandbox_filter(const struct sandbox_policy *policy, struct sock_filter *out, int max);
int sandbox_keeper_filter(int arch, struct sock_filter *out, int max);
void sandbox_ruleset(int abi, int readonly, struct landlock_ruleset_attr *attr, u64 *root_access,
                     u32 *attr_size);

void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);

static size_t slen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }

static int (*fd_write)(int, const void *, size_t, size_t *);
static int (*fd_read)(int, void *, size_t, size_t *);
static int (*fn_open)(const char *, int, u32, int *);
static void (*exit_fn)(int);

static void out(const char *s) { size_t n; fd_write(1, s, slen(s), &n); }
static void unum(u64 u) {
    char b[24]; int i = 23; b[i] = 0;
    do { b[--i] = '0' + u % 10; u /= 10; } while (u);
    out(b + i);
}
static void num(long v) {
    if (v < 0) { out("-"); unum((u64)-v); } else unum((u64)v);
}
static long parse(const char *s) {
    long v = 0, neg = *s == '-';
    if (neg) s++;
    while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
    return neg ? -v : v;
}
static int streq(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

/* Prints what descriptor `fd` reads, after `what`. */
static void show(const char *what, long fd) {
    out(what); out(": ");
    if (fd < 0) { out("error "); num(-fd); out("\n"); return; }
    char buf[64];
    long n = __pnacl_syscall(3, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
    if (n < 0) { out("read error "); num(-n); out("\n"); return; }
    buf[n] = 0;
    out("read \""); out(buf); out("\"\n");
}

static void try_open(const char *path) {
    int fd = -1;
    int e = fn_open(path, 0, 0, &fd);
    out(path); out(": ");
    if (e) { out("error "); num(e); out("\n"); return; }
    char buf[64]; size_t n = 0;
    fd_read(fd, buf, sizeof buf - 1, &n);
    buf[n] = 0;
    out("read \""); out(buf); out("\"\n");
}

#if defined(__arm__)
#define NR_OPENAT 322
#else
#define NR_OPENAT 295
#endif
#define NR_FSTAT64 197

/* The root's descriptor: the only one above 2 the runtime leaves open. */
static int root_fd(void) {
    char st[256];
    for (int fd = 3; fd < 1024; fd++)
        if (__pnacl_syscall(NR_FSTAT64, fd, (long)st, 0, 0, 0, 0) == 0) return fd;
    return -1;
}

/* A system call's argument: a number, or "@TEXT" for the address of TEXT. */
static long arg_of(const char *s) { return s[0] == '@' ? (long)(s + 1) : parse(s); }

/* A buffer with a guard either side of every copy (destinations at 64-71, sources at
   44-91 and, for memcpy, 204-251, up to 80 bytes), filled with a pattern that differs at
   each byte and from one fill to the next. */
#define MEMORY_SIZE 352
#define MEMCPY_SOURCE 160 /* past the end of any destination: memcpy's regions are apart */
static unsigned char buf[MEMORY_SIZE], want[MEMORY_SIZE];
static void fill(unsigned seed) {
    for (int i = 0; i < MEMORY_SIZE; i++) buf[i] = want[i] = (unsigned char)(i * 7 + seed * 13 + 1);
}
static int same(void) {
    for (int i = 0; i < MEMORY_SIZE; i++) if (buf[i] != want[i]) return 0;
    return 1;
}
static void failed(const char *what, long n, long d, long s) {
    out(what); out(" differs: n "); num(n); out(" dst "); num(d); out(" src "); num(s); out("\n");
}

/* 0 when every case agrees with the byte loops. */
static int memory(void) {
    unsigned seed = 0;
    for (long n = 0; n <= 80; n++)
        for (long d = 64; d < 72; d++)
            for (long s = d - 20; s <= d + 20; s++) {
                int overlap = s < d + n && d < s + n;
                fill(seed++);
                if (overlap) {
                    unsigned char tmp[96];
                    for (long i = 0; i < n; i++) tmp[i] = want[s + i];
                    for (long i = 0; i < n; i++) want[d + i] = tmp[i];
                } else {
                    for (long i = 0; i < n; i++) want[d + i] = want[s + i];
                }
                if (memmove(buf + d, buf + s, n) != buf + d || !same()) {
                    failed("memmove", n, d, s);
                    return 1;
                }
                if (!overlap) {
                    fill(seed++);
                    for (long i = 0; i < n; i++) want[d + i] = want[s + MEMCPY_SOURCE + i];
                    if (memcpy(buf + d, buf + s + MEMCPY_SOURCE, n) != buf + d || !same()) {
                        failed("memcpy", n, d, s + MEMCPY_SOURCE);
                        return 1;
                    }
                }
                fill(seed++);
                for (long i = 0; i < n; i++) want[d + i] = (unsigned char)s;
                if (memset(buf + d, (int)(s | 0x300), n) != buf + d || !same()) {
                    failed("memset", n, d, s);
                    return 1;
                }
            }
    return 0;
}

void __pnacl_entry(u32 info) {
    u32 *w = (u32 *)info;
    u32 envc = w[1], argc = w[2];
    char **argv = (char **)(w + 3);
    u32 *aux = w + 3 + argc + 1 + envc + 1;
    query_fn q = 0;
    for (; aux[0]; aux += 2) if (aux[0] == 32) q = (query_fn)aux[1];
    void *fdio[14], *names[16], *basic[6];
    q("nacl-irt-basic-0.1", basic, sizeof basic);
    q("nacl-irt-dev-fdio-0.3", fdio, sizeof fdio);
    q("nacl-irt-dev-filename-0.3", names, sizeof names);
    exit_fn = (void (*)(int))basic[0];
    fd_read = (int (*)(int, void *, size_t, size_t *))fdio[3];
    fd_write = (int (*)(int, const void *, size_t, size_t *))fdio[4];
    fn_open = (int (*)(const char *, int, u32, int *))names[0];
    const char *mode = argc > 1 ? argv[1] : "fs";
    if (streq(mode, "rename")) {
        int (*rename)(const char *, const char *) = (int (*)(const char *, const char *))names[10];
        rename("a", "b");
        out("rename returned\n");
    } else if (streq(mode, "raw")) {
        show(argv[2], __pnacl_syscall(NR_OPENAT, -100, (long)argv[2], 0, 0, 0, 0));
    } else if (streq(mode, "rawroot")) {
        show(argv[2], __pnacl_syscall(NR_OPENAT, root_fd(), (long)argv[2], 0, 0, 0, 0));
    } else if (streq(mode, "readfd")) {
        show(argv[2], parse(argv[2]));
    } else if (streq(mode, "write")) {
        int fd = -1;
        int e = fn_open(argv[2], 0101 /* O_WRONLY | O_CREAT */, 0644, &fd);
        out(argv[2]); out(": ");
        if (e) { out("error "); num(e); out("\n"); }
        else { size_t n; fd_write(fd, "written\n", 8, &n); out("written\n"); }
    } else if (streq(mode, "race")) {
        long n = parse(argv[3]);
        for (long i = 0; i < n; i++) {
            int fd = -1;
            if (fn_open(argv[2], 0, 0, &fd) == 0) show("opened", fd);
        }
        out("done\n");
    } else if (streq(mode, "call")) {
        long a[6] = {0};
        for (u32 i = 0; i < 6 && 3 + i < argc; i++) a[i] = arg_of(argv[3 + i]);
        long r = __pnacl_syscall(parse(argv[2]), a[0], a[1], a[2], a[3], a[4], a[5]);
        out("returned "); num(r); out("\n");
    } else if (streq(mode, "memory")) {
        if (!memory()) out("memory: ok\n");
    } else if (streq(mode, "filter")) {
        static struct sock_filter f[512];
        /* sys.h's ARCH_ numbers */
        int arch = streq(argv[2], "arm") ? 1 : streq(argv[2], "x86-64") ? 2 : streq(argv[2], "aarch64") ? 3 : 0;
        struct sandbox_policy pol = {arch, argc > 3 && streq(argv[3], "1"), argc > 4 && streq(argv[4], "1")};
        int n = argc > 3 && streq(argv[3], "keeper") ? sandbox_keeper_filter(pol.arch, f, 512)
                                                     : sandbox_filter(&pol, f, 512);
        for (int i = 0; i < n; i++) {
            unum(f[i].code); out(" "); unum(f[i].jt); out(" "); unum(f[i].jf); out(" ");
            unum(f[i].k); out("\n");
        }
    } else if (streq(mode, "ruleset")) {
        struct landlock_ruleset_attr a;
        u64 root;
        u32 size;
        sandbox_ruleset(parse(argv[2]), parse(argv[3]), &a, &root, &size);
        unum(a.fs); out(" "); unum(a.net); out(" "); unum(a.scoped); out(" "); unum(root);
        out(" "); unum(size); out("\n");
    } else {
        try_open("inside.txt");
        try_open("./sub/deeper.txt");
        try_open("sub/../inside.txt");
        try_open("../outside.txt");
        try_open("/etc/hostname");
        try_open("link_out/outside.txt");
        try_open("link_file");
        try_open("missing.txt");
    }
    exit_fn(0);
}
