// GL for plugins (host_gl.js): a context's state, and the names of its objects: the
// plugin's integers for WebGL's objects (binding a name not yet made makes it, as in ES 2).
import { GL_INVALID_OPERATION, GL_INVALID_VALUE, GL_NO_ERROR, GL_OUT_OF_MEMORY, glFail } from './host_gl_formats.js';

// The names, over glMemory's views of the plugin's memory.
export function glNames({ bytes, i32s, putI32s }) {
  // The names of each kind, per context: the plugin's integers for WebGL's objects.
  // Programs and shaders share one space, as in ES 2.
  const KINDS = {
    buffer: 'createBuffer', texture: 'createTexture', framebuffer: 'createFramebuffer',
    renderbuffer: 'createRenderbuffer', query: 'createQuery', vao: 'createVertexArray',
  };
  const DELETE = {
    buffer: 'deleteBuffer', texture: 'deleteTexture', framebuffer: 'deleteFramebuffer',
    renderbuffer: 'deleteRenderbuffer', query: 'deleteQuery', vao: 'deleteVertexArray',
  };
  const newContext = (canvas, gl) => {
    const s = {
      canvas, gl, err: GL_NO_ERROR, next: 1, unpack: 4, pack: 4,
      names: { buffer: new Map(), texture: new Map(), framebuffer: new Map(), renderbuffer: new Map(),
        query: new Map(), vao: new Map(), program: new Map() },
      current: null, // the program in use (its state)
      arrayBuffer: 0, // the name bound to ARRAY_BUFFER
      vao: 0,
      clients: new Map(), // per vertex array: index → a client-side array
      enabled: new Map(), // per vertex array: the enabled attribute indices
      scratch: [], scratchIndex: null,
    };
    s.clients.set(0, new Map());
    s.enabled.set(0, new Set());
    return s;
  };
  // (Past the names the host gave textures of its own: a video decoder's pictures.)
  const genName = (s) => {
    while (s.names.texture.has(s.next)) s.next++;
    if (s.next >= 0x7fffffff) glFail(GL_OUT_OF_MEMORY);
    return s.next++;
  };
  // The object named `name` of `kind` (null for 0); a name not made yet is made now
  // (ES 2's Bind*), unless `make` is false.
  const obj = (s, kind, name, make = true) => {
    name >>>= 0;
    if (!name) return null;
    let o = s.names[kind].get(name);
    if (!o) {
      if (!make || kind === 'program') glFail(GL_INVALID_VALUE);
      o = s.gl[KINDS[kind]]();
      if (!o) glFail(GL_OUT_OF_MEMORY);
      o.pnaclName = name;
      s.names[kind].set(name, o);
      if (name >= s.next) s.next = name + 1;
    }
    return o;
  };
  // A program or shader (its state: { o, shader, locs, byName }).
  const prog = (s, name, shader) => {
    const p = s.names.program.get(name >>> 0);
    if (!p) glFail(GL_INVALID_VALUE);
    if (shader !== undefined && p.shader !== shader) glFail(GL_INVALID_OPERATION);
    return p;
  };
  const nameOf = (o) => (o && o.pnaclName) || 0;
  // At most this many names a call (the rest of a plugin's memory could ask for more
  // objects than any context holds).
  const GEN_MAX = 65536;
  const gen = (s, kind, n, out) => {
    if (n < 0) glFail(GL_INVALID_VALUE);
    if (n > GEN_MAX) glFail(GL_OUT_OF_MEMORY);
    bytes(out, 4 * n);
    const names = [];
    for (let i = 0; i < n; i++) {
      const o = s.gl[KINDS[kind]]();
      if (!o) glFail(GL_OUT_OF_MEMORY);
      const name = genName(s);
      o.pnaclName = name;
      s.names[kind].set(name, o);
      names.push(name);
    }
    putI32s(out, names);
  };
  const del = (s, kind, n, p) => {
    if (n < 0) glFail(GL_INVALID_VALUE);
    for (const name of i32s(p, n)) {
      const o = s.names[kind].get(name >>> 0);
      if (!o) continue;
      s.gl[DELETE[kind]](o);
      s.names[kind].delete(name >>> 0);
      if (kind === 'buffer' && s.arrayBuffer === name >>> 0) s.arrayBuffer = 0;
      if (kind === 'vao' && s.vao === name >>> 0) s.vao = 0;
    }
  };
  return { newContext, genName, obj, prog, nameOf, gen, del };
}
