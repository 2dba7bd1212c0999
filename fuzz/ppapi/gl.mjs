// A fuzz target for the page's GL (runtime/host_gl.js), in node: every import, called
// with hostile arguments (sizes and counts at the limits, pointers at and past the end of
// the plugin's memory, names and locations it never made, contexts it does not have),
// on a stand-in for WebGL 2 that accepts anything and checks what it is given. What must
// hold: no call throws into the plugin, nor inside the host (but a GL error); every result
// is a number; every view of memory the host hands WebGL lies within the plugin's memory
// (a copy, or a view of it); the context's error is one of ES 2's (or none).
//   PNACL_GENERATED_JS=DIR node fuzz/ppapi/gl.mjs RUNS SEED
// (DIR holds the modules pnacl-translate writes, translate::js::generated; tests/site.rs
// writes them and runs it so.)
import vm from 'node:vm';

import { hostSource } from '../../tests/node/host_source.mjs';

const [runs = '100000', seed = '1'] = process.argv.slice(2);
// As the page has it: after the core host (whose memoryTo it uses).
const source = hostSource(['host_gl.js']);

// A stand-in WebGL 2: each method records its call and checks its array arguments; the
// objects it makes are plain ones; getters answer as WebGL does, with numbers, arrays,
// objects or null.
const problems = [];
const calls = new Map();
const memory = new WebAssembly.Memory({ initial: 2, maximum: 2, shared: true });
const fakeGl = () => {
  const check = (name, args) => {
    for (const a of args) {
      if (ArrayBuffer.isView(a)) {
        const end = a.byteOffset + a.byteLength;
        if (a.buffer === memory.buffer && end > memory.buffer.byteLength) problems.push(`${name}: a view past the memory`);
        if (a.byteLength > (1 << 30)) problems.push(`${name}: a view of ${a.byteLength} bytes`);
      }
    }
  };
  let errors = 0;
  const answers = {
    getParameter: (p) => [0, 1, [1, 2], new Int32Array([1, 2, 3, 4]), null, {}, 'text', true][p % 8],
    getError: () => [0, 0x500, 0x501, 0x502, 0x505, 0x9242][(errors++) % 6],
    getActiveAttrib: (_p, i) => (i % 3 ? { name: 'a'.repeat((i >>> 0) % 300), size: 1, type: 0x1406 } : null),
    getActiveUniform: (_p, i) => (i % 3 ? { name: 'u'.repeat((i >>> 0) % 300), size: 2, type: 0x8B52 } : null),
    getUniformLocation: (_p, n) => (n.length % 2 ? {} : null),
    getAttribLocation: () => 3,
    getShaderPrecisionFormat: () => ({ rangeMin: 127, rangeMax: 127, precision: 23 }),
    getProgramInfoLog: () => 'log',
    getShaderInfoLog: () => 'log',
    getShaderSource: () => 'source',
    getAttachedShaders: () => [{}, {}],
    getUniform: () => new Float32Array(16),
    getVertexAttrib: (_i, p) => (p === 0x8626 ? new Float32Array(4) : p % 2 ? {} : 1),
    getBufferSubData: () => {},
    checkFramebufferStatus: () => 0x8CD5,
    getExtension: () => ({ loseContext() {} }),
  };
  return new Proxy({}, {
    get: (_t, name) => (...args) => {
      check(String(name), args);
      calls.set(String(name), (calls.get(String(name)) || 0) + 1);
      if (name in answers) return answers[name](...args);
      if (/^create|^is/.test(String(name))) return String(name).startsWith('is') ? true : {};
      return undefined;
    },
  });
};
class OffscreenCanvas {
  constructor(w, h) { this.width = w; this.height = h; }
  getContext() { return fakeGl(); }
  transferToImageBitmap() { return { close() {} }; }
}

