//! Containment applied from outside a translated program, for what cannot contain itself:
//! an ARM program under `qemu-arm` (qemu passes neither Landlock nor seccomp to its guest).
//! `pnacl-run` applies, to itself and then across `exec` to qemu and its guest, what the
//! runtime applies natively (runtime/sandbox.c):
//!
//! - no capability in any set, and no new privileges;
//! - Landlock: nothing of the file system but the program's root (read-write, or read-only
//!   with `PNACL_FS_READONLY=1`), the ARM program's file and the libraries qemu loads (to
//!   read), and qemu and its loader (to execute); no TCP; no signal or abstract socket
//!   beyond the process;
//! - seccomp for x86-64 (qemu's own calls): no new process or program but qemu itself, no
//!   sockets, no tracing, no other process's signals, limits or clocks, no name-based
//!   status qemu does not need; any other call ends the process;
//! - the thread keeper: a process of pnacl-run's, out of the guest's reach, to which a
//!   second filter sends each clone and thread exit, and which refuses a clone beyond
//!   `PNACL_MAX_THREADS` (256 by default; qemu's own helper thread besides).
//!
//! The guest's runtime finds its own sandbox missing and, told by `PNACL_CONTAINED=1` and
//! the kernel (a seccomp filter on the process) that it is contained from outside, runs.
//! What qemu itself needs stays open: name-based status (`newfstatat`) of what Landlock
//! would not let it open, which its dynamic loader uses. Its `access` (the loader's, for
//! /etc/ld.so.preload) is told that no name exists, its `sysinfo` that there is no such
//! call, its `readlinkat` that it may not: the guest learns nothing through them either.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::target::{Runner, Target};

extern "C" {
    fn syscall(n: i64, ...) -> i64;
    fn sendmsg(fd: i32, msg: *const MsgHdr, flags: i32) -> isize;
    fn recvmsg(fd: i32, msg: *mut MsgHdr, flags: i32) -> isize;
    fn getpid() -> i32;
    fn _exit(status: i32) -> !;
}

// x86-64 system-call numbers.
const NR_READ: u32 = 0;
const NR_WRITE: u32 = 1;
const NR_CLOSE: u32 = 3;
const NR_FSTAT: u32 = 5;
const NR_POLL: u32 = 7;
const NR_LSEEK: u32 = 8;
const NR_MMAP: u32 = 9;
const NR_MPROTECT: u32 = 10;
const NR_MUNMAP: u32 = 11;
const NR_BRK: u32 = 12;
const NR_RT_SIGACTION: u32 = 13;
const NR_RT_SIGPROCMASK: u32 = 14;
const NR_RT_SIGRETURN: u32 = 15;
const NR_IOCTL: u32 = 16;
const NR_PREAD64: u32 = 17;
const NR_PWRITE64: u32 = 18;
const NR_READV: u32 = 19;
const NR_WRITEV: u32 = 20;
const NR_ACCESS: u32 = 21;
const NR_SCHED_YIELD: u32 = 24;
const NR_MREMAP: u32 = 25;
const NR_MADVISE: u32 = 28;
const NR_DUP: u32 = 32;
const NR_DUP2: u32 = 33;
const NR_NANOSLEEP: u32 = 35;
const NR_GETPID: u32 = 39;
const NR_SOCKETPAIR: u32 = 53;
const NR_CLONE: u32 = 56;
const NR_EXECVE: u32 = 59;
const NR_EXIT: u32 = 60;
const NR_KILL: u32 = 62;
const NR_UNAME: u32 = 63;
const NR_FCNTL: u32 = 72;
const NR_GETCWD: u32 = 79;
const NR_GETRLIMIT: u32 = 97;
const NR_SYSINFO: u32 = 99;
const NR_GETUID: u32 = 102;
const NR_GETGID: u32 = 104;
const NR_GETEUID: u32 = 107;
const NR_GETEGID: u32 = 108;
const NR_GETPPID: u32 = 110;
const NR_CAPSET: u32 = 126;
const NR_SIGALTSTACK: u32 = 131;
const NR_PRCTL: u32 = 157;
const NR_ARCH_PRCTL: u32 = 158;
const NR_GETTID: u32 = 186;
const NR_TKILL: u32 = 200;
const NR_FUTEX: u32 = 202;
const NR_SCHED_GETAFFINITY: u32 = 204;
const NR_GETDENTS64: u32 = 217;
const NR_SET_TID_ADDRESS: u32 = 218;
const NR_RESTART_SYSCALL: u32 = 219;
const NR_CLOCK_GETTIME: u32 = 228;
const NR_CLOCK_GETRES: u32 = 229;
const NR_CLOCK_NANOSLEEP: u32 = 230;
const NR_EXIT_GROUP: u32 = 231;
const NR_TGKILL: u32 = 234;
const NR_SET_MEMPOLICY: u32 = 238;
const NR_GET_MEMPOLICY: u32 = 239;
const NR_OPENAT: u32 = 257;
const NR_MKDIRAT: u32 = 258;
const NR_NEWFSTATAT: u32 = 262;
const NR_UNLINKAT: u32 = 263;
const NR_READLINKAT: u32 = 267;
const NR_READLINK: u32 = 89;
const NR_FACCESSAT: u32 = 269;
const NR_SET_ROBUST_LIST: u32 = 273;
const NR_DUP3: u32 = 292;
const NR_PRLIMIT64: u32 = 302;
const NR_SECCOMP: u32 = 317;
const NR_GETRANDOM: u32 = 318;
const NR_STATX: u32 = 332;
const NR_RSEQ: u32 = 334;
const NR_CLONE3: u32 = 435;
const NR_CLOSE_RANGE: u32 = 436;
const NR_FACCESSAT2: u32 = 439;
const NR_LANDLOCK_CREATE_RULESET: u32 = 444;
const NR_LANDLOCK_ADD_RULE: u32 = 445;
const NR_LANDLOCK_RESTRICT_SELF: u32 = 446;

