// Video decoding for a plugin in a page: PPB_VideoDecoder (runtime/ppapi/ppb_video_decoder.h)
// onto the browser's WebCodecs VideoDecoder, in the page's thread (the plugin's workers
// never return to their event loops, where a decoder's frames would come).
//
// The host sends each Decode's bytes as an address in the plugin's memory (copied out at
// once; the host keeps its buffer until the page says it has been read, FROM_VD_DECODED,
// when the decoder takes the chunk off its queue), and a buffer of the plugin's memory for
// each picture it may fill (TO_VD_BUFFER). Each frame the browser decodes is copied, as
// RGBA, its visible part, into a free buffer, one frame at a time; a frame of a new size
// asks the host for pictures of that size first (FROM_VD_SIZE, numbered, so that a buffer
// of a size before is never filled). Frames that wait for a buffer (the plugin has not
// given pictures back) hold back the decoder's answers, so that its Decode waits, as
// Chrome's did once its pictures were all the plugin's.
//
// H.264 is Annex B, as PPAPI took it: a chunk with an IDR slice is a key chunk, and the
// codec string comes from its sequence parameter set; VP8 and VP9 frames say whether they
// are key frames (VP8's colours are BT.601's, which its frames do not say). Chunks before the first key chunk (after Initialize or a Reset) are read
// and give no picture, as a decoder without a reference gives none.
//
// Everything a record says (addresses, sizes, decoders) is checked: the host's records sit
// in the plugin's memory, which it can write.
import { memoryTo } from './host_core.js';
import { FROM_VD_DECODED, FROM_VD_DONE, FROM_VD_ERROR, FROM_VD_PICTURE, FROM_VD_SIZE, PP_ERROR_FAILED, PP_ERROR_MALFORMED_INPUT, PP_ERROR_NOTSUPPORTED, PP_ERROR_RESOURCE_FAILED, PP_OK } from './host_channel.js';

// PP_VideoProfile (0-12) as a codec string the browser is asked about.
const PROFILES = ['avc1.42E01E', 'avc1.4D401E', 'avc1.58A01E', 'avc1.64001E', 'avc1.6E001E', 'avc1.7A001E',
  'avc1.F4001E', 'avc1.53001E', 'avc1.56001E', 'avc1.80001E', 'avc1.76001E', 'vp8', 'vp09.00.10.08'];
// PP_HardwareAcceleration: ONLY, WITHFALLBACK, NONE.
const ACCELERATION = ['prefer-hardware', 'no-preference', 'prefer-software'];
const DONE_INIT = 1, DONE_FLUSH = 2, DONE_RESET = 3, DONE_DESTROY = 4;
// At most: decoders a plugin has, one chunk's bytes, a picture's side; chunks a decoder
// holds unanswered and picture buffers it is offered (the host's own bounds, PA_VD_PENDING
// and PA_VD_PICTURES: records past them are not the host's, and are dropped).
const MAX_DECODERS = 16, MAX_BITSTREAM = 4 << 20, MAX_SIDE = 16384, MAX_CHUNKS = 8, MAX_BUFFERS = 128;
// Frames decoded and waiting for a picture buffer, past which the decoder's chunks are
// not answered as read.
const MAX_WAITING = 4;

// An H.264 chunk (Annex B): whether it has an IDR slice, and its SPS's codec string.
const h264 = (b) => {
  let key = false, codec = null;
  for (let i = 0; i + 3 < b.length; i++) {
    if (b[i] !== 0 || b[i + 1] !== 0 || b[i + 2] !== 1) continue;
    const type = b[i + 3] & 31;
    if (type === 5) key = true;
    if (type === 7 && i + 6 < b.length && !codec) {
      const hex = (v) => v.toString(16).toUpperCase().padStart(2, '0');
      codec = `avc1.${hex(b[i + 4])}${hex(b[i + 5])}${hex(b[i + 6])}`;
    }
    i += 2;
  }
  return { key, codec };
};
// Whether a VP8 or VP9 frame is a key frame.
const vpxKey = (vp9, b) => {
  if (!b.length) return false;
  if (!vp9) return (b[0] & 1) === 0;
  const profile = ((b[0] >> 5) & 1) | (((b[0] >> 4) & 1) << 1), shift = profile === 3 ? 1 : 0;
  return ((b[0] >> 6) & 3) === 2 && ((b[0] >> (3 - shift)) & 1) === 0 && ((b[0] >> (2 - shift)) & 1) === 0;
};

