// The page's part of the host for browser plugins (after host_core.js): `pnacl.js`, the
// one script a Chrome-era NaCl page needs to run in today's browsers. In the page it
// turns each `<embed>` or `<object>` of type application/x-pnacl (those in the page, and
// those added later) into a working plugin with the element API Chrome gave it:
// `postMessage`, `message` events whose `data` is converted as Chrome converted vars,
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

const PNACL_TYPE = 'application/x-pnacl';
const RING_BYTES = 1 << 20;
// The ring's control words: [0] bytes written, [1] bytes read (both counting on, modulo
// 2^32), [2] whether the page waits for room.
const RING_WRITTEN = 0, RING_READ = 1, RING_WAITING = 2;
// The host channel's descriptor in the WASI table, and its records' kinds (ppapi.h).
const FD_CHANNEL = -4;
const TO_BIND = 1, TO_FLUSH = 2, TO_URL_OPEN = 3, TO_URL_CLOSE = 4, TO_INPUT = 5;
const FROM_FLUSHED = 1, FROM_VIEW = 2, FROM_URL_HEADERS = 3, FROM_URL_DATA = 4, FROM_URL_END = 5, FROM_URL_ERROR = 6;
const FROM_INPUT = 7, TO_CONSOLE = 6;
const TO_WS_OPEN = 7, TO_WS_SEND = 8, TO_WS_CLOSE = 9, TO_AUDIO_START = 10, TO_AUDIO_STOP = 11, TO_LAST = 11;
const FROM_WS_OPEN = 8, FROM_WS_MESSAGE = 9, FROM_WS_CLOSED = 10, FROM_WS_ERROR = 11;
const PP_ERROR_FAILED = -2, PP_ERROR_NOACCESS = -7;

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

// What a plugin may make the page do. Its workers hold these bounds (the plugin's own
// memory and runtime are the plugin's: no rule kept there holds), and the page works on
// what they send in slices of a few milliseconds, so that its thread stays its own.
// - Standard error: lines split once, in the worker; at most TEXT_LINE bytes a line,
//   TEXT_LINES_PER_SECOND lines and TEXT_PER_SECOND bytes a second and TEXT_TOTAL in all,
//   over all the plugin's threads; the rest is dropped, and that is said once.
// - Messages (standard output, a JSON line each): parsed in the worker; a plugin that
//   posts faster than the page dispatches waits once MESSAGE_WINDOW bytes are on their way
//   (as a writer to a full pipe waits); a message over MESSAGE_LINE is dropped with a
//   warning.
// - Channel records (descriptor 3): whole, well-formed records only, CHANNEL_WINDOW bytes
//   on their way at most (the writer waits); the page draws each device's latest frame
//   once an animation frame, at most the element's own size in device pixels.
const TEXT_LINE = 4096, TEXT_PER_SECOND = 64 * 1024, TEXT_LINES_PER_SECOND = 256, TEXT_TOTAL = 8 * 1024 * 1024;
const MESSAGE_WINDOW = 4 * 1024 * 1024, MESSAGE_LINE = 64 * 1024 * 1024;
// (A record may carry a socket's message or a request's body: the host's own bound.)
const CHANNEL_WINDOW = 1 << 20, CHANNEL_RECORD = 512 * 1024 * 1024;
const PAGE_SLICE_MS = 4;
// Fetches, sockets and sounds a plugin has at once.
const MAX_LOADS = 64, MAX_SOCKETS = 64, MAX_SOUNDS = 16;
// The shared words of those bounds: the current second and the text sent in it, the
// text sent in all, whether the drop was said; the bytes of messages and of records
// posted and done with (counting on, modulo 2^32).
const L_SECOND = 0, L_SECOND_TEXT = 1, L_TEXT = 2, L_WARNED = 3;
const L_MSG_POSTED = 4, L_MSG_DONE = 5, L_REC_POSTED = 6, L_REC_DONE = 7, L_SECOND_LINES = 8;
// (Each kind's posts too, for the posts on their way are bounded as well: each is a task
// of the page's, and many small ones would crowd its own out.)
const L_MSG_POSTS = 9, L_MSG_POSTS_DONE = 10, L_REC_POSTS = 11, L_REC_POSTS_DONE = 12, L_WORDS = 13;
const POSTS_ON_THEIR_WAY = 32;
const pluginLimits = () => new Int32Array(new SharedArrayBuffer(4 * L_WORDS));

// Waits (in a worker) until fewer than `window` bytes posted under `posted` are not yet
// done with under `done` and fewer than POSTS_ON_THEIR_WAY posts under `posts` (the next
// word: their count done with), then counts `n` bytes and a post more.
const awaitRoom = (limits, posted, done, n, window, posts) => {
  for (;;) {
    const d = Atomics.load(limits, done);
    if (((Atomics.load(limits, posted) - d) >>> 0) < window
      && ((Atomics.load(limits, posts) - Atomics.load(limits, posts + 1)) >>> 0) < POSTS_ON_THEIR_WAY) break;
    Atomics.wait(limits, done, d, 50);
  }
  Atomics.add(limits, posted, n);
  Atomics.add(limits, posts, 1);
};

