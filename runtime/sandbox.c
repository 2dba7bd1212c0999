/*
 * The outer sandbox: what confines a translated pexe even when it controls the process's
 * memory and its program counter (it can read and write all of the runtime's memory, call
 * any of its code, make any system call the runtime can make). The runtime installs it
 * in __pnacl_main, before the pexe's _start runs:
 *
 *   1. every descriptor but 0, 1, 2 and the file-system root's is closed;
 *   2. every capability is dropped, from every set (a program run by root is root without
 *      its powers: a file it writes loses its set-uid bit, modes hold it);
 *   3. PR_SET_NO_NEW_PRIVS (nothing the process starts could gain privileges; required by
 *      the two below);
 *   4. Landlock: no file or directory can be opened, made or removed but beneath the root
 *      (PNACL_FS_ROOT), read-write, or read-only with PNACL_FS_READONLY=1; with no root,
 *      none at all. No TCP bind or connect; no abstract unix sockets or signals beyond the
 *      process (the kernel's "scopes");
 *   5. the thread keeper (below): a process of the runtime's that counts the threads and
 *      refuses a clone beyond PNACL_MAX_THREADS;
 *   6. seccomp-bpf: the system calls the runtime itself makes (sys.h), with their
 *      arguments checked where it matters (the policy below: no name-based call Landlock
 *      does not judge, no set-id or sticky mode, no O_TRUNC in a read-only root, no other
 *      process's clock or affinity, the runtime's futex operations and mapping flags only); any other
 *      call ends the process with SIGSYS.
 *
 * If the kernel offers no Landlock or no seccomp filter, the program refuses to start,
 * unless PNACL_ALLOW_UNSANDBOXED names the program (irt.c), when it says loudly on
 * standard error that it runs uncontained. Already-open descriptors (the standard
 * streams) keep working: Landlock judges a file when it is opened.
 *
 * What stays possible: the pexe can corrupt its own memory and the runtime's (translated
 * x86-32 and ARM code has no memory isolation of its own), read and write its standard
 * streams and the files beneath the root, and use the CPU and memory it is given.
 */
#include "sandbox.h"

/* ----------------------------------------------------------------------------------- */
/* The seccomp policy                                                                  */

#define BPF_LD_W_ABS 0x20  /* BPF_LD | BPF_W | BPF_ABS */
#define BPF_JEQ_K 0x15     /* BPF_JMP | BPF_JEQ | BPF_K */
#define BPF_JSET_K 0x45    /* BPF_JMP | BPF_JSET | BPF_K */
#define BPF_RET_K 0x06     /* BPF_RET | BPF_K */
#define RET_ALLOW 0x7fff0000u   /* SECCOMP_RET_ALLOW */
#define RET_KILL 0x80000000u    /* SECCOMP_RET_KILL_PROCESS: SIGSYS */
/* struct seccomp_data: nr, arch, instruction_pointer, args[6] (low words first). */
#define DATA_NR 0
#define DATA_ARCH 4
#define DATA_ARG(i) (16 + 8 * (i))

/* How a rule checks its call's arguments. */
enum check {
    ANY,          /* the call itself is the whole question */
    NO_EXEC,      /* argument 2, the protection, never has PROT_EXEC */
    MMAP,         /* NO_EXEC, and argument 3, the flags, only those the runtime uses */
    THREAD_CLONE, /* argument 0, the flags, exactly those of the IRT's thread_create */
    TCGETS_ONLY,  /* argument 1, the request, is TCGETS */
    OPEN,         /* a name beneath the root (none without one): no O_PATH, no O_TMPFILE,
                     no set-id or sticky mode, no O_TRUNC in a read-only root */
    MKDIR,        /* a name beneath the root (none without one): no set-id or sticky mode */
    NAMED,        /* a name beneath the root (none without one) */
    CLOCK,        /* argument 0 a system clock or the caller's own (0-7): no other
                     process's CPU clock */
    FUTEX,        /* argument 1 one of the runtime's three operations */
    SELF,         /* argument 0, a process or thread id, is 0: the caller itself (no
                     other process's existence can be probed) */
    REGION_ONLY,  /* allowed on the region targets (x86-64, AArch64) only */
};

#define R(name, check) {NR_INDEX_##name, check}

/* Every system call the runtime makes once the pexe runs, and why. Nothing else is
   allowed. A call the architecture does not have (sys.h's -1) is no rule there. */
