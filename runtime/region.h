/*
 * The region: what irt.c adds on a region target (x86-64, AArch64), where the pexe is
 * isolated by construction (target::Memory::Region, llvm/export/region.rs).
 *
 *   - The pexe's 4 GiB are the process's lowest: a pexe address is a host address, and
 *     [REGION_LO, RESERVED_END) is reserved at start-up (nothing is there but what this
 *     file maps), so that no access of the pexe's, a 32-bit address plus the little its
 *     code adds, reaches anything of the runtime's, which lies far above.
 *   - The pexe's globals are an image copied in; its main stack is in the region; its
 *     threads' stacks are its own memory; the runtime's stacks, data and code are outside.
 *   - The pexe calls the runtime only through the IRT query, which hands out indices of the
 *     functions below in the pexe's function table (runtime/irt.def): each takes pexe
 *     addresses and checks every pointer and length against the region before it follows
 *     one. The runtime calls the pexe's functions through the same table, checked too.
 *     The pexe's code reads a read-only copy of it at a fixed place with nothing mapped
 *     after it as far as any index reaches, so that its calls need no bounds check.
 *   - setjmp's contexts are the runtime's, in the thread's descriptor; the pexe's jmp_buf
 *     only names one, and a longjmp to a context whose frame is gone traps.
 *   - A trap (a failed check of the pexe's code, a fault in the region, a call stack run
 *     out, an undefined instruction) ends the program with its reason and status 134.
 *
 * irt.c includes this after its thread descriptor, before the IRT's functions.
 */
#ifndef PNACL_RT_REGION_H
#define PNACL_RT_REGION_H

#define REGION_LO 0x10000ull          /* below: no pexe address (a null pointer's) */
#define REGION_END (1ull << 32)       /* the pexe's 4 GiB */
/* and a guard above them, 4 GiB: an access of the pexe's code is to a 32-bit address plus
   at most a constant offset below 2 GiB and the access's size (llvm/export/region.rs), and
   the runtime's memcpy, memmove and memset (builtins.c), which the pexe's code calls with
   a 32-bit address and a 32-bit length, reach no further than their sum, below 8 GiB (the
   first store of a memmove from its end lies there) */
#define RESERVED_END ((8ull << 30) + 0x10000)
#define PEXE_STACK (16u << 20)        /* the main thread's stack, in the region */

/* The calls between the pexe and the runtime (irt.def): signature ids, their types, the
   IRT functions' table indices and declarations. */
#define SIG(name, result, params) SIG_##name,
#define IRT(function, sig)
enum {
#include "irt.def"
};
#undef SIG
#undef IRT
#define SIG(name, result, params) typedef result sig_##name params;
#define IRT(function, sig)
#include "irt.def"
#undef SIG
#undef IRT
#define SIG(name, result, params)
#define IRT(function, sig) IRT_K_##function,
enum {
    IRT_K_NONE, /* index 0: no function */
#include "irt.def"
};
#undef IRT
#define IRT(function, sig) __attribute__((visibility("hidden"))) sig_##sig __pnacl_##function;
#include "irt.def"
#undef SIG
#undef IRT

/* What the translated module defines (llvm/export/region.rs). */
struct pexe_fn {
    void *fn;
    u32 sig;
};
struct image_segment {
    u32 addr, len;
};
#define HIDDEN __attribute__((visibility("hidden")))
extern HIDDEN const struct pexe_fn __pnacl_functions[];
extern HIDDEN const u32 __pnacl_function_count;
extern HIDDEN const u8 __pnacl_image[];
extern HIDDEN const struct image_segment __pnacl_image_segments[];
extern HIDDEN const u32 __pnacl_image_segment_count, __pnacl_image_base, __pnacl_image_end;
extern HIDDEN const u32 __pnacl_ppapi_host; /* 1: the pexe carries the PPAPI host (ppapi_pexe.c) */
/* Where the pexe's indirect calls read the table (function_table_init), and how far a
   32-bit index reaches from there. */
