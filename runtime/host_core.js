// The host of a pexe translated to WebAssembly, shared by node and the browser: the
// WASI preview 1 calls the runtime (runtime/wasi.c) makes, and wasi-threads' thread-spawn.
// `pnacl-translate` writes this file into the launcher (.mjs) and the page's script (.js),
// after the line that names the module, and before the part that is node's or the
// browser's (host_node.js, host_web.js).
//
// The program's threads share one memory; each runs in a worker of its own (in node, the
// first runs on node's main thread). What the
// program reaches of the host is what `io` gives it: the standard streams and, in node, the
// directory the user named as its root; a descriptor table shared by all its threads says
// which. The engine keeps it inside its own linear memory.

// WASI's errno numbers (its own numbering; the runtime maps them to NaCl's), by the
// names node gives host errors.
export const ERRNO = { SUCCESS: 0, E2BIG: 1, EACCES: 2, EAGAIN: 6, EBADF: 8, EBUSY: 10, EEXIST: 20,
  EFAULT: 21, EFBIG: 22, EINTR: 27, EINVAL: 28, EIO: 29, EISDIR: 31, ELOOP: 32, EMFILE: 33,
  ENAMETOOLONG: 37, ENFILE: 41, ENODEV: 43, ENOENT: 44, ENOMEM: 48, ENOSPC: 51, ENOSYS: 52,
  ENOTDIR: 54, ENOTEMPTY: 55, ENOTSUP: 58, ENOTTY: 59, EPERM: 62, EPIPE: 63, EROFS: 68,
  ESPIPE: 69, EXDEV: 74, NOTCAPABLE: 75 };

export const FILETYPE = { UNKNOWN: 0, CHAR: 2, DIR: 3, FILE: 4, SOCKET: 6, LINK: 7 };
const RIGHTS_SEEK = (1n << 2n) | (1n << 5n);
const RIGHTS_ALL = (1n << 30n) - 1n;

// The descriptor table, shared by the program's threads (an Int32Array on a
// SharedArrayBuffer): for each WASI descriptor, -1 if closed, -2 for the root directory,
// -3 for a stream the host writes itself (the browser's standard streams), else the
// host's descriptor. `io` gives the rest.
export const FD_FREE = -1, FD_ROOT = -2, FD_STREAM = -3, MAX_FDS = 1024;

// Control words, shared (and out of the program's reach: not in its memory): [0] the next
// thread id; [1] the exit status a thread other than node's main thread ended the program
// with, plus one (0 while none has); [2] the threads the program has; [3] the most it may
// have (PNACL_MAX_THREADS, 256 unless set); [4] whether the limit has been reported.
export const CTL_NEXT_TID = 0, CTL_EXIT = 1, CTL_LIVE = 2, CTL_MAX = 3, CTL_WARNED = 4, CTL_WORDS = 5;
export const DEFAULT_MAX_THREADS = 256, THREAD_SLOTS = 4096;

// The program's memory as a buffer that reaches at least to `end` (if the memory does).
// Another thread's growth of the shared memory reaches this thread's buffer late (V8
// brings each thread's view up to date when it next stops to look); growing the memory by
// nothing brings it up to date at once.
export function memoryTo(memory, end) {
  let b = memory.buffer;
  if (end > b.byteLength) {
    memory.grow(0);
    b = memory.buffer;
  }
  return b;
}

class ProcExit extends Error {
  constructor(code) { super(`exit ${code}`); this.code = code; }
}

// A host call the host refuses as the engine refuses an access out of bounds: the
// program traps (status 134, the reason on standard error). The host checks every
// pointer and length the program gives before it allocates or touches anything.
class HostTrap extends Error {}

// The most one read of a descriptor takes (what the host allocates for it).
const READ_MAX = 1 << 24;