static const struct rule {
    unsigned char call; /* its row in sys.h */
    unsigned char check;
} rules[] = {
    /* fdio read and write: the standard streams, and the files the program opened. */
    R(read, ANY),
    R(write, ANY),
    /* fdio close, dup, dup2, seek, getdents, fstat: descriptors the program already has
       (no call that takes a name and does not open it: Landlock judges only opens). */
    R(close, ANY),
    R(dup, ANY),
    R(dup2, ANY),
    R(dup3, ANY),
    R(_llseek, ANY),
    R(lseek, ANY),
    R(getdents64, ANY),
    R(fstat64, ANY),
    R(fstat, ANY),
    /* fdio isatty; only its TCGETS (never TIOCSTI, which types into the terminal). */
    R(ioctl, TCGETS_ONLY),
    /* filename open, stat, access (an open and fstat), mkdir, rmdir and unlink, and walking
       the path beneath the root: Landlock decides which names exist for the program. */
    R(openat, OPEN),
    R(mkdirat, MKDIR),
    R(unlinkat, NAMED),
    /* memory mmap and mprotect, the threads' stacks and guard pages: never executable, so
       no code can be written and run. */
    R(mmap2, MMAP),
    R(mmap, MMAP),
    R(mprotect, NO_EXEC),
    R(munmap, ANY),
    /* thread create: a thread of this process, with exactly these flags (no new
       process, no shared file-system or descriptor tables elsewhere, no namespaces);
       the thread keeper (below) counts them. */
    R(clone, THREAD_CLONE),
    /* futex wait and wake; thread exit; process exit. */
    R(futex, FUTEX),
    R(exit, ANY),
    /* A region target's thread takes its own stack for the signal that ends the program
       on a trap (a fault on its call stack's guard included). */
    R(sigaltstack, REGION_ONLY),
    R(exit_group, ANY),
    /* basic sched_yield and nanosleep, clock gettime and getres, sysconf's processor
       count, dev-getpid, random get_random_bytes. */
    R(sched_yield, ANY),
    R(nanosleep, ANY),
    R(clock_gettime, CLOCK),
    R(clock_getres, CLOCK),
    R(sched_getaffinity, SELF),
    R(getpid, ANY),
    R(getrandom, ANY),
    /* The kernel restarts a sleep interrupted by a stop and a continue this way. */
    R(restart_syscall, ANY),
};

#define THREAD_FLAGS                                                                  \
    (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
     CLONE_CHILD_CLEARTID)
/* A region target's thread is given its thread-local storage by the kernel. */
#define REGION_THREAD_FLAGS (THREAD_FLAGS | CLONE_SETTLS)
static int is_region(int arch) { return arch == ARCH_X86_64 || arch == ARCH_AARCH64; }
#define MAP_FLAGS (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE)
#define SET_ID_STICKY 07000
#define TCGETS 0x5401
static const u32 audit_arch[ARCH_COUNT] = {0x40000003u, 0x40000028u, 0xc000003eu, 0xc00000b7u};
#define EACCES 13
#define BPF_JGE_K 0x35     /* BPF_JMP | BPF_JGE | BPF_K */
#define RET_ERRNO 0x00050000u   /* SECCOMP_RET_ERRNO | errno */
#define RET_NOTIFY 0x7fc00000u  /* SECCOMP_RET_USER_NOTIF */

static struct sock_filter stmt(u16 code, u32 k) {
    struct sock_filter f = {code, 0, 0, k};
    return f;
}

static struct sock_filter jump(u16 code, u32 k, u8 jt, u8 jf) {
    struct sock_filter f = {code, jt, jf, k};
    return f;
}

/* A filter under construction: each rule is a block that starts by testing the call's
   number and, for another number, jumps over the block to the next rule. */
struct prog {
    struct sock_filter *out;
    int n, max;
};

static void emit(struct prog *p, struct sock_filter f) {
    if (p->n < p->max) p->out[p->n] = f;
    p->n++;
}

/* Kills the call if argument `arg` has any of `bits`. */
static void refuse_bits(struct prog *p, int arg, u32 bits) {
    emit(p, stmt(BPF_LD_W_ABS, DATA_ARG(arg)));
    emit(p, jump(BPF_JSET_K, bits, 0, 1));
    emit(p, stmt(BPF_RET_K, RET_KILL));
}

