// What a plugin may make its page do (host_plugin.js's bounds): what the plugin's workers
// hold it to, counted in words of shared memory all of them and the page see.

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
import { TO_LAST } from './host_channel.js';
const TEXT_LINE = 4096, TEXT_PER_SECOND = 64 * 1024, TEXT_LINES_PER_SECOND = 256, TEXT_TOTAL = 8 * 1024 * 1024;
const MESSAGE_WINDOW = 4 * 1024 * 1024, MESSAGE_LINE = 64 * 1024 * 1024;
// (A record may carry a socket's message or a request's body: the host's own bound.)
const CHANNEL_WINDOW = 1 << 20, CHANNEL_RECORD = 512 * 1024 * 1024;
export const PAGE_SLICE_MS = 4;
// Fetches, sockets and sounds a plugin has at once.
export const MAX_LOADS = 64, MAX_SOCKETS = 64, MAX_SOUNDS = 16;
// The shared words of those bounds: the current second and the text sent in it, the
// text sent in all, whether the drop was said; the bytes of messages and of records
// posted and done with (counting on, modulo 2^32).
const L_SECOND = 0, L_SECOND_TEXT = 1, L_TEXT = 2, L_WARNED = 3;
export const L_MSG_POSTED = 4, L_MSG_DONE = 5, L_REC_POSTED = 6, L_REC_DONE = 7, L_SECOND_LINES = 8;
// (Each kind's posts too, for the posts on their way are bounded as well: each is a task
// of the page's, and many small ones would crowd its own out.)
export const L_MSG_POSTS = 9, L_MSG_POSTS_DONE = 10, L_REC_POSTS = 11, L_REC_POSTS_DONE = 12, L_WORDS = 13;
const POSTS_ON_THEIR_WAY = 32;
export const pluginLimits = () => new Int32Array(new SharedArrayBuffer(4 * L_WORDS));

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
export const doneWith = (limits, done, n, posts = -1) => {
  if (posts >= 0) Atomics.add(limits, posts + 1, 1);
  Atomics.add(limits, done, n);
  Atomics.notify(limits, done);
};

// A worker's standard error: whole lines to the page (`post({ lines })`), within the
// bounds above.
// Whether a line of `n` bytes of the plugin's text (standard error, or console text) fits
// in the bounds above, counted in `limits` by every worker and the page alike; the first
// time one does not, `warn` gets the line that says so.
export const textRoom = (limits, n, warn) => {
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

export const textGate = (limits, post) => {
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
export const messageGate = (limits, post, text) => {
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
export const channelGate = (limits, post, text) => {
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

