// The page's keeping of a plugin's local file systems (PPB_FileSystem's persistent and
// temporary ones; runtime/ppapi/ppb_file_keep.h) in the origin's private file system (OPFS), as
// Chrome kept an origin's: under `ppapi-fs/persistent` and `ppapi-fs/temporary`. The host
// asks for a type's files when the plugin first opens a file system of it (they go back
// as FS_FILE pieces, then FS_LOADED), and tells each change as the plugin makes it; the
// changes are applied here one after another, in that order, the writes to one file that
// wait together through one writable stream. What a record says sits in the plugin's
// memory, which the plugin can write: each type, path and extent is checked before it is
// used (no file past the host's own bound, FS_MAX_BYTES).
// And the quota requests pages made before they loaded their plugin
// (navigator.webkitPersistentStorage and webkitTemporaryStorage, window.webkitStorageInfo
// before them) are answered as Chrome answered an app's: granted.
import { FROM_FS_FILE, FROM_FS_LOADED, FROM_FS_SYNCED, FS_MAX_BYTES } from './host_channel.js';

const KEEP_PIECE = 262144;
const KEEP_TYPES = { 2: 'persistent', 3: 'temporary' };

// A path's components ("/" first; none empty, ".", ".." or holding a NUL), else null.
const pathParts = (bytes) => {
  let path;
  try { path = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return null; }
  if (!path.startsWith('/') || path.length < 2) return null;
  const parts = path.slice(1).split('/');
  return parts.every((p) => p && p !== '.' && p !== '..' && !p.includes('\0')) ? parts : null;
};

