/*
 * A stand-in for a pexe, linked directly with the runtime: it finds the IRT query function
 * in the start-up vector as newlib does, then exercises the file-name interface.
 *   probe fs       try paths in and around $PNACL_FS_ROOT, print each result
 *   probe rename   call an IRT entry that is not implemented
 */
typedef unsigned int u32;
typedef unsigned int size_t;
typedef size_t (*query_fn)(const char *, void *, size_t);

static size_t slen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }

static int (*fd_write)(int, const void *, size_t, size_t *);
static int (*fd_read)(int, void *, size_t, size_t *);
static int (*fn_open)(const char *, int, u32, int *);
static void (*exit_fn)(int);

static void out(const char *s) { size_t n; fd_write(1, s, slen(s), &n); }
static void num(int v) {
    char b[16]; int i = 15; b[i] = 0;
    unsigned u = v < 0 ? -v : v;
    do { b[--i] = '0' + u % 10; u /= 10; } while (u);
    if (v < 0) b[--i] = '-';
    out(b + i);
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
    if (argc > 1 && argv[1][0] == 'r') {
        int (*rename)(const char *, const char *) = (int (*)(const char *, const char *))names[10];
        rename("a", "b");
        out("rename returned\n");
        exit_fn(0);
    }
    try_open("inside.txt");
    try_open("./sub/deeper.txt");
    try_open("sub/../inside.txt");
    try_open("../outside.txt");
    try_open("/etc/hostname");
    try_open("link_out/outside.txt");
    try_open("link_file");
    try_open("missing.txt");
    exit_fn(0);
}
