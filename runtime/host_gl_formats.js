// GL for plugins (host_gl.js): the constants it needs, its error, and the arithmetic of
// pixel, vertex and index formats, which depends on nothing but its arguments.

export const GL_NO_ERROR = 0, GL_INVALID_ENUM = 0x500, GL_INVALID_VALUE = 0x501, GL_INVALID_OPERATION = 0x502;
export const GL_OUT_OF_MEMORY = 0x505, GL_CONTEXT_LOST = 0x507;
export const GL_ARRAY_BUFFER = 0x8892, GL_ELEMENT_ARRAY_BUFFER = 0x8893;
export const GL_UNPACK_ALIGNMENT = 0x0CF5, GL_PACK_ALIGNMENT = 0x0D05;
export const GL_BGRA = 0x80E1, GL_RGBA = 0x1908, GL_RGB = 0x1907, GL_ALPHA = 0x1906, GL_LUMINANCE = 0x1909;
export const GL_LUMINANCE_ALPHA = 0x190A, GL_DEPTH_COMPONENT = 0x1902, GL_DEPTH_STENCIL = 0x84F9;
export const GL_UNSIGNED_BYTE = 0x1401, GL_UNSIGNED_SHORT = 0x1403, GL_UNSIGNED_INT = 0x1405, GL_FLOAT = 0x1406;
export const GL_HALF_FLOAT_OES = 0x8D61, GL_HALF_FLOAT = 0x140B, GL_UNSIGNED_INT_24_8 = 0x84FA;
// The most a single call moves (a buffer's bytes, a texture's): beyond it, OUT_OF_MEMORY.
export const GL_MAX_BYTES = 1 << 30;

export class GLError extends Error {
  constructor(code) { super(`GL error ${code}`); this.code = code; }
}
export const glFail = (code) => { throw new GLError(code); };

// Bytes per pixel of an ES 2 format and type (0: not one).
const pixelBytes = (format, type) => {
  if (type === 0x8033 || type === 0x8034 || type === 0x8363) return 2; // 4444, 5551, 565
  if (type === GL_UNSIGNED_INT_24_8) return 4;
  const n = { [GL_ALPHA]: 1, [GL_LUMINANCE]: 1, [GL_LUMINANCE_ALPHA]: 2, [GL_RGB]: 3, [GL_RGBA]: 4, [GL_BGRA]: 4,
    [GL_DEPTH_COMPONENT]: 1, [GL_DEPTH_STENCIL]: 1 }[format] || 0;
  const size = { [GL_UNSIGNED_BYTE]: 1, [GL_UNSIGNED_SHORT]: 2, [GL_UNSIGNED_INT]: 4, [GL_FLOAT]: 4,
    [GL_HALF_FLOAT_OES]: 2, [GL_HALF_FLOAT]: 2 }[type] || 0;
  return n * size;
};
// An image's bytes as ES 2 lays them out: rows aligned to `align`.
export const imageSize = (w, h, format, type, align) => {
  const per = pixelBytes(format, type);
  if (!per) glFail(GL_INVALID_ENUM);
  if (w < 0 || h < 0) glFail(GL_INVALID_VALUE);
  if (!w || !h) return { size: 0, row: 0 };
  const row = Math.ceil((w * per) / align) * align;
  return { size: row * (h - 1) + w * per, row };
};
// The view WebGL wants for `type`, over a copy when the pointer is not aligned for it.
export const pixelView = (type, b) => {
  const C = type === GL_FLOAT ? Float32Array
    : type === GL_UNSIGNED_INT || type === GL_UNSIGNED_INT_24_8 ? Uint32Array
      : type === GL_UNSIGNED_BYTE ? Uint8Array : Uint16Array;
  if (C === Uint8Array) return b;
  const n = Math.floor(b.byteLength / C.BYTES_PER_ELEMENT);
  if (b.byteOffset % C.BYTES_PER_ELEMENT === 0) return new C(b.buffer, b.byteOffset, n);
  return new C(b.slice(0, n * C.BYTES_PER_ELEMENT).buffer);
};
// ES 2's (internal format, format, type) as WebGL 2 takes them, and whether the
// pixels are BGRA (to swizzle).
export const texFormat = (internal, format, type) => {
  let bgra = false;
  if (format === GL_BGRA) { bgra = true; format = GL_RGBA; }
  if (internal === GL_BGRA) internal = GL_RGBA;
  if (type === GL_HALF_FLOAT_OES) type = GL_HALF_FLOAT;
  if (type === GL_FLOAT || type === GL_HALF_FLOAT) {
    const f = type === GL_FLOAT;
    const sized = { [GL_RGBA]: f ? 0x8814 : 0x881A, [GL_RGB]: f ? 0x8815 : 0x881B };
    if (internal === format && sized[format]) internal = sized[format];
  } else if (format === GL_DEPTH_COMPONENT && internal === GL_DEPTH_COMPONENT) {
    internal = type === GL_UNSIGNED_SHORT ? 0x81A5 : 0x81A6;
  } else if (format === GL_DEPTH_STENCIL && internal === GL_DEPTH_STENCIL) {
    internal = 0x88F0;
  }
  return { internal, format, type, bgra };
};
export const swizzle = (b) => {
  const c = b.slice();
  for (let i = 0; i + 3 < c.length; i += 4) { const t = c[i]; c[i] = c[i + 2]; c[i + 2] = t; }
  return c;
};

// Bytes of a vertex attribute's component type, and of an index type (0: not one).
export const attribBytes = (type) => ({ 0x1400: 1, 0x1401: 1, 0x1402: 2, 0x1403: 2, 0x1406: 4, 0x140C: 4 }[type] || 0);
export const indexBytes = (type) => (type === GL_UNSIGNED_BYTE ? 1 : type === GL_UNSIGNED_SHORT ? 2 : type === GL_UNSIGNED_INT ? 4 : 0);
export const maxIndex = (b, type) => {
  const v = type === GL_UNSIGNED_BYTE ? b : pixelView(type, b);
  let m = -1;
  for (let i = 0; i < v.length; i++) if (v[i] > m) m = v[i];
  return m;
};