// One plugin's kept files: `toHostWith(words, bytes)` sends a record to its host, `warn`
// says a failure (once).
export function keptFiles(toHostWith, warn) {
  const queue = [];
  let running = false, broken = false;
  // Each type's folder, looked up once (again after a failure).
  const roots = new Map();
  const folder = async (type, parts, create) => {
    if (!roots.has(type)) {
      const root = (async () => {
        const top = await (await navigator.storage.getDirectory()).getDirectoryHandle('ppapi-fs', { create: true });
        return top.getDirectoryHandle(KEEP_TYPES[type], { create: true });
      })();
      roots.set(type, root);
      root.catch(() => roots.delete(type));
    }
    let d = await roots.get(type);
    for (const p of parts) d = await d.getDirectoryHandle(p, { create });
    return d;
  };
  const fail = (e) => {
    if (!broken) warn(`the local file systems of the plugin are not kept after this run (${e && e.message})`);
    broken = true;
  };
  // A handle of `name` in `dir`, a file's or a folder's, or null.
  const entry = async (dir, name) => {
    for (const kind of ['getFileHandle', 'getDirectoryHandle']) {
      try { return await dir[kind](name); } catch { /* not of this kind, or not there */ }
    }
    return null;
  };
  const copyInto = async (src, dir, name) => {
    if (src.kind === 'file') {
      const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
      await w.write(await src.getFile());
      await w.close();
    } else {
      const d = await dir.getDirectoryHandle(name, { create: true });
      for await (const [n, h] of src.entries()) await copyInto(h, d, n);
    }
  };
  const removeIn = async (dir, name) => {
    try { await dir.removeEntry(name, { recursive: true }); } catch (e) { if (e.name !== 'NotFoundError') throw e; }
  };
  // The folder of `parts` if it is there (null if not: nothing to remove or move).
  const existing = async (type, parts) => {
    try { return await folder(type, parts, false); } catch (e) { if (e.name === 'NotFoundError') return null; throw e; }
  };
  const run = async () => {
    running = true;
    while (queue.length) {
      const op = queue.shift();
      try {
        if (op.always) await op.always();
        else if (broken) continue;
        else if (op.file) {
          // This change and those waiting right after it for the same file, through one stream.
          const dir = await folder(op.type, op.parts.slice(0, -1), true);
          const w = await (await dir.getFileHandle(op.parts.at(-1), { create: true })).createWritable({ keepExistingData: true });
          try {
            await op.file(w);
            while (queue.length && queue[0].file && queue[0].key === op.key) await queue.shift().file(w);
          } finally {
            await w.close();
          }
        } else {
          await op.run();
        }
      } catch (e) {
        fail(e);
      }
    }
    running = false;
  };
  const push = (op) => {
    queue.push(op);
    if (!running) run();
  };
  const typed = (type) => Object.hasOwn(KEEP_TYPES, type);
  return {
    load(type) {
      if (!typed(type)) return;
      push({
        always: async () => {
          const enc = new TextEncoder();
          const walk = async (dir, path) => {
            for await (const [name, h] of dir.entries()) {
              const p = `${path}/${name}`, pb = enc.encode(p);
              if (h.kind === 'directory') {
                toHostWith([FROM_FS_FILE, type, 1, 0, pb.length, 0], pb);
                await walk(h, p);
                continue;
              }
              const bytes = new Uint8Array(await (await h.getFile()).arrayBuffer());
              let at = 0;
              do {
                const piece = bytes.subarray(at, at + KEEP_PIECE);
                const rec = new Uint8Array(pb.length + piece.length);
                rec.set(pb);
                rec.set(piece, pb.length);
                toHostWith([FROM_FS_FILE, type, 0, at, pb.length, piece.length], rec);
                at += KEEP_PIECE;
              } while (at < bytes.length);
            }
          };
          // The Open waits for FS_LOADED: it goes whatever happens.
          try { await walk(await folder(type, [], true), ''); } finally { toHostWith([FROM_FS_LOADED, type], new Uint8Array(0)); }
        },
      });
    },
    // Answered once every change before it is kept (or refused): the host's call waits.
    sync(token) { push({ always: async () => toHostWith([FROM_FS_SYNCED, token], new Uint8Array(0)) }); },
    write(type, pathBytes, offset, bytes) {
      const parts = typed(type) && pathParts(pathBytes);
      if (!parts || offset + bytes.length > FS_MAX_BYTES) return;
      push({ type, parts, key: `${type}/${parts.join('/')}`, file: (w) => w.write({ type: 'write', position: offset, data: bytes }) });
    },
    size(type, pathBytes, size) {
      const parts = typed(type) && pathParts(pathBytes);
      if (!parts || size > FS_MAX_BYTES) return;
      push({ type, parts, key: `${type}/${parts.join('/')}`, file: (w) => w.truncate(size) });
    },
    mkdir(type, pathBytes) {
      const parts = typed(type) && pathParts(pathBytes);
      if (parts) push({ run: () => folder(type, parts, true) });
    },
    remove(type, pathBytes) {
      const parts = typed(type) && pathParts(pathBytes);
      if (!parts) return;
      push({
        run: async () => {
          const dir = await existing(type, parts.slice(0, -1));
          if (dir) await removeIn(dir, parts.at(-1));
        },
      });
    },
    // (OPFS moves files but not, in every browser, folders: a copy, then the removal.)
    rename(type, fromBytes, toBytes) {
      const from = typed(type) && pathParts(fromBytes), to = pathParts(toBytes);
      if (!from || !to) return;
      push({
        run: async () => {
          const src = await existing(type, from.slice(0, -1));
          const h = src && await entry(src, from.at(-1));
          if (!h) return;
          const dst = await folder(type, to.slice(0, -1), true);
          await removeIn(dst, to.at(-1));
          await copyInto(h, dst, to.at(-1));
          await removeIn(src, from.at(-1));
        },
      });
    },
  };
}

// Chrome granted an app the quota it asked for (a page asked before it loaded its
// plugin, and waited for the answer): where the browser no longer has these objects,
// they answer so, the usage and quota being the origin's storage estimate.
export function answerQuotaRequests() {
  const storage = () => ({
    requestQuota(bytes, granted) { if (typeof granted === 'function') setTimeout(() => granted(bytes), 0); },
    queryUsageAndQuota(answer, failed) {
      navigator.storage.estimate().then((e) => { if (typeof answer === 'function') answer(e.usage, e.quota); },
        (e) => { if (typeof failed === 'function') failed(e); });
    },
  });
  for (const name of ['webkitPersistentStorage', 'webkitTemporaryStorage']) {
    if (!(name in navigator)) Object.defineProperty(Navigator.prototype, name, { configurable: true, value: storage() });
  }
  // And the older window.webkitStorageInfo, whose calls name the type first.
  if (!('webkitStorageInfo' in self)) {
    const s = storage();
    self.webkitStorageInfo = {
      TEMPORARY: 0, PERSISTENT: 1,
      requestQuota: (_type, bytes, granted) => s.requestQuota(bytes, granted),
      queryUsageAndQuota: (_type, answer, failed) => s.queryUsageAndQuota(answer, failed),
    };
  }
}
