// host_core.js's memoryTo, against another thread's growth of the shared memory: this
// thread grows the memory a page at a time, saying each new size in the memory's first
// words; a worker, as soon as it reads a size, asks memoryTo for a buffer reaching to its
// end. What must hold: every buffer memoryTo gives reaches there (V8 brings a thread's
// `memory.buffer` up to date lazily: read plainly, some are short). Prints
// "short S of N, plain P": S buffers of memoryTo's that fell short, P of memory.buffer's.
//   node tests/node/memory_to.mjs
import { hostSource } from './host_source.mjs';
import vm from 'node:vm';
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';

const PAGES = 3000;
if (isMainThread) {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: PAGES + 1, shared: true });
  const words = new Int32Array(memory.buffer, 0, 2);
  const worker = new Worker(new URL(import.meta.url), { workerData: { memory } });
  worker.on('message', (m) => {
    if (m === 'ready') {
      for (let i = 0; i < PAGES; i++) {
        const before = memory.grow(1);
        Atomics.store(words, 0, before + 1);
      }
      Atomics.store(words, 1, 1);
    } else {
      console.log(m);
    }
  });
} else {
  const context = vm.createContext({ WebAssembly });
  vm.runInContext(hostSource(['host_core.js']), context);
  const memoryTo = vm.runInContext('memoryTo', context);
  const { memory } = workerData;
  const words = new Int32Array(memory.buffer, 0, 2);
  let short = 0, plain = 0, seen = 1, n = 0;
  parentPort.postMessage('ready');
  while (!Atomics.load(words, 1) || seen < PAGES + 1) {
    const pages = Atomics.load(words, 0);
    if (pages <= seen) continue;
    seen = pages;
    n++;
    if (memory.buffer.byteLength < pages * 65536) plain++;
    if (memoryTo(memory, pages * 65536).byteLength < pages * 65536) short++;
  }
  parentPort.postMessage(`short ${short} of ${n}, plain ${plain}`);
}
