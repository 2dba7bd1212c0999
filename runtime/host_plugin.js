// The page's part of the host for browser plugins (a module: what it takes from the others
// it imports; src/translate/js.rs assembles them): `pnacl.js`, the
// one script a Chrome-era NaCl page needs to run in today's browsers. In the page it
// turns each `<embed>` or `<object>` of type application/x-pnacl or application/x-nacl
// (those in the page, and those added later, by its scripts too) into a working plugin
// with the element API Chrome gave it: `postMessage`, `message` events whose `data` is converted as Chrome converted vars,
// `loadstart`/`progress`/`load`/`error`/`loadend`/`crash` events, `readyState`,
// `lastError`, `exitStatus`. The element's manifest (.nmf) names the pexe; the script runs
// its WebAssembly translation (the same name, `.wasm`, which `pnacl-translate --site`
// writes beside it) on the runtime's PPAPI host, in a worker (blocking allowed, as NaCl
// ran plugins out of process), its threads in further workers, on shared memory: the
// page's thread never waits for the plugin.
//
// Messages cross as lines of JSON (the runtime's PNACL_MESSAGES=json): into the plugin
// through a ring of shared memory its message reader blocks on, out of it as the writes
// of its standard output. Console output and the plugin's own writes go to the console.
// The PPAPI host's channel to the page (PNACL_PAGE=1; ppapi.h) is its descriptor 3:
// what it writes there (a device bound, a frame to show) comes here as records; what
// the page answers (a frame shown) goes into a second ring, which the host's channel
// reader blocks on.
//
// In a worker, the same script runs one of the plugin's threads.

import { FD_STREAM, memoryLimits, runThread, sharedTables } from './host_core.js';
import { urlLoads } from './host_fetch.js';
import { webSockets } from './host_socket.js';
import { pluginSounds } from './host_sound.js';
import { pluginInput } from './host_input.js';
import { pluginScreen } from './host_screen.js';
import { glContexts, glImports } from './host_gl.js';
import { PAGE_SLICE_MS, pluginLimits, doneWith, textRoom, textGate, messageGate, channelGate, L_MSG_DONE, L_MSG_POSTS, L_REC_DONE, L_REC_POSTS } from './host_bounds.js';
import { answerQuotaRequests, keptFiles } from './host_files.js';
import { pluginVideo } from './host_video.js';
import { TO_AUDIO_START, TO_AUDIO_STOP, TO_BIND, TO_CONSOLE, TO_CURSOR, TO_FLUSH, TO_FS_LOAD, TO_FS_MKDIR, TO_FS_REMOVE, TO_FS_RENAME, TO_FS_SIZE, TO_FS_SYNC, TO_FS_WRITE, TO_INPUT, TO_URL_CLOSE, TO_URL_OPEN, TO_VD_BUFFER, TO_VD_DECODE, TO_VD_DESTROY, TO_VD_FLUSH, TO_VD_INIT, TO_VD_RESET, TO_WS_CLOSE, TO_WS_OPEN, TO_WS_SEND } from './host_channel.js';

const PNACL_TYPE = 'application/x-pnacl';
// Chrome ran a manifest's portable program in an element of either type.
const NACL_TYPE = 'application/x-nacl';
const RING_BYTES = 1 << 20;
// How lately a plugin must have printed for its line to be shown when it crashes.
const RECENT_MS = 2000;
// The ring's control words: [0] bytes written, [1] bytes read (both counting on, modulo
// 2^32), [2] whether the page waits for room.
const RING_WRITTEN = 0, RING_READ = 1, RING_WAITING = 2;
// The host channel's descriptor in the WASI table. Its records' kinds (TO_BIND, …,
// FROM_FLUSHED, …, and TO_LAST) come before this script in pnacl.js, written from
// runtime/ppapi/channel.def (translate::channel_kinds), the one list the C host reads too.
const FD_CHANNEL = -4;

const newRing = () => ({
  ctl: new Int32Array(new SharedArrayBuffer(16)),
  data: new Uint8Array(new SharedArrayBuffer(RING_BYTES)),
  queue: [],
});

