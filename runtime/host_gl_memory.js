// GL for plugins (host_gl.js): the plugin's memory as GL reads and writes it, every
// pointer and size checked against it (a bad one is GL_INVALID_VALUE).
import { memoryTo } from './host_core.js';
import { GL_INVALID_VALUE, GL_MAX_BYTES, glFail } from './host_gl_formats.js';

// The views of one worker's `memory` (the plugin's).
export function glMemory(memory) {
  let H8 = new Uint8Array(memory.buffer);
  // The plugin's memory, reaching to `end` if the memory does (host_core.js's memoryTo).
  const heap = (end) => {
    const b = memoryTo(memory, end);
    if (H8.byteLength !== b.byteLength) H8 = new Uint8Array(b);
    return H8;
  };
  // `n` bytes of the plugin's memory at `p` (a view, not a copy), or INVALID_VALUE.
  const bytes = (p, n) => {
    p >>>= 0;
    if (n < 0 || n > GL_MAX_BYTES) glFail(GL_INVALID_VALUE);
    const h = heap(p + n);
    if (p + n > h.byteLength) glFail(GL_INVALID_VALUE);
    return h.subarray(p, p + n);
  };
  const dv = () => new DataView(H8.buffer); // after bytes(), which brought H8 up to date
  const i32s = (p, n) => {
    const b = bytes(p, 4 * n), d = dv(), out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = d.getInt32(b.byteOffset + 4 * i, true);
    return out;
  };
  const f32s = (p, n) => {
    const b = bytes(p, 4 * n), d = dv(), out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = d.getFloat32(b.byteOffset + 4 * i, true);
    return out;
  };
  const putI32s = (p, values) => {
    if (!p) return;
    const b = bytes(p, 4 * values.length), d = dv();
    values.forEach((v, i) => d.setInt32(b.byteOffset + 4 * i, Number(v) | 0, true));
  };
  const putF32s = (p, values) => {
    if (!p) return;
    const b = bytes(p, 4 * values.length), d = dv();
    values.forEach((v, i) => d.setFloat32(b.byteOffset + 4 * i, Number(v), true));
  };
  // A NUL-ended string of the plugin's (at most 1 MiB).
  const cstr = (p) => {
    p >>>= 0;
    const h = heap(p + (1 << 20));
    if (!p || p >= h.byteLength) glFail(GL_INVALID_VALUE);
    let e = p;
    const end = Math.min(h.byteLength, p + (1 << 20));
    while (e < end && h[e]) e++;
    if (e === end) glFail(GL_INVALID_VALUE);
    return new TextDecoder().decode(h.slice(p, e));
  };
  // ES 2's string out: at most bufsize - 1 bytes and a NUL at `out`, the length (without
  // the NUL) at `lengthp`.
  const putString = (text, bufsize, lengthp, out) => {
    if (bufsize < 0) glFail(GL_INVALID_VALUE);
    const b = new TextEncoder().encode(text || '');
    const n = bufsize > 0 ? Math.min(b.length, bufsize - 1) : 0;
    if (out && bufsize > 0) {
      const dst = bytes(out, n + 1);
      dst.set(b.subarray(0, n));
      dst[n] = 0;
    }
    if (lengthp) putI32s(lengthp, [n]);
  };
  return { heap, bytes, dv, i32s, f32s, putI32s, putF32s, cstr, putString };
}
