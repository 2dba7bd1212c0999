/* The outer sandbox (sandbox.c): the policies, for either architecture, and their
   installation. */
#ifndef PNACL_RT_SANDBOX_H
#define PNACL_RT_SANDBOX_H

#include "sys.h"

struct sock_filter {
    u16 code;
    u8 jt, jf;
    u32 k;
};

struct landlock_ruleset_attr {
    u64 handled_access_fs;
    u64 handled_access_net;
    u64 scoped;
};

/* What the seccomp filter allows depends on: the architecture (sys.h's ARCH_),
   whether the program has a root directory, and whether that is read-only. */
struct sandbox_policy {
    int arch, root, readonly;
};

/* The seccomp-bpf program for `policy`, into `out`: its length, or -1 if it does not fit
   in `max` instructions. */
int sandbox_filter(const struct sandbox_policy *policy, struct sock_filter *out, int max);

/* The thread keeper's filter (sandbox.c): clone and exit go to the keeper. */
int sandbox_keeper_filter(int arch, struct sock_filter *out, int max);

/* The Landlock rule set for a kernel of Landlock ABI `abi`: what is handled, the access
   beneath the root (read-only or read-write), and the attribute's size for that ABI. */
void sandbox_ruleset(int abi, int readonly, struct landlock_ruleset_attr *attr, u64 *root_access,
                     u32 *attr_size);

/* Installs the sandbox, the root being descriptor `root` (-1: none), the program having
   at most `max_threads` threads: NULL, or why the kernel cannot contain the process. */
const char *sandbox_install(int root, int readonly, int max_threads);

#endif