// Writes what `ring`'s queue holds, as far as there is room (the rest waits for the
// reader's `drained`).
const flushRing = (ring) => {
  const { ctl, data } = ring;
  while (ring.queue.length) {
    const chunk = ring.queue[0];
    const written = Atomics.load(ctl, RING_WRITTEN) >>> 0;
    const free = RING_BYTES - ((written - (Atomics.load(ctl, RING_READ) >>> 0)) >>> 0);
    if (free === 0) {
      // Asked before looking again: the reader may have taken everything meanwhile.
      Atomics.store(ctl, RING_WAITING, 1);
      if (((Atomics.load(ctl, RING_WRITTEN) - Atomics.load(ctl, RING_READ)) >>> 0) === RING_BYTES) return;
      continue;
    }
    const n = Math.min(free, chunk.length);
    for (let i = 0; i < n;) {
      const at = (written + i) % RING_BYTES;
      const k = Math.min(n - i, RING_BYTES - at);
      data.set(chunk.subarray(i, i + k), at);
      i += k;
    }
    Atomics.store(ctl, RING_WRITTEN, (written + n) | 0);
    Atomics.notify(ctl, RING_WRITTEN);
    if (n === chunk.length) ring.queue.shift();
    else ring.queue[0] = chunk.subarray(n);
  }
};

// Blocks until `ring` holds something, then takes up to `len` bytes (in a worker).
const readRing = (ring, len, drained) => {
  const c = ring.ctl;
  for (;;) {
    const written = Atomics.load(c, RING_WRITTEN);
    const read = Atomics.load(c, RING_READ) >>> 0;
    const n = Math.min(len, ((written >>> 0) - read) >>> 0);
    if (n > 0) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n;) {
        const at = (read + i) % RING_BYTES;
        const k = Math.min(n - i, RING_BYTES - at);
        out.set(ring.data.subarray(at, at + k), i);
        i += k;
      }
      Atomics.store(c, RING_READ, (read + n) | 0);
      if (Atomics.exchange(c, RING_WAITING, 0)) drained();
      return out;
    }
    Atomics.wait(c, RING_WRITTEN, written);
  }
};

// A var's JSON line back into a page value.
const fromJson = (line) => JSON.parse(line, (_k, v) => {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === '$arraybuffer' && typeof v.$arraybuffer === 'string') {
      const s = atob(v.$arraybuffer);
      const b = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
      return b.buffer;
    }
  }
  return v;
});