extern HIDDEN const u64 __pnacl_function_table_at, __pnacl_function_table_span;
/* Nonzero: the copy's entries are packed (target.rs's CallCheck::NonCanonical), one word
   each, the function's address with its signature id + 1 from this bit up (0: no
   function's); 0: struct pexe_fn's, the module's own. */
extern HIDDEN const u32 __pnacl_packed_signature_shift;

/* The thread's pexe stack pointer and the lowest it may go (the module's allocas). */
HIDDEN __thread u32 __pnacl_sp;
HIDDEN __thread u32 __pnacl_sp_limit;

/* ----------------------------------------------------------------------------------- */
/* Traps                                                                               */

static void out_flush(void);

__attribute__((noreturn)) static void trap(const char *why) {
    out_flush();
    write_str(2, "pnacl: the program trapped: ");
    write_str(2, why);
    write_str(2, "\n");
    for (;;) sys1(SYS_exit_group, 134);
}

/* The module's checks (region.rs's Trap), by number. */
static const char *const trap_reasons[] = {
    "indirect call of a number that is no function's address",
    "indirect call of a function of another type",
    "the stack is exhausted",
};
__attribute__((noreturn)) void __pnacl_trap(u32 why) {
    trap(why < sizeof trap_reasons / sizeof trap_reasons[0] ? trap_reasons[why] : "unknown trap");
}

/* Pexe function `index` if it has signature `sig`, else NULL. */
static void *pexe_function(u32 index, u32 sig) {
    if (index >= __pnacl_function_count || __pnacl_functions[index].sig != sig) return NULL;
    return __pnacl_functions[index].fn;
}

/* ----------------------------------------------------------------------------------- */
/* Pexe addresses                                                                      */

/* A pexe address as the host's (the same number: the region is the lowest 4 GiB). */
#define G(p) ((void *)(uptr)(p))

/* Whether [p, p + n) lies in the pexe's 4 GiB. */
static int in_region(u32 p, u64 n) { return (u64)p + n <= REGION_END; }

/* A pointer the call needs (not null) to n bytes, an optional one (null or n bytes). */
#define NEED(p, n) \
    if (!(p) || !in_region(p, n)) return NACL_EFAULT
#define MAY(p, n) \
    if ((p) && !in_region(p, n)) return NACL_EFAULT
/* A name, copied out of the region before the runtime looks at it: the pexe's other
   threads can change its memory at any time, and a name checked in place ("abcde/file":
   no "..", no link) could be another when used ("lnk/./file"). Its zero must lie within
   the region (else EFAULT) and within its first NAME_COPY bytes (else ENAMETOOLONG, as
   resolve answers a name so long). */