// One thread's view of the WASI world: `memory` the program's memory, `fds`, `pos` and
// `ctl` the shared tables, `io` the host's (node's or the browser's) operations, `ctx`
// what the program was given (args, env).
export function makeImports({ memory, fds, pos, ctl, io, ctx }) {
  // The memory to at least `end`, as a DataView; `n` bytes of it at `p`.
  // The memory up to `end` (a pointer the program gave plus a length), or a trap.
  const reach = (end) => {
    const b = memoryTo(memory, end);
    if (!(end <= b.byteLength)) throw new HostTrap('a host call reached beyond the program\'s memory');
    return b;
  };
  // (Pointers come from the module as signed numbers: each is taken unsigned, and p + k
  // beyond 4 GiB is beyond the memory, as in the module's own accesses.)
  const view = (p, n) => new DataView(reach((p >>> 0) + n), p >>> 0, n);
  const bytes = (p, n) => new Uint8Array(reach((p >>> 0) + (n >>> 0)), p >>> 0, n >>> 0);
  const text = (p, n) => new TextDecoder().decode(bytes(p, n).slice());
  const put64 = (p, v) => view(p, 8).setBigUint64(0, BigInt(v), true);
  const put32 = (p, v) => view(p, 4).setUint32(0, v >>> 0, true);
  const hostFd = (fd) => (fd >= 0 && fd < MAX_FDS ? Atomics.load(fds, fd) : FD_FREE);
  const guard = (f) => (...a) => {
    try {
      return f(...a);
    } catch (e) {
      if (e instanceof ProcExit || e instanceof HostTrap) throw e;
      return io.errno(e);
    }
  };
  const iovs = (p, n) => {
    const out = [];
    const v = view(p, 8 * (n >>> 0));
    for (let i = 0; i < n >>> 0; i++) out.push([v.getUint32(8 * i, true), v.getUint32(8 * i + 4, true)]);
    return out;
  };
  const strings = (list, ptrs, buf) => {
    const enc = new TextEncoder();
    let o = buf >>> 0;
    list.forEach((s, i) => {
      const b = enc.encode(s + '\0');
      put32((ptrs >>> 0) + 4 * i, o);
      bytes(o, b.length).set(b);
      o += b.length;
    });
    return 0;
  };
  const sizes = (list, countp, sizep) => {
    const enc = new TextEncoder();
    put32(countp, list.length);
    put32(sizep, list.reduce((n, s) => n + enc.encode(s).length + 1, 0));
    return 0;
  };
  const filestat = (p, st) => {
    const v = view(p, 64);
    const at = (o, x) => v.setBigUint64(o, BigInt(x), true);
    at(0, st.dev); at(8, st.ino);
    v.setUint8(16, st.filetype);
    at(24, st.nlink); at(32, st.size);
    at(40, st.atim); at(48, st.mtim); at(56, st.ctim);
    return 0;
  };
  // The directory descriptor `dirfd` and a path beneath it, for `io` to resolve.
  const at = (dirfd, p, n) => ({ dir: hostFd(dirfd), path: text(p, n) });

  const wasi = {
    args_sizes_get: (c, s) => sizes(ctx.args, c, s),
    args_get: (a, b) => strings(ctx.args, a, b),
    environ_sizes_get: (c, s) => sizes(ctx.env, c, s),
    environ_get: (a, b) => strings(ctx.env, a, b),
    clock_time_get: guard((id, _precision, p) => { put64(p, io.clock(id)); return 0; }),
    clock_res_get: guard((id, p) => { put64(p, 1000n); return 0; }),
    fd_close: guard((fd) => {
      const h = hostFd(fd);
      if (h === FD_FREE || fd < 3) return ERRNO.EBADF;
      if (h >= 0) io.close(h);
      Atomics.store(fds, fd, FD_FREE);
      Atomics.store(pos, fd, -1n);
      return 0;
    }),
    fd_fdstat_get: guard((fd, p) => {
      const h = hostFd(fd);
      if (h === FD_FREE) return ERRNO.EBADF;
      const type = h === FD_ROOT ? FILETYPE.DIR : io.filetype(h);
      const v = view(p, 24);
      v.setUint8(0, type.filetype);
      v.setUint16(2, 0, true);
      v.setBigUint64(8, type.seekable ? RIGHTS_ALL : RIGHTS_ALL & ~RIGHTS_SEEK, true);
      v.setBigUint64(16, RIGHTS_ALL, true);
      return 0;
    }),
    fd_filestat_get: guard((fd, p) => {
      const h = hostFd(fd);
      if (h === FD_FREE) return ERRNO.EBADF;
      return filestat(p, io.fstat(h));
    }),
    fd_prestat_get: (fd, p) => {
      if (hostFd(fd) !== FD_ROOT) return ERRNO.EBADF;
      const v = view(p, 8);
      v.setUint8(0, 0);
      v.setUint32(4, 1, true);
      return 0;
    },
    fd_prestat_dir_name: (fd, p, n) => {
      if (hostFd(fd) !== FD_ROOT) return ERRNO.EBADF;
      if (n !== 0) view(p, 1).setUint8(0, 0x2f);
      return 0;
    },
    fd_read: guard((fd, iov, n, nread) => {
      const h = hostFd(fd);
      if (h === FD_FREE || h === FD_ROOT) return ERRNO.EBADF;
      let total = 0;
      for (const [p, len] of iovs(iov, n)) {
        // The program's buffer first; then at most 16 MiB a read (a read may return less).
        const dst = bytes(p, len);
        const at = Atomics.load(pos, fd);
        const got = io.read(h, Math.min(len, READ_MAX), at >= 0n ? at : null);
        if (at >= 0n) Atomics.store(pos, fd, at + BigInt(got.length));
        dst.set(got);
        total += got.length;
        if (got.length < len) break;
      }
      put32(nread, total);
      return 0;
    }),
    fd_write: guard((fd, iov, n, nwritten) => {
      const h = hostFd(fd);
      if (h === FD_FREE || h === FD_ROOT) return ERRNO.EBADF;
      let total = 0;
      for (const [p, len] of iovs(iov, n)) {
        const at = Atomics.load(pos, fd);
        // (The bytes copied, but for a host that copies what it keeps itself: `shared`.)
        const data = bytes(p, len);
        const wrote = io.write(h, fd, io.shared ? data : data.slice(), at >= 0n ? at : null);
        if (at >= 0n) Atomics.store(pos, fd, at + BigInt(wrote));
        total += wrote;
      }
      put32(nwritten, total);
      return 0;
    }),
    fd_seek: guard((fd, offset, whence, p) => {
      const h = hostFd(fd);
      if (h === FD_FREE) return ERRNO.EBADF;
      const at = Atomics.load(pos, fd);
      if (h < 0 || at < 0n) return ERRNO.ESPIPE;
      const base = whence === 0 ? 0n : whence === 1 ? at : BigInt(io.fstat(h).size);
      const to = base + BigInt(offset);
      if (whence > 2 || to < 0n) return ERRNO.EINVAL;
      Atomics.store(pos, fd, to);
      put64(p, to);
      return 0;
    }),
    fd_readdir: guard((fd, buf, len, cookie, usedp) => {
      const h = hostFd(fd);
      if (h === FD_FREE) return ERRNO.EBADF;
      const entries = io.readdir(h);
      const enc = new TextEncoder();
      let used = 0;
      for (let i = Number(cookie); i < entries.length && used < len; i++) {
        const name = enc.encode(entries[i].name);
        const rec = new Uint8Array(24 + name.length);
        const dv = new DataView(rec.buffer);
        dv.setBigUint64(0, BigInt(i + 1), true);
        dv.setBigUint64(8, BigInt(entries[i].ino), true);
        dv.setUint32(16, name.length, true);
        dv.setUint8(20, entries[i].filetype);
        rec.set(name, 24);
        const n = Math.min(rec.length, len - used);
        bytes((buf >>> 0) + used, n).set(rec.subarray(0, n));
        used += n;
      }
      put32(usedp, used);
      return 0;
    }),
    path_open: guard((dirfd, _lookup, p, n, oflags, rights, _inheriting, fdflags, fdp) => {
      const h = io.open(at(dirfd, p, n), oflags, BigInt(rights), fdflags);
      // Reads and writes at the descriptor's own position (node has no lseek), but for
      // appending and what cannot seek.
      const start = fdflags & 1 || !io.filetype(h).seekable ? -1n : 0n;
      for (let fd = 3; fd < MAX_FDS; fd++) {
        if (Atomics.compareExchange(fds, fd, FD_FREE, h) === FD_FREE) {
          Atomics.store(pos, fd, start);
          put32(fdp, fd);
          return 0;
        }
      }
      io.close(h);
      return ERRNO.EMFILE;
    }),
    path_filestat_get: guard((dirfd, _flags, p, n, st) => filestat(st, io.stat(at(dirfd, p, n)))),
    path_create_directory: guard((dirfd, p, n) => { io.mkdir(at(dirfd, p, n)); return 0; }),
    path_remove_directory: guard((dirfd, p, n) => { io.rmdir(at(dirfd, p, n)); return 0; }),
    path_unlink_file: guard((dirfd, p, n) => { io.unlink(at(dirfd, p, n)); return 0; }),
    proc_exit: (code) => { throw new ProcExit(code); },
    random_get: (p, n) => {
      const out = bytes(p, n);
      const b = new Uint8Array(Math.min(out.length, 65536));
      for (let o = 0; o < out.length; o += b.length) {
        const k = Math.min(b.length, out.length - o);
        crypto.getRandomValues(b.subarray(0, k));
        out.set(b.subarray(0, k), o);
      }
      return 0;
    },
    sched_yield: () => 0,
  };
  const threads = {
    'thread-spawn': (arg) => {
      // The limit on threads is the host's to keep: the program's memory is its own.
      if (Atomics.add(ctl, CTL_LIVE, 1) >= Atomics.load(ctl, CTL_MAX)) {
        Atomics.sub(ctl, CTL_LIVE, 1);
        if (Atomics.compareExchange(ctl, CTL_WARNED, 0, 1) === 0) {
          io.warn(`pnacl runtime: the program reached its limit of ${Atomics.load(ctl, CTL_MAX)} threads `
            + '(PNACL_MAX_THREADS): no more are created\n');
        }
        return -1;
      }
      const tid = Atomics.add(ctl, CTL_NEXT_TID, 1);
      if (tid >= 0x1fffffff) {
        Atomics.sub(ctl, CTL_LIVE, 1);
        return -1;
      }
      io.spawn(tid, arg);
      return tid;
    },
  };
  // The runtime's own: its PPAPI host says when a plugin's instance is made.
  const pnacl = { ppapi_ready: () => { if (io.ready) io.ready(); } };
  // 3-D graphics (runtime/ppapi/ppb_graphics3d.h): a page's worker gives WebGL (host_gl.js); where no
  // page is, the imports exist but are never reached (the runtime offers the interfaces
  // only in a page).
  const gl = io.gl ? io.gl(memory) : new Proxy({}, { get: () => () => 0 });
  return { env: { memory }, wasi_snapshot_preview1: wasi, wasi: threads, pnacl, gl };
}