if (typeof document !== 'undefined') {
  // Pages ask whether the browser has NaCl before they make the element (the SDK's
  // common.js: navigator.mimeTypes['application/x-pnacl'] !== undefined; others
  // application/x-nacl, or navigator.plugins['Native Client']): now it has, listed as
  // Chrome listed its built-in plugin, by name, by index and by namedItem.
  (() => {
    const plugin = { name: 'Native Client', filename: 'internal-nacl-plugin', description: '' };
    const mimes = [
      { type: NACL_TYPE, suffixes: '', description: 'Native Client Executable', enabledPlugin: plugin },
      { type: PNACL_TYPE, suffixes: '', description: 'Portable Native Client Executable', enabledPlugin: plugin },
    ];
    mimes.forEach((m, i) => { plugin[i] = m; plugin[m.type] = m; });
    plugin.length = mimes.length;
    plugin.item = (i) => mimes[i] || null;
    plugin.namedItem = (n) => mimes.find((m) => m.type === n) || null;
    // The browser's own list (a live, array-like object) with `extra` after its entries,
    // each also by its `key`.
    const extend = (name, extra, key) => {
      const real = Object.getOwnPropertyDescriptor(Navigator.prototype, name);
      if (!real || !real.get) return;
      const named = (t, n) => (t.namedItem(n) || extra.find((x) => x[key] === n) || null);
      // An index of the extended list (a property name of digits, within its length).
      const index = (t, p) => typeof p === 'string' && /^(0|[1-9][0-9]*)$/.test(p)
        && Number(p) < t.length + extra.length;
      const at = (t, i) => (i < t.length ? t.item(i) : extra[i - t.length] || null);
      Object.defineProperty(Navigator.prototype, name, {
        configurable: true,
        enumerable: true,
        get() {
          const list = real.get.call(this);
          const own = (t, p) => extra.some((x) => x[key] === p) && !t.namedItem(p);
          return new Proxy(list, {
            get(t, p) {
              if (p === 'length') return t.length + extra.length;
              if (p === 'item') return (i) => at(t, i >>> 0);
              if (p === 'namedItem') return (n) => named(t, String(n));
              if (p === Symbol.iterator) return function* () { for (let i = 0; i < t.length + extra.length; i++) yield at(t, i); };
              if (index(t, p)) return at(t, Number(p));
              if (typeof p === 'string' && /^(0|[1-9][0-9]*)$/.test(p)) return undefined;
              if (typeof p === 'string' && own(t, p)) return named(t, p);
              const v = Reflect.get(t, p, t);
              return typeof v === 'function' ? v.bind(t) : v;
            },
            has: (t, p) => (typeof p === 'string' && own(t, p)) || index(t, p) || Reflect.has(t, p),
            ownKeys: (t) => {
              const n = t.length + extra.length;
              const keys = Array.from({ length: n }, (_, i) => String(i));
              return keys.concat(Reflect.ownKeys(t).filter((k) => !keys.includes(k)));
            },
            getOwnPropertyDescriptor: (t, p) => {
              if (index(t, p)) return { value: at(t, Number(p)), enumerable: true, configurable: true, writable: false };
              return Reflect.getOwnPropertyDescriptor(t, p);
            },
          });
        },
      });
    };
    extend('mimeTypes', mimes, 'type');
    extend('plugins', [plugin], 'name');
  })();
  answerQuotaRequests();

  const scriptUrl = document.currentScript ? document.currentScript.src : new URL('pnacl.js', location.href).href;

  // Chrome's conversion of a page value into a var (ppapi.md §5.4), as a JSON line the
  // runtime reads back into the same var: an int32 is an integer, any other number has a
  // fraction or an exponent, an ArrayBuffer is {"$arraybuffer": BASE64}. Throws on a cycle.
  const toJson = (v, seen = new Set()) => {
    if (v === undefined || v === null) return 'null';
    if (typeof v === 'boolean' || v instanceof Boolean) return String(v.valueOf());
    if (typeof v === 'number' || v instanceof Number) {
      const n = v.valueOf();
      if (!Number.isFinite(n)) return 'null';
      if (Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 && !Object.is(n, -0)) return String(n);
      const t = JSON.stringify(n);
      return /[.eE]/.test(t) ? t : `${t}.0`;
    }
    if (typeof v === 'string' || v instanceof String) return JSON.stringify(v.valueOf());
    if (typeof v === 'bigint' || typeof v === 'symbol') return 'null';
    if (seen.has(v)) throw new Error('the message holds a cycle');
    seen.add(v);
    let out;
    if (v instanceof ArrayBuffer) {
      const b = new Uint8Array(v);
      let s = '';
      for (let i = 0; i < b.length; i += 32768) s += String.fromCharCode.apply(null, b.subarray(i, i + 32768));
      out = `{"$arraybuffer":"${btoa(s)}"}`;
    } else if (Array.isArray(v)) {
      const items = [];
      for (let i = 0; i < v.length; i++) items.push(i in v ? toJson(v[i], seen) : 'null');
      out = `[${items.join(',')}]`;
    } else {
      const items = [];
      for (const k of Object.keys(v)) {
        const d = Object.getOwnPropertyDescriptor(v, k);
        if (d && 'value' in d) items.push(`${JSON.stringify(k)}:${toJson(d.value, seen)}`);
      }
      out = `{${items.join(',')}}`;
    }
    seen.delete(v);
    return out;
  };

  // The element's attributes as Chrome gave them to DidCreate (§5.1): an <object>'s
  // <param>s first, then its attributes (a param of the same name wins), then `src` from
  // `data` if it has none.
  const attributes = (el) => {
    const list = [];
    const seen = new Set();
    if (el.localName === 'object') {
      for (const p of el.querySelectorAll(':scope > param')) {
        const n = (p.getAttribute('name') || '').toLowerCase();
        if (n && !seen.has(n)) { seen.add(n); list.push([n, p.getAttribute('value') || '']); }
      }
    }
    for (const a of el.attributes) if (!seen.has(a.name)) { seen.add(a.name); list.push([a.name, a.value]); }
    if (!seen.has('src') && el.hasAttribute('data')) list.push(['src', el.getAttribute('data')]);
    return list;
  };

  const fire = (el, type, init = {}) => {
    const e = new ProgressEvent(type, { bubbles: true, ...init });
    el.dispatchEvent(e);
  };

  const plugins = new Map();

  const attach = (el) => {
    if (plugins.has(el)) return;
    const state = { workers: [], ended: false, loaded: false, queue: [], ring: null, lastLine: '', lastAt: 0 };
    plugins.set(el, state);
    let readyState = 0, lastError = '', exitStatus = -1;
    Object.defineProperty(el, 'readyState', { configurable: true, get: () => readyState });
    Object.defineProperty(el, 'lastError', { configurable: true, get: () => lastError });
    Object.defineProperty(el, 'exitStatus', { configurable: true, get: () => exitStatus });

    const flush = () => { if (state.ring) flushRing(state.ring); };
    const toHost = (words) => {
      if (!state.channel) return;
      state.channel.queue.push(new Uint8Array(new Uint32Array(words).buffer));
      flushRing(state.channel);
    };
    // A record of words then bytes (its length word first).
    const toHostWith = (words, bytes) => {
      if (!state.channel) return;
      const rec = new Uint8Array(4 * (words.length + 1) + bytes.length);
      new DataView(rec.buffer).setUint32(0, rec.length, true);
      words.forEach((w, i) => new DataView(rec.buffer).setUint32(4 * (i + 1), w >>> 0, true));
      rec.set(bytes, 4 * (words.length + 1));
      state.channel.queue.push(rec);
      flushRing(state.channel);
    };

    // URL loading (host_fetch.js) and WebSockets (host_socket.js).
    const urls = urlLoads(toHostWith);
    const { open: openSocket, sockets } = webSockets(toHostWith);
    // The local file systems kept in the origin's private file system (host_files.js).
    const files = keptFiles(toHostWith, (line) => console.warn(`NaCl module: ${line}`));
    el.postMessage = (message) => {
      if (state.ended) return;
      let line;
      try {
        line = toJson(message);
      } catch (e) {
        console.error(`NaCl module: the message cannot be converted: ${e.message}`);
        return;
      }
      state.queue.push(new TextEncoder().encode(`${line}\n`));
      if (state.ring) {
        state.ring.queue.push(...state.queue.splice(0));
        flush();
      }
    };

    const stop = () => {
      state.ended = true;
      for (const w of state.workers) w.terminate();
      for (const ws of sockets.values()) ws.close();
      if (state.sounds) state.sounds.stopAll();
      if (state.video) state.video.stopAll();
    };
    const fail = (why) => {
      if (state.ended) return;
      stop();
      readyState = 4;
      lastError = `NaCl module load failed: ${why}`;
      console.error(lastError);
      fire(el, 'error');
      fire(el, 'loadend');
    };
    // What lastError says is the host's own words (or the engine's, for a trap), never
    // the plugin's: a page may show it as HTML (the SDK's common.js did).
    const crash = (status, why) => {
      if (state.ended) return;
      stop();
      exitStatus = status;
      lastError = why ? `NaCl module crashed: ${why}` : 'NaCl module crashed';
      // What it printed last, if lately, and said to be that (not why it crashed): a line
      // from long before would read as the cause.
      const ago = Math.round(performance.now() - state.lastAt);
      if (state.lastLine && ago <= RECENT_MS) {
        console.error(`NaCl module: the last line it printed, ${ago} ms before it crashed: ${state.lastLine}`);
      }
      fire(el, 'crash');
    };
    state.stop = stop;

    // What the plugin's workers send, worked on in slices of PAGE_SLICE_MS at most (the
    // rest in a task of its own, after whatever else the page has to do).
    const inbox = [];
    let draining = false;
    const drain = () => {
      const until = performance.now() + PAGE_SLICE_MS;
      while (inbox.length && !state.ended) {
        // (A fault of the host's own in one piece of work is the page's to see, and the
        // rest goes on.)
        try { inbox.shift()(); } catch (e) { setTimeout(() => { throw e; }); }
        if (performance.now() >= until) break;
      }
      draining = inbox.length > 0 && !state.ended;
      if (draining) setTimeout(drain, 0);
    };
    const later = (work) => {
      inbox.push(work);
      if (!draining) { draining = true; setTimeout(drain, 0); }
    };
    // The host's own words (a trap, a limit reached): short, and few.
    const hostText = new TextDecoder();
    const say = (line) => {
      if (line) { state.lastLine = line; state.lastAt = performance.now(); }
      console.log(line);
    };

    const start = async () => {
      const args = attributes(el);
      const src = args.find(([n]) => n === 'src');
      if (!src) throw new Error('the element names no manifest (src or data)');
      readyState = 1;
      fire(el, 'loadstart');
      // The main thread's worker starts now, while the module is fetched and compiled.
      const first = new Worker(scriptUrl);
      state.workers.push(first);
      const manifestUrl = new URL(src[1], document.baseURI);
      const manifest = await (await fetch(manifestUrl)).json();
      const entry = manifest && manifest.program && manifest.program.portable
        && manifest.program.portable['pnacl-translate'];
      if (!entry || typeof entry.url !== 'string') throw new Error('the manifest names no pnacl-translate url');
      const pexeUrl = new URL(entry.url, manifestUrl);
      const wasmUrl = new URL(pexeUrl.href.replace(/(\.[^./]*)?$/, '.wasm'));
      readyState = 3;
      fire(el, 'progress');
      const response = await fetch(wasmUrl);
      if (!response.ok) throw new Error(`${wasmUrl.pathname}: ${response.status} ${response.statusText}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      fire(el, 'progress', { lengthComputable: true, loaded: bytes.length, total: bytes.length });
      if (!self.crossOriginIsolated) {
        throw new Error('the page needs cross-origin isolation for the plugin\'s shared memory '
          + '(serve it with `pnacl-translate --serve DIR`)');
      }
      const module = await WebAssembly.compile(bytes);
      const limits = memoryLimits(bytes);
      const memory = new WebAssembly.Memory({ initial: limits.initial, maximum: limits.maximum, shared: true });
      const { fds, pos, ctl } = sharedTables([FD_STREAM, FD_STREAM, FD_STREAM], false);
      fds[3] = FD_CHANNEL;
      const ring = newRing();
      ring.queue.push(...state.queue.splice(0));
      state.ring = ring;
      const channel = newRing();
      state.channel = channel;
      // The bounds' shared words (above).
      const plugin = pluginLimits();
      // The plugin's 3-D contexts, shared by its workers (host_gl.js).
      const contexts = glContexts();
      // The plugin's sounds (host_sound.js).
      const sounds = pluginSounds(memory, () => state.ended);
      state.sounds = sounds;
      // Its video decoders (host_video.js).
      const video = pluginVideo(memory, toHostWith);
      state.video = video;
      // The element's screen (host_screen.js) and its input events (host_input.js).
      const screen = pluginScreen(el, memory, toHost, state);
      const { listen } = pluginInput(el, screen.target, toHostWith, state);
      // PPB_Console's text, within standard error's bounds (above), counted with it.
      const consoleRoom = (n) => textRoom(plugin, n, (line) => console.warn(line));
      // What each record to the page does (channel.def's TO_ kinds): `rec` its words after
      // its kind, `from(k)` its bytes from byte k of the record on. The records come from
      // the host, but what they say sits in the plugin's memory, which the plugin can
      // write: each one is checked before the page acts on it.
      const toPage = {
        [TO_BIND]: (rec) => screen.bind(rec),
        [TO_URL_OPEN]: (rec, from) => {
          // loader, flags, then four lengths each followed by its bytes
          if (rec.length < 2) return;
          const b = from(0);
          const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
          const fields = [];
          let at = 16;
          for (let k = 0; k < 4 && at + 4 <= b.length; k++) {
            const n = dv.getUint32(at, true);
            at += 4;
            fields.push(b.slice(at, Math.min(b.length, at + n)));
            at += n;
          }
          if (fields.length === 4) {
            const dec = new TextDecoder();
            urls.open(rec[0], rec[1], dec.decode(fields[0]), dec.decode(fields[1]), dec.decode(fields[2]), fields[3]);
          }
        },
        [TO_URL_CLOSE]: (rec) => { if (rec.length >= 1) urls.close(rec[0]); },
        [TO_CONSOLE]: (rec, from) => {
          // PPB_Console: the browser's console, at the plugin's level, prefixed with its
          // source or the plugin's name, as Chrome did.
          if (rec.length < 3) return;
          const [level, ns, nt] = rec, b = from(20);
          if (ns + nt <= b.length && consoleRoom(ns + nt)) {
            const dec = new TextDecoder();
            const source = dec.decode(b.subarray(0, ns));
            const text = dec.decode(b.subarray(ns, ns + nt));
            const method = ['info', 'log', 'warn', 'error'][level] || 'log';
            console[method](`${source || name}: ${text}`);
          }
        },
        // PPB_MouseCursor: type, hot spot, width, height, format (a custom one's pixels
        // follow, row by row)
        [TO_CURSOR]: (rec, from) => { if (rec.length >= 6) screen.cursor(rec, from(32)); },
        // socket, the URL's and the protocols' lengths and bytes
        [TO_WS_OPEN]: (rec, from) => {
          const body = from(16), dec = new TextDecoder();
          if (rec.length >= 3 && 4 + rec[1] + rec[2] <= body.length) {
            openSocket(rec[0], dec.decode(body.subarray(4, 4 + rec[1])), dec.decode(body.subarray(4 + rec[1], 4 + rec[1] + rec[2])));
          }
        },
        // socket, binary | length << 1, the bytes
        [TO_WS_SEND]: (rec, from) => {
          const ws = rec.length >= 2 && sockets.get(rec[0]), n = rec[1] >>> 1, body = from(16);
          if (ws && ws.readyState === WebSocket.OPEN && n <= body.length) {
            const data = body.slice(0, n);
            ws.send(rec[1] & 1 ? data.buffer : new TextDecoder().decode(data));
          }
        },
        // socket, the code (0: none), the reason's bytes
        [TO_WS_CLOSE]: (rec, from) => {
          const ws = rec.length >= 2 && sockets.get(rec[0]);
          const reason = new TextDecoder().decode(from(16)).replace(/\0+$/, '');
          if (ws) {
            try { if (rec[1]) ws.close(rec[1], reason); else ws.close(); } catch { ws.close(); }
          }
        },
        // audio, the ring's address, its frames, the rate; audio
        [TO_AUDIO_START]: (rec) => { if (rec.length >= 4) sounds.start(rec); },
        [TO_AUDIO_STOP]: (rec) => { if (rec.length >= 1) sounds.stop(rec[0]); },
        [TO_INPUT]: (rec) => { if (rec.length >= 2) listen(rec[0], rec[1]); },
        [TO_FLUSH]: (rec) => screen.flush(rec),
        // Video decoding (ppapi/ppb_video_decoder.h): a decoder first, then as channel.def says.
        [TO_VD_INIT]: (rec) => { if (rec.length >= 3) video.init(rec); },
        [TO_VD_DECODE]: (rec) => { if (rec.length >= 4) video.decode(rec); },
        [TO_VD_BUFFER]: (rec) => { if (rec.length >= 6) video.buffer(rec); },
        [TO_VD_FLUSH]: (rec) => { if (rec.length >= 1) video.flush(rec); },
        [TO_VD_RESET]: (rec) => { if (rec.length >= 1) video.reset(rec); },
        [TO_VD_DESTROY]: (rec) => { if (rec.length >= 1) video.destroy(rec); },
        // The local file systems (ppapi/ppb_file_keep.h): a type, then as channel.def says; a
        // path's bytes and a write's are copied out of the ring before they wait.
        [TO_FS_LOAD]: (rec) => { if (rec.length >= 1) files.load(rec[0]); },
        [TO_FS_SYNC]: (rec) => { if (rec.length >= 1) files.sync(rec[0]); },
        [TO_FS_WRITE]: (rec, from) => {
          const b = from(28);
          if (rec.length >= 5 && rec[3] + rec[4] <= b.length) {
            files.write(rec[0], b.slice(0, rec[3]), rec[2] * 2 ** 32 + rec[1], b.slice(rec[3], rec[3] + rec[4]));
          }
        },
        [TO_FS_SIZE]: (rec, from) => {
          const b = from(24);
          if (rec.length >= 4 && rec[3] <= b.length) files.size(rec[0], b.slice(0, rec[3]), rec[2] * 2 ** 32 + rec[1]);
        },
        [TO_FS_MKDIR]: (rec, from) => { if (rec.length >= 2 && rec[1] <= from(16).length) files.mkdir(rec[0], from(16).slice(0, rec[1])); },
        [TO_FS_REMOVE]: (rec, from) => { if (rec.length >= 2 && rec[1] <= from(16).length) files.remove(rec[0], from(16).slice(0, rec[1])); },
        [TO_FS_RENAME]: (rec, from) => {
          const b = from(20);
          if (rec.length >= 3 && rec[1] + rec[2] <= b.length) files.rename(rec[0], b.slice(0, rec[1]), b.slice(rec[1], rec[1] + rec[2]));
        },
      };
      const onHost = (bytes) => {
        const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
        for (let i = 0; i + 2 <= words.length;) {
          const len = words[i] >> 2, kind = words[i + 1], rec = words.subarray(i + 2, i + len);
          const start = bytes.byteOffset + i * 4;
          i += Math.max(len, 2);
          // (Within the record and what came: a record's words are checked by its handler.)
          const size = Math.min(len * 4, bytes.byteOffset + bytes.byteLength - start);
          const from = (k) => (k < size ? new Uint8Array(bytes.buffer, start + k, size - k) : new Uint8Array(0));
          if (Object.hasOwn(toPage, kind)) toPage[kind](rec, from);
        }
      };
      const view = screen.view(), w = view.vw, h = view.vh;
      const name = pexeUrl.pathname.split('/').pop();
      const ctx = {
        args: [name, ...args.map(([n, v]) => `${n}=${v}`)],
        env: ['PNACL_MESSAGES=json', 'PNACL_PAGE=1', 'PNACL_PPAPI_MISSING=1', `PNACL_VIEW=${Math.min(w, 32767)}x${Math.min(h, 32767)}`,
          `PNACL_DEVICE_SCALE=${view.scale.toFixed(2)}`,
          `PNACL_NPROCS=${navigator.hardwareConcurrency || 1}`,
          ...(typeof PNACL_SITE_ENV !== 'undefined' ? PNACL_SITE_ENV : [])],
      };
      const spawn = (tid, arg) => {
        const worker = tid === 0 ? first : new Worker(scriptUrl);
        if (tid !== 0) state.workers.push(worker);
        worker.onmessage = ({ data: m }) => {
          if (state.ended) return;
          if (m.messages) {
            const last = m.messages.length - 1;
            m.messages.forEach((data, i) => later(() => {
              el.dispatchEvent(new MessageEvent('message', { data }));
              doneWith(plugin, L_MSG_DONE, m.sizes[i], i === last ? L_MSG_POSTS : -1);
            }));
          } else if (m.lines) {
            for (const line of m.lines) later(() => say(line));
          } else if (m.fd === 2) {
            for (const line of hostText.decode(m.bytes).split('\n')) if (line) say(line);
          } else if (m.host) {
            later(() => {
              onHost(m.host);
              doneWith(plugin, L_REC_DONE, m.host.length, L_REC_POSTS);
            });
          } else if (m.frame) {
            screen.frame(m.frame, m.device);
          } else if (m.drained) {
            flushRing(m.drained === 'channel' ? channel : ring);
          } else if (m.spawn !== undefined) {
            spawn(m.spawn, m.arg);
          } else if (m.ready) {
            // (These after what the plugin sent before them, as it sent them.)
            later(() => {
              state.loaded = true;
              readyState = 4;
              fire(el, 'load');
              fire(el, 'loadend');
            });
          } else if (m.trapped !== undefined) {
            later(() => {
              state.trapped = m.trapped;
              console.error(`NaCl module: the program trapped: ${m.trapped}`);
            });
          } else if (m.exit !== undefined) {
            later(() => {
              const why = state.trapped ? `the program trapped: ${state.trapped}` : '';
              if (state.loaded) crash(m.exit, why);
              else fail(why || `the module ended with status ${m.exit}`);
            });
          }
        };
        worker.onerror = (e) => {
          e.preventDefault();
          if (state.loaded) crash(-1, e.message);
          else fail(e.message);
        };
        worker.postMessage({ module, memory, fds, pos, ctl, ctx, tid, arg, ring, channel, contexts, limits: plugin });
      };
      spawn(0, 0);
      flush();
    };
    start().catch((e) => fail(e.message || String(e)));
  };

  const scan = (root) => {
    if (root.nodeType !== 1) return;
    const is = (el) => (el.localName === 'embed' || el.localName === 'object')
      && [PNACL_TYPE, NACL_TYPE].includes((el.getAttribute('type') || '').toLowerCase());
    if (is(root)) attach(root);
    for (const el of root.querySelectorAll('embed, object')) if (is(el)) attach(el);
  };
  const forget = (root) => {
    if (root.nodeType !== 1) return;
    for (const [el, state] of plugins) {
      if ((el === root || root.contains(el)) && !el.isConnected) {
        state.stop();
        plugins.delete(el);
      }
    }
  };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) scan(n);
      for (const n of r.removedNodes) forget(n);
    }
  }).observe(document, { childList: true, subtree: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => scan(document.documentElement));
  else scan(document.documentElement);
} else {
  // One of the plugin's threads. Standard input is the ring the page writes messages
  // into; standard output and error go to the page.
  self.onmessage = async ({ data }) => {
    const { module, memory, fds, pos, ctl, ctx, tid, arg, ring, channel, contexts, limits } = data;
    const post = (m, transfer) => self.postMessage(m, transfer || []);
    const text = textGate(limits, post);
    const messages = messageGate(limits, post, text);
    const records = channelGate(limits, post, text);
    const io = {
      gl: (memory) => glImports(memory, post, contexts, tid),
      ...webIo(post),
      // Blocks until the page has written something: messages (the host's message
      // reader), or the page's records (the host's channel reader).
      read: (h, len) => (h === FD_CHANNEL
        ? readRing(channel, len, () => post({ drained: 'channel' }))
        : readRing(ring, len, () => post({ drained: 'messages' }))),
      // Writes come as views of the plugin's memory (`shared`): each gate copies what it
      // keeps, and no more (a flood of text is not copied whole).
      shared: true,
      write: (h, fd, bytes) => {
        if (h === FD_CHANNEL) records(bytes.slice());
        else if (fd === 1) messages(bytes);
        else text.write(bytes);
        return bytes.length;
      },
      ready: () => post({ ready: true }),
      trapped: (e) => post({ trapped: String(e.message).slice(0, 200) }),
    };
    let code;
    try {
      code = await runThread({ module, memory, fds, pos, ctl, io, ctx, tid, arg });
    } catch (e) {
      // Not the program's doing (the module would not instantiate): the page hears of it.
      post({ trapped: String(e && e.message).slice(0, 200) });
      code = 134;
    }
    if (code !== null) post({ exit: code });
  };
}