#define NAME_COPY 4096
static int name_copy(u32 p, char *to) {
    if (!p) return NACL_EFAULT;
    for (u64 i = 0; p + i < REGION_END; i++) {
        char c = *(const volatile char *)(uptr)(p + i);
        if (i < NAME_COPY) to[i] = c;
        if (!c) return i < NAME_COPY ? 0 : NACL_ENAMETOOLONG;
    }
    return NACL_EFAULT;
}
/* Declares name##_, the copy of pexe name `name`, or returns the error. */
#define NAME(name)                           \
    char name##_[NAME_COPY];                 \
    {                                        \
        int e_ = name_copy(name, name##_);   \
        if (e_) return e_;                   \
    }

/* ----------------------------------------------------------------------------------- */
/* The region's address space                                                          */

/* The free ranges of [REGION_LO, REGION_END), sorted, page-aligned; what is not free is
   mapped for the pexe (or its guard pages). Reserved (PROT_NONE) where free. */
#define MAX_FREE 4096
static struct range {
    u64 lo, hi;
} free_ranges[MAX_FREE];
static int free_count;
static volatile int region_lock;

/* Takes [lo, hi) out of the free ranges (whatever of it is free). 0, or -1 if the list is
   full. */
static int region_take_at(u64 lo, u64 hi) {
    for (int i = 0; i < free_count; i++) {
        struct range *r = &free_ranges[i];
        if (r->hi <= lo || r->lo >= hi) continue;
        if (r->lo < lo && r->hi > hi) { /* splits in two */
            if (free_count == MAX_FREE) return -1;
            for (int j = free_count; j > i + 1; j--) free_ranges[j] = free_ranges[j - 1];
            free_ranges[i + 1] = (struct range){hi, r->hi};
            free_count++;
            r->hi = lo;
            return 0;
        }
        if (r->lo >= lo && r->hi <= hi) { /* wholly taken */
            for (int j = i; j < free_count - 1; j++) free_ranges[j] = free_ranges[j + 1];
            free_count--;
            i--;
        } else if (r->lo < lo) {
            r->hi = lo;
        } else {
            r->lo = hi;
        }
    }
    return 0;
}

/* The lowest free range of `len` bytes, taken: its address, or 0. */
static u64 region_take(u64 len) {
    for (int i = 0; i < free_count; i++)
        if (free_ranges[i].hi - free_ranges[i].lo >= len) {
            u64 a = free_ranges[i].lo;
            return region_take_at(a, a + len) < 0 ? 0 : a;
        }
    return 0;
}

/* Gives [lo, hi) back, merged with its neighbours. 0, or -1 if the list is full. */
static int region_give(u64 lo, u64 hi) {
    if (region_take_at(lo, hi) < 0) return -1; /* none of it free twice */
    int i = 0;
    while (i < free_count && free_ranges[i].lo < lo) i++;
    int left = i > 0 && free_ranges[i - 1].hi == lo;
    int right = i < free_count && free_ranges[i].lo == hi;
    if (left && right) {
        free_ranges[i - 1].hi = free_ranges[i].hi;
        for (int j = i; j < free_count - 1; j++) free_ranges[j] = free_ranges[j + 1];
        free_count--;
    } else if (left) {
        free_ranges[i - 1].hi = hi;
    } else if (right) {
        free_ranges[i].lo = lo;
    } else {
        if (free_count == MAX_FREE) return -1;
        for (int j = free_count; j > i; j--) free_ranges[j] = free_ranges[j - 1];
        free_ranges[i] = (struct range){lo, hi};
        free_count++;
    }
    return 0;
}

/* Maps [a, a + len) of the region afresh: zeroed memory with `prot`, or (prot 0) the
   reservation again. */
static long region_map(u64 a, u64 len, int prot, int flags, int fd, i64 off) {
    if (!prot && fd < 0) flags |= MAP_NORESERVE;
    return sys_mmap(G(a), len, prot, flags | MAP_FIXED, fd, off);
}

/* The IRT's mmap, munmap and mprotect: only ever in the region. */
static int region_mmap(u32 *addr, u32 len, int prot, int flags, int fd, i64 off) {
    int e = mmap_arguments(prot, flags, &fd, &off);
    if (e) return e;
    if (!(flags & (NACL_MAP_SHARED | NACL_MAP_PRIVATE)) || !len) return NACL_EINVAL;
    u64 size = ((u64)len + PAGE - 1) & ~(u64)(PAGE - 1);
    lock(&region_lock);
    u64 a;
    if (flags & NACL_MAP_FIXED) {
        a = *addr;
        if ((a & (PAGE - 1)) || a < REGION_LO || a + size > REGION_END || region_take_at(a, a + size) < 0) {
            unlock(&region_lock);
            return NACL_EINVAL;
        }
    } else if (!(a = region_take(size))) {
        unlock(&region_lock);
        return NACL_ENOMEM;
    }
    int kflags = (flags & (NACL_MAP_SHARED | NACL_MAP_PRIVATE)) | (fd < 0 ? MAP_ANONYMOUS : 0);
    long r = region_map(a, size, prot ? prot : 0, kflags, fd, off);
    if (SYS_FAILED(r)) {
        region_map(a, size, 0, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        region_give(a, a + size);
        unlock(&region_lock);
        return -r;
    }
    unlock(&region_lock);
    *addr = (u32)a;
    return 0;
}

/* [addr, addr + len) rounded to pages, if it lies in the region above REGION_LO. */
static int region_range(u32 addr, u32 len, u64 *lo, u64 *hi) {
    if (addr & (PAGE - 1)) return 0;
    *lo = addr;
    *hi = ((u64)addr + len + PAGE - 1) & ~(u64)(PAGE - 1);
    return *lo >= REGION_LO && *hi <= REGION_END;
}

static int region_munmap(u32 addr, u32 len) {
    u64 lo, hi;
    if (!len || !region_range(addr, len, &lo, &hi)) return NACL_EINVAL;
    lock(&region_lock);
    long r = region_map(lo, hi - lo, 0, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!SYS_FAILED(r)) region_give(lo, hi);
    unlock(&region_lock);
    return SYS_FAILED(r) ? -r : 0;
}

static int region_mprotect(u32 addr, u32 len, int prot) {
    if (prot & NACL_PROT_EXEC) return NACL_EACCES;
    if (prot & ~(NACL_PROT_READ | NACL_PROT_WRITE)) return NACL_EINVAL;
    u64 lo, hi;
    if (!region_range(addr, len, &lo, &hi)) return NACL_EINVAL;
    return err_of(sys3(SYS_mprotect, lo, hi - lo, prot));
}

/* Memory for the pexe at start-up: `len` bytes (and, below them, a guard page left
   reserved), zeroed. Its address, or fatal. */
static u64 region_alloc(u64 len, int guard) {
    len = (len + PAGE - 1) & ~(u64)(PAGE - 1);
    u64 a = region_take(len + (guard ? PAGE : 0));
    if (!a) fatal("the pexe's memory is full at start-up");
    a += guard ? PAGE : 0;
    if (SYS_FAILED(region_map(a, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)))
        fatal("cannot map the pexe's memory at start-up");
    return a;
}

/* [at, at + len) reserved (nothing mapped there but what this file maps later), or fatal
   with `why` where something is already there or the address space is too small. */
static void reserve(u64 at, u64 len, const char *why) {
    long r = sys6(SYS_mmap, at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                  -1, 0);
    if (SYS_FAILED(r) || (u64)r != at) fatal(why);
}

/* Reserves the region and its guard, and copies the pexe's globals in. Before anything
   else maps memory (the kernel places nothing there after this). */
static void region_init(void) {
    reserve(REGION_LO, RESERVED_END - REGION_LO,
            "cannot reserve the pexe's 4 GiB (is something mapped below 8 GiB, or the "
            "address space limited?)");
    free_ranges[0] = (struct range){REGION_LO, REGION_END};
    free_count = 1;
    u64 lo = __pnacl_image_base, hi = ((u64)__pnacl_image_end + PAGE - 1) & ~(u64)(PAGE - 1);
    if (hi > lo) {
        region_take_at(lo, hi);
        if (SYS_FAILED(region_map(lo, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)))
            fatal("cannot map the pexe's globals");
    }
    const u8 *bytes = __pnacl_image;
    for (u32 i = 0; i < __pnacl_image_segment_count; i++) {
        struct image_segment s = __pnacl_image_segments[i];
        copy(G(s.addr), bytes, s.len);
        bytes += s.len;
    }
}

#if PNACL_ARCH == ARCH_X86_64
/* Every function's address is below 2^CODE_BITS (the program is linked far below it), so
   an address called with any of the bits above set is a failed check of a call's
   signature (target.rs's CallCheck::NonCanonical, failed_call_target). */
#define CODE_BITS 47
#endif

/* The function table the pexe's indirect calls read, with no bounds check (region.rs's
   FUNCTION_TABLE_AT): __pnacl_functions copied to its fixed place (packed, where the
   module says so), the rest of its last page entries of no function's, read-only, and
   nothing mapped after it as far as a 32-bit index reaches (a read there faults:
   on_signal). */
static void function_table_init(void) {
    u64 at = __pnacl_function_table_at, span = __pnacl_function_table_span, n = __pnacl_function_count;
    u32 shift = __pnacl_packed_signature_shift, packed = shift != 0;
    u64 bytes = PAGE_UP(n * (packed ? sizeof(u64) : sizeof(struct pexe_fn))); /* within span */
    reserve(at, span,
            "cannot reserve the function table's 64 GiB (is something mapped there, or the "
            "address space limited?)");
    if (SYS_FAILED(region_map(at, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)))
        fatal("cannot map the function table");
#if PNACL_ARCH == ARCH_X86_64
    /* What an indirect call's check takes for granted (failed_call_target): every
       function below 2^47, and where packed, every signature id + 1 above the address's
       bits, whole. */
    if (packed && (shift <= CODE_BITS || shift >= 64)) fatal("the function table's packing is not this runtime's");
    for (u64 i = 0; i < n; i++) {
        const struct pexe_fn *f = &__pnacl_functions[i];
        if ((uptr)f->fn >> CODE_BITS) fatal("a function of the program lies above 2^47");
        if (packed && f->fn && (u64)f->sig + 1 >= 1ull << (64 - shift))
            fatal("a function's signature id does not fit its packed entry");
    }
    if (packed) {
        u64 *t = (u64 *)(uptr)at; /* the rest: 0, no function's */
        for (u64 i = 0; i < n; i++) {
            const struct pexe_fn *f = &__pnacl_functions[i];
            t[i] = f->fn ? (uptr)f->fn | ((u64)f->sig + 1) << shift : 0;
        }
    } else
#endif
    {
        if (packed) fatal("the module's function table is packed, which this target does not read");
        struct pexe_fn *t = (struct pexe_fn *)(uptr)at;
        copy(t, __pnacl_functions, n * sizeof(struct pexe_fn));
        for (u64 i = n; i < bytes / sizeof(struct pexe_fn); i++) t[i] = __pnacl_functions[0];
    }
    if (SYS_FAILED(sys3(SYS_mprotect, at, bytes, PROT_READ))) fatal("cannot protect the function table");
}

/* ----------------------------------------------------------------------------------- */
/* Thread-local storage and the signal stack (the runtime's, outside the region)        */

/* The executable's TLS segment (PT_TLS), from the program headers. */
static struct {
    const u8 *image;
    u64 filesz, memsz, align;
} tls_segment;

static void find_tls(const u64 *auxv) {
    const u8 *phdr = NULL;
    u64 phnum = 0, phent = 56;
    for (; auxv[0]; auxv += 2) {
        if (auxv[0] == 3) phdr = (const u8 *)auxv[1]; /* AT_PHDR */
        if (auxv[0] == 4) phent = auxv[1];            /* AT_PHENT */
        if (auxv[0] == 5) phnum = auxv[1];            /* AT_PHNUM */
    }
    for (u64 i = 0; phdr && i < phnum; i++) {
        const u8 *p = phdr + i * phent;
        if (*(const u32 *)p == 7 /* PT_TLS */) {
            tls_segment.image = (const u8 *)*(const u64 *)(p + 16); /* p_vaddr */
            tls_segment.filesz = *(const u64 *)(p + 32);
            tls_segment.memsz = *(const u64 *)(p + 40);
            tls_segment.align = *(const u64 *)(p + 48);
        }
    }
    if (!tls_segment.image) fatal("the program has no thread-local storage segment");
    if (tls_segment.align < 16) tls_segment.align = 16;
    if (tls_segment.memsz + 2 * tls_segment.align + 64 > TLS_AREA || tls_segment.align > PAGE)
        fatal("the program's thread-local storage does not fit");
}

/* The thread pointer of a thread whose TLS area (TLS_AREA bytes, page-aligned) is `area`,
   its TLS block initialized: x86-64's TLS block lies below the pointer, which points at
   itself; AArch64's lies above the pointer's 16 bytes. */
static uptr tls_setup(u8 *area) {
    u64 al = tls_segment.align;
#if PNACL_ARCH == ARCH_X86_64
    u64 size = (tls_segment.memsz + al - 1) & ~(al - 1);
    uptr tp = (uptr)area + size;
    u8 *block = (u8 *)tp - size;
    *(uptr *)tp = tp;
#else
    uptr tp = (uptr)area;
    u8 *block = area + ((16 + al - 1) & ~(al - 1));
#endif
    copy(block, tls_segment.image, tls_segment.filesz);
    zero(block + tls_segment.filesz, tls_segment.memsz - tls_segment.filesz);
    return tp;
}

/* The calling thread's thread pointer (the main thread's, before it runs anything that
   uses thread-local storage). */
static void set_thread_pointer(uptr tp) {
#if PNACL_ARCH == ARCH_X86_64
    if (SYS_FAILED(sys2(SYS_arch_prctl, 0x1002 /* ARCH_SET_FS */, tp))) fatal("cannot set the thread pointer");
#else
    __asm__ volatile("msr tpidr_el0, %0" ::"r"(tp));
#endif
}

struct k_sigaction {
    void (*handler)(int, void *, void *);
    u64 flags;
    void (*restorer)(void);
    u64 mask;
};
#define SA_SIGINFO 4
#define SA_ONSTACK 0x08000000
#define SA_RESTORER 0x04000000
void __pnacl_sigreturn(void); /* arch_x86_64.S: x86-64's kernel delivers no signal without */

/* The calling thread's signal stack: ALT_STACK bytes at `p`. */
static void signal_stack(void *p) {
    struct {
        void *sp;
        i32 flags;
        u64 size;
    } ss = {p, 0, ALT_STACK};
    sys2(SYS_sigaltstack, &ss, 0);
}

/* A fault, an undefined instruction or a division trap: the program's end. */
#if PNACL_ARCH == ARCH_X86_64
/* The address an indirect call whose signature check failed tried to call (region.rs,
   target.rs's CallCheck::NonCanonical: the packed entry xor the call's own signature, the
   signatures' difference in its top 16 bits), if
   the fault (`info`, `context`) is one, else 0. The processor either took the call (or the
   tail call's jump) and faulted at the fetch there (a general-protection fault, or with
   five-level paging a page fault: the address lies above 2^47 either way), or refused it
   (a general-protection fault, SI_KERNEL, of no address) at the call through a register. */
static u64 failed_call_target(void *info, void *context) {
    const u64 *gregs = (const u64 *)((const u8 *)context + 40); /* uc_mcontext */
    u64 rip = gregs[16];
    if (rip >> CODE_BITS) return rip;
    if (*(int *)((u8 *)info + 8) != 0x80 /* SI_KERNEL */) return 0;
    /* call *%reg (ff /2) or jmp *%reg (ff /4), with REX.B for r8-r15: the instruction is
       the runtime's own code, at which the processor stopped. */
    const u8 *p = (const u8 *)(uptr)rip;
    if ((rip & (PAGE - 1)) > PAGE - 3) return 0; /* (no page after it read) */
    u32 high = 0;
    if (*p == 0x41) high = 8, p++;
    u8 modrm = p[1], op = (modrm >> 3) & 7;
    if (p[0] != 0xff || (modrm >> 6) != 3 || (op != 2 && op != 4)) return 0;
    static const u8 greg[16] = {13, 14, 12, 11, 15, 10, 9, 8, 0, 1, 2, 3, 4, 5, 6, 7};
    u64 target = gregs[greg[(modrm & 7) | high]];
    return target >> CODE_BITS ? target : 0;
}
#endif

static void on_signal(int sig, void *info, void *context) {
    u64 addr = *(u64 *)((u8 *)info + 16); /* si_addr */
#if PNACL_ARCH == ARCH_X86_64
    /* An indirect call's check: the table's entries of no function's have no function's
       address (0) below the signature's bits. */
    u64 target = sig == 11 ? failed_call_target(info, context) : 0;
    if (target) trap(trap_reasons[(target & ((1ull << CODE_BITS) - 1)) ? 1 : 0]);
#else
    (void)context;
#endif
    struct thread *t = self();
    u64 guard = (uptr)t->region + THREAD_HEAD;
    if (sig == 11 /* SIGSEGV */ && addr >= guard - PAGE && addr < guard + PAGE)
        trap("the call stack is exhausted");
    /* An indirect call's read of the function table past its end. */
    if (sig == 11 && addr - __pnacl_function_table_at < __pnacl_function_table_span)
        trap(trap_reasons[0]);
    /* The region and its guard, or below address 0 by a negative constant offset (at most
       2 GiB; a non-canonical address reports none). */
    if ((sig == 11 || sig == 7 /* SIGBUS */) && (addr < RESERVED_END || addr >= -(2ull << 30)))
        trap("memory access out of bounds");
    if (sig == 4 /* SIGILL */ || sig == 5 /* SIGTRAP */) trap("unreachable code was reached");
    if (sig == 8 /* SIGFPE */) trap("integer division by zero or overflow");
    trap("a fault outside the pexe's memory (a bug of the runtime's)");
}

static void catch_signals(void) {
    static const int sigs[] = {4, 5, 7, 8, 11};
#if PNACL_ARCH == ARCH_X86_64
    struct k_sigaction a = {on_signal, SA_SIGINFO | SA_ONSTACK | SA_RESTORER, __pnacl_sigreturn, ~0ull};
#else
    struct k_sigaction a = {on_signal, SA_SIGINFO | SA_ONSTACK, 0, ~0ull};
#endif
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sys4(SYS_rt_sigaction, sigs[i], &a, 0, 8);
}

/* What a new thread of the runtime's does first: its signal stack, its pexe stack. */
static void thread_begin(struct thread *t) {
    signal_stack((u8 *)t->region + THREAD_HEAD - ALT_STACK);
    __pnacl_sp = t->pexe_sp & ~15u; /* kept 16-byte aligned by the pexe's code */
    __pnacl_sp_limit = t->pexe_sp_limit;
}

/* ----------------------------------------------------------------------------------- */
/* setjmp and longjmp                                                                  */

/* A new context for the caller's frame (its stack pointer `sp`) for the pexe's jmp_buf
   `buf`, whose first 8 bytes get the context's id: the registers go in the context's
   first words (arch_*.S). Contexts of frames deeper than the caller's are gone. */
u64 *__pnacl_setjmp_slot(u8 *buf, u64 sp) {
    struct thread *t = self();
    while (t->contexts && t->context[t->contexts - 1].sp < sp) t->contexts--;
    struct context *c = NULL;
    for (int i = t->contexts - 1; i >= 0 && t->context[i].sp == sp; i--)
        if (t->context[i].buf == buf) c = &t->context[i];
    if (!c) {
        if (t->contexts == MAX_CONTEXTS) trap("too many setjmp contexts are live");
        c = &t->context[t->contexts++];
    }
    c->sp = sp;
    c->buf = buf;
    c->id = ++t->context_ids;
    c->pexe_sp = __pnacl_sp;
    copy(buf, &c->id, 8);
    return c->regs;
}

/* The context `buf` names for a longjmp from the caller's frame (stack pointer `sp`): one
   of this thread's live ones, of an outer frame or the caller's own. The deeper ones end,
   and the pexe's stack pointer is as it was at the setjmp. */
u64 *__pnacl_longjmp_find(u8 *buf, u64 sp) {
    struct thread *t = self();
    u64 id;
    copy(&id, buf, 8);
    int i = t->contexts - 1;
    while (i >= 0 && t->context[i].id != id) i--;
    if (i < 0 || t->context[i].sp < sp) trap("longjmp to a context that is gone");
    t->contexts = i + 1;
    __pnacl_sp = t->context[i].pexe_sp;
    return t->context[i].regs;
}

/* The caller of __pnacl_setjmp_leave (arch_*.S), stack pointer `sp`, returns: the contexts
   of its frame end. */
void __pnacl_setjmp_forget(u64 sp) {
    struct thread *t = self();
    while (t->contexts && t->context[t->contexts - 1].sp <= sp) t->contexts--;
}

#endif