// One plugin's decoders; `toHostWith(words, bytes)` sends a record to its host.
export function pluginVideo(memory, toHostWith) {
  const decoders = new Map();
  const send = (...words) => toHostWith(words, new Uint8Array(0));
  // The plugin's memory from `p`, `n` bytes, if it holds them.
  const span = (p, n) => {
    const end = p + n;
    if (n < 0 || end > 2 ** 32) return null;
    const b = memoryTo(memory, end);
    return end <= b.byteLength ? new Uint8Array(b, p, n) : null;
  };

  // Answers, while few frames wait, that the decoder has read the chunks it took.
  const answerRead = (d) => {
    while (d.read.length && d.frames.length < MAX_WAITING) send(FROM_VD_DECODED, d.id, d.read.shift());
  };
  const fail = (d, e) => {
    if (d.closed || d.failed) return;
    d.failed = true;
    send(FROM_VD_ERROR, d.id, e && e.name === 'EncodingError' ? PP_ERROR_MALFORMED_INPUT : PP_ERROR_RESOURCE_FAILED);
  };
  // The next waiting frame into a free picture buffer (one at a time).
  const pump = (d) => {
    if (d.copying || d.closed || !d.frames.length) {
      if (!d.copying && !d.frames.length) { for (const f of d.idle.splice(0)) f(); }
      return;
    }
    const frame = d.frames[0], rect = frame.visibleRect, w = rect.width, h = rect.height;
    if (!d.pool || d.pool.w !== w || d.pool.h !== h) {
      d.free = [];
      d.pool = { w, h, seq: (d.pool ? d.pool.seq : 0) + 1 };
      if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) { fail(d, null); return; }
      send(FROM_VD_SIZE, d.id, w, h, d.pool.seq);
      return;
    }
    const buffer = d.free.shift();
    if (!buffer) return;
    const into = span(buffer.ptr, w * h * 4);
    if (!into) { fail(d, null); return; }
    d.copying = frame.copyTo(into, { rect, format: 'RGBA' }).then(() => {
      if (!d.closed && d.frames[0] === frame && !d.dropping) send(FROM_VD_PICTURE, d.id, buffer.slot, frame.timestamp, w, h);
      else if (!d.closed) d.free.push(buffer);
    }, (e) => { fail(d, e); }).finally(() => {
      if (d.frames[0] === frame) d.frames.shift();
      frame.close();
      d.copying = null;
      answerRead(d);
      pump(d);
    });
  };
  // Once no frame waits and none is being copied.
  const idle = (d) => new Promise((resolve) => { d.idle.push(resolve); pump(d); });
  const dropFrames = (d) => {
    for (const f of d.frames.splice(d.copying ? 1 : 0)) f.close();
  };

  const make = (id, profile, acceleration) => {
    const d = {
      id, profile, acceleration, codec: null, decoder: null, key: false, pending: [], read: [], frames: [],
      free: [], pool: null, copying: null, idle: [], closed: false, failed: false, dropping: false,
    };
    d.decoder = new VideoDecoder({
      output: (frame) => {
        if (d.closed) { frame.close(); return; }
        d.frames.push(frame);
        pump(d);
      },
      error: (e) => fail(d, e),
    });
    // Chunks leave the decoder's queue in order: each read, answered (above).
    d.decoder.addEventListener('dequeue', () => {
      const gone = d.pending.length - d.decoder.decodeQueueSize;
      if (gone > 0) d.read.push(...d.pending.splice(0, gone));
      answerRead(d);
    });
    return d;
  };

  return {
    // decoder, profile, acceleration: asks the browser, answers DONE_INIT.
    init(rec) {
      const [id, profile, acceleration] = rec;
      if (decoders.has(id) || profile > 12 || acceleration > 2 || typeof VideoDecoder === 'undefined' || decoders.size >= MAX_DECODERS) {
        send(FROM_VD_DONE, id, DONE_INIT, typeof VideoDecoder === 'undefined' ? PP_ERROR_NOTSUPPORTED : PP_ERROR_FAILED);
        return;
      }
      const config = { codec: PROFILES[profile], hardwareAcceleration: ACCELERATION[acceleration] };
      VideoDecoder.isConfigSupported(config).then((r) => r.supported, () => false).then((supported) => {
        if (supported && !decoders.has(id)) decoders.set(id, make(id, profile, acceleration));
        send(FROM_VD_DONE, id, DONE_INIT, supported ? PP_OK : PP_ERROR_NOTSUPPORTED);
      });
    },
    // decoder, uid, address, size: copied now; decoded once it is a key chunk's or after one.
    decode(rec) {
      const [id, uid, ptr, size] = rec, d = decoders.get(id);
      const room = d && d.pending.length + d.read.length < MAX_CHUNKS;
      const bytes = room && !d.closed && size <= MAX_BITSTREAM ? span(ptr, size) : null;
      if (!bytes) return;
      const data = bytes.slice();
      if (d.failed) return;
      const avc = d.profile <= 10, vp9 = d.profile === 12;
      const { key, codec } = avc ? h264(data) : { key: vpxKey(vp9, data), codec: null };
      if (!key && !d.key) { send(FROM_VD_DECODED, id, uid); return; }
      try {
        if (key) {
          const want = (avc && codec) || d.codec || PROFILES[d.profile];
          if (d.decoder.state !== 'configured' || want !== d.codec) {
            const config = { codec: want, hardwareAcceleration: ACCELERATION[d.acceleration], optimizeForLatency: true };
            // VP8 says nothing of its colours but is BT.601 (RFC 6386), limited range.
            if (d.profile === 11) config.colorSpace = { primaries: 'smpte170m', transfer: 'smpte170m', matrix: 'smpte170m', fullRange: false };
            d.decoder.configure(config);
            d.codec = want;
          }
          d.key = true;
        }
        d.decoder.decode(new EncodedVideoChunk({ type: key ? 'key' : 'delta', timestamp: uid, data }));
        d.pending.push(uid);
      } catch (e) {
        send(FROM_VD_DECODED, id, uid);
        fail(d, e);
      }
    },
    // decoder, picture, address, width, height, pool: a buffer the page may fill.
    buffer(rec) {
      const [id, slot, ptr, w, h, seq] = rec, d = decoders.get(id);
      if (!d || !d.pool || d.pool.seq !== seq || d.pool.w !== w || d.pool.h !== h) return;
      if (d.free.length >= MAX_BUFFERS || d.free.some((b) => b.slot === slot)) return;
      d.free.push({ slot, ptr });
      pump(d);
    },
    // Every chunk decoded and its picture out, then DONE_FLUSH.
    flush(rec) {
      const d = decoders.get(rec[0]);
      if (!d) return;
      const flushed = d.decoder.state === 'configured' ? d.decoder.flush() : Promise.resolve();
      flushed.then(() => idle(d)).then(() => {
        if (d.closed) return;
        d.read.push(...d.pending.splice(0));
        while (d.read.length) send(FROM_VD_DECODED, d.id, d.read.shift());
        send(FROM_VD_DONE, d.id, DONE_FLUSH, PP_OK);
      }, () => { if (!d.closed) send(FROM_VD_DONE, d.id, DONE_FLUSH, PP_ERROR_FAILED); });
    },
    // What is queued and decoded goes; the next chunk must be a key one.
    reset(rec) {
      const d = decoders.get(rec[0]);
      if (!d) return;
      if (d.decoder.state !== 'closed') d.decoder.reset();
      d.key = false;
      d.codec = null;
      d.pending = [];
      d.read = [];
      d.dropping = true;
      dropFrames(d);
      idle(d).then(() => {
        d.dropping = false;
        if (!d.closed) send(FROM_VD_DONE, d.id, DONE_RESET, PP_OK);
      });
    },
    // The decoder goes; once no copy into its buffers is on its way, the host may free them.
    destroy(rec) {
      const d = decoders.get(rec[0]);
      if (!d) { send(FROM_VD_DONE, rec[0], DONE_DESTROY, PP_OK); return; }
      decoders.delete(d.id);
      d.closed = true;
      if (d.decoder.state !== 'closed') d.decoder.close();
      dropFrames(d);
      (d.copying || Promise.resolve()).then(() => send(FROM_VD_DONE, d.id, DONE_DESTROY, PP_OK));
    },
    // The plugin is gone: every decoder closes.
    stopAll() {
      for (const d of decoders.values()) {
        d.closed = true;
        if (d.decoder.state !== 'closed') d.decoder.close();
        dropFrames(d);
      }
      decoders.clear();
    },
  };
}