// The host's operations in a browser (a page's worker): standard streams the page shows
// (`post` sends it what the program writes), no files, the browser's clocks. The page
// hosts (host_web.js, host_plugin.js) start from these.
export function webIo(post) {
  const none = () => { const e = new Error('NOTCAPABLE'); e.code = 'NOTCAPABLE'; throw e; };
  return {
    errno: (e) => ERRNO[e && e.code] ?? ERRNO.EIO,
    // Both on the one timeline every worker shares (its origin plus its own count): a
    // worker's performance.now() alone counts from the worker's start, and a plugin's
    // threads are workers (stockfish divided by an elapsed time of 0 across two).
    clock: () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)),
    close: () => {},
    filetype: () => ({ filetype: FILETYPE.CHAR, seekable: false }),
    fstat: () => ({ dev: 0, ino: 0, nlink: 1, size: 0, atim: 0, mtim: 0, ctim: 0, filetype: FILETYPE.CHAR }),
    read: () => new Uint8Array(0),
    write: (_h, fd, bytes) => { post({ fd, bytes }); return bytes.length; },
    readdir: none, open: none, stat: none, mkdir: none, rmdir: none, unlink: none,
    spawn: (tid, arg) => post({ spawn: tid, arg }),
    warn: (text) => post({ fd: 2, bytes: new TextEncoder().encode(text) }),
    trapped: (e) => post({ fd: 2, bytes: new TextEncoder().encode(`pnacl: the program trapped: ${e.message}\n`) }),
  };
}