static void rule(struct prog *p, const struct rule *r, const struct sandbox_policy *pol) {
    int nr = pnacl_nr[r->call][pol->arch];
    if (nr < 0 || (r->check == REGION_ONLY && !is_region(pol->arch))) return;
    emit(p, stmt(BPF_LD_W_ABS, DATA_NR));
    int head = p->n;
    emit(p, jump(BPF_JEQ_K, nr, 0, 0)); /* jf patched below: past this block */
    int named = r->check == OPEN || r->check == MKDIR || r->check == NAMED;
    if (named && !pol->root) {
        /* No root: no name exists for the program (and none reveals by its error whether
           it exists on the host). */
        emit(p, stmt(BPF_RET_K, RET_ERRNO | EACCES));
    } else {
        switch (r->check) {
        case NO_EXEC:
            refuse_bits(p, 2, PROT_EXEC);
            break;
        case MMAP:
            refuse_bits(p, 2, PROT_EXEC);
            refuse_bits(p, 3, ~(u32)MAP_FLAGS);
            break;
        case THREAD_CLONE:
        case TCGETS_ONLY:
            emit(p, stmt(BPF_LD_W_ABS, DATA_ARG(r->check == THREAD_CLONE ? 0 : 1)));
            emit(p, jump(BPF_JEQ_K,
                         r->check == TCGETS_ONLY    ? TCGETS
                         : is_region(pol->arch) ? REGION_THREAD_FLAGS
                                                    : THREAD_FLAGS,
                         1, 0));
            emit(p, stmt(BPF_RET_K, RET_KILL));
            break;
        case OPEN:
            refuse_bits(p, 2, O_PATH | O_TMPFILE_BIT | (pol->readonly ? O_TRUNC : 0));
            refuse_bits(p, 3, SET_ID_STICKY);
            break;
        case MKDIR:
            refuse_bits(p, 2, SET_ID_STICKY);
            break;
        case SELF:
            emit(p, stmt(BPF_LD_W_ABS, DATA_ARG(0)));
            emit(p, jump(BPF_JEQ_K, 0, 1, 0));
            emit(p, stmt(BPF_RET_K, RET_KILL));
            break;
        case CLOCK:
            emit(p, stmt(BPF_LD_W_ABS, DATA_ARG(0)));
            emit(p, jump(BPF_JGE_K, 8, 0, 1));
            emit(p, stmt(BPF_RET_K, RET_KILL));
            break;
        case FUTEX:
            emit(p, stmt(BPF_LD_W_ABS, DATA_ARG(1)));
            emit(p, jump(BPF_JEQ_K, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 3, 0));
            emit(p, jump(BPF_JEQ_K, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 2, 0));
            emit(p, jump(BPF_JEQ_K, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, 1, 0));
            emit(p, stmt(BPF_RET_K, RET_KILL));
            break;
        }
        emit(p, stmt(BPF_RET_K, RET_ALLOW));
    }
    if (head < p->max) p->out[head].jf = (u8)(p->n - head - 1);
}

int sandbox_filter(const struct sandbox_policy *pol, struct sock_filter *out, int max) {
    struct prog p = {out, 0, max};
    /* A call from another architecture's numbering (an i386 program may enter the kernel
       as x86-64 with another instruction) is killed before its number means anything. */
    emit(&p, stmt(BPF_LD_W_ABS, DATA_ARCH));
    emit(&p, jump(BPF_JEQ_K, audit_arch[pol->arch], 1, 0));
    emit(&p, stmt(BPF_RET_K, RET_KILL));
    for (unsigned i = 0; i < sizeof rules / sizeof rules[0]; i++) rule(&p, &rules[i], pol);
    emit(&p, stmt(BPF_RET_K, RET_KILL));
    return p.n <= max ? p.n : -1;
}

int sandbox_keeper_filter(int arch, struct sock_filter *out, int max) {
    struct prog p = {out, 0, max};
    /* Another architecture's calls are the main filter's to kill. */
    emit(&p, stmt(BPF_LD_W_ABS, DATA_ARCH));
    emit(&p, jump(BPF_JEQ_K, audit_arch[arch], 1, 0));
    emit(&p, stmt(BPF_RET_K, RET_ALLOW));
    emit(&p, stmt(BPF_LD_W_ABS, DATA_NR));
    emit(&p, jump(BPF_JEQ_K, (u32)NR(arch, clone), 1, 0));
    emit(&p, jump(BPF_JEQ_K, (u32)NR(arch, exit), 0, 1));
    emit(&p, stmt(BPF_RET_K, RET_NOTIFY));
    emit(&p, stmt(BPF_RET_K, RET_ALLOW));
    return p.n <= max ? p.n : -1;
}

