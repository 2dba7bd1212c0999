/*
 * A pexe that attacks the region it is isolated in (tests/isolation.rs), built by
 * pnacl-clang (so it passes pnacl-abicheck) and translated for x86-64 and AArch64:
 *
 *   attacker fill            maps all the memory the IRT gives it, writes a pattern to every
 *                            page and reads it back, a chunk at a time (each chunk then
 *                            mapped afresh, so that it holds at most one chunk), then writes
 *                            every page of its own globals; prints the pages written
 *   attacker scan HEX...     makes its whole 4 GiB readable (IRT mprotect) and reads every
 *                            byte of it, counting where each needle's bytes stand (each
 *                            needle given XORed with 0x55, so that its bytes appear nowhere
 *                            in the pexe's memory but where they are found)
 *   attacker call-number     calls through a number that is no function's address
 *   attacker call-null       calls through the null address
 *   attacker call-last       calls through the highest number, 0xffffffff
 *   attacker call-type       calls a function of type int(int) as void(void)
 *   attacker call-data       calls the address of a global
 *   attacker call-irt        calls an IRT function (the query) as void(void)
 *   attacker call-tail-null  calls the null address as int(int), as its caller's last act
 *                            (a tail call: a jump, not a call)
 *   attacker call-tail-type  calls a function of type double(double) so, as a tail call
 *   attacker bounds          hands the IRT pointers and lengths past the region's end and
 *                            below its start; prints what each call answered
 *   attacker recurse         recurses without end, each call with an array on the stack
 *   attacker recurse-wide    recurses 1,000 deep (60 MiB), each call with an array of 60 KiB
 *                            on the stack that it never touches (its address escapes)
 *   attacker recurse-wider   the same with 100 KiB
 *   attacker recurse-calls   recurses without end, each call with nothing on the pexe's
 *                            stack (only its return address on the runtime's)
 *   attacker vla N           allocates an array of N MiB on the stack and writes its ends
 *   attacker load ADDR       reads the 4 bytes at ADDR (hexadecimal)
 *   attacker load-far ADDR   reads the 4 bytes 2 GiB - 16 beyond ADDR (a constant offset the
 *                            translated code adds to ADDR, not wrapping at 4 GiB), having
 *                            mapped the page the address would wrap around to
 *   attacker load-back ADDR  reads the 4 bytes 2 GiB before ADDR (the same, negative)
 *   attacker move-far        moves 4 GiB - 1 bytes from the region's last page to 240 bytes
 *                            on (memmove, which the runtime's code does for the pexe's code),
 *                            whose first store would be nearly 4 GiB past the region's end
 *   attacker path-race N     opens "abcde/file" N times while a thread of its own turns the
 *                            name's first bytes into "lnk/." and back, so that the runtime
 *                            would follow the link lnk if it read the name twice (once to
 *                            check it, once to use it); prints how many opens succeeded
 */
#include <irt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct nacl_irt_memory mem;
static struct nacl_irt_fdio fdio;
static struct nacl_irt_basic basic;
static struct nacl_irt_dev_filename file;
static struct nacl_irt_clock clk;
static struct nacl_irt_futex futex;
static struct nacl_irt_thread thread;

static void query(const char *name, void *table, size_t size) {
    if (__nacl_irt_query(name, table, size) != size) {
        printf("no %s\n", name);
        exit(2);
    }
}

#define CHUNK (64u << 20)
#define PAGE 4096u

static void fill(void) {
    unsigned long long pages = 0;
    size_t chunk = CHUNK;
    for (;;) {
        void *p = NULL;
        if (mem.mmap(&p, chunk, 3, 0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */, -1, 0)) {
            if (chunk == PAGE) break;
            chunk /= 2;
            continue;
        }
        volatile unsigned *w = p;
        for (size_t k = 0; k < chunk / 4; k += PAGE / 4) w[k] = 0xa5a5a5a5u ^ (unsigned)(size_t)&w[k];
        for (size_t k = 0; k < chunk / 4; k += PAGE / 4)
            if (w[k] != (0xa5a5a5a5u ^ (unsigned)(size_t)&w[k])) {
                printf("page at %p lost its pattern\n", (void *)&w[k]);
                exit(3);
            }
        pages += chunk / PAGE;
        /* The same addresses mapped afresh: the pages written are given back, the
           addresses stay this program's. */
        void *again = p;
        if (mem.mmap(&again, chunk, 0, 0x32 /* MAP_FIXED too */, -1, 0) || again != p) {
            printf("could not map %p afresh\n", p);
            exit(4);
        }
    }
    printf("wrote %llu pages (%llu MiB)\n", pages, pages >> 8);
}

