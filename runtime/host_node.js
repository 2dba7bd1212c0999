// node's part of the host (after host_core.js): `node X.mjs ARGS` runs the program as a
// native one runs, with the same standard streams, arguments (argv[0] the launcher's
// name, or PNACL_ARGV0), environment and exit status. Its first thread runs on node's main
// thread, each other one in a worker (`worker_threads`) whose script is this file.
// PNACL_FS_ROOT names the one directory it may reach (PNACL_FS_READONLY=1: only to read).

import { CTL_EXIT, DEFAULT_MAX_THREADS, ERRNO, FD_ROOT, FILETYPE, THREAD_SLOTS, enterThread, makeImports, memoryLimits, runThread, sharedTables } from './host_core.js';

const { Worker, isMainThread, parentPort } = await import('node:worker_threads');
const vm = await import('node:vm');
const fs = await import('node:fs');
const path = await import('node:path');
const os = await import('node:os');
const tty = await import('node:tty');

const C = fs.constants;

// A host error for `errno`.
function hostError(code) {
  const e = new Error(code);
  e.code = code;
  return e;
}

// Sleeps this thread (a worker may block).
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const nap = (ms) => Atomics.wait(sleeper, 0, 0, ms);

function nodeIo({ root, readonly, spawn }) {
  const statOf = (st) => ({
    dev: st.dev, ino: st.ino, nlink: st.nlink, size: st.size,
    atim: st.atimeNs, mtim: st.mtimeNs, ctim: st.ctimeNs,
    filetype: st.isDirectory() ? FILETYPE.DIR : st.isFile() ? FILETYPE.FILE
      : st.isCharacterDevice() ? FILETYPE.CHAR : st.isSymbolicLink() ? FILETYPE.LINK
        : st.isSocket() ? FILETYPE.SOCKET : FILETYPE.UNKNOWN,
  });
  // The host path of a directory descriptor: the root, or a directory the program opened.
  const dirPath = (dir) => (dir === FD_ROOT ? root : fs.readlinkSync(`/proc/self/fd/${dir}`));
  // Whether host path `p` is the root or beneath it.
  const inside = (p) => p === root || p.startsWith(root + path.sep);
  // `rel` beneath directory descriptor `dir`, as a host path: `..` never above the root,
  // no symbolic link on the way (as the native runtime, which refuses them: one could
  // lead out), the last component perhaps missing (to be created).
  const beneath = ({ dir, path: rel }) => {
    if (root === null || (dir !== FD_ROOT && dir < 0)) throw hostError('NOTCAPABLE');
    if (rel.startsWith('/') || rel.includes('\0')) throw hostError('NOTCAPABLE');
    const base = dirPath(dir);
    if (!inside(base)) throw hostError('NOTCAPABLE');
    const parts = [];
    for (const c of rel.split('/')) {
      if (c === '' || c === '.') continue;
      if (c === '..') {
        if (parts.length === 0 && base === root) throw hostError('NOTCAPABLE');
        if (parts.length === 0) throw hostError('NOTCAPABLE');
        parts.pop();
      } else parts.push(c);
    }
    let cur = base;
    for (let i = 0; i < parts.length; i++) {
      cur = path.join(cur, parts[i]);
      let st;
      try {
        st = fs.lstatSync(cur);
      } catch (e) {
        if (e.code === 'ENOENT' && i === parts.length - 1) break;
        throw e;
      }
      if (st.isSymbolicLink()) throw hostError('NOTCAPABLE');
    }
    return cur;
  };
  const writable = () => {
    if (readonly) throw hostError('EROFS');
  };
  return {
    errno: (e) => ERRNO[e && e.code] ?? ERRNO.EIO,
    clock: (id) => {
      if (id === 0) return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
      if (id === 1) return process.hrtime.bigint();
      const u = process.cpuUsage();
      return BigInt(u.user + u.system) * 1000n;
    },
    close: (h) => fs.closeSync(h),
    filetype: (h) => {
      if (tty.isatty(h)) return { filetype: FILETYPE.CHAR, seekable: false };
      const st = fs.fstatSync(h);
      const t = statOf(st).filetype;
      return { filetype: t, seekable: st.isFile() || (st.isCharacterDevice() && !st.isFIFO()) };
    },
    fstat: (h) => statOf(fs.fstatSync(h, { bigint: true })),
    read: (h, len, at) => {
      const b = Buffer.alloc(len);
      for (;;) {
        try {
          return b.subarray(0, fs.readSync(h, b, 0, len, at));
        } catch (e) {
          if (e.code === 'EAGAIN') nap(1);
          else if (e.code === 'EOF') return b.subarray(0, 0);
          else throw e;
        }
      }
    },
    write: (h, _fd, bytes, at) => {
      let done = 0;
      while (done < bytes.length) {
        try {
          done += fs.writeSync(h, bytes, done, bytes.length - done, at === null ? null : Number(at) + done);
        } catch (e) {
          if (e.code === 'EAGAIN') nap(1);
          else throw e;
        }
      }
      return done;
    },
    readdir: (h) => {
      const d = dirPath(h);
      const ino = (p) => fs.lstatSync(p, { bigint: true }).ino;
      const list = [{ name: '.', ino: ino(d), filetype: FILETYPE.DIR },
        { name: '..', ino: ino(path.dirname(d)), filetype: FILETYPE.DIR }];
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        list.push({ name: e.name, ino: ino(path.join(d, e.name)),
          filetype: e.isDirectory() ? FILETYPE.DIR : e.isFile() ? FILETYPE.FILE
            : e.isSymbolicLink() ? FILETYPE.LINK : FILETYPE.UNKNOWN });
      }
      return list;
    },
    open: (at, oflags, rights, fdflags) => {
      const p = beneath(at);
      const read = (rights & (1n << 1n)) !== 0n, write = (rights & (1n << 6n)) !== 0n;
      if (write || oflags & (1 | 8)) writable();
      let flags = (read && write ? C.O_RDWR : write ? C.O_WRONLY : C.O_RDONLY) | C.O_NOFOLLOW;
      if (oflags & 1) flags |= C.O_CREAT;
      if (oflags & 2) flags |= C.O_DIRECTORY;
      if (oflags & 4) flags |= C.O_EXCL;
      if (oflags & 8) flags |= C.O_TRUNC;
      if (fdflags & 1) flags |= C.O_APPEND;
      const h = fs.openSync(p, flags, 0o666);
      // What was opened is beneath the root, whatever changed on the way there.
      if (!inside(fs.readlinkSync(`/proc/self/fd/${h}`))) {
        fs.closeSync(h);
        throw hostError('NOTCAPABLE');
      }
      return h;
    },
    stat: (at) => {
      const p = beneath(at);
      const st = fs.lstatSync(p, { bigint: true });
      return statOf(st);
    },
    mkdir: (at) => { writable(); fs.mkdirSync(beneath(at)); },
    rmdir: (at) => { writable(); fs.rmdirSync(beneath(at)); },
    unlink: (at) => {
      writable();
      const p = beneath(at);
      if (fs.lstatSync(p).isDirectory()) throw hostError('EISDIR');
      fs.unlinkSync(p);
    },
    spawn,
    trapped: (e) => fs.writeSync(2, `pnacl: the program trapped: ${e.message}\n`),
    warn: (text) => fs.writeSync(2, text),
  };
}