// The page is done with `n` bytes counted under `done` (and, with `posts`, with a post):
// a writer waiting for room goes on.
const doneWith = (limits, done, n, posts = -1) => {
  if (posts >= 0) Atomics.add(limits, posts + 1, 1);
  Atomics.add(limits, done, n);
  Atomics.notify(limits, done);
};

// A worker's standard error: whole lines to the page (`post({ lines })`), within the
// bounds above.
// Whether a line of `n` bytes of the plugin's text (standard error, or console text) fits
// in the bounds above, counted in `limits` by every worker and the page alike; the first
// time one does not, `warn` gets the line that says so.
const textRoom = (limits, n, warn) => {
  const sec = Math.floor(Date.now() / 1000) | 0;
  const was = Atomics.load(limits, L_SECOND);
  if (was !== sec && Atomics.compareExchange(limits, L_SECOND, was, sec) === was) {
    Atomics.store(limits, L_SECOND_TEXT, 0);
    Atomics.store(limits, L_SECOND_LINES, 0);
  }
  if (Atomics.load(limits, L_TEXT) + n > TEXT_TOTAL || Atomics.add(limits, L_SECOND_TEXT, n) + n > TEXT_PER_SECOND
    || Atomics.add(limits, L_SECOND_LINES, 1) >= TEXT_LINES_PER_SECOND) {
    if (Atomics.compareExchange(limits, L_WARNED, 0, 1) === 0) {
      warn(`NaCl module: standard error beyond ${TEXT_LINES_PER_SECOND} lines or ${TEXT_PER_SECOND / 1024} KiB a second, or ${TEXT_TOTAL >> 20} MiB in all (console text included): the rest is dropped`);
    }
    return false;
  }
  Atomics.add(limits, L_TEXT, n);
  return true;
};

const textGate = (limits, post) => {
  const dec = new TextDecoder();
  let partial = '', cut = false;
  const take = (n) => textRoom(limits, n, (line) => post({ lines: [line] }));
  const lines = (text) => {
    const out = [];
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      const end = nl < 0 ? text.length : nl;
      if (!cut) {
        const room = TEXT_LINE - partial.length;
        if (end - from > room) {
          partial += `${text.slice(from, from + room)}…`;
          cut = true;
        } else {
          partial += text.slice(from, end);
        }
      }
      if (nl < 0) break;
      if (take(partial.length + 1)) out.push(partial);
      partial = '';
      cut = false;
      from = nl + 1;
    }
    if (out.length) post({ lines: out });
  };
  // Text over the bounds already is not even decoded, nor the rest of a line already cut;
  // the rest is decoded in pieces (a view of shared memory is copied to be decoded).
  const full = () => Atomics.load(limits, L_TEXT) >= TEXT_TOTAL;
  return {
    write: (bytes) => {
      if (full()) return;
      let from = 0;
      if (cut) {
        const nl = bytes.indexOf(10);
        if (nl < 0) return;
        from = nl;
      }
      for (let i = from; i < bytes.length; i += 65536) {
        lines(dec.decode(bytes.slice(i, Math.min(bytes.length, i + 65536)), { stream: true }));
      }
    },
    say: (line) => { if (take(line.length + 1)) post({ lines: [line] }); },
  };
};

// A worker's standard output: the plugin's messages, each a JSON line, parsed here and
// posted to the page as values (`post({ messages, sizes })`), with back-pressure.
const messageGate = (limits, post, text) => {
  const dec = new TextDecoder();
  let parts = [], size = 0, dropping = false;
  return (bytes) => {
    const values = [], sizes = [];
    let from = 0;
    for (;;) {
      const nl = bytes.indexOf(10, from);
      const end = nl < 0 ? bytes.length : nl;
      if (!dropping && size + (end - from) > MESSAGE_LINE) {
        text.say(`NaCl module: a message of more than ${MESSAGE_LINE >> 20} MiB is dropped`);
        dropping = true;
        parts = [];
        size = 0;
      }
      if (!dropping && end > from) {
        parts.push(bytes.slice(from, end));
        size += end - from;
      }
      if (nl < 0) break;
      if (!dropping) {
        const line = new Uint8Array(size);
        let at = 0;
        for (const p of parts) { line.set(p, at); at += p.length; }
        const t = dec.decode(line);
        try {
          values.push(fromJson(t));
          sizes.push(size + 1);
        } catch {
          text.say(`NaCl module: a message that is not JSON: ${t.slice(0, 200)}`);
        }
      }
      parts = [];
      size = 0;
      dropping = false;
      from = nl + 1;
    }
    if (values.length) {
      const n = sizes.reduce((a, b) => a + b, 0);
      awaitRoom(limits, L_MSG_POSTED, L_MSG_DONE, n, MESSAGE_WINDOW, L_MSG_POSTS);
      post({ messages: values, sizes });
    }
  };
};