// The host warns of an exception that was not a GL error: with this WebGL, which throws
// nothing, that is the host's own fault.
const quiet = { warn: (text) => problems.push(`the host threw: ${text}`), log() {} };
const context = vm.createContext({ OffscreenCanvas, SharedArrayBuffer, Atomics, console: quiet, TextDecoder, TextEncoder,
  Int32Array, Uint8Array, Uint16Array, Uint32Array, Float32Array, DataView, ArrayBuffer, Proxy, Map, Set, Array,
  Number, Math, String, Object, Error, WebAssembly });
vm.runInContext(`${source}\nthis.glImports = glImports; this.glContexts = glContexts;`, context);
const shared = context.glContexts();
const imports = context.glImports(memory, () => {}, shared, 0);

// A deterministic generator (xorshift32).
let state = Number(seed) >>> 0 || 1;
const next = () => { state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0; return state; };
const bytes = memory.buffer.byteLength;
const interesting = [0, 1, 2, 3, 4, 16, 64, 255, 256, 4096, 65535, 65536, 0x7fffffff, -1, -2, 0x80000000 | 0,
  bytes - 1, bytes, bytes - 4, bytes - 16, bytes + 4, 0x1406, 0x1401, 0x1403, 0x1908, 0x80E1, 0x0DE1, 0x8892, 0x8893,
  0x0CF5, 0x8B31, 0x8B30, 0x8B84, 0x8B87, 0x8B8A, 0x8B88, 0x2001, 0x2002, 0x2003];
// Names the host gave (programs and shaders, uniform locations): used again, often.
const made = [1, 2];
const arg = () => {
  const k = next() % 5;
  if (k === 4) return made[next() % made.length];
  if (k === 0) return interesting[next() % interesting.length];
  if (k === 1) return next() % 64;
  if (k === 2) return next() % bytes;
  return next() | 0;
};
const names = Object.keys(imports).filter((n) => !n.startsWith('context_'));
const CONTEXT = 0x2000 + 5;
if (!imports.context_create(CONTEXT, 64, 64, 1, 1, 0, 0, 0)) throw new Error('no context');
const heap = new Uint8Array(memory.buffer);
for (let i = 0; i < Number(runs); i++) {
  // Fresh bytes here and there (strings, names, pointers the calls read).
  for (let k = 0; k < 8; k++) heap[next() % bytes] = next() & 255;
  if (i % 1000 === 0) heap[next() % bytes] = 0;
  const name = names[next() % names.length];
  const c = next() % 16 ? CONTEXT : arg();
  const args = [c, arg(), arg(), arg(), arg(), arg(), arg(), arg(), arg(), arg(), arg()];
  let r;
  try {
    r = imports[name](...args);
  } catch (e) {
    problems.push(`${name}(${args.join(', ')}) threw: ${e && e.stack}`);
  }
  if (typeof r !== 'number') problems.push(`${name}(${args.join(', ')}) gave ${typeof r}`);
  if (r > 0 && /^Create|Location$/.test(name) && made.length < 256) made.push(r);
  if (i % 97 === 0) {
    const e = imports.GetError(CONTEXT);
    if (![0, 0x500, 0x501, 0x502, 0x505, 0x506, 0x507].includes(e)) problems.push(`GetError gave ${e}`);
  }
  if (i % 5000 === 0) {
    imports.context_resize(CONTEXT, next() % 100, next() % 100);
    imports.context_swap(CONTEXT, 1);
  }
  if (i % 2000 === 1999) {
    // A fresh context now and then (its names run out once a plugin binds a huge one).
    imports.context_destroy(CONTEXT);
    imports.context_create(CONTEXT, 64, 64, 1, 1, 0, 0, 0);
    made.length = 2;
  }
  if (problems.length) break;
}
if (problems.length) {
  console.log(problems.slice(0, 5).join('\n'));
  process.exit(1);
}
console.log(`${runs} calls (${calls.size} WebGL methods reached), none threw, every result a number, every view within memory`);