const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL: u32 = 0x8000_0000;
const RET_NOTIFY: u32 = 0x7fc0_0000;
const fn ret_errno(e: Errno) -> u32 {
    0x0005_0000 | e as u32
}

/// The errors a refused call gets (Linux's numbers, the same on every architecture we
/// run on).
#[derive(Clone, Copy)]
#[allow(clippy::upper_case_acronyms)]
enum Errno {
    EPERM = 1,
    ENOENT = 2,
    EACCES = 13,
    ENOTTY = 25,
    ENOSYS = 38,
}
use Errno::*;

/// The flags glibc's pthread_create gives clone (qemu's threads, the guest's among them).
const THREAD_FLAGS: u32 = 0x3d0f00;

/// How a rule judges a call's arguments.
#[derive(Clone, Copy)]
enum Check {
    Any,
    /// Refused with this errno (qemu passes the error to its guest).
    Errno(Errno),
    /// Argument `0` equals the given value (this process), else killed.
    Arg0Is(u32),
    /// Argument 0 below the given value (the system clocks and the caller's own).
    Arg0Below(u32),
    /// Argument 1 one of two values, else refused (ENOTTY): ioctl's TCGETS, TIOCGWINSZ.
    Arg1OneOf(u32, u32),
    /// Exactly the thread flags (the keeper counts those threads), else killed.
    ThreadClone,
}

/// One seccomp-bpf instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SockFilter {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
const fn data_arg(i: u32) -> u32 {
    16 + 8 * i
}