// The program's end, from any of its threads: node's main thread ends the process; a worker
// leaves the status in the control words and interrupts the main thread (SIGINT, which
// ends the main thread's script, see below, whether it runs or waits on a futex; a
// blocking read of its own ends first), then waits to be ended with the rest.
function endProgram(ctl, code) {
  if (isMainThread) process.exit(code);
  Atomics.compareExchange(ctl, CTL_EXIT, 0, code + 1);
  process.kill(process.pid, 'SIGINT');
  Atomics.wait(sleeper, 0, 0);
}

// The host itself failed (not the program): says so and ends the program.
function hostFailed(ctl, e) {
  fs.writeSync(2, `pnacl: ${e.stack || e}\n`);
  endProgram(ctl, 134);
}

// Starts thread `tid` in a new worker. A worker started by a worker is that worker's:
// it lives on when its starter's thread ends (a worker stays while it has workers).
function startThread(shared, tid, arg) {
  const w = new Worker(new URL(import.meta.url));
  w.on('error', (e) => hostFailed(shared.ctl, e));
  w.postMessage({ ...shared, tid, arg });
}

// One thread's host, with its own view of the program's shared state.
function threadIo(shared) {
  return nodeIo({ ...shared, spawn: (tid, arg) => startThread(shared, tid, arg) });
}