static unsigned char hex(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

static void scan(int n, char **needles) {
    /* Every page of the region readable: what was reserved reads as zeros. */
    int e = mem.mprotect((void *)0x10000, 0xffff0000u, 3);
    if (e) {
        printf("mprotect: %d\n", e);
        exit(5);
    }
    for (int k = 0; k < n; k++) {
        size_t len = strlen(needles[k]) / 2;
        unsigned char x[64];
        for (size_t i = 0; i < len && i < sizeof x; i++)
            x[i] = (unsigned char)(hex(needles[k][2 * i]) << 4 | hex(needles[k][2 * i + 1]));
        int first = x[0] ^ 0x55;
        unsigned long found = 0;
        unsigned long long a = 0x10000, end = 0x100000000ull - len;
        while (a <= end) {
            /* memchr takes less than 4 GiB at once: a size_t is 32 bits. */
            size_t span = end - a + 1 > 0x40000000u ? 0x40000000u : (size_t)(end - a + 1);
            const unsigned char *p = memchr((const void *)(size_t)a, first, span);
            if (!p) {
                a += span;
                continue;
            }
            size_t i = 1;
            while (i < len && p[i] == (x[i] ^ 0x55)) i++;
            if (i == len) found++;
            a = (size_t)p + 1ull;
        }
        printf("needle %d: found %lu\n", k, found);
    }
}

/* Each its own function, so that each offset stays a constant of its address. */
__attribute__((noinline)) static unsigned load_far(const volatile unsigned *p) { return p[0x1ffffffc]; }
__attribute__((noinline)) static unsigned load_back(const volatile unsigned *p) { return p[-0x20000000]; }

static int twice(int v) { return 2 * v; }
static int data_word = 7;

static double half(double v) { return v / 2; }
static int (*volatile tail_target)(int);
/* Its last act a call through tail_target: a jump, nothing of the frame left to restore. */
__attribute__((noinline)) static int tail_call(int v) { return tail_target(v); }

static void calls(const char *how) {
    if (!strncmp(how, "call-tail-", 10)) {
        tail_target = !strcmp(how, "call-tail-null") ? 0 : (int (*)(int))half;
        printf("calling\n");
        fflush(stdout);
        printf("%d\nreturned\n", tail_call(3));
        return;
    }
    void (*volatile f)(void);
    if (!strcmp(how, "call-number"))
        f = (void (*)(void))(size_t)0x7fff1234u;
    else if (!strcmp(how, "call-null"))
        f = (void (*)(void))0;
    else if (!strcmp(how, "call-last"))
        f = (void (*)(void))(size_t)0xffffffffu;
    else if (!strcmp(how, "call-type"))
        f = (void (*)(void))twice;
    else if (!strcmp(how, "call-data"))
        f = (void (*)(void))&data_word;
    else
        f = (void (*)(void))__nacl_irt_query;
    printf("calling\n");
    fflush(stdout);
    f();
    printf("returned\n");
}

/* The name the runtime is given, its first 8 bytes turned over by the thread below. */
static volatile union {
    unsigned long long first;
    char bytes[16];
} race_name = {.bytes = "abcde/file"};
static volatile int racing = 1;

static void turn_name(void) {
    const unsigned long long plain = race_name.first;
    unsigned long long linked;
    memcpy(&linked, "lnk/./fi", 8);
    while (racing) {
        race_name.first = linked;
        race_name.first = plain;
    }
    thread.thread_exit(NULL);
}

static void path_race(int n) {
    static unsigned long long stack[2048];
    if (thread.thread_create(turn_name, &stack[2048], NULL)) {
        printf("no thread\n");
        exit(2);
    }
    int fd, opened = 0;
    /* The file itself, named so that no link is followed: the root is where it should be. */
    if (file.open("sub/file", 0, 0, &fd)) {
        printf("no sub/file\n");
        exit(2);
    }
    fdio.close(fd);
    for (int i = 0; i < n; i++) {
        if (!file.open((const char *)race_name.bytes, 0, 0, &fd)) {
            opened++;
            fdio.close(fd);
        }
    }
    racing = 0;
    printf("opened %d of %d\n", opened, n);
}

static void say(const char *what, int e) { printf("%s: %d\n", what, e); }

static void bounds(void) {
    size_t n = 99;
    struct nacl_abi_timespec *far_ts = (struct nacl_abi_timespec *)(size_t)0xfffffff8u;
    say("write past the end", fdio.write(1, (void *)(size_t)0xfffffff0u, 100, &n));
    say("read past the end", fdio.read(0, (void *)(size_t)0xffffff00u, 0x1000, &n));
    say("write's count past the end", fdio.write(1, "x", 1, (size_t *)(size_t)0xfffffffeu));
    say("clock_gettime past the end", clk.clock_gettime(0, far_ts));
    say("nanosleep past the end", basic.nanosleep(far_ts, NULL));
    say("futex_wake past the end", futex.futex_wake((int *)(size_t)0xfffffffeu, 1, (int *)&n));
    say("thread_create of no function", thread.thread_create((void (*)(void))(size_t)0xfffff, &n, NULL));
    /* A name that runs to the region's end without its zero. */
    void *last = (void *)(size_t)0xfffff000u;
    say("mmap of the last page", mem.mmap(&last, PAGE, 3, 0x32, -1, 0));
    memset(last, 'a', PAGE);
    int fd = -1;
    say("open of a name past the end", file.open((const char *)last, 0, 0, &fd));
    void *beyond = (void *)(size_t)0xfffff000u;
    say("mmap past the end", mem.mmap(&beyond, 2 * PAGE, 3, 0x32, -1, 0));
    void *low = (void *)(size_t)0x1000u;
    say("mmap below the region", mem.mmap(&low, PAGE, 3, 0x32, -1, 0));
    say("munmap below the region", mem.munmap((void *)0, 0x10000));
    say("munmap past the end", mem.munmap((void *)(size_t)0xfffff000u, 2 * PAGE));
    say("mprotect past the end", mem.mprotect((void *)(size_t)0xfffff000u, 2 * PAGE, 3));
    say("mprotect executable", mem.mprotect((void *)(size_t)0xfffff000u, PAGE, 7));
    printf("the runtime still answers\n");
}

static int depth(int n) {
    volatile char pad[64];
    pad[n & 63] = (char)n;
    return depth(n + 1) + pad[(n + 1) & 63];
}

static char *volatile sink;
static int wide(int n) {
    char a[60 << 10];
    sink = a;
    return n >= 1000 ? 0 : wide(n + 1) + 1;
}
static int wider(int n) {
    char a[100 << 10];
    sink = a;
    return n >= 1000 ? 0 : wider(n + 1) + 1;
}

static int calls_deep(int n);
static int (*volatile again)(int) = calls_deep;
static int calls_deep(int n) { return again(n + 1) + 1; }

static void vla(int mib) {
    volatile char a[(size_t)mib << 20];
    a[0] = 1;
    a[sizeof a - 1] = 2;
    printf("allocated %d MiB: %d\n", mib, a[0] + a[sizeof a - 1]);
}

int main(int argc, char **argv) {
    query(NACL_IRT_MEMORY_v0_3, &mem, sizeof mem);
    query(NACL_IRT_FDIO_v0_1, &fdio, sizeof fdio);
    query(NACL_IRT_BASIC_v0_1, &basic, sizeof basic);
    query(NACL_IRT_DEV_FILENAME_v0_3, &file, sizeof file);
    query(NACL_IRT_CLOCK_v0_1, &clk, sizeof clk);
    query(NACL_IRT_FUTEX_v0_1, &futex, sizeof futex);
    query(NACL_IRT_THREAD_v0_1, &thread, sizeof thread);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "fill")) {
        fill();
    } else if (!strcmp(mode, "scan")) {
        scan(argc - 2, argv + 2);
    } else if (!strncmp(mode, "call-", 5)) {
        calls(mode);
    } else if (!strcmp(mode, "bounds")) {
        bounds();
    } else if (!strcmp(mode, "recurse")) {
        printf("%d\n", depth(0));
    } else if (!strcmp(mode, "recurse-wide")) {
        printf("%d\n", wide(0));
    } else if (!strcmp(mode, "recurse-wider")) {
        printf("%d\n", wider(0));
    } else if (!strcmp(mode, "recurse-calls")) {
        printf("%d\n", calls_deep(0));
    } else if (!strcmp(mode, "load")) {
        const volatile unsigned *p = (const unsigned *)(size_t)strtoul(argv[2], NULL, 16);
        printf("loading\n");
        fflush(stdout);
        printf("%u\n", *p);
    } else if (!strcmp(mode, "load-far") || !strcmp(mode, "load-back")) {
        const volatile unsigned *p = (const unsigned *)(size_t)strtoul(argv[2], NULL, 16);
        int far = mode[5] == 'f';
        /* Where 32-bit arithmetic would wrap to: mapped, so that wrapping would read it. */
        size_t wrapped = (size_t)p + (far ? 0x7ffffff0u : 0x80000000u);
        void *page = (void *)(wrapped & ~(size_t)(PAGE - 1));
        if (mem.mmap(&page, PAGE, 3, 0x32, -1, 0)) {
            printf("cannot map %p\n", page);
            return 2;
        }
        printf("loading\n");
        fflush(stdout);
        printf("%u\n", far ? load_far(p) : load_back(p));
    } else if (!strcmp(mode, "move-far")) {
        void *last = (void *)(size_t)0xfffff000u;
        if (mem.mmap(&last, PAGE, 3, 0x32, -1, 0)) {
            printf("cannot map the last page\n");
            return 2;
        }
        printf("moving\n");
        fflush(stdout);
        __builtin_memmove((void *)(size_t)0xfffffff0u, (void *)(size_t)0xffffff00u, 0xffffffffu);
        printf("moved\n");
    } else if (!strcmp(mode, "path-race")) {
        path_race(atoi(argv[2]));
    } else if (!strcmp(mode, "vla")) {
        vla(atoi(argv[2]));
    } else {
        printf("unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