fn stmt(code: u16, k: u32) -> SockFilter {
    SockFilter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> SockFilter {
    SockFilter { code, jt, jf, k }
}

/// qemu's calls, and what each may do. `pid` is the process's (qemu keeps pnacl-run's).
fn rules(pid: u32) -> Vec<(u32, Check)> {
    use Check::*;
    vec![
        (NR_READ, Any),
        (NR_WRITE, Any),
        (NR_READV, Any),
        (NR_WRITEV, Any),
        (NR_PREAD64, Any),
        (NR_PWRITE64, Any),
        (NR_LSEEK, Any),
        (NR_CLOSE, Any),
        (NR_CLOSE_RANGE, Any),
        (NR_DUP, Any),
        (NR_DUP2, Any),
        (NR_DUP3, Any),
        (NR_FCNTL, Any),
        (NR_FSTAT, Any),
        (NR_GETDENTS64, Any),
        (NR_IOCTL, Arg1OneOf(0x5401, 0x5413)),
        // Names: Landlock judges opens, directories made and names removed.
        (NR_OPENAT, Any),
        (NR_MKDIRAT, Any),
        (NR_UNLINKAT, Any),
        // A link's target: qemu reads none of its own; the guest's (qemu's own answer
        // for /proc/self/exe asks the kernel too) is refused.
        (NR_READLINKAT, Errno(EACCES)),
        (NR_READLINK, Errno(EACCES)),
        // qemu's loader takes the status of names. It asks for access by name once, for
        // /etc/ld.so.preload, which it does without: every name is missing to `access`.
        (NR_NEWFSTATAT, Any),
        (NR_ACCESS, Errno(ENOENT)),
        (NR_STATX, Errno(EACCES)),
        (NR_FACCESSAT, Errno(EACCES)),
        (NR_FACCESSAT2, Errno(EACCES)),
        (NR_GETCWD, Errno(EACCES)),
        // Memory: qemu translates the guest's code into code of its own.
        (NR_MMAP, Any),
        (NR_MPROTECT, Any),
        (NR_MUNMAP, Any),
        (NR_MREMAP, Any),
        (NR_MADVISE, Any),
        (NR_BRK, Any),
        // Threads (counted by the keeper), signals within the process.
        (NR_CLONE, ThreadClone),
        (NR_CLONE3, Errno(ENOSYS)), // glibc then uses clone, whose flags can be checked
        (NR_EXIT, Any),
        (NR_EXIT_GROUP, Any),
        (NR_FUTEX, Any),
        (NR_SET_ROBUST_LIST, Any),
        (NR_RSEQ, Any),
        (NR_SET_TID_ADDRESS, Any),
        (NR_ARCH_PRCTL, Any),
        (NR_GETTID, Any),
        (NR_GETPID, Any),
        (NR_GETPPID, Any),
        (NR_RT_SIGACTION, Any),
        (NR_RT_SIGPROCMASK, Any),
        (NR_RT_SIGRETURN, Any),
        (NR_SIGALTSTACK, Any),
        (NR_KILL, Arg0Is(pid)),
        (NR_TGKILL, Arg0Is(pid)),
        (NR_TKILL, Errno(EPERM)),
        (NR_RESTART_SYSCALL, Any),
        // Time: the system clocks and the caller's own, never another process's.
        (NR_CLOCK_GETTIME, Arg0Below(8)),
        (NR_CLOCK_GETRES, Arg0Below(8)),
        (NR_CLOCK_NANOSLEEP, Arg0Below(8)),
        (NR_NANOSLEEP, Any),
        (NR_SCHED_YIELD, Any),
        // What the process may learn of itself and the machine.
        (NR_SCHED_GETAFFINITY, Arg0Is(0)),
        (NR_PRLIMIT64, Arg0Is(0)),
        (NR_GETRLIMIT, Any),
        (NR_GET_MEMPOLICY, Any),
        (NR_SET_MEMPOLICY, Any),
        // The host's uptime, load, memory and process count: qemu's C library asks
        // (sysconf's physical pages, to size qemu's code cache) and does without.
        (NR_SYSINFO, Errno(ENOSYS)),
        (NR_UNAME, Any),
        (NR_GETRANDOM, Any),
        (NR_GETUID, Any),
        (NR_GETGID, Any),
        (NR_GETEUID, Any),
        (NR_GETEGID, Any),
        // Only ever less: no capability is left to gain, privileges are not new.
        (NR_CAPSET, Any),
        (NR_PRCTL, Any),
        // The guest's runtime tries its own sandbox: told no.
        (NR_SOCKETPAIR, Errno(EPERM)),
        (NR_SECCOMP, Errno(ENOSYS)),
        (NR_LANDLOCK_CREATE_RULESET, Errno(ENOSYS)),
        (NR_LANDLOCK_ADD_RULE, Errno(ENOSYS)),
        (NR_LANDLOCK_RESTRICT_SELF, Errno(ENOSYS)),
        // qemu itself, once: Landlock lets nothing else be executed.
        (NR_EXECVE, Any),
    ]
}

/// The seccomp program that holds qemu, for a process `pid`.
pub fn qemu_filter(pid: u32) -> Vec<SockFilter> {
    let mut p = vec![
        stmt(LD_W_ABS, DATA_ARCH),
        jump(JEQ_K, AUDIT_ARCH_X86_64, 1, 0),
        stmt(RET_K, RET_KILL),
    ];
    // x32 calls (bit 30 of the number) are another numbering: killed as unknown.
    for (nr, check) in rules(pid) {
        p.push(stmt(LD_W_ABS, DATA_NR));
        let head = p.len();
        p.push(jump(JEQ_K, nr, 0, 0));
        match check {
            Check::Any => {}
            Check::Errno(e) => p.push(stmt(RET_K, ret_errno(e))),
            Check::Arg0Is(_) | Check::ThreadClone => {
                let want = if let Check::Arg0Is(v) = check {
                    v
                } else {
                    THREAD_FLAGS
                };
                p.push(stmt(LD_W_ABS, data_arg(0)));
                p.push(jump(JEQ_K, want, 1, 0));
                p.push(stmt(RET_K, RET_KILL));
                // The high word too (x86-64 arguments are 64-bit).
                p.push(stmt(LD_W_ABS, data_arg(0) + 4));
                p.push(jump(JEQ_K, 0, 1, 0));
                p.push(stmt(RET_K, RET_KILL));
            }
            Check::Arg0Below(n) => {
                p.push(stmt(LD_W_ABS, data_arg(0)));
                p.push(jump(JGE_K, n, 0, 1));
                p.push(stmt(RET_K, RET_KILL));
                p.push(stmt(LD_W_ABS, data_arg(0) + 4));
                p.push(jump(JEQ_K, 0, 1, 0));
                p.push(stmt(RET_K, RET_KILL));
            }
            Check::Arg1OneOf(a, b) => {
                p.push(stmt(LD_W_ABS, data_arg(1)));
                p.push(jump(JEQ_K, a, 2, 0));
                p.push(jump(JEQ_K, b, 1, 0));
                p.push(stmt(RET_K, ret_errno(ENOTTY)));
            }
        }
        if !matches!(check, Check::Errno(_)) {
            p.push(stmt(RET_K, RET_ALLOW));
        }
        p[head].jf = (p.len() - head - 1) as u8;
    }
    p.push(stmt(RET_K, RET_KILL));
    p
}

/// The keeper's filter: clone and thread exit go to the keeper.
pub fn keeper_filter() -> Vec<SockFilter> {
    vec![
        stmt(LD_W_ABS, DATA_ARCH),
        jump(JEQ_K, AUDIT_ARCH_X86_64, 1, 0),
        stmt(RET_K, RET_ALLOW), // the main filter kills other numberings
        stmt(LD_W_ABS, DATA_NR),
        jump(JEQ_K, NR_CLONE, 1, 0),
        jump(JEQ_K, NR_EXIT, 0, 1),
        stmt(RET_K, RET_NOTIFY),
        stmt(RET_K, RET_ALLOW),
    ]
}

#[repr(C)]
struct SockFprog {
    len: u16,
    filter: *const SockFilter,
}

fn install(filter: &[SockFilter], flags: u64) -> std::io::Result<i32> {
    let prog = SockFprog {
        len: filter.len() as u16,
        filter: filter.as_ptr(),
    };
    // SAFETY: seccomp(SECCOMP_SET_MODE_FILTER) reads `prog` and the filter it points to,
    // both alive for the call.
    let r = unsafe {
        syscall(
            NR_SECCOMP as i64,
            1i64,
            flags as i64,
            &prog as *const SockFprog,
        )
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(r as i32)
}

// ---------------------------------------------------------------------------------------
// Landlock

const LL_EXECUTE: u64 = 1 << 0;
const LL_WRITE_FILE: u64 = 1 << 1;
const LL_READ_FILE: u64 = 1 << 2;
const LL_READ_DIR: u64 = 1 << 3;
const LL_REMOVE_DIR: u64 = 1 << 4;
const LL_REMOVE_FILE: u64 = 1 << 5;
const LL_MAKE_DIR: u64 = 1 << 7;
const LL_MAKE_REG: u64 = 1 << 8;
const LL_MAKE_SYM: u64 = 1 << 12;
const LL_REFER: u64 = 1 << 13;
const LL_TRUNCATE: u64 = 1 << 14;
const LL_IOCTL_DEV: u64 = 1 << 15;

#[repr(C)]
struct RulesetAttr {
    fs: u64,
    net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneath {
    allowed: u64,
    parent_fd: i32,
}

/// Everything Landlock ABI `abi` can judge of the file system.
fn handled(abi: i64) -> u64 {
    let mut fs = (LL_MAKE_SYM << 1) - 1;
    if abi >= 2 {
        fs |= LL_REFER;
    }
    if abi >= 3 {
        fs |= LL_TRUNCATE;
    }
    if abi >= 5 {
        fs |= LL_IOCTL_DEV;
    }
    fs
}

/// What the process may reach of the file system: (path, access) pairs.
fn landlock(rules: &[(PathBuf, u64)]) -> Result<(), String> {
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) asks for
    // the ABI version and reads nothing.
    let abi = unsafe { syscall(NR_LANDLOCK_CREATE_RULESET as i64, 0usize, 0usize, 1u32) };
    if abi < 1 {
        return Err("the kernel offers no Landlock".into());
    }
    let fs = handled(abi);
    let attr = RulesetAttr {
        fs,
        net: if abi >= 4 { 3 } else { 0 },
        scoped: if abi >= 6 { 3 } else { 0 },
    };
    let size = if abi >= 6 {
        24
    } else if abi >= 4 {
        16
    } else {
        8
    };
    // SAFETY: the kernel reads `size` bytes of `attr`, which has 24.
    let fd = unsafe {
        syscall(
            NR_LANDLOCK_CREATE_RULESET as i64,
            &attr as *const RulesetAttr,
            size as usize,
            0u32,
        )
    };
    if fd < 0 {
        return Err("the kernel refused a Landlock rule set".into());
    }
    for (path, access) in rules {
        let Ok(f) = std::fs::File::open(path) else {
            continue; // a library folder this system does not have
        };
        let meta = f.metadata().map_err(|e| e.to_string())?;
        let mut allowed = access & fs;
        if !meta.is_dir() {
            // Only what applies to a file.
            allowed &= LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE | LL_IOCTL_DEV;
        }
        let rule = PathBeneath {
            allowed,
            parent_fd: f.as_raw_fd(),
        };
        // SAFETY: the kernel reads the rule (12 bytes) during the call.
        let r = unsafe {
            syscall(
                NR_LANDLOCK_ADD_RULE as i64,
                fd,
                1u32,
                &rule as *const PathBeneath,
                0u32,
            )
        };
        if r < 0 {
            return Err(format!(
                "the kernel refused the Landlock rule for {}",
                path.display()
            ));
        }
    }
    // SAFETY: restricts this process with the rule set, then closes it.
    let r = unsafe { syscall(NR_LANDLOCK_RESTRICT_SELF as i64, fd, 0u32) };
    // SAFETY: closes the rule set's descriptor, ours.
    unsafe { syscall(NR_CLOSE as i64, fd) };
    if r < 0 {
        return Err("the kernel refused to restrict the process with Landlock".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The thread keeper

#[repr(C)]
struct MsgHdr {
    name: *mut u8,
    namelen: u32,
    iov: *mut IoVec,
    iovlen: usize,
    control: *mut u8,
    controllen: usize,
    flags: i32,
}

#[repr(C)]
struct IoVec {
    base: *mut u8,
    len: usize,
}

#[repr(C)]
struct FdMessage {
    len: usize,
    level: i32,
    kind: i32,
    fd: i32,
    pad: i32,
}

/// Sends descriptor `fd` over socket `sock` (or, with `fd` < 0, receives one): the
/// descriptor, or -1.
fn pass_fd(sock: i32, fd: i32) -> i32 {
    let mut byte = 0u8;
    let mut iov = IoVec {
        base: &mut byte,
        len: 1,
    };
    let mut m = FdMessage {
        len: 20,  // CMSG_LEN(sizeof(int))
        level: 1, // SOL_SOCKET
        kind: 1,  // SCM_RIGHTS
        fd,
        pad: 0,
    };
    let mut h = MsgHdr {
        name: std::ptr::null_mut(),
        namelen: 0,
        iov: &mut iov,
        iovlen: 1,
        control: &mut m as *mut FdMessage as *mut u8,
        controllen: std::mem::size_of::<FdMessage>(),
        flags: 0,
    };
    // SAFETY: the header, its one-byte buffer and its control message live through the call.
    let r = unsafe {
        if fd < 0 {
            recvmsg(sock, &mut h, 0)
        } else {
            sendmsg(sock, &h, 0)
        }
    };
    if r < 1 {
        -1
    } else {
        m.fd
    }
}

#[repr(C)]
#[derive(Default)]
struct Notif {
    id: u64,
    pid: u32,
    flags: u32,
    nr: i32,
    arch: u32,
    ip: u64,
    args: [u64; 6],
}

#[repr(C)]
struct NotifResp {
    id: u64,
    val: i64,
    error: i32,
    flags: u32,
}

const NOTIF_RECV: u64 = 0xc050_2100;
const NOTIF_SEND: u64 = 0xc018_2101;

/// The keeper's loop (in its own process): counts the threads, refuses clones beyond
/// `max`, ends when the program has ended. Never returns.
fn keeper(sock: i32, max: u32) -> ! {
    let fd = pass_fd(sock, -1);
    // SAFETY: closes every descriptor but the listener: the keeper needs no other.
    unsafe {
        for d in 0..3 {
            syscall(NR_CLOSE as i64, d);
        }
        syscall(NR_CLOSE as i64, sock);
    }
    if fd < 0 {
        // SAFETY: ends this process.
        unsafe { _exit(0) };
    }
    let own = [
        stmt(LD_W_ABS, DATA_NR),
        jump(JEQ_K, NR_IOCTL, 4, 0),
        jump(JEQ_K, NR_POLL, 3, 0),
        jump(JEQ_K, NR_EXIT_GROUP, 2, 0),
        jump(JEQ_K, NR_RESTART_SYSCALL, 1, 0),
        stmt(RET_K, RET_KILL),
        stmt(RET_K, RET_ALLOW),
    ];
    let _ = install(&own, 0);
    let mut live: u32 = 1;
    loop {
        #[repr(C)]
        struct PollFd {
            fd: i32,
            events: i16,
            revents: i16,
        }
        let mut p = PollFd {
            fd,
            events: 1,
            revents: 0,
        };
        // SAFETY: poll reads and writes `p` during the call.
        let r = unsafe { syscall(NR_POLL as i64, &mut p as *mut PollFd, 1u64, -1i64) };
        if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(4) {
            continue;
        }
        if r < 0 || p.revents & !1 != 0 {
            // SAFETY: every thread of the program has ended: so does the keeper.
            unsafe { _exit(0) };
        }
        let mut req = Notif::default();
        // SAFETY: the kernel writes the notification into `req`, zeroed as it requires.
        if unsafe { syscall(NR_IOCTL as i64, fd, NOTIF_RECV, &mut req as *mut Notif) } < 0 {
            continue;
        }
        let clone = req.nr as u32 == NR_CLONE;
        let mut resp = NotifResp {
            id: req.id,
            val: 0,
            error: 0,
            flags: 1, // SECCOMP_USER_NOTIF_FLAG_CONTINUE
        };
        if clone && live >= max {
            resp.error = -11; // EAGAIN
            resp.flags = 0;
        } else if clone {
            live += 1;
        } else {
            live = live.saturating_sub(1);
        }
        // SAFETY: the kernel reads `resp` during the call.
        let sent = unsafe { syscall(NR_IOCTL as i64, fd, NOTIF_SEND, &resp as *const NotifResp) };
        if sent < 0 && resp.flags != 0 {
            // Its thread was killed before the answer: nothing changed.
            if clone {
                live -= 1;
            } else {
                live += 1;
            }
        }
    }
}

/// Starts the keeper and sends it clone and exit: the program may have `max` threads.
fn thread_keeper(max: u32) -> Result<(), String> {
    let (a, b) = std::os::unix::net::UnixStream::pair().map_err(|e| e.to_string())?;
    // SAFETY: a plain fork (clone with no flags): this process is single-threaded here,
    // and the child only runs `keeper`, which never returns.
    let pid = unsafe { syscall(NR_CLONE as i64, 0u64, 0u64, 0u64, 0u64, 0u64) };
    if pid == 0 {
        drop(a);
        keeper(b.as_raw_fd(), max);
    }
    drop(b);
    if pid < 0 {
        return Err("the kernel refused to start the thread keeper".into());
    }
    let fd = install(
        &keeper_filter(),
        8, /* SECCOMP_FILTER_FLAG_NEW_LISTENER */
    )
    .map_err(|_| "the kernel offers no seccomp notifications (for the thread limit)")?;
    let sent = pass_fd(a.as_raw_fd(), fd);
    // SAFETY: closes the listener, ours (the keeper has its own now).
    unsafe { syscall(NR_CLOSE as i64, fd) };
    if sent < 0 {
        return Err("the thread keeper could not be given its descriptor".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Running a program

/// The class and machine of an ELF file, from its header.
fn elf_machine(path: &Path) -> Result<(u8, u16), String> {
    use std::io::Read;
    let mut h = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut h))
        .map_err(|e| format!("{}: {}", path.display(), crate::output::io_reason(&e)))?;
    if &h[..4] != b"\x7fELF" {
        return Err(format!("{}: not a program (no ELF header)", path.display()));
    }
    Ok((h[4], u16::from_le_bytes([h[18], h[19]])))
}

/// The note the runtime puts in every program pnacl-translate links (runtime/builtins.c):
/// name "pnacl", type "NACL", no description.
const PNACL_NOTE: (&[u8], u32) = (b"pnacl\0", 0x4c43_414e);

/// Whether ELF file `path` (32-bit or 64-bit) has a PT_NOTE segment holding `PNACL_NOTE`.
fn has_pnacl_note(path: &Path) -> bool {
    let Ok(d) = std::fs::read(path) else {
        return false;
    };
    let wide = d.get(4) == Some(&2);
    let u16_at = |o: usize| {
        d.get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
    };
    let u32_at = |o: usize| {
        d.get(o..o + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
    };
    let word = |o32: usize, o64: usize| match wide {
        true => d
            .get(o64..o64 + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize),
        false => u32_at(o32),
    };
    let header = || -> Option<bool> {
        let phoff = word(28, 32)?;
        let (phentsize, phnum) = match wide {
            true => (u16_at(54)?, u16_at(56)?),
            false => (u16_at(42)?, u16_at(44)?),
        };
        for i in 0..phnum {
            let ph = phoff.checked_add(i.checked_mul(phentsize)?)?;
            if u32_at(ph)? != 4 {
                continue; // not PT_NOTE
            }
            let (off, size) = (word(ph + 4, ph + 8)?, word(ph + 16, ph + 32)?);
            let end = off.checked_add(size)?.min(d.len());
            let mut at = off;
            while at + 12 <= end {
                let (namesz, descsz, ty) = (u32_at(at)?, u32_at(at + 4)?, u32_at(at + 8)?);
                let name = d.get(at + 12..(at + 12).checked_add(namesz)?)?;
                if name == PNACL_NOTE.0 && ty == PNACL_NOTE.1 as usize {
                    return Some(true);
                }
                at = at + 12 + namesz.div_ceil(4) * 4 + descsz.div_ceil(4) * 4;
            }
        }
        Some(false)
    };
    header().unwrap_or(false)
}

/// The ELF interpreter a 64-bit program names (its dynamic loader), if any.
fn interpreter(path: &Path) -> Option<PathBuf> {
    let d = std::fs::read(path).ok()?;
    let u64_at = |o: usize| Some(u64::from_le_bytes(d.get(o..o + 8)?.try_into().ok()?));
    let u16_at = |o: usize| Some(u16::from_le_bytes(d.get(o..o + 2)?.try_into().ok()?));
    let phoff = u64_at(32)? as usize;
    let (phentsize, phnum) = (u16_at(54)? as usize, u16_at(56)? as usize);
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if u16_at(ph)? == 3 {
            let off = u64_at(ph + 8)? as usize;
            let size = u64_at(ph + 32)? as usize;
            let name = d.get(off..off + size)?;
            let name = name.split(|&b| b == 0).next()?;
            return Some(PathBuf::from(std::ffi::OsStr::from_bytes(name)));
        }
    }
    None
}

/// The limit on threads the user set (PNACL_MAX_THREADS), or 256.
fn max_threads() -> Result<u32, String> {
    match std::env::var("PNACL_MAX_THREADS") {
        Err(_) => Ok(256),
        Ok(v) => match v.parse::<u32>() {
            Ok(n @ 1..=4096) => Ok(n),
            _ => Err("PNACL_MAX_THREADS is not a number of threads from 1 to 4096".into()),
        },
    }
}

/// What stops a program from running: its message and the exit status to end with.
pub struct Refusal {
    pub message: String,
    pub status: i32,
}

fn refuse(message: impl Into<String>, status: i32) -> Refusal {
    Refusal {
        message: message.into(),
        status,
    }
}

/// Runs translated program `program` with `args`, in place of this process: an x86-32
/// one as it is (its runtime contains it), an ARM one under qemu-arm contained from
/// outside. Returns only when it cannot.
pub fn run(program: &Path, args: &[OsString]) -> Refusal {
    use std::os::unix::process::CommandExt;
    let (class, machine) = match elf_machine(program) {
        Ok(m) => m,
        Err(e) => return refuse(e, 2),
    };
    // Only what pnacl-translate makes: a program for a target without a runtime is none
    // of its programs, whatever machine it is for, and one without the runtime's note is
    // some other program for the machine.
    let target = Target::of_elf(class, machine).filter(|t| t.runs());
    if let Some(t) = target {
        if !has_pnacl_note(program) {
            return refuse(
                format!(
                    "{}: a program for {t}, but not one pnacl-translate makes (its runtime's note is missing)",
                    program.display()
                ),
                2,
            );
        }
    }
    match target.map(|t| t.spec().runs) {
        Some(Runner::Native) => {
            let mut cmd = std::process::Command::new(program);
            if let Some(a) = std::env::var_os("PNACL_ARGV0") {
                cmd.arg0(a);
            }
            let e = cmd.args(args).exec();
            refuse(
                format!("{}: {}", program.display(), crate::output::io_reason(&e)),
                126,
            )
        }
        Some(Runner::Qemu(qemu)) => run_qemu(qemu, program, args),
        _ => refuse(
            format!(
                "{}: a program for machine {machine}, not one pnacl-translate makes ({})",
                program.display(),
                crate::target::listed(
                    Target::ALL
                        .into_iter()
                        .filter(|t| t.runs() && t.spec().elf.is_some())
                )
            ),
            2,
        ),
    }
}

/// Runs `program` under qemu-user `tool`, contained from outside.
fn run_qemu(tool: &str, program: &Path, args: &[OsString]) -> Refusal {
    use std::os::unix::process::CommandExt;
    // Where the user's PATH says, else where Debian puts it (the environment may be empty).
    let qemu = which::which(tool).or_else(|_| {
        let cwd = std::env::current_dir().unwrap_or_default();
        which::which_in(tool, Some("/usr/local/bin:/usr/bin:/bin"), cwd)
    });
    let qemu = match qemu {
        Ok(q) => q,
        Err(_) => {
            return refuse(
                format!("{tool} not found (Debian's package qemu-user)"),
                127,
            )
        }
    };
    let max = match max_threads() {
        Ok(m) => m,
        Err(e) => return refuse(e, 127),
    };
    let mut cmd = std::process::Command::new(&qemu);
    if let Some(a) = std::env::var_os("PNACL_ARGV0") {
        cmd.arg("-0").arg(a);
    }
    cmd.arg(program).args(args).env_clear();
    // The guest's runtime gets its own variables (it hands the pexe only PNACL_ENV_ ones).
    for (k, v) in std::env::vars_os() {
        if k.as_bytes().starts_with(b"PNACL_") && k != "PNACL_CONTAINED" && k != "PNACL_ARGV0" {
            cmd.env(k, v);
        }
    }
    match contain(&qemu, program, max) {
        Ok(()) => {
            cmd.env("PNACL_CONTAINED", "1");
        }
        Err(why) => {
            // The opt-out is the guest runtime's to grant (it names the program); without
            // it, the guest refuses and says why.
            eprintln!("pnacl-run: cannot contain {}: {why}", program.display());
        }
    }
    let e = cmd.exec();
    refuse(
        format!("{}: {}", qemu.display(), crate::output::io_reason(&e)),
        126,
    )
}

/// Applies the containment to this process, which then runs qemu-arm `qemu` on `program`.
fn contain(qemu: &Path, program: &Path, max_threads: u32) -> Result<(), String> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let read = LL_READ_FILE | LL_READ_DIR;
    let mut rules: Vec<(PathBuf, u64)> = vec![
        (canon(qemu), LL_EXECUTE | LL_READ_FILE),
        (canon(program), LL_READ_FILE),
        (PathBuf::from("/etc/ld.so.cache"), LL_READ_FILE),
    ];
    if let Some(i) = interpreter(&canon(qemu)) {
        rules.push((canon(&i), LL_EXECUTE | LL_READ_FILE));
    }
    for lib in ["/lib", "/lib64", "/usr/lib", "/usr/lib64"] {
        rules.push((PathBuf::from(lib), LL_READ_FILE));
    }
    // qemu lays out the guest's memory by its own map; the guest's runtime reads in the
    // status that it is held by a seccomp filter.
    rules.push((PathBuf::from("/proc/self/maps"), LL_READ_FILE));
    rules.push((PathBuf::from("/proc/self/status"), LL_READ_FILE));
    if let Some(root) = std::env::var_os("PNACL_FS_ROOT").filter(|r| !r.is_empty()) {
        let readonly = std::env::var_os("PNACL_FS_READONLY").is_some_and(|v| v == "1");
        let rw = read
            | LL_WRITE_FILE
            | LL_REMOVE_DIR
            | LL_REMOVE_FILE
            | LL_MAKE_DIR
            | LL_MAKE_REG
            | LL_TRUNCATE;
        let root = PathBuf::from(root);
        if !root.is_dir() {
            return Err("PNACL_FS_ROOT does not name a directory".into());
        }
        rules.push((root, if readonly { read } else { rw }));
    }
    drop_capabilities();
    // SAFETY: PR_SET_NO_NEW_PRIVS takes no pointer.
    if unsafe { syscall(NR_PRCTL as i64, 38i64, 1i64, 0i64, 0i64, 0i64) } < 0 {
        return Err("the kernel refused PR_SET_NO_NEW_PRIVS".into());
    }
    landlock(&rules)?;
    thread_keeper(max_threads + 1)?; // qemu's own helper thread besides the program's
                                     // SAFETY: getpid has no preconditions.
    let pid = unsafe { getpid() } as u32;
    install(&qemu_filter(pid), 0).map_err(|_| "the kernel offers no seccomp filter")?;
    Ok(())
}

fn drop_capabilities() {
    // SAFETY: prctl and capset with plain values and a header and data that live through
    // the call.
    unsafe {
        for cap in 0..64i64 {
            if syscall(NR_PRCTL as i64, 24i64, cap) < 0 && cap > 40 {
                break;
            }
        }
        syscall(NR_PRCTL as i64, 47i64, 4i64, 0i64, 0i64, 0i64);
        let header: [u32; 2] = [0x2008_0522, 0];
        let data = [0u32; 6];
        syscall(NR_CAPSET as i64, header.as_ptr(), data.as_ptr());
    }
}