if (isMainThread) {
  const bytes = fs.readFileSync(new URL(MODULE_FILE, import.meta.url));
  const limits = memoryLimits(bytes);
  const memory = new WebAssembly.Memory({ initial: limits.initial, maximum: limits.maximum, shared: true });
  let root = null;
  if (process.env.PNACL_FS_ROOT) {
    try {
      root = fs.realpathSync(process.env.PNACL_FS_ROOT);
      if (!fs.statSync(root).isDirectory()) throw new Error();
    } catch {
      process.stderr.write('pnacl runtime: PNACL_FS_ROOT does not name a directory\n');
      process.exit(127);
    }
  }
  const readonly = process.env.PNACL_FS_READONLY === '1';
  let maxThreads = DEFAULT_MAX_THREADS;
  if (process.env.PNACL_MAX_THREADS !== undefined) {
    maxThreads = /^[0-9]{1,4}$/.test(process.env.PNACL_MAX_THREADS) ? Number(process.env.PNACL_MAX_THREADS) : 0;
    if (maxThreads < 1 || maxThreads > THREAD_SLOTS) {
      process.stderr.write('pnacl runtime: PNACL_MAX_THREADS is not a number of threads from 1 to 4096\n');
      process.exit(127);
    }
  }
  const { fds, pos, ctl } = sharedTables([0, 1, 2], root !== null, maxThreads);
  // argv[0]: the launcher's name, or PNACL_ARGV0.
  const argv0 = process.env.PNACL_ARGV0 ?? path.basename(process.argv[1], '.mjs');
  // The environment: only what the user hands the program (PNACL_ENV_NAME=value becomes
  // NAME=value), and for the runtime, which reads its settings there and hands none of
  // them on, the other PNACL_ variables and the processor count.
  const env = Object.entries(process.env)
    .filter(([k]) => k.startsWith('PNACL_') && (!k.startsWith('PNACL_ENV_') || k.length > 10))
    .map(([k, v]) => (k.startsWith('PNACL_ENV_') ? `${k.slice(10)}=${v}` : `${k}=${v}`));
  const ctx = {
    args: [argv0, ...process.argv.slice(2)],
    env: [...env, `PNACL_NPROCS=${os.availableParallelism ? os.availableParallelism() : os.cpus().length}`],
  };
  // V8's own tiering: each function's baseline code first, optimized once it has run
  // enough. A call that loops long hands over to a new call of its function, which runs
  // the optimized code (pnacl-translate's resume points, src/llvm/resume.rs), by a tail
  // call: on by default from node 20, behind this flag in node 18.
  (await import('node:v8')).setFlagsFromString('--experimental-wasm-return-call');
  const module = await WebAssembly.compile(bytes);
  const shared = { module, memory, fds, pos, ctl, ctx, root, readonly };
  const io = threadIo(shared);
  const instance = await WebAssembly.instantiate(module, makeImports({ memory, fds, pos, ctl, io, ctx }));
  // The first thread runs here, in a script that SIGINT ends (breakOnSigint): that is how
  // another thread ends the program (endProgram), and how Ctrl-C ends it as it ends a
  // native program.
  globalThis.pnaclMain = () => enterThread(instance, io, 0, 0);
  let code;
  try {
    code = vm.runInThisContext('pnaclMain()', { breakOnSigint: true });
  } catch (e) {
    if (e.code !== 'ERR_SCRIPT_EXECUTION_INTERRUPTED') hostFailed(ctl, e);
    const status = Atomics.load(ctl, CTL_EXIT);
    if (status === 0) {
      // Ctrl-C: the program dies of it, as a native one does.
      process.kill(process.pid, 'SIGINT');
      nap(1000);
      process.exit(130);
    }
    code = status - 1;
  }
  // A thread's exit racing the first thread's own ends in this status, not in SIGINT.
  process.on('SIGINT', () => {});
  process.exit(code);
} else {
  parentPort.once('message', async ({ tid, arg, ...shared }) => {
    let code;
    try {
      code = await runThread({ ...shared, io: threadIo(shared), tid, arg });
    } catch (e) {
      hostFailed(shared.ctl, e);
    }
    if (code !== null) endProgram(shared.ctl, code);
    else parentPort.close();
  });
}