// The memory a module imports: its limits, read from its import section (the host
// makes it, shared, for all of the program's threads).
export function memoryLimits(bytes) {
  let i = 8;
  const u = () => { let r = 0, s = 0, b; do { b = bytes[i++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80); return r >>> 0; };
  while (i < bytes.length) {
    const id = bytes[i++], size = u(), end = i + size;
    if (id === 2) {
      for (let n = u(); n > 0; n--) {
        for (let k = 0; k < 2; k++) { const len = u(); i += len; } // module, name
        const kind = bytes[i++];
        if (kind === 2) {
          const flags = bytes[i++];
          const initial = u();
          const maximum = flags & 1 ? u() : 65536;
          return { initial, maximum, shared: (flags & 2) !== 0 };
        }
        if (kind === 0) u(); // a function: its type
        else if (kind === 1) { i++; const f = bytes[i++]; u(); if (f & 1) u(); } // a table
        else if (kind === 3) i += 2; // a global
        else if (kind === 4) { i++; u(); } // a tag
      }
    }
    i = end;
  }
  throw new Error('the module imports no memory');
}

// Runs one thread of the program here: the main thread (`tid` 0, `_start`) or
// a spawned one. Returns the exit status when the program exits here, or null when the
// thread ends.
export async function runThread({ module, memory, fds, pos, ctl, io, ctx, tid, arg }) {
  const instance = await WebAssembly.instantiate(module, makeImports({ memory, fds, pos, ctl, io, ctx }));
  const code = enterThread(instance, io, tid, arg);
  if (code === null) Atomics.sub(ctl, CTL_LIVE, 1);
  return code;
}

// Runs thread `tid` of the program on `instance` (see runThread).
export function enterThread(instance, io, tid, arg) {
  try {
    if (tid === 0) instance.exports._start();
    else instance.exports.wasi_thread_start(tid, arg);
    return tid === 0 ? 0 : null;
  } catch (e) {
    if (e instanceof ProcExit) return e.code;
    if (e instanceof WebAssembly.RuntimeError || e instanceof HostTrap) {
      io.trapped(e);
      return 134;
    }
    throw e;
  }
}

// The shared tables of a new program: its descriptors (0, 1, 2 the standard streams as
// `std` says, 3 the root if there is one), each one's position (-1 where it has none),
// and the control words.
export function sharedTables(std, hasRoot, maxThreads = DEFAULT_MAX_THREADS) {
  const fds = new Int32Array(new SharedArrayBuffer(4 * MAX_FDS)).fill(FD_FREE);
  for (let i = 0; i < 3; i++) fds[i] = std[i];
  if (hasRoot) fds[3] = FD_ROOT;
  const pos = new BigInt64Array(new SharedArrayBuffer(8 * MAX_FDS)).fill(-1n);
  const ctl = new Int32Array(new SharedArrayBuffer(4 * CTL_WORDS));
  ctl[CTL_NEXT_TID] = 1;
  ctl[CTL_LIVE] = 1;
  ctl[CTL_MAX] = maxThreads;
  return { fds, pos, ctl };
}