/* ----------------------------------------------------------------------------------- */
/* The Landlock rule set                                                               */

#define LL_EXECUTE (1ull << 0)
#define LL_WRITE_FILE (1ull << 1)
#define LL_READ_FILE (1ull << 2)
#define LL_READ_DIR (1ull << 3)
#define LL_REMOVE_DIR (1ull << 4)
#define LL_REMOVE_FILE (1ull << 5)
#define LL_MAKE_CHAR (1ull << 6)
#define LL_MAKE_DIR (1ull << 7)
#define LL_MAKE_REG (1ull << 8)
#define LL_MAKE_SOCK (1ull << 9)
#define LL_MAKE_FIFO (1ull << 10)
#define LL_MAKE_BLOCK (1ull << 11)
#define LL_MAKE_SYM (1ull << 12)
#define LL_REFER (1ull << 13)
#define LL_TRUNCATE (1ull << 14)
#define LL_IOCTL_DEV (1ull << 15)

void sandbox_ruleset(int abi, int readonly, struct landlock_ruleset_attr *attr, u64 *root_access,
                     u32 *attr_size) {
    /* Everything the kernel can judge is handled (so denied, but for the root's rule). */
    u64 fs = (LL_MAKE_SYM << 1) - 1; /* ABI 1: execute .. make_sym */
    if (abi >= 2) fs |= LL_REFER;
    if (abi >= 3) fs |= LL_TRUNCATE;
    if (abi >= 5) fs |= LL_IOCTL_DEV;
    attr->handled_access_fs = fs;
    /* ABI 4: TCP bind and connect, no rule: no TCP at all. */
    attr->handled_access_net = abi >= 4 ? 3 : 0;
    /* ABI 6: no abstract unix socket and no signal reaches beyond the process. */
    attr->scoped = abi >= 6 ? 3 : 0;
    *attr_size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
    /* Beneath the root: what the IRT's file-name interface does, and nothing else (no
       execution, no devices, sockets, pipes or symbolic links made, no links between
       directories). */
    u64 ro = LL_READ_FILE | LL_READ_DIR;
    u64 rw = ro | LL_WRITE_FILE | LL_REMOVE_DIR | LL_REMOVE_FILE | LL_MAKE_DIR | LL_MAKE_REG |
             (abi >= 3 ? LL_TRUNCATE : 0);
    *root_access = (readonly ? ro : rw) & fs;
}

#define PR_SET_NO_NEW_PRIVS 38
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#define SECCOMP_SET_MODE_FILTER 1
#define SECCOMP_FILTER_FLAG_NEW_LISTENER 8
#define LANDLOCK_CREATE_RULESET_VERSION 1
#define LANDLOCK_RULE_PATH_BENEATH 1

struct sock_fprog {
    unsigned short len;
    struct sock_filter *filter;
};

struct landlock_path_beneath_attr {
    u64 allowed_access;
    i32 parent_fd;
} __attribute__((packed));

/* Closes every descriptor but 0, 1, 2 and `keep`. */
static void close_others(int keep) {
    long r;
    if (keep > 3) {
        r = sys3(SYS_close_range, 3, keep - 1, 0);
        if (!SYS_FAILED(r)) r = sys3(SYS_close_range, keep + 1, ~0u, 0);
    } else {
        r = sys3(SYS_close_range, keep == 3 ? 4 : 3, ~0u, 0);
    }
    if (SYS_FAILED(r)) /* kernels before 5.9 */
        for (int fd = 3; fd < 65536; fd++)
            if (fd != keep) sys1(SYS_close, fd);
}

/* No capability is kept, effective, permitted, inheritable or ambient, so none can come
   back: a program run by root is root without root's powers (it cannot keep a file set-uid
   by writing it, read files their modes deny it, or pass the kernel's limits). Only an
   execve could give a process capabilities again, from its bounding set, and none is
   possible (seccomp, Landlock, and no new privileges); so the bounding set, whose 41
   one-capability drops took 0.24 ms at every start, is left as it is. */