// A worker's writes to the page channel: whole, well-formed records (a length word that
// is a multiple of four, at least eight, within the write and CHANNEL_RECORD; a known
// kind), with back-pressure; the first malformed record ends what the write sends (the
// first time with a warning).
const channelGate = (limits, post, text) => {
  let warned = false;
  return (bytes) => {
    let ok = 0;
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    while (ok + 8 <= bytes.length) {
      const len = dv.getUint32(ok, true), kind = dv.getUint32(ok + 4, true);
      if (len < 8 || len % 4 || len > CHANNEL_RECORD || ok + len > bytes.length || kind < 1 || kind > TO_LAST) break;
      ok += len;
    }
    if (ok !== bytes.length && !warned) {
      warned = true;
      text.say('NaCl module: malformed records on the page channel are dropped');
    }
    if (ok === 0) return;
    awaitRoom(limits, L_REC_POSTED, L_REC_DONE, ok, CHANNEL_WINDOW, L_REC_POSTS);
    post({ host: ok === bytes.length ? bytes : bytes.slice(0, ok) });
  };
};

if (typeof document !== 'undefined') {
  // Pages ask whether the browser has NaCl before they make the element (the SDK's
  // common.js: navigator.mimeTypes['application/x-pnacl'] !== undefined): now it has.
  (() => {
    const real = Object.getOwnPropertyDescriptor(Navigator.prototype, 'mimeTypes');
    if (!real || !real.get) return;
    const plugin = { name: 'Native Client', filename: 'pnacl.js', description: 'Portable Native Client', length: 1 };
    const mime = { type: PNACL_TYPE, suffixes: 'pexe', description: 'Portable Native Client Executable', enabledPlugin: plugin };
    plugin[0] = mime;
    Object.defineProperty(Navigator.prototype, 'mimeTypes', {
      configurable: true,
      enumerable: true,
      get() {
        const types = real.get.call(this);
        return new Proxy(types, {
          get(t, p) {
            if (p === PNACL_TYPE) return mime;
            if (p === 'namedItem') return (n) => (n === PNACL_TYPE ? mime : t.namedItem(n));
            const v = Reflect.get(t, p, t);
            return typeof v === 'function' ? v.bind(t) : v;
          },
          has: (t, p) => p === PNACL_TYPE || Reflect.has(t, p),
        });
      },
    });
  })();

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

  // Sound (PPB_Audio): a worklet that plays from the ring the host's audio thread fills
  // (runtime/ppapi_audio.h: [written, read] frame counts, then 16-bit stereo samples),
  // reading the plugin's memory (shared), and wakes that thread as it reads on.
  const AUDIO_WORKLET = `registerProcessor('pnacl-audio', class extends AudioWorkletProcessor {
    constructor(o) {
      super();
      const { buffer, ring, frames } = o.processorOptions;
      this.counts = new Int32Array(buffer, ring, 2);
      this.samples = new Int16Array(buffer, ring + 16, frames * 2);
      this.frames = frames;
      this.port.onmessage = () => { this.stopped = true; };
    }
    process(_inputs, outputs) {
      if (this.stopped) return false;
      const [left, right] = outputs[0];
      const written = Atomics.load(this.counts, 0) >>> 0, read = Atomics.load(this.counts, 1) >>> 0;
      const have = Math.min((written - read) >>> 0, left.length);
      for (let i = 0; i < left.length; i++) {
        const at = ((read + i) % this.frames) * 2;
        left[i] = i < have ? this.samples[at] / 32768 : 0;
        if (right) right[i] = i < have ? this.samples[at + 1] / 32768 : 0;
      }
      if (have) {
        Atomics.store(this.counts, 1, (read + have) | 0);
        Atomics.notify(this.counts, 1);
      }
      return true;
    }
  });`;
  let audioModule = null;
  const audioContexts = new Map(); // rate → AudioContext
  const audioContext = async (rate) => {
    let c = audioContexts.get(rate);
    if (!c) {
      c = new AudioContext({ sampleRate: rate });
      audioContexts.set(rate, c);
      // Browsers start sound only after the user does something on the page.
      const resume = () => { if (c.state === 'suspended') c.resume(); };
      for (const type of ['pointerdown', 'keydown', 'touchstart']) document.addEventListener(type, resume, { capture: true });
      resume();
    }
    if (!audioModule) audioModule = URL.createObjectURL(new Blob([AUDIO_WORKLET], { type: 'text/javascript' }));
    if (!c.pnaclModule) c.pnaclModule = c.audioWorklet.addModule(audioModule);
    await c.pnaclModule;
    return c;
  };

  const attach = (el) => {
    if (plugins.has(el)) return;
    const state = { workers: [], ended: false, loaded: false, queue: [], ring: null, lastLine: '' };
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

    // URL loading over fetch: the plugin's requests, relative to the page; a cross-origin
    // one only if it allowed them (then CORS), as Chrome did.
    const loads = new Map();
    const openUrl = async (loader, flags, url, method, headerText, body) => {
      const fail = (code) => { loads.delete(loader); toHostWith([FROM_URL_ERROR, loader, code >>> 0], new Uint8Array(0)); };
      let target;
      try { target = new URL(url, document.baseURI); } catch { fail(PP_ERROR_FAILED); return; }
      const same = target.origin === location.origin;
      if (!same && !(flags & 2)) { fail(PP_ERROR_NOACCESS); return; }
      if (!/^https?:$/.test(target.protocol)) { fail(PP_ERROR_NOACCESS); return; }
      const headers = new Headers();
      for (const line of headerText.split('\n')) {
        const at = line.indexOf(':');
        if (at > 0) { try { headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim()); } catch { /* a forbidden one */ } }
      }
      // (Loads at once are bounded, as a browser bounds a page's connections.)
      if (loads.size >= MAX_LOADS || loads.has(loader)) { fail(PP_ERROR_FAILED); return; }
      const verb = (method || 'GET').toUpperCase();
      const ctrl = new AbortController();
      loads.set(loader, ctrl);
      try {
        const response = await fetch(target, {
          method: verb, headers, signal: ctrl.signal,
          body: body.length && verb !== 'GET' && verb !== 'HEAD' ? body : undefined,
          mode: same ? 'same-origin' : 'cors',
          credentials: flags & 4 ? 'include' : same ? 'same-origin' : 'omit',
          redirect: 'follow',
        });
        const enc = new TextEncoder();
        const u = enc.encode(response.url), line = enc.encode(`HTTP/1.1 ${response.status} ${response.statusText}`);
        let text = '';
        response.headers.forEach((v, k) => { text += `${k}: ${v}\n`; });
        const h = enc.encode(text);
        const all = new Uint8Array(u.length + line.length + h.length);
        all.set(u, 0); all.set(line, u.length); all.set(h, u.length + line.length);
        toHostWith([FROM_URL_HEADERS, loader, response.status, u.length, line.length, h.length], all);
        if (response.body) {
          const reader = response.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            for (let i = 0; i < value.length; i += 262144) toHostWith([FROM_URL_DATA, loader], value.subarray(i, i + 262144));
          }
        }
        loads.delete(loader);
        toHostWith([FROM_URL_END, loader], new Uint8Array(0));
      } catch (e) {
        if (!ctrl.signal.aborted) fail(same ? PP_ERROR_FAILED : PP_ERROR_NOACCESS);
      }
    };
    // WebSockets (PPB_WebSocket): the page's own, with the page's origin; each message
    // goes to the host in pieces of at most 256 KiB, text as UTF-8.
    const sockets = new Map();
    const openSocket = (id, url, protocols) => {
      let ws;
      try {
        if (sockets.size >= MAX_SOCKETS || sockets.has(id)) throw new Error('too many sockets');
        ws = new WebSocket(url, protocols ? protocols.split(',') : []);
      } catch {
        toHostWith([FROM_WS_ERROR, id], new Uint8Array(0));
        toHostWith([FROM_WS_CLOSED, id, 1006, 0], new Uint8Array(0));
        return;
      }
      ws.binaryType = 'arraybuffer';
      sockets.set(id, ws);
      const enc = new TextEncoder();
      ws.onopen = () => {
        const p = enc.encode(ws.protocol), x = enc.encode(ws.extensions);
        const both = new Uint8Array(p.length + x.length);
        both.set(p, 0);
        both.set(x, p.length);
        toHostWith([FROM_WS_OPEN, id, p.length, x.length], both);
      };
      ws.onmessage = (e) => {
        const binary = typeof e.data !== 'string';
        const b = binary ? new Uint8Array(e.data) : enc.encode(e.data);
        for (let i = 0; i === 0 || i < b.length; i += 262144) {
          const last = i + 262144 >= b.length;
          toHostWith([FROM_WS_MESSAGE, id, (binary ? 1 : 0) | (last ? 2 : 0)], b.subarray(i, i + 262144));
        }
      };
      ws.onerror = () => { if (ws.readyState !== WebSocket.OPEN) toHostWith([FROM_WS_ERROR, id], new Uint8Array(0)); };
      ws.onclose = (e) => {
        sockets.delete(id);
        toHostWith([FROM_WS_CLOSED, id, e.code, e.wasClean ? 1 : 0], enc.encode(e.reason).slice(0, 123));
      };
    };
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
      for (const node of (state.sounds || new Map()).values()) if (node) { node.port.postMessage('stop'); node.disconnect(); }
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
      if (state.lastLine) console.error(`NaCl module: its last words: ${state.lastLine}`);
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
      if (line) state.lastLine = line;
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
      // The plugin's sounds: audio resource → its worklet node.
      const sounds = new Map();
      state.sounds = sounds;
      // The element's screen: a canvas in its place once the plugin binds a device.
      let canvas = null, ctx2d = null, bitmaps = null, canvas3d = false, bound = 0;
      // The canvas takes the element's place, look and size (a percentage stays one; a
      // number is CSS pixels; else the size `box` measured, while the element showed).
      // Input events: those of the classes the plugin asked for (mouse 1, keyboard 2,
      // wheel 4), on the element's screen, relative to it; an event of a class it asked
      // for without filtering is its own (the page's default action does not happen).
      let classes = 0, filtering = 0, listening = false;
      const MOUSE = { mousedown: 0, mouseup: 1, mousemove: 2, mouseenter: 3, mouseleave: 4, contextmenu: 10 };
      const KEYS = { keydown: 7, keyup: 8, keypress: 9 };
      const TOUCH = { touchstart: 15, touchmove: 16, touchend: 17, touchcancel: 18 };
      const IME = { compositionstart: 11, compositionupdate: 12, compositionend: 13 };
      const modifiers = (e) => {
        let m = (e.shiftKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.altKey ? 4 : 0) | (e.metaKey ? 8 : 0);
        if (e.buttons !== undefined) m |= (e.buttons & 1 ? 64 : 0) | (e.buttons & 4 ? 128 : 0) | (e.buttons & 2 ? 256 : 0);
        if (e.location !== undefined) m |= (e.location === 3 ? 16 : 0) | (e.location === 1 ? 2048 : 0) | (e.location === 2 ? 4096 : 0);
        if (e.repeat) m |= 32;
        if (e.getModifierState) m |= (e.getModifierState('CapsLock') ? 512 : 0) | (e.getModifierState('NumLock') ? 1024 : 0);
        return m;
      };
      const f32 = (v) => new Uint32Array(new Float32Array([v]).buffer)[0];
      const sendInput = (e) => {
        if (IME[e.type] !== undefined) { sendIme(e); return; }
        const type = MOUSE[e.type] ?? KEYS[e.type] ?? TOUCH[e.type] ?? (e.type === 'wheel' ? 5 : -1);
        const cls = type === 5 ? 4 : KEYS[e.type] !== undefined ? 2 : TOUCH[e.type] !== undefined ? 8 : 1;
        if (type < 0 || !(classes & cls)) return;
        if (!(filtering & cls)) e.preventDefault();
        if (e.type === 'mousedown') focusScreen();
        const r = screen().getBoundingClientRect();
        const mouse = cls === 1;
        const time = new Float64Array([performance.now() / 1000]);
        const tw = new Uint32Array(time.buffer);
        const scale = e.deltaMode === 1 ? 40 : 1;
        const words = [FROM_INPUT, type >>> 0, modifiers(e),
          mouse ? (e.type === 'mousemove' || e.type === 'mouseenter' || e.type === 'mouseleave' ? -1 : e.button) >>> 0 : 0xffffffff,
          mouse ? e.detail | 0 : 0,
          mouse ? Math.round(e.clientX - r.left) >>> 0 : 0, mouse ? Math.round(e.clientY - r.top) >>> 0 : 0,
          mouse ? (e.movementX | 0) >>> 0 : 0, mouse ? (e.movementY | 0) >>> 0 : 0,
          f32(type === 5 ? e.deltaX * scale : 0), f32(type === 5 ? e.deltaY * scale : 0),
          f32(type === 5 ? e.deltaX * scale / 100 : 0), f32(type === 5 ? e.deltaY * scale / 100 : 0),
          type === 5 && e.deltaMode === 2 ? 1 : 0, cls === 2 ? e.keyCode >>> 0 : 0, tw[0], tw[1]];
        const enc = new TextEncoder();
        const text = enc.encode(type === 9 && e.key && e.key.length <= 4 ? e.key : '').slice(0, 64);
        const code = enc.encode(cls === 2 ? e.code || '' : '').slice(0, 64);
        // A touch event's lists (touches, changed, target: at most 16 points each), each
        // point relative to the element: id, x, y, radius x, y, angle, pressure, tilt x, y
        // (touch events carry no tilt: 0).
        const lists = cls === 8 ? [e.touches, e.changedTouches, e.targetTouches].map((l) => Array.from(l || []).slice(0, 16)) : [];
        const points = lists.reduce((n, l) => n + l.length, 0);
        const tail = new Uint8Array(8 + text.length + code.length + (cls === 8 ? 12 + 36 * points : 0));
        const dv = new DataView(tail.buffer);
        dv.setUint32(0, text.length, true);
        dv.setUint32(4, code.length, true);
        tail.set(text, 8);
        tail.set(code, 8 + text.length);
        if (cls === 8) {
          let at = 8 + text.length + code.length;
          lists.forEach((l, k) => dv.setUint32(at + 4 * k, l.length, true));
          at += 12;
          for (const l of lists) {
            for (const t of l) {
              dv.setUint32(at, t.identifier >>> 0, true);
              [t.clientX - r.left, t.clientY - r.top, t.radiusX || 0, t.radiusY || 0, t.rotationAngle || 0,
                t.force || 0, 0, 0].forEach((v, i) => dv.setFloat32(at + 4 + 4 * i, v, true));
              at += 36;
            }
          }
        }
        toHostWith(words, tail);
      };
      const screen = () => canvas || el;
      // IME composition (class 16): composition events come only to an editable element,
      // so a plugin that asks for them has one of its own over its screen, invisible,
      // which takes the focus the screen would (its keys are the screen's).
      let ime = null;
      const focusScreen = () => {
        if (ime) ime.focus({ preventScroll: true });
        else if (screen().focus) screen().focus();
      };
      const enc8 = (t) => new TextEncoder().encode(t || '');
      const sendIme = (e) => {
        if (!(classes & 16)) return;
        const text = enc8(e.data).slice(0, 1024);
        const time = new Float64Array([performance.now() / 1000]);
        const tw = new Uint32Array(time.buffer);
        // type, modifiers, -, -, selection start and end (bytes), ..., time; the text
        const send = (type, bytes) => {
          const tail = new Uint8Array(8 + bytes.length);
          new DataView(tail.buffer).setUint32(0, bytes.length, true);
          tail.set(bytes, 8);
          toHostWith([FROM_INPUT, type, 0, 0xffffffff, 0, bytes.length, bytes.length, 0, 0, 0, 0, 0, 0, 0, 0,
            tw[0], tw[1]], tail);
        };
        if (e.type === 'compositionend') {
          // The text it makes, then the end (Chrome's order); the editable starts over.
          send(14, text);
          send(13, new Uint8Array(0));
          ime.value = '';
        } else {
          send(IME[e.type], e.type === 'compositionstart' ? new Uint8Array(0) : text);
        }
      };
      const listenIme = () => {
        if (ime || !(classes & 16)) return;
        ime = document.createElement('textarea');
        ime.setAttribute('aria-hidden', 'true');
        ime.style.cssText = 'position:absolute;opacity:0;width:1px;height:1px;border:0;padding:0;'
          + 'resize:none;overflow:hidden;pointer-events:none';
        const r = screen().getBoundingClientRect();
        ime.style.left = `${r.left + window.scrollX}px`;
        ime.style.top = `${r.top + window.scrollY}px`;
        document.body.appendChild(ime);
        for (const type of [...Object.keys(IME), ...Object.keys(KEYS)]) ime.addEventListener(type, sendInput);
        screen().addEventListener('focus', focusScreen);
      };
      const listen = (c, f) => {
        classes = c;
        filtering = f;
        listenIme();
        if (listening || !c) return;
        listening = true;
        for (const type of [...Object.keys(MOUSE), ...Object.keys(KEYS), ...Object.keys(TOUCH), 'wheel']) {
          for (const target of [el, () => canvas]) {
            const add = (t) => t.addEventListener(type, (e) => { if (e.currentTarget === screen()) sendInput(e); }, { passive: false });
            if (typeof target === 'function') state.onCanvas = (state.onCanvas || []).concat([add]);
            else add(target);
          }
        }
        if (el.tabIndex < 0) el.tabIndex = 0;
        if (canvas) for (const add of state.onCanvas) add(canvas);
      };

      const dress = (box) => {
        canvas.className = el.className;
        canvas.style.cssText = el.style.cssText;
        for (const attr of ['width', 'height']) {
          const a = (el.getAttribute(attr) || '').trim();
          if (/%$/.test(a)) canvas.style[attr] = a;
          else if (/^\d+(\.\d+)?(px)?$/.test(a)) canvas.style[attr] = `${parseFloat(a)}px`;
          else if (box) canvas.style[attr] = `${Math.round(box[attr])}px`;
        }
        canvas.style.display = 'inline-block';
      };
      // The canvas that takes the element's place when the plugin binds a device: a 2-D
      // context's for Graphics2D, an image renderer's for Graphics3D's frames. A device of
      // the other kind bound later gets a new canvas in the same place.
      const makeCanvas = (is3d) => {
        const old = canvas;
        canvas = document.createElement('canvas');
        dress((old || el).getBoundingClientRect());
        if (old) {
          resizes.unobserve(old);
          old.replaceWith(canvas);
        } else {
          el.insertAdjacentElement('beforebegin', canvas);
          el.style.display = 'none';
          // What the page does to the element later (its size, its class) the canvas
          // follows.
          new MutationObserver(() => {
            dress(null);
            if (el.style.display !== 'none') el.style.display = 'none';
          }).observe(el, { attributes: true, attributeFilter: ['width', 'height', 'class', 'style'] });
        }
        canvas3d = is3d;
        ctx2d = is3d ? null : canvas.getContext('2d');
        bitmaps = is3d ? canvas.getContext('bitmaprenderer') : null;
        canvas.tabIndex = 0;
        if (state.onCanvas) for (const add of state.onCanvas) add(canvas);
        resizes.observe(canvas);
      };
      // The bound device (BIND: its id, size, scale, kind), applied at the next animation
      // frame, however many binds come before it: a canvas of the device's kind, of the
      // device's size but no larger than the element's own in device pixels (as in
      // Chrome, a larger device shows its top left corner).
      let binding = null;
      const applyBind = () => {
        const b = binding;
        binding = null;
        if (!b || b.device !== bound || !bound) return;
        if (!canvas || canvas3d !== b.is3d) makeCanvas(b.is3d);
        device2d = b.is3d ? null : b;
      };
      let device2d = null, image = null;
      const fitCanvas = (w, h, scale) => {
        const v = viewOf(), dpr = Math.max(1, window.devicePixelRatio || 1);
        const cw = Math.min(w, Math.ceil(v.vw * dpr / scale)), ch = Math.min(h, Math.ceil(v.vh * dpr / scale));
        if (cw > 0 && ch > 0 && (canvas.width !== cw || canvas.height !== ch)) {
          canvas.width = cw;
          canvas.height = ch;
        }
        return cw > 0 && ch > 0;
      };
      // 2-D frames (FLUSH): each device's latest, drawn once an animation frame; every
      // flush is answered then (its callback completes).
      const flushes = new Map();
      let painting = false;
      const paint = () => {
        painting = false;
        applyBind();
        const done = [...flushes.entries()];
        flushes.clear();
        for (const [device, rec] of done) {
          if (device === bound && device2d && ctx2d && !state.ended) draw(rec);
          toHost([12, FROM_FLUSHED, device >>> 0]);
        }
      };
      const repaint = () => {
        if (!painting) { painting = true; requestAnimationFrame(paint); }
      };
      const draw = ([, ptr, w, h, stride, format]) => {
        if (w !== device2d.w || h !== device2d.h || !fitCanvas(w, h, device2d.scale)) return;
        const cw = canvas.width, ch = canvas.height;
        const end = ptr + stride * (ch - 1) + cw * 4;
        // One copy, from the plugin's memory into the canvas's pixels (BGRA → RGBA), of
        // what the canvas shows; the image reused while its size stays.
        const src = new Uint8Array(memoryTo(memory, end), ptr, end - ptr);
        if (!image || image.width !== cw || image.height !== ch) image = ctx2d.createImageData(cw, ch);
        const dst = image.data;
        const r = format === 0 ? 2 : 0, b = format === 0 ? 0 : 2;
        for (let y = 0; y < ch; y++) {
          let s = y * stride, d = y * cw * 4;
          for (let x = 0; x < cw; x++, s += 4, d += 4) {
            dst[d] = src[s + r];
            dst[d + 1] = src[s + 1];
            dst[d + 2] = src[s + b];
            dst[d + 3] = src[s + 3];
          }
        }
        ctx2d.putImageData(image, 0, 0);
      };
      // A 3-D context's frame (SwapBuffers): shown at the next animation frame if its
      // device is the bound one, then the host is told, which completes the swap.
      let pending = null;
      const onFrame = (frame, device) => {
        if (device !== bound) {
          frame.close();
          toHost([12, FROM_FLUSHED, device >>> 0]);
          return;
        }
        if (pending) pending.close();
        pending = frame;
        requestAnimationFrame(() => {
          applyBind();
          if (pending === frame) {
            pending = null;
            if (bitmaps && device === bound) {
              if (canvas.width !== frame.width || canvas.height !== frame.height) {
                canvas.width = frame.width;
                canvas.height = frame.height;
              }
              bitmaps.transferFromImageBitmap(frame);
            } else {
              frame.close();
            }
          }
          toHost([12, FROM_FLUSHED, device >>> 0]);
        });
      };
      // PPB_Console's text, within standard error's bounds (above), counted with it.
      const consoleRoom = (n) => textRoom(plugin, n, (line) => console.warn(line));
      const onHost = (bytes) => {
        const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
        for (let i = 0; i + 2 <= words.length;) {
          const len = words[i] >> 2, kind = words[i + 1], rec = words.subarray(i + 2, i + len);
          i += Math.max(len, 2);
          // The records come from the host, but what they say sits in the plugin's memory,
          // which the plugin can write: each one is checked before the page acts on it.
          const sane = (w, h) => w > 0 && h > 0 && w <= 16384 && h <= 16384 && w * h <= (1 << 26);
          if (kind === TO_BIND && rec.length >= 5) {
            // device, width, height, scale, whether it is 3-D (its frames then come from
            // the worker that draws them, as images)
            const is3d = rec[4] === 1;
            if (rec[0] && !is3d && !sane(rec[1], rec[2])) continue;
            const scale = new Float32Array(new Uint32Array([rec[3]]).buffer)[0];
            bound = rec[0];
            binding = { device: rec[0], w: rec[1], h: rec[2], is3d, scale: scale >= 0.25 && scale <= 16 ? scale : 1 };
            repaint();
          } else if (kind === TO_URL_OPEN && rec.length >= 2) {
            // loader, flags, then four lengths each followed by its bytes
            const b = new Uint8Array(bytes.buffer, bytes.byteOffset + (i - len) * 4, len * 4);
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
              openUrl(rec[0], rec[1], dec.decode(fields[0]), dec.decode(fields[1]), dec.decode(fields[2]), fields[3]);
            }
          } else if (kind === TO_CONSOLE && rec.length >= 3) {
            // PPB_Console: the browser's console, at the plugin's level, prefixed with
            // its source or the plugin's name, as Chrome did.
            const [level, ns, nt] = rec;
            const at = bytes.byteOffset + (i - len) * 4 + 20;
            if (20 + ns + nt <= len * 4 && consoleRoom(ns + nt)) {
              const dec = new TextDecoder();
              const source = dec.decode(new Uint8Array(bytes.buffer, at, ns));
              const text = dec.decode(new Uint8Array(bytes.buffer, at + ns, nt));
              const method = ['info', 'log', 'warn', 'error'][level] || 'log';
              console[method](`${source || name}: ${text}`);
            }
          } else if ((kind === TO_WS_OPEN || kind === TO_WS_SEND || kind === TO_WS_CLOSE) && len >= 4) {
            // socket, then: the URL's and the protocols' lengths and bytes; binary | length
            // << 1 and the bytes; the code (0: none) and the reason's bytes
            const body = new Uint8Array(bytes.buffer, bytes.byteOffset + (i - len) * 4 + 16, Math.max(0, len * 4 - 16));
            const dec = new TextDecoder();
            if (kind === TO_WS_OPEN && rec.length >= 3 && 4 + rec[1] + rec[2] <= body.length) {
              openSocket(rec[0], dec.decode(body.subarray(4, 4 + rec[1])), dec.decode(body.subarray(4 + rec[1], 4 + rec[1] + rec[2])));
            } else if (kind === TO_WS_SEND && rec.length >= 2) {
              const ws = sockets.get(rec[0]), n = rec[1] >>> 1;
              if (ws && ws.readyState === WebSocket.OPEN && n <= body.length) {
                const data = body.slice(0, n);
                ws.send(rec[1] & 1 ? data.buffer : dec.decode(data));
              }
            } else if (kind === TO_WS_CLOSE && rec.length >= 2) {
              const ws = sockets.get(rec[0]);
              const reason = dec.decode(body).replace(/\0+$/, '');
              if (ws) {
                try { if (rec[1]) ws.close(rec[1], reason); else ws.close(); } catch { ws.close(); }
              }
            }
          } else if (kind === TO_AUDIO_START && rec.length >= 4) {
            // audio, the ring's address, its frames, the rate
            const [id, ring, frames, rate] = rec;
            const end = ring + 16 + frames * 4;
            const fits = frames > 0 && frames <= 4 * 32768 && ring % 4 === 0
              && end <= memoryTo(memory, end).byteLength && (rate === 44100 || rate === 48000);
            if (fits && !sounds.has(id) && sounds.size < MAX_SOUNDS) {
              sounds.set(id, null);
              audioContext(rate).then((c) => {
                if (!sounds.has(id) || state.ended) return;
                const node = new AudioWorkletNode(c, 'pnacl-audio', {
                  numberOfInputs: 0, outputChannelCount: [2],
                  processorOptions: { buffer: memory.buffer, ring, frames },
                });
                node.connect(c.destination);
                sounds.set(id, node);
              }).catch((e) => console.error(`NaCl module: no sound: ${e.message}`));
            }
          } else if (kind === TO_AUDIO_STOP && rec.length >= 1) {
            const node = sounds.get(rec[0]);
            sounds.delete(rec[0]);
            if (node) { node.port.postMessage('stop'); node.disconnect(); }
          } else if (kind === TO_INPUT && rec.length >= 2) {
            listen(rec[0], rec[1]);
          } else if (kind === TO_URL_CLOSE && rec.length >= 1) {
            const c = loads.get(rec[0]);
            if (c) { c.abort(); loads.delete(rec[0]); }
          } else if (kind === TO_FLUSH && rec.length >= 6) {
            // device, its pixels' address, width, height, stride, format: the latest of
            // each device's is drawn at the next animation frame (above).
            const [device, ptr, w, h, stride] = rec;
            const end = ptr + stride * (h - 1) + w * 4;
            const fits = sane(w, h) && stride >= w * 4 && stride <= 65536 * 4
              && end <= memoryTo(memory, end).byteLength;
            if (fits || !flushes.has(device)) flushes.set(device, fits ? rec.slice() : [device, 0, 0, 0, 0, 0]);
            repaint();
          }
        }
      };
      // The view: the element's size in CSS pixels, the device's scale, and whether the
      // page shows it; each change is sent to the plugin (DidChangeView).
      const viewOf = () => {
        const r = (canvas || el).getBoundingClientRect();
        const vw = Math.min(32767, Math.round(r.width)), vh = Math.min(32767, Math.round(r.height));
        const scale = Math.min(16, Math.max(0.25, window.devicePixelRatio || 1));
        return { vw, vh, scale, visible: document.visibilityState !== 'hidden' && vw > 0 && vh > 0 ? 1 : 0 };
      };
      let view = viewOf();
      const sendView = () => {
        const v = viewOf();
        if (v.vw === view.vw && v.vh === view.vh && v.scale === view.scale && v.visible === view.visible) return;
        view = v;
        toHost([24, FROM_VIEW, v.vw, v.vh, new Uint32Array(new Float32Array([v.scale]).buffer)[0], v.visible]);
      };
      const resizes = new ResizeObserver(sendView);
      resizes.observe(el);
      document.addEventListener('visibilitychange', sendView);
      const w = view.vw, h = view.vh;
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
            onFrame(m.frame, m.device);
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
      && (el.getAttribute('type') || '').toLowerCase() === PNACL_TYPE;
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
