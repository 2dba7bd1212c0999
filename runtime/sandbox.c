/*
 * The outer sandbox: what confines a translated pexe even when it controls the process's
 * memory and its program counter (it can read and write all of the runtime's memory, call
 * any of its code, make any system call the runtime can make). The runtime installs it
 * in __pnacl_main, before the pexe's _start runs:
 *
 *   1. every descriptor but 0, 1, 2 and the file-system root's is closed;
 *   2. PR_SET_NO_NEW_PRIVS (nothing the process starts could gain privileges; required by
 *      the two below);
 *   3. Landlock: no file or directory can be opened, made or removed but beneath the root
 *      (PNACL_FS_ROOT), read-write, or read-only with PNACL_FS_READONLY=1; with no root,
 *      none at all. No TCP bind or connect; no abstract unix sockets or signals beyond the
 *      process (the kernel's "scopes");
 *   4. seccomp-bpf: the system calls the runtime itself makes (sys.h), with their
 *      arguments checked where it matters (the policy below); any other call ends the
 *      process with SIGSYS.
 *
 * If the kernel offers no Landlock or no seccomp filter, the program refuses to start,
 * unless PNACL_ALLOW_UNSANDBOXED=1, when it says on standard error that it runs
 * uncontained. Already-open descriptors (the standard streams) keep working: Landlock
 * judges a file when it is opened.
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
    THREAD_CLONE, /* argument 0, the flags, exactly those of the IRT's thread_create */
    TCGETS_ONLY,  /* argument 1, the request, is TCGETS */
};

#define R(name, check) {I386_NR_##name, ARM_NR_##name, check}

/* Every system call the runtime makes, and why. Nothing else is allowed. */
static const struct rule {
    unsigned short nr_i386, nr_arm;
    unsigned char check;
} rules[] = {
    /* fdio read and write: the standard streams, and the files the program opened. */
    R(read, ANY),
    R(write, ANY),
    /* fdio close, dup, dup2, seek, getdents: descriptors the program already has. */
    R(close, ANY),
    R(dup, ANY),
    R(dup2, ANY),
    R(_llseek, ANY),
    R(getdents64, ANY),
    /* fdio fstat, filename stat and lstat. A name reaches only what Landlock allows. */
    R(statx, ANY),
    /* fdio isatty; only its TCGETS (never TIOCSTI, which types into the terminal). */
    R(ioctl, TCGETS_ONLY),
    /* filename open, mkdir, rmdir and unlink, access, and walking the path beneath the
       root: Landlock decides which names exist for the program. */
    R(openat, ANY),
    R(mkdirat, ANY),
    R(unlinkat, ANY),
    R(faccessat, ANY),
    /* memory mmap and mprotect, the threads' stacks and guard pages: never executable, so
       no code can be written and run. */
    R(mmap2, NO_EXEC),
    R(mprotect, NO_EXEC),
    R(munmap, ANY),
    /* thread create: a thread of this process, with exactly these flags (no new
       process, no shared file-system or descriptor tables elsewhere, no namespaces). */
    R(clone, THREAD_CLONE),
    /* futex wait and wake; thread exit; process exit. */
    R(futex, ANY),
    R(exit, ANY),
    R(exit_group, ANY),
    /* basic sched_yield and nanosleep, clock gettime and getres, sysconf's processor
       count, dev-getpid, random get_random_bytes. */
    R(sched_yield, ANY),
    R(nanosleep, ANY),
    R(clock_gettime, ANY),
    R(clock_getres, ANY),
    R(sched_getaffinity, ANY),
    R(getpid, ANY),
    R(getrandom, ANY),
    /* The kernel restarts a sleep interrupted by a stop and a continue this way. */
    R(restart_syscall, ANY),
};

#define THREAD_FLAGS                                                                  \
    (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
     CLONE_CHILD_CLEARTID)
#define TCGETS 0x5401
#define AUDIT_ARCH_I386 0x40000003u
#define AUDIT_ARCH_ARM 0x40000028u

