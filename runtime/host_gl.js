// 3-D graphics for a plugin in a page: the `gl` imports of runtime/ppapi/ppb_graphics3d.h, which is
// PPB_Graphics3D;1.0 and PPB_OpenGLES2;1.0 (with its extensions) onto WebGL 2 (ppapi.md
// §4.14, §4.15, §7). Each of the plugin's workers has its own: a context's WebGL lives in
// the worker of the first thread that draws with it, in an OffscreenCanvas there;
// SwapBuffers hands the frame to the page as an ImageBitmap (`post({ frame, device })`),
// which shows it in the element's canvas and answers when it is on screen.
//
// OpenGL ES 2 as Chrome's command buffer gave it, on WebGL 2: object names are the
// plugin's integers (mapped to WebGL's objects per context; binding a name not yet made
// makes it, as in ES 2), uniform locations are integers per program, client-side vertex
// and index arrays (pointers into the plugin's memory where no buffer is bound) are
// copied into buffers of the host's at each draw, BGRA textures are swizzled, ES 2's
// unsized float and depth formats become WebGL 2's sized ones, and strings are read from
// and written to the plugin's memory with the lengths ES 2 defines.
//
// Everything the plugin passes is its own, hostile or not: every pointer and size is
// checked against its memory (a bad one is GL_INVALID_VALUE, as a command buffer's
// client-side check was), every name against the context's, and no call ever throws into
// the plugin.

import { GL_IMPORTS } from './host_gl_entries.js';
import { glMemory } from './host_gl_memory.js';
import { glNames } from './host_gl_names.js';
import { GLError, GL_ARRAY_BUFFER, GL_BGRA, GL_CONTEXT_LOST, GL_ELEMENT_ARRAY_BUFFER, GL_HALF_FLOAT, GL_HALF_FLOAT_OES, GL_INVALID_ENUM, GL_INVALID_OPERATION, GL_INVALID_VALUE, GL_MAX_BYTES, GL_NO_ERROR, GL_OUT_OF_MEMORY, GL_PACK_ALIGNMENT, GL_RGBA, GL_UNPACK_ALIGNMENT, attribBytes, glFail, imageSize, indexBytes, maxIndex, pixelView, swizzle, texFormat } from './host_gl_formats.js';

// The plugin's contexts as all its workers see them (shared memory, made by the page):
// for each resource slot (the id's low 12 bits above 0x2000), [the worker that draws it
// (its thread id + 1; 0: none yet), width, height, attributes (ALPHA 1, DEPTH 2,
// STENCIL 4, ANTIALIAS 8, PRESERVE 16, LIVE 32), generation, the resource's id]. A context is made (the host's Create) in one thread and drawn
// in the first that calls GL on it, which makes its WebGL there: a plugin may create its
// context on the main thread and draw on one of its own, as Chrome allowed.
const GL_SLOTS = 4096, GL_WORDS = 6, GL_FIRST_RESOURCE = 0x2000;
const GL_OWNER = 0, GL_WIDTH = 1, GL_HEIGHT = 2, GL_ATTRS = 3, GL_GEN = 4, GL_ID = 5, GL_LIVE = 32;
export function glContexts() {
  return new Int32Array(new SharedArrayBuffer(4 * GL_SLOTS * GL_WORDS));
}

