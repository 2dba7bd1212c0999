// Headless Chromium driven through the DevTools protocol on a pipe
// (--remote-debugging-pipe), so that no port is opened; shared by the page drivers.
//   const { send, onEvent, close } = launch(CHROMIUM);
// `send(method, params, sessionId)` resolves with the result; `onEvent(f)` gets each event
// message; `close(code)` ends the browser, removes its profile and exits with `code`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function launch(chromium) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pnacl-chromium-'));
  const browser = spawn(chromium, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    // WebGL 2 on the CPU (Graphics3D's pages): SwiftShader through ANGLE.
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    // Sound without a click first (PPB_Audio's page).
    '--autoplay-policy=no-user-gesture-required',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const toBrowser = browser.stdio[3], fromBrowser = browser.stdio[4];
  let next = 1, buffer = '';
  const pending = new Map(), listeners = [];
  // (The pipe closes with an error when the browser is killed: expected at the end.)
  fromBrowser.on('error', () => {});
  toBrowser.on('error', () => {});
  fromBrowser.on('data', (chunk) => {
    buffer += chunk.toString();
    let i;
    while ((i = buffer.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      if (msg.method) for (const f of listeners) f(msg);
      const p = pending.get(msg.id);
      if (p) {
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(JSON.stringify(msg.error)));
        else p.resolve(msg.result);
      }
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
  });
  const close = (code) => {
    browser.once('exit', () => {
      try { fs.rmSync(profile, { recursive: true, force: true }); } catch { /* left to the system */ }
      process.exit(code);
    });
    browser.kill('SIGKILL');
  };
  // The resident memory of the browser and all its processes, in bytes (Linux's /proc).
  const rss = () => {
    const children = new Map();
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid).push(Number(d));
      } catch { /* gone */ }
    }
    let total = 0;
    const todo = [browser.pid];
    while (todo.length) {
      const pid = todo.pop();
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (m) total += Number(m[1]) * 1024;
      } catch { /* gone */ }
      todo.push(...(children.get(pid) || []));
    }
    return total;
  };
  return { send, onEvent: (f) => listeners.push(f), close, rss };
}