static struct sock_filter stmt(u16 code, u32 k) {
    struct sock_filter f = {code, 0, 0, k};
    return f;
}

static struct sock_filter jump(u16 code, u32 k, u8 jt, u8 jf) {
    struct sock_filter f = {code, jt, jf, k};
    return f;
}

int sandbox_filter(int arm, struct sock_filter *out, int max) {
    int n = 0;
#define EMIT(f)                   \
    do {                          \
        if (n >= max) return -1;  \
        out[n++] = (f);           \
    } while (0)
    /* A call from another architecture's numbering (an i386 program may enter the kernel
       as x86-64 with another instruction) is killed before its number means anything. */
    EMIT(stmt(BPF_LD_W_ABS, DATA_ARCH));
    EMIT(jump(BPF_JEQ_K, arm ? AUDIT_ARCH_ARM : AUDIT_ARCH_I386, 1, 0));
    EMIT(stmt(BPF_RET_K, RET_KILL));
    for (unsigned i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const struct rule *r = &rules[i];
        u32 nr = arm ? r->nr_arm : r->nr_i386;
        EMIT(stmt(BPF_LD_W_ABS, DATA_NR));
        switch (r->check) {
        case ANY:
            EMIT(jump(BPF_JEQ_K, nr, 0, 1));
            EMIT(stmt(BPF_RET_K, RET_ALLOW));
            break;
        case NO_EXEC:
            EMIT(jump(BPF_JEQ_K, nr, 0, 4));
            EMIT(stmt(BPF_LD_W_ABS, DATA_ARG(2)));
            EMIT(jump(BPF_JSET_K, PROT_EXEC, 0, 1));
            EMIT(stmt(BPF_RET_K, RET_KILL));
            EMIT(stmt(BPF_RET_K, RET_ALLOW));
            break;
        case THREAD_CLONE:
        case TCGETS_ONLY:
            EMIT(jump(BPF_JEQ_K, nr, 0, 4));
            EMIT(stmt(BPF_LD_W_ABS, DATA_ARG(r->check == THREAD_CLONE ? 0 : 1)));
            EMIT(jump(BPF_JEQ_K, r->check == THREAD_CLONE ? THREAD_FLAGS : TCGETS, 1, 0));
            EMIT(stmt(BPF_RET_K, RET_KILL));
            EMIT(stmt(BPF_RET_K, RET_ALLOW));
            break;
        }
    }
    EMIT(stmt(BPF_RET_K, RET_KILL));
#undef EMIT
    return n;
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
#define PR_SET_SECCOMP 22
#define SECCOMP_MODE_FILTER 2
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

static const char *landlock(int root, int readonly) {
    long abi = sys3(SYS_landlock_create_ruleset, 0, 0, LANDLOCK_CREATE_RULESET_VERSION);
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

static const char *seccomp(void) {
    static struct sock_filter filter[4 * sizeof rules / sizeof rules[0] + 16];
    int n = sandbox_filter(PNACL_ARCH_ARM, filter, sizeof filter / sizeof filter[0]);
    if (n < 0) return "the seccomp filter does not fit";
    struct sock_fprog prog = {(unsigned short)n, filter};
    long r = sys3(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
    return SYS_FAILED(r) ? "the kernel offers no seccomp filter" : NULL;
}

const char *sandbox_install(int root, int readonly) {
#ifdef PNACL_NO_SANDBOX
    /* Only the containment tests' control group is built so, to show that the attacks
       they run are real: a runtime without the outer wall. */
    (void)root;
    (void)readonly;
    return NULL;
#else
    close_others(root);
    if (SYS_FAILED(sys5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)))
        return "the kernel refused PR_SET_NO_NEW_PRIVS";
    const char *files = landlock(root, readonly);
    /* Without Landlock, seccomp still narrows what an escape could do, and the other way
       round: each is installed where the kernel offers it. */
    const char *calls = seccomp();
    if (files && calls) return "the kernel offers neither Landlock nor a seccomp filter";
    return files ? files : calls;
#endif
}