// The imports for one worker (the thread `tid`'s); `post(message, transfer)` reaches the
// page; `shared` is glContexts()'s table.
export function glImports(memory, post, shared, tid) {
  const contexts = new Map();
  // The plugin's memory (host_gl_memory.js), the contexts' names (host_gl_names.js).
  const { heap, bytes, dv, i32s, f32s, putI32s, putF32s, cstr, putString } = glMemory(memory);
  const { newContext, genName, obj, prog, nameOf, gen, del } = glNames({ bytes, i32s, putI32s });

  const texPixels = (s, w, h, f, ptr, origFormat) => {
    if (!ptr) return null;
    const { size } = imageSize(w, h, origFormat, f.type === GL_HALF_FLOAT ? GL_HALF_FLOAT_OES : f.type, s.unpack);
    const b = bytes(ptr, size);
    return pixelView(f.type, f.bgra ? swizzle(b) : b);
  };

  // Uniform locations: per program, integers for WebGL's objects (-1 for none).
  const loc = (s, l) => {
    if (l === -1) return undefined;
    if (!s.current) glFail(GL_INVALID_OPERATION);
    const u = s.current.locs[l];
    if (!u) glFail(GL_INVALID_OPERATION);
    return u;
  };

  // Client-side arrays: copied into the host's buffers before a draw that uses them.
  const clientArrays = (s) => {
    const clients = s.clients.get(s.vao), enabled = s.enabled.get(s.vao);
    const out = [];
    if (clients) for (const [i, a] of clients) if (enabled.has(i)) out.push([i, a]);
    return out;
  };
  const uploadClients = (s, list, vertices) => {
    const gl = s.gl;
    for (const [i, a] of list) {
      const elem = a.size * attribBytes(a.type), stride = a.stride || elem;
      const n = vertices > 0 ? (vertices - 1) * stride + elem : 0;
      if (!s.scratch[i]) s.scratch[i] = gl.createBuffer();
      gl.bindBuffer(GL_ARRAY_BUFFER, s.scratch[i]);
      gl.bufferData(GL_ARRAY_BUFFER, bytes(a.ptr, n).slice(), 0x88E0); // STREAM_DRAW
      gl.vertexAttribPointer(i, a.size, a.type, a.normalized, a.stride, 0);
    }
    gl.bindBuffer(GL_ARRAY_BUFFER, s.names.buffer.get(s.arrayBuffer) || null);
  };
  // Draws elements, from a bound buffer or the plugin's memory, `draw(offset)` doing it.
  const drawElements = (s, count, type, indices, draw) => {
    const gl = s.gl, per = indexBytes(type);
    if (!per) glFail(GL_INVALID_ENUM);
    if (count < 0) glFail(GL_INVALID_VALUE);
    const clients = clientArrays(s);
    const bound = gl.getParameter(0x8895); // ELEMENT_ARRAY_BUFFER_BINDING
    if (bound) {
      if (clients.length) {
        const b = new Uint8Array(count * per);
        gl.getBufferSubData(GL_ELEMENT_ARRAY_BUFFER, indices >>> 0, b);
        uploadClients(s, clients, maxIndex(b, type) + 1);
      }
      draw(indices >>> 0);
      return;
    }
    const b = bytes(indices, count * per).slice();
    if (clients.length) uploadClients(s, clients, maxIndex(b, type) + 1);
    if (!s.scratchIndex) s.scratchIndex = gl.createBuffer();
    gl.bindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.scratchIndex);
    gl.bufferData(GL_ELEMENT_ARRAY_BUFFER, b, 0x88E0);
    try {
      draw(0);
    } finally {
      gl.bindBuffer(GL_ELEMENT_ARRAY_BUFFER, null);
    }
  };
  const drawArrays = (s, first, count, draw) => {
    if (first < 0 || count < 0) glFail(GL_INVALID_VALUE);
    const clients = clientArrays(s);
    if (clients.length) uploadClients(s, clients, first + count);
    draw();
  };

  // A parameter's value as ES 2's getters write it (names for objects).
  const BINDINGS = new Set([0x8894, 0x8895, 0x8069, 0x8514, 0x8CA6, 0x8CA7, 0x8B8D, 0x85B5, 0x8CAA]);
  const param = (s, pname) => {
    const gl = s.gl;
    if (BINDINGS.has(pname)) {
      if (pname === 0x8B8D) return [s.current ? s.current.name : 0];
      return [nameOf(gl.getParameter(pname))];
    }
    if (pname === 0x8DF9) return [0]; // NUM_SHADER_BINARY_FORMATS
    if (pname === 0x8DF8) return []; // SHADER_BINARY_FORMATS
    if (pname === 0x8DFA) return [1]; // SHADER_COMPILER
    if (pname === 0x86A2) return [(gl.getParameter(0x86A3) || []).length]; // NUM_COMPRESSED_TEXTURE_FORMATS
    const v = gl.getParameter(pname);
    if (v === null || v === undefined) return [];
    if (typeof v === 'number' || typeof v === 'boolean') return [Number(v)];
    if (typeof v === 'string') return [];
    if (ArrayBuffer.isView(v) || Array.isArray(v)) return Array.from(v, Number);
    return [nameOf(v)];
  };

  const programInfo = (s, p, pname) => {
    const gl = s.gl;
    if (pname === 0x8B84) { const log = gl.getProgramInfoLog(p.o) || ''; return log ? new TextEncoder().encode(log).length + 1 : 0; }
    if (pname === 0x8B87 || pname === 0x8B8A) {
      const uniforms = pname === 0x8B87;
      const n = gl.getProgramParameter(p.o, uniforms ? 0x8B86 : 0x8B89) || 0;
      let max = 0;
      for (let i = 0; i < n; i++) {
        const a = uniforms ? gl.getActiveUniform(p.o, i) : gl.getActiveAttrib(p.o, i);
        if (a) max = Math.max(max, a.name.length + 1);
      }
      return max;
    }
    const v = gl.getProgramParameter(p.o, pname);
    if (v === null) return null;
    return Number(v);
  };

  const T = {
    ActiveTexture: (s, t) => s.gl.activeTexture(t),
    AttachShader: (s, p, sh) => s.gl.attachShader(prog(s, p, false).o, prog(s, sh, true).o),
    BindAttribLocation: (s, p, i, name) => s.gl.bindAttribLocation(prog(s, p, false).o, i, cstr(name)),
    BindBuffer: (s, target, name) => {
      s.gl.bindBuffer(target, obj(s, 'buffer', name));
      if (target === GL_ARRAY_BUFFER) s.arrayBuffer = name >>> 0;
    },
    BindFramebuffer: (s, target, name) => s.gl.bindFramebuffer(target, obj(s, 'framebuffer', name)),
    BindRenderbuffer: (s, target, name) => s.gl.bindRenderbuffer(target, obj(s, 'renderbuffer', name)),
    BindTexture: (s, target, name) => s.gl.bindTexture(target, obj(s, 'texture', name)),
    BlendColor: (s, r, g, b, a) => s.gl.blendColor(r, g, b, a),
    BlendEquation: (s, m) => s.gl.blendEquation(m),
    BlendEquationSeparate: (s, a, b) => s.gl.blendEquationSeparate(a, b),
    BlendFunc: (s, a, b) => s.gl.blendFunc(a, b),
    BlendFuncSeparate: (s, a, b, c, d) => s.gl.blendFuncSeparate(a, b, c, d),
    BufferData: (s, target, size, data, usage) => {
      if (size < 0) glFail(GL_INVALID_VALUE);
      if (size > GL_MAX_BYTES) glFail(GL_OUT_OF_MEMORY);
      if (data) s.gl.bufferData(target, bytes(data, size).slice(), usage);
      else s.gl.bufferData(target, size, usage);
    },
    BufferSubData: (s, target, offset, size, data) => {
      if (offset < 0 || size < 0) glFail(GL_INVALID_VALUE);
      s.gl.bufferSubData(target, offset, bytes(data, size).slice());
    },
    CheckFramebufferStatus: (s, t) => s.gl.checkFramebufferStatus(t),
    Clear: (s, m) => s.gl.clear(m),
    ClearColor: (s, r, g, b, a) => s.gl.clearColor(r, g, b, a),
    ClearDepthf: (s, d) => s.gl.clearDepth(d),
    ClearStencil: (s, v) => s.gl.clearStencil(v),
    ColorMask: (s, r, g, b, a) => s.gl.colorMask(!!r, !!g, !!b, !!a),
    CompileShader: (s, sh) => s.gl.compileShader(prog(s, sh, true).o),
    CompressedTexImage2D: (s, target, level, format, w, h, border, size, data) =>
      s.gl.compressedTexImage2D(target, level, format, w, h, border, bytes(data, size).slice()),
    CompressedTexSubImage2D: (s, target, level, x, y, w, h, format, size, data) =>
      s.gl.compressedTexSubImage2D(target, level, x, y, w, h, format, bytes(data, size).slice()),
    CopyTexImage2D: (s, target, level, format, x, y, w, h, border) => {
      s.gl.copyTexImage2D(target, level, format === GL_BGRA ? GL_RGBA : format, x, y, w, h, border);
    },
    CopyTexSubImage2D: (s, target, level, xo, yo, x, y, w, h) => s.gl.copyTexSubImage2D(target, level, xo, yo, x, y, w, h),
    CreateProgram: (s) => {
      const o = s.gl.createProgram();
      if (!o) return 0;
      const name = genName(s);
      s.names.program.set(name, { o, name, shader: false, locs: [], byName: new Map() });
      return name;
    },
    CreateShader: (s, type) => {
      const o = s.gl.createShader(type);
      if (!o) return 0;
      const name = genName(s);
      s.names.program.set(name, { o, name, shader: true });
      return name;
    },
    CullFace: (s, m) => s.gl.cullFace(m),
    DeleteBuffers: (s, n, p) => del(s, 'buffer', n, p),
    DeleteFramebuffers: (s, n, p) => del(s, 'framebuffer', n, p),
    DeleteProgram: (s, name) => {
      if (!name) return;
      const p = prog(s, name, false);
      s.gl.deleteProgram(p.o);
      s.names.program.delete(name >>> 0);
    },
    DeleteRenderbuffers: (s, n, p) => del(s, 'renderbuffer', n, p),
    DeleteShader: (s, name) => {
      if (!name) return;
      const p = prog(s, name, true);
      s.gl.deleteShader(p.o);
      s.names.program.delete(name >>> 0);
    },
    DeleteTextures: (s, n, p) => del(s, 'texture', n, p),
    DepthFunc: (s, f) => s.gl.depthFunc(f),
    DepthMask: (s, f) => s.gl.depthMask(!!f),
    DepthRangef: (s, a, b) => s.gl.depthRange(a, b),
    DetachShader: (s, p, sh) => s.gl.detachShader(prog(s, p, false).o, prog(s, sh, true).o),
    Disable: (s, c) => s.gl.disable(c),
    DisableVertexAttribArray: (s, i) => {
      s.enabled.get(s.vao).delete(i >>> 0);
      s.gl.disableVertexAttribArray(i);
    },
    DrawArrays: (s, mode, first, count) => drawArrays(s, first, count, () => s.gl.drawArrays(mode, first, count)),
    DrawElements: (s, mode, count, type, indices) =>
      drawElements(s, count, type, indices, (at) => s.gl.drawElements(mode, count, type, at)),
    Enable: (s, c) => s.gl.enable(c),
    EnableVertexAttribArray: (s, i) => {
      s.gl.enableVertexAttribArray(i);
      s.enabled.get(s.vao).add(i >>> 0);
    },
    Finish: (s) => s.gl.finish(),
    Flush: (s) => s.gl.flush(),
    FramebufferRenderbuffer: (s, target, at, rt, name) =>
      s.gl.framebufferRenderbuffer(target, at, rt, obj(s, 'renderbuffer', name, false)),
    FramebufferTexture2D: (s, target, at, tt, name, level) =>
      s.gl.framebufferTexture2D(target, at, tt, obj(s, 'texture', name, false), level),
    FrontFace: (s, m) => s.gl.frontFace(m),
    GenBuffers: (s, n, p) => gen(s, 'buffer', n, p),
    GenerateMipmap: (s, t) => s.gl.generateMipmap(t),
    GenFramebuffers: (s, n, p) => gen(s, 'framebuffer', n, p),
    GenRenderbuffers: (s, n, p) => gen(s, 'renderbuffer', n, p),
    GenTextures: (s, n, p) => gen(s, 'texture', n, p),
    GetActiveAttrib: (s, p, i, bufsize, lengthp, sizep, typep, namep) => {
      const a = s.gl.getActiveAttrib(prog(s, p, false).o, i);
      if (!a) glFail(GL_INVALID_VALUE);
      putString(a.name, bufsize, lengthp, namep);
      putI32s(sizep, [a.size]);
      putI32s(typep, [a.type]);
    },
    GetActiveUniform: (s, p, i, bufsize, lengthp, sizep, typep, namep) => {
      const a = s.gl.getActiveUniform(prog(s, p, false).o, i);
      if (!a) glFail(GL_INVALID_VALUE);
      putString(a.name, bufsize, lengthp, namep);
      putI32s(sizep, [a.size]);
      putI32s(typep, [a.type]);
    },
    GetAttachedShaders: (s, p, max, countp, out) => {
      if (max < 0) glFail(GL_INVALID_VALUE);
      const names = (s.gl.getAttachedShaders(prog(s, p, false).o) || []).map((o) => {
        for (const [n, q] of s.names.program) if (q.o === o) return n;
        return 0;
      }).slice(0, max);
      putI32s(out, names);
      putI32s(countp, [names.length]);
    },
    GetAttribLocation: (s, p, name) => s.gl.getAttribLocation(prog(s, p, false).o, cstr(name)),
    GetBooleanv: (s, pname, out) => {
      const v = param(s, pname);
      const b = bytes(out, v.length);
      v.forEach((x, i) => { b[i] = x ? 1 : 0; });
    },
    GetBufferParameteriv: (s, t, pname, out) => putI32s(out, [s.gl.getBufferParameter(t, pname) ?? 0]),
    GetError: (s) => {
      const e = s.err;
      s.err = GL_NO_ERROR;
      if (e) return e;
      const g = s.gl.getError();
      return g === 0x9242 ? GL_CONTEXT_LOST : g;
    },
    GetFloatv: (s, pname, out) => putF32s(out, param(s, pname)),
    GetFramebufferAttachmentParameteriv: (s, t, at, pname, out) => {
      const v = s.gl.getFramebufferAttachmentParameter(t, at, pname);
      putI32s(out, [v && typeof v === 'object' ? nameOf(v) : Number(v ?? 0)]);
    },
    GetIntegerv: (s, pname, out) => putI32s(out, param(s, pname).map((x) => Math.trunc(x))),
    GetProgramiv: (s, p, pname, out) => {
      const v = programInfo(s, prog(s, p, false), pname);
      if (v !== null) putI32s(out, [v]);
    },
    GetProgramInfoLog: (s, p, bufsize, lengthp, out) =>
      putString(s.gl.getProgramInfoLog(prog(s, p, false).o), bufsize, lengthp, out),
    GetRenderbufferParameteriv: (s, t, pname, out) => putI32s(out, [s.gl.getRenderbufferParameter(t, pname) ?? 0]),
    GetShaderiv: (s, sh, pname, out) => {
      const p = prog(s, sh, true), gl = s.gl;
      let v;
      if (pname === 0x8B84) { const log = gl.getShaderInfoLog(p.o) || ''; v = log ? new TextEncoder().encode(log).length + 1 : 0; }
      else if (pname === 0x8B88) { const src = gl.getShaderSource(p.o) || ''; v = src ? new TextEncoder().encode(src).length + 1 : 0; }
      else v = gl.getShaderParameter(p.o, pname);
      if (v !== null) putI32s(out, [Number(v)]);
    },
    GetShaderInfoLog: (s, sh, bufsize, lengthp, out) =>
      putString(s.gl.getShaderInfoLog(prog(s, sh, true).o), bufsize, lengthp, out),
    GetShaderPrecisionFormat: (s, st, pt, range, precision) => {
      const f = s.gl.getShaderPrecisionFormat(st, pt);
      if (!f) return;
      putI32s(range, [f.rangeMin, f.rangeMax]);
      putI32s(precision, [f.precision]);
    },
    GetShaderSource: (s, sh, bufsize, lengthp, out) =>
      putString(s.gl.getShaderSource(prog(s, sh, true).o), bufsize, lengthp, out),
    GetTexParameterfv: (s, t, pname, out) => putF32s(out, [s.gl.getTexParameter(t, pname) ?? 0]),
    GetTexParameteriv: (s, t, pname, out) => putI32s(out, [Number(s.gl.getTexParameter(t, pname) ?? 0)]),
    GetUniformfv: (s, p, l, out) => {
      const q = prog(s, p, false), u = q.locs[l];
      if (!u) glFail(GL_INVALID_OPERATION);
      const v = s.gl.getUniform(q.o, u);
      putF32s(out, typeof v === 'object' && v ? Array.from(v, Number) : [Number(v)]);
    },
    GetUniformiv: (s, p, l, out) => {
      const q = prog(s, p, false), u = q.locs[l];
      if (!u) glFail(GL_INVALID_OPERATION);
      const v = s.gl.getUniform(q.o, u);
      putI32s(out, typeof v === 'object' && v ? Array.from(v, Number) : [Number(v)]);
    },
    GetUniformLocation: (s, p, name) => {
      const q = prog(s, p, false), text = cstr(name);
      if (q.byName.has(text)) return q.byName.get(text);
      const u = s.gl.getUniformLocation(q.o, text);
      if (!u) return -1;
      const at = q.locs.length;
      q.locs.push(u);
      q.byName.set(text, at);
      return at;
    },
    GetVertexAttribfv: (s, i, pname, out) => {
      const v = s.gl.getVertexAttrib(i, pname);
      putF32s(out, typeof v === 'object' && v && !('pnaclName' in v) && v.length !== undefined ? Array.from(v) : [Number(nameOf(v) || v || 0)]);
    },
    GetVertexAttribiv: (s, i, pname, out) => {
      const v = s.gl.getVertexAttrib(i, pname);
      if (v && typeof v === 'object' && v.length !== undefined) putI32s(out, Array.from(v, (x) => Math.trunc(x)));
      else putI32s(out, [v && typeof v === 'object' ? nameOf(v) : Number(v || 0)]);
    },
    GetVertexAttribPointerv: (s, i, pname, out) => {
      const a = s.clients.get(s.vao).get(i >>> 0);
      putI32s(out, [a ? a.ptr : s.gl.getVertexAttribOffset(i, pname)]);
    },
    Hint: (s, t, m) => s.gl.hint(t, m),
    IsBuffer: (s, n) => Number(s.names.buffer.has(n >>> 0) && s.gl.isBuffer(s.names.buffer.get(n >>> 0))),
    IsEnabled: (s, c) => Number(s.gl.isEnabled(c)),
    IsFramebuffer: (s, n) => Number(s.names.framebuffer.has(n >>> 0) && s.gl.isFramebuffer(s.names.framebuffer.get(n >>> 0))),
    IsProgram: (s, n) => Number(!!s.names.program.get(n >>> 0) && !s.names.program.get(n >>> 0).shader),
    IsRenderbuffer: (s, n) => Number(s.names.renderbuffer.has(n >>> 0) && s.gl.isRenderbuffer(s.names.renderbuffer.get(n >>> 0))),
    IsShader: (s, n) => Number(!!s.names.program.get(n >>> 0) && s.names.program.get(n >>> 0).shader),
    IsTexture: (s, n) => Number(s.names.texture.has(n >>> 0) && s.gl.isTexture(s.names.texture.get(n >>> 0))),
    LineWidth: (s, w) => s.gl.lineWidth(w),
    LinkProgram: (s, p) => {
      const q = prog(s, p, false);
      q.locs = [];
      q.byName = new Map();
      s.gl.linkProgram(q.o);
    },
    PixelStorei: (s, pname, v) => {
      if ((pname === GL_UNPACK_ALIGNMENT || pname === GL_PACK_ALIGNMENT) && ![1, 2, 4, 8].includes(v)) glFail(GL_INVALID_VALUE);
      if (pname === GL_UNPACK_ALIGNMENT) s.unpack = v;
      else if (pname === GL_PACK_ALIGNMENT) s.pack = v;
      s.gl.pixelStorei(pname, v);
    },
    PolygonOffset: (s, f, u) => s.gl.polygonOffset(f, u),
    ReadPixels: (s, x, y, w, h, format, type, out) => {
      const bgra = format === GL_BGRA;
      const { size } = imageSize(w, h, format, type, s.pack);
      const dst = bytes(out, size);
      const tmp = new Uint8Array(size);
      s.gl.readPixels(x, y, w, h, bgra ? GL_RGBA : format, type, pixelView(type, tmp));
      dst.set(bgra ? swizzle(tmp) : tmp);
    },
    ReleaseShaderCompiler: () => {},
    RenderbufferStorage: (s, t, f, w, h) => s.gl.renderbufferStorage(t, f, w, h),
    SampleCoverage: (s, v, inv) => s.gl.sampleCoverage(v, !!inv),
    Scissor: (s, x, y, w, h) => s.gl.scissor(x, y, w, h),
    ShaderBinary: () => glFail(GL_INVALID_ENUM),
    ShaderSource: (s, sh, count, strings, lengths) => {
      if (count < 0) glFail(GL_INVALID_VALUE);
      const p = prog(s, sh, true);
      const ptrs = i32s(strings, count), lens = lengths ? i32s(lengths, count) : null;
      let text = '';
      for (let i = 0; i < count; i++) {
        text += lens && lens[i] >= 0 ? new TextDecoder().decode(bytes(ptrs[i], lens[i]).slice()) : cstr(ptrs[i]);
      }
      s.gl.shaderSource(p.o, text);
    },
    StencilFunc: (s, f, r, m) => s.gl.stencilFunc(f, r, m),
    StencilFuncSeparate: (s, face, f, r, m) => s.gl.stencilFuncSeparate(face, f, r, m),
    StencilMask: (s, m) => s.gl.stencilMask(m),
    StencilMaskSeparate: (s, f, m) => s.gl.stencilMaskSeparate(f, m),
    StencilOp: (s, a, b, c) => s.gl.stencilOp(a, b, c),
    StencilOpSeparate: (s, f, a, b, c) => s.gl.stencilOpSeparate(f, a, b, c),
    TexImage2D: (s, target, level, internal, w, h, border, format, type, px) => {
      const f = texFormat(internal, format, type);
      s.gl.texImage2D(target, level, f.internal, w, h, border, f.format, f.type, texPixels(s, w, h, f, px, format));
    },
    TexParameterf: (s, t, pname, v) => s.gl.texParameterf(t, pname, v),
    TexParameterfv: (s, t, pname, p) => s.gl.texParameterf(t, pname, f32s(p, 1)[0]),
    TexParameteri: (s, t, pname, v) => s.gl.texParameteri(t, pname, v),
    TexParameteriv: (s, t, pname, p) => s.gl.texParameteri(t, pname, i32s(p, 1)[0]),
    TexSubImage2D: (s, target, level, x, y, w, h, format, type, px) => {
      const f = texFormat(format, format, type);
      const data = texPixels(s, w, h, f, px, format);
      if (!data) glFail(GL_INVALID_VALUE);
      s.gl.texSubImage2D(target, level, x, y, w, h, f.format, f.type, data);
    },
    Uniform1f: (s, l, x) => { const u = loc(s, l); if (u) s.gl.uniform1f(u, x); },
    Uniform2f: (s, l, x, y) => { const u = loc(s, l); if (u) s.gl.uniform2f(u, x, y); },
    Uniform3f: (s, l, x, y, z) => { const u = loc(s, l); if (u) s.gl.uniform3f(u, x, y, z); },
    Uniform4f: (s, l, x, y, z, w) => { const u = loc(s, l); if (u) s.gl.uniform4f(u, x, y, z, w); },
    Uniform1i: (s, l, x) => { const u = loc(s, l); if (u) s.gl.uniform1i(u, x); },
    Uniform2i: (s, l, x, y) => { const u = loc(s, l); if (u) s.gl.uniform2i(u, x, y); },
    Uniform3i: (s, l, x, y, z) => { const u = loc(s, l); if (u) s.gl.uniform3i(u, x, y, z); },
    Uniform4i: (s, l, x, y, z, w) => { const u = loc(s, l); if (u) s.gl.uniform4i(u, x, y, z, w); },
    Uniform1fv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform1fv(u, f32s(p, n)); },
    Uniform2fv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform2fv(u, f32s(p, 2 * n)); },
    Uniform3fv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform3fv(u, f32s(p, 3 * n)); },
    Uniform4fv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform4fv(u, f32s(p, 4 * n)); },
    Uniform1iv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform1iv(u, i32s(p, n)); },
    Uniform2iv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform2iv(u, i32s(p, 2 * n)); },
    Uniform3iv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform3iv(u, i32s(p, 3 * n)); },
    Uniform4iv: (s, l, n, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniform4iv(u, i32s(p, 4 * n)); },
    UniformMatrix2fv: (s, l, n, tr, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniformMatrix2fv(u, !!tr, f32s(p, 4 * n)); },
    UniformMatrix3fv: (s, l, n, tr, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniformMatrix3fv(u, !!tr, f32s(p, 9 * n)); },
    UniformMatrix4fv: (s, l, n, tr, p) => { if (n < 0) glFail(GL_INVALID_VALUE); const u = loc(s, l); if (u) s.gl.uniformMatrix4fv(u, !!tr, f32s(p, 16 * n)); },
    UseProgram: (s, p) => {
      const q = p ? prog(s, p, false) : null;
      s.gl.useProgram(q ? q.o : null);
      s.current = q;
    },
    ValidateProgram: (s, p) => s.gl.validateProgram(prog(s, p, false).o),
    VertexAttrib1f: (s, i, x) => s.gl.vertexAttrib1f(i, x),
    VertexAttrib2f: (s, i, x, y) => s.gl.vertexAttrib2f(i, x, y),
    VertexAttrib3f: (s, i, x, y, z) => s.gl.vertexAttrib3f(i, x, y, z),
    VertexAttrib4f: (s, i, x, y, z, w) => s.gl.vertexAttrib4f(i, x, y, z, w),
    VertexAttrib1fv: (s, i, p) => s.gl.vertexAttrib1fv(i, f32s(p, 1)),
    VertexAttrib2fv: (s, i, p) => s.gl.vertexAttrib2fv(i, f32s(p, 2)),
    VertexAttrib3fv: (s, i, p) => s.gl.vertexAttrib3fv(i, f32s(p, 3)),
    VertexAttrib4fv: (s, i, p) => s.gl.vertexAttrib4fv(i, f32s(p, 4)),
    VertexAttribPointer: (s, i, size, type, norm, stride, ptr) => {
      const clients = s.clients.get(s.vao);
      if (!s.arrayBuffer && ptr) {
        // A client-side array: kept, and copied at each draw.
        if (size < 1 || size > 4 || stride < 0 || stride > 255 || !attribBytes(type)) glFail(GL_INVALID_VALUE);
        if (i >>> 0 >= 16) glFail(GL_INVALID_VALUE);
        clients.set(i >>> 0, { size, type, normalized: !!norm, stride, ptr: ptr >>> 0 });
        return;
      }
      clients.delete(i >>> 0);
      s.gl.vertexAttribPointer(i, size, type, !!norm, stride, ptr >>> 0);
    },
    Viewport: (s, x, y, w, h) => s.gl.viewport(x, y, w, h),
    // PPB_OpenGLES2InstancedArrays, FramebufferBlit, FramebufferMultisample: WebGL 2's own.
    DrawArraysInstancedANGLE: (s, mode, first, count, n) =>
      drawArrays(s, first, count, () => s.gl.drawArraysInstanced(mode, first, count, n)),
    DrawElementsInstancedANGLE: (s, mode, count, type, indices, n) =>
      drawElements(s, count, type, indices, (at) => s.gl.drawElementsInstanced(mode, count, type, at, n)),
    VertexAttribDivisorANGLE: (s, i, d) => s.gl.vertexAttribDivisor(i, d),
    BlitFramebufferEXT: (s, a, b, c, d, e, f, g, h, mask, filter) => s.gl.blitFramebuffer(a, b, c, d, e, f, g, h, mask, filter),
    RenderbufferStorageMultisampleEXT: (s, t, n, f, w, h) => s.gl.renderbufferStorageMultisample(t, n, f, w, h),
    // PPB_OpenGLES2Query (EXT_occlusion_query_boolean): WebGL 2's queries.
    GenQueriesEXT: (s, n, p) => gen(s, 'query', n, p),
    DeleteQueriesEXT: (s, n, p) => del(s, 'query', n, p),
    IsQueryEXT: (s, n) => Number(s.names.query.has(n >>> 0)),
    BeginQueryEXT: (s, t, n) => s.gl.beginQuery(t, obj(s, 'query', n)),
    EndQueryEXT: (s, t) => s.gl.endQuery(t),
    GetQueryivEXT: (s, t, pname, out) => putI32s(out, [nameOf(s.gl.getQuery(t, pname))]),
    GetQueryObjectuivEXT: (s, n, pname, out) =>
      putI32s(out, [Number(s.gl.getQueryParameter(obj(s, 'query', n, false), pname) ?? 0)]),
    // PPB_OpenGLES2VertexArrayObject: each array its own client-side arrays.
    GenVertexArraysOES: (s, n, p) => gen(s, 'vao', n, p),
    DeleteVertexArraysOES: (s, n, p) => del(s, 'vao', n, p),
    IsVertexArrayOES: (s, n) => Number(s.names.vao.has(n >>> 0)),
    BindVertexArrayOES: (s, n) => {
      s.gl.bindVertexArray(obj(s, 'vao', n));
      s.vao = n >>> 0;
      if (!s.clients.has(s.vao)) { s.clients.set(s.vao, new Map()); s.enabled.set(s.vao, new Set()); }
    },
    DrawBuffersEXT: (s, n, p) => {
      if (n < 0 || n > 16) glFail(GL_INVALID_VALUE);
      s.gl.drawBuffers(Array.from(i32s(p, n), (x) => x >>> 0));
    },
  };

  // The WebGL of context `r` in this worker: made here if no worker draws it yet, kept
  // to the size the host last gave it; null if another worker draws it or it is gone.
  const slot = (r) => {
    const i = (r - GL_FIRST_RESOURCE) % GL_SLOTS;
    return r > GL_FIRST_RESOURCE && i > 0 ? i * GL_WORDS : -1;
  };
  const make = (r, at) => {
    const attrs = Atomics.load(shared, at + GL_ATTRS);
    const w = Math.max(Atomics.load(shared, at + GL_WIDTH), 1), h = Math.max(Atomics.load(shared, at + GL_HEIGHT), 1);
    try {
      const canvas = new OffscreenCanvas(w, h);
      const gl = canvas.getContext('webgl2', {
        alpha: !!(attrs & 1), depth: !!(attrs & 2), stencil: !!(attrs & 4), antialias: !!(attrs & 8),
        preserveDrawingBuffer: !!(attrs & 16), premultipliedAlpha: true,
      });
      if (!gl) return null;
      for (const ext of ['EXT_color_buffer_float', 'EXT_color_buffer_half_float', 'OES_texture_float_linear',
        'WEBGL_compressed_texture_s3tc', 'WEBGL_compressed_texture_etc1', 'WEBGL_compressed_texture_etc',
        'EXT_texture_filter_anisotropic']) gl.getExtension(ext);
      const s = newContext(canvas, gl);
      s.gen = Atomics.load(shared, at + GL_GEN);
      contexts.set(r, s);
      return s;
    } catch {
      return null;
    }
  };
  const contextOf = (r) => {
    const at = slot(r);
    if (at < 0) return null;
    const live = Atomics.load(shared, at + GL_ID) === r && (Atomics.load(shared, at + GL_ATTRS) & GL_LIVE) !== 0;
    let s = contexts.get(r);
    if (s && (!live || s.gen !== Atomics.load(shared, at + GL_GEN))) {
      // Gone (or its slot is another context's now): its WebGL goes.
      contexts.delete(r);
      const lose = s.gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
      s = null;
    }
    if (!live) return null;
    if (!s) {
      if (Atomics.compareExchange(shared, at + GL_OWNER, 0, tid + 1) !== 0) return null;
      s = make(r, at);
      if (!s) return null;
    }
    const w = Math.max(Atomics.load(shared, at + GL_WIDTH), 1), h = Math.max(Atomics.load(shared, at + GL_HEIGHT), 1);
    if (s.canvas.width !== w) s.canvas.width = w;
    if (s.canvas.height !== h) s.canvas.height = h;
    return s;
  };

  // Each entry: the context looked up (a call on one another worker draws does nothing,
  // as on a lost context), its errors kept for GetError, nothing thrown.
  const warned = new Set();
  const entry = (name, f) => (c, a, b, d, e, g, h, i, j, k, l) => {
    const s = contextOf(c);
    if (!s) return 0;
    try {
      const r = f(s, a, b, d, e, g, h, i, j, k, l);
      return typeof r === 'number' ? r : 0;
    } catch (x) {
      if (!s.err) s.err = x instanceof GLError ? x.code : GL_INVALID_VALUE;
      if (!(x instanceof GLError) && !warned.has(name)) {
        warned.add(name);
        console.warn(`pnacl: gl${name}: ${x && x.message}`);
      }
      return 0;
    }
  };

  // WebGL 2 at all, asked once a worker.
  let available = null;
  const haveWebGL = () => {
    if (available === null) {
      try {
        const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
        available = !!gl;
        if (gl && gl.getExtension('WEBGL_lose_context')) gl.getExtension('WEBGL_lose_context').loseContext();
      } catch {
        available = false;
      }
    }
    return available;
  };
  // The context's side: made, resized, shown, gone (not through a context of this worker's).
  const ofContext = {};
  ofContext.context_create = (r, w, h, alpha, depth, stencil, antialias, preserve) => {
    const at = slot(r);
    if (at < 0 || typeof OffscreenCanvas === 'undefined' || !haveWebGL()) return 0;
    Atomics.store(shared, at + GL_OWNER, 0);
    Atomics.store(shared, at + GL_ID, r);
    Atomics.store(shared, at + GL_WIDTH, w);
    Atomics.store(shared, at + GL_HEIGHT, h);
    Atomics.add(shared, at + GL_GEN, 1);
    Atomics.store(shared, at + GL_ATTRS,
      (alpha ? 1 : 0) | (depth ? 2 : 0) | (stencil ? 4 : 0) | (antialias ? 8 : 0) | (preserve ? 16 : 0) | GL_LIVE);
    return 1;
  };
  ofContext.context_resize = (r, w, h) => {
    const at = slot(r);
    if (at < 0 || Atomics.load(shared, at + GL_ID) !== r) return;
    Atomics.store(shared, at + GL_WIDTH, w);
    Atomics.store(shared, at + GL_HEIGHT, h);
  };
  ofContext.context_swap = (r, shown) => {
    const s = contextOf(r);
    if (!s || !shown) return 0;
    try {
      const frame = s.canvas.transferToImageBitmap();
      post({ frame, device: r }, [frame]);
      return 1;
    } catch {
      return 0;
    }
  };
  ofContext.context_destroy = (r) => {
    const at = slot(r);
    if (at < 0 || Atomics.load(shared, at + GL_ID) !== r) return;
    Atomics.store(shared, at + GL_ATTRS, 0);
    contextOf(r); // this worker's WebGL of it, if it has one, goes now
  };

  // A decoded video picture (ppb_video_decoder.h) into the texture the host named for it:
  // RGBA, w x h, from the plugin's memory, with the plugin's own state (the active unit,
  // its 2-D binding, the unpacking alignment) as it was; pixels 0 deletes the texture.
  ofContext.context_picture = (r, texture, pixels, w, h) => {
    const s = contextOf(r);
    if (!s || !texture) return 0;
    const gl = s.gl;
    if (!pixels) {
      const o = s.names.texture.get(texture >>> 0);
      if (o) { gl.deleteTexture(o); s.names.texture.delete(texture >>> 0); }
      return 1;
    }
    try {
      if (w <= 0 || h <= 0 || w > 16384 || h > 16384) return 0;
      const px = bytes(pixels, w * h * 4);
      // (Made here, not by obj(): the plugin's own names go on counting from theirs.)
      let o = s.names.texture.get(texture >>> 0);
      const fresh = !o;
      if (fresh) {
        o = gl.createTexture();
        if (!o) return 0;
        o.pnaclName = texture >>> 0;
        s.names.texture.set(texture >>> 0, o);
      }
      const unit = gl.getParameter(0x84E0); // ACTIVE_TEXTURE
      gl.activeTexture(0x84C0); // TEXTURE0
      const was = gl.getParameter(0x8069); // TEXTURE_BINDING_2D
      gl.bindTexture(0x0DE1, o);
      if (fresh) {
        for (const [pname, v] of [[0x2801, 0x2601], [0x2800, 0x2601], [0x2802, 0x812F], [0x2803, 0x812F]]) gl.texParameteri(0x0DE1, pname, v);
      }
      gl.pixelStorei(GL_UNPACK_ALIGNMENT, 4);
      if (o.pnaclPicture === `${w}x${h}`) gl.texSubImage2D(0x0DE1, 0, 0, 0, w, h, GL_RGBA, 0x1401, px);
      else gl.texImage2D(0x0DE1, 0, GL_RGBA, w, h, 0, GL_RGBA, 0x1401, px);
      o.pnaclPicture = `${w}x${h}`;
      gl.pixelStorei(GL_UNPACK_ALIGNMENT, s.unpack);
      gl.bindTexture(0x0DE1, was);
      gl.activeTexture(unit);
      return 1;
    } catch {
      return 0;
    }
  };

  // The imports, as runtime/ppapi/gles2.def lists them: each given, and no other.
  const imports = {};
  for (const name of GL_IMPORTS) {
    if (Object.hasOwn(ofContext, name)) imports[name] = ofContext[name];
    else if (Object.hasOwn(T, name)) imports[name] = entry(name, T[name]);
    else throw new Error(`pnacl: host_gl.js gives no gl ${name}`);
  }
  for (const name of [...Object.keys(T), ...Object.keys(ofContext)]) {
    if (!Object.hasOwn(imports, name)) throw new Error(`pnacl: gl ${name} is in no list of runtime/ppapi/gles2.def`);
  }
  return imports;
}