static void drop_capabilities(void) {
    sys5(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct { u32 version; i32 pid; } header = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
    u32 data[6] = {0};
    sys2(SYS_capset, &header, data);
}

/* The newest Landlock ABI the kernel offers, or a lower one a test build asks for. */
static long landlock_abi(void) {
    long abi = sys3(SYS_landlock_create_ruleset, 0, 0, LANDLOCK_CREATE_RULESET_VERSION);
#ifdef PNACL_LANDLOCK_ABI_MAX
    if (!SYS_FAILED(abi) && abi > PNACL_LANDLOCK_ABI_MAX) abi = PNACL_LANDLOCK_ABI_MAX;
#endif
    return abi;
}

static const char *landlock(int root, int readonly) {
    long abi = landlock_abi();
    if (SYS_FAILED(abi) || abi < 1) return "the kernel offers no Landlock";
    struct landlock_ruleset_attr attr;
    u64 access;
    u32 size;
    sandbox_ruleset((int)abi, readonly, &attr, &access, &size);
    long fd = sys3(SYS_landlock_create_ruleset, &attr, size, 0);
    if (SYS_FAILED(fd)) return "the kernel refused a Landlock rule set";
    if (root >= 0) {
        struct landlock_path_beneath_attr beneath = {access, root};
        if (SYS_FAILED(sys4(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0))) {
            sys1(SYS_close, fd);
            return "the kernel refused the Landlock rule for PNACL_FS_ROOT";
        }
    }
    long r = sys2(SYS_landlock_restrict_self, fd, 0);
    sys1(SYS_close, fd);
    return SYS_FAILED(r) ? "the kernel refused to restrict the process with Landlock" : NULL;
}

static long install_filter(struct sock_filter *filter, int n, u32 flags) {
    struct sock_fprog prog = {(unsigned short)n, filter};
    return sys3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static const char *seccomp(int root, int readonly) {
    static struct sock_filter filter[8 * sizeof rules / sizeof rules[0] + 16];
    struct sandbox_policy pol = {PNACL_ARCH, root >= 0, readonly};
    int n = sandbox_filter(&pol, filter, sizeof filter / sizeof filter[0]);
    if (n < 0) return "the seccomp filter does not fit";
    return SYS_FAILED(install_filter(filter, n, 0)) ? "the kernel offers no seccomp filter" : NULL;
}

/* ----------------------------------------------------------------------------------- */
/* The thread keeper                                                                   */

/* The kernel limits no process's threads run by root (RLIMIT_NPROC spares uid 0), and the
   pexe can make the clone system call itself. So the limit is kept outside its reach: a
   second filter sends every clone and every thread exit to a small process of the
   runtime's, forked before the pexe runs, that counts the threads and answers a clone
   beyond the limit with EAGAIN. The pexe cannot write the keeper's memory, signal it,
   or answer for it (ioctl is TCGETS only); if the keeper is gone, clone fails (ENOSYS). */

struct seccomp_notif {
    u64 id;
    u32 pid, flags;
    struct {
        i32 nr;
        u32 arch;
        u64 ip;
        u64 args[6];
    } data;
};
struct seccomp_notif_resp {
    u64 id;
    i64 val;
    i32 error;
    u32 flags;
};
#define NOTIF_RECV 0xc0502100u /* SECCOMP_IOCTL_NOTIF_RECV */
#define NOTIF_SEND 0xc0182101u /* SECCOMP_IOCTL_NOTIF_SEND */
#define NOTIF_FLAG_CONTINUE 1
#define POLLIN 1
#define EAGAIN 11
#define AF_UNIX 1
#define SOCK_STREAM 1
#define SCM_RIGHTS 1
#define SOL_SOCKET 1

struct iovec { void *base; size_t len; };
struct msghdr {
    void *name;
    u32 namelen;
    struct iovec *iov;
    size_t iovlen;
    void *control;
    size_t controllen;
    u32 flags;
};
struct fd_message {
    struct { size_t len; i32 level, type; } h;
    i32 fd;
};

static long pass_fd(int sock, int fd) {
    char byte = 0;
    struct iovec iov = {&byte, 1};
    struct fd_message m = {{sizeof m, SOL_SOCKET, SCM_RIGHTS}, fd};
    struct msghdr h = {0, 0, &iov, 1, &m, sizeof m, 0};
    return sys3(fd < 0 ? SYS_recvmsg : SYS_sendmsg, sock, &h, 0) < 0 ? -1 : m.fd;
}

/* The keeper's own filter: it answers notifications and ends, nothing else. */
static int keeper_own_filter(struct sock_filter *f) {
    int n = 0;
    static const unsigned short calls[] = {SYS_ioctl, SYS_poll >= 0 ? SYS_poll : SYS_ppoll, SYS_exit_group,
                                           SYS_restart_syscall};
    f[n++] = stmt(BPF_LD_W_ABS, DATA_NR);
    for (unsigned i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        f[n++] = jump(BPF_JEQ_K, calls[i], 0, 1);
        f[n++] = stmt(BPF_RET_K, RET_ALLOW);
    }
    f[n++] = stmt(BPF_RET_K, RET_KILL);
    return n;
}

__attribute__((noreturn)) static void keeper(int sock, int max_threads) {
    int fd = (int)pass_fd(sock, -1);
    close_others(fd);
    sys1(SYS_close, 0);
    sys1(SYS_close, 1);
    sys1(SYS_close, 2);
    if (fd < 0) sys1(SYS_exit_group, 0);
    struct sock_filter own[16];
    install_filter(own, keeper_own_filter(own), 0);
    int live = 1; /* the main thread */
    for (;;) {
        struct { i32 fd; i16 events, revents; } p = {fd, POLLIN, 0};
        long r = SYS_poll >= 0 ? sys3(SYS_poll, &p, 1, -1) : sys5(SYS_ppoll, &p, 1, 0, 0, 0);
        if (r == -4 /* EINTR */) continue;
        /* Every thread of the program has ended: so does the keeper. */
        if (SYS_FAILED(r) || (p.revents & ~POLLIN)) sys1(SYS_exit_group, 0);
        struct seccomp_notif req;
        __builtin_memset(&req, 0, sizeof req);
        if (SYS_FAILED(sys3(SYS_ioctl, fd, NOTIF_RECV, &req))) continue; /* the caller died */
        struct seccomp_notif_resp resp = {req.id, 0, 0, NOTIF_FLAG_CONTINUE};
        int is_clone = req.data.nr == SYS_clone;
        if (is_clone && live >= max_threads) {
            resp.error = -EAGAIN;
            resp.flags = 0;
        } else {
            live += is_clone ? 1 : -1;
        }
        /* A notification that is no longer valid (its thread was killed) changed nothing. */
        if (SYS_FAILED(sys3(SYS_ioctl, fd, NOTIF_SEND, &resp)) && resp.flags)
            live -= is_clone ? 1 : -1;
    }
}

static const char *thread_keeper(int max_threads) {
    int sv[2];
    if (SYS_FAILED(sys4(SYS_socketpair, AF_UNIX, SOCK_STREAM | O_CLOEXEC, 0, sv)))
        return "the kernel refused a socket pair for the thread keeper";
    long pid = sys5(SYS_clone, 0 /* no signal at its end */, 0, 0, 0, 0);
    if (pid == 0) {
        sys1(SYS_close, sv[0]);
        keeper(sv[1], max_threads);
    }
    sys1(SYS_close, sv[1]);
    if (SYS_FAILED(pid)) {
        sys1(SYS_close, sv[0]);
        return "the kernel refused to start the thread keeper";
    }
    struct sock_filter f[16];
    long fd = install_filter(f, sandbox_keeper_filter(PNACL_ARCH, f, 16),
                             SECCOMP_FILTER_FLAG_NEW_LISTENER);
    if (SYS_FAILED(fd)) {
        sys1(SYS_close, sv[0]);
        return "the kernel offers no seccomp notifications (for the thread limit)";
    }
    long sent = pass_fd(sv[0], (int)fd);
    sys1(SYS_close, fd);
    sys1(SYS_close, sv[0]);
    return sent < 0 ? "the thread keeper could not be given its descriptor" : NULL;
}

const char *sandbox_install(int root, int readonly, int max_threads) {
#ifdef PNACL_NO_SANDBOX
    /* Only the containment tests' control group is built so, to show that the attacks
       they run are real: a runtime without the outer wall. */
    (void)root;
    (void)readonly;
    (void)max_threads;
    return NULL;
#else
    close_others(root);
    drop_capabilities();
    if (SYS_FAILED(sys5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)))
        return "the kernel refused PR_SET_NO_NEW_PRIVS";
    const char *files = landlock(root, readonly);
    /* Without Landlock, seccomp still narrows what an escape could do, and the other way
       round: each is installed where the kernel offers it. */
    const char *threads = thread_keeper(max_threads);
    const char *calls = seccomp(root, readonly);
    if (files && calls) return "the kernel offers neither Landlock nor a seccomp filter";
    return files ? files : calls ? calls : threads;
#endif
}
