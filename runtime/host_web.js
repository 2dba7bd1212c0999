// The browser's part of the host (after host_core.js). In the page (X.html loads this
// script), it reads the arguments from the page's address (`?arg=A&arg=B`; `arg0=` for
// argv[0], which is otherwise the page's name), starts the
// program, shows its standard output and error as text, and says when it has ended and
// with what status. Each of the program's threads runs in a worker, which runs this same
// script. The program has no files: standard input is empty, and no directory is given.
// Shared memory needs a page with cross-origin isolation (`pnacl-translate --serve`).

import { FD_STREAM, memoryLimits, runThread, sharedTables, webIo } from './host_core.js';

const inPage = typeof document !== 'undefined';

if (inPage) {
  const $ = (id) => document.getElementById(id);
  const status = (text) => { $('status').textContent = text; };
  const decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
  const SHOWN_MAX = 64 << 20;
  const shown = { 1: 0, 2: 0 };
  const workers = [];
  const run = async () => {
    if (!self.crossOriginIsolated) {
      status('This page needs cross-origin isolation (the headers Cross-Origin-Opener-Policy: '
        + 'same-origin and Cross-Origin-Embedder-Policy: require-corp) for the program\'s '
        + 'shared memory: serve its folder with `pnacl-translate --serve DIR`.');
      document.body.dataset.state = 'failed';
      return;
    }
    const params = new URLSearchParams(location.search);
    const name = location.pathname.split('/').pop().replace(/\.html$/, '');
    const args = [params.get('arg0') ?? name, ...params.getAll('arg')];
    const bytes = new Uint8Array(await (await fetch(new URL(MODULE_FILE, import.meta.url))).arrayBuffer());
    const module = await WebAssembly.compile(bytes);
    const limits = memoryLimits(bytes);
    const memory = new WebAssembly.Memory({ initial: limits.initial, maximum: limits.maximum, shared: true });
    const { fds, pos, ctl } = sharedTables([FD_STREAM, FD_STREAM, FD_STREAM], false);
    const ctx = { args, env: [`PNACL_NPROCS=${navigator.hardwareConcurrency || 1}`] };
    let ended = false;
    const start = (tid, arg) => {
      const w = new Worker(import.meta.url, { type: 'module' });
      workers.push(w);
      w.onmessage = ({ data: m }) => {
        if (ended) return;
        if (m.fd !== undefined) {
          // (A text node more: appending to the text would copy all of it each time.) At
          // most SHOWN_MAX bytes of each stream are shown; beyond, that is said once.
          const fd = m.fd === 2 ? 2 : 1;
          if (shown[fd] < SHOWN_MAX) {
            const bytes = m.bytes.subarray(0, SHOWN_MAX - shown[fd]);
            shown[fd] += bytes.length;
            let text = decoders[fd].decode(bytes, { stream: true });
            if (shown[fd] >= SHOWN_MAX) text += `\n[the rest of ${fd === 2 ? 'standard error' : 'standard output'} is not shown: more than ${SHOWN_MAX >> 20} MiB]\n`;
            $(fd === 2 ? 'stderr' : 'stdout').append(text);
          }
        } else if (m.spawn !== undefined) {
          start(m.spawn, m.arg);
        } else if (m.exit !== undefined) {
          ended = true;
          for (const x of workers) x.terminate();
          status(`The program has ended with status ${m.exit}.`);
          document.body.dataset.state = 'ended';
          document.body.dataset.status = String(m.exit);
        }
      };
      w.onerror = (e) => {
        ended = true;
        for (const x of workers) x.terminate();
        status(`The program failed: ${e.message}`);
        document.body.dataset.state = 'failed';
      };
      w.postMessage({ module, memory, fds, pos, ctl, ctx, tid, arg });
    };
    status('Running…');
    start(0, 0);
  };
  run().catch((e) => {
    status(`The program could not start: ${e}`);
    document.body.dataset.state = 'failed';
  });
} else {
  self.onmessage = async ({ data }) => {
    const { module, memory, fds, pos, ctl, ctx, tid, arg } = data;
    const io = webIo((m) => self.postMessage(m));
    const code = await runThread({ module, memory, fds, pos, ctl, io, ctx, tid, arg });
    if (code !== null) self.postMessage({ exit: code });
  };
}
