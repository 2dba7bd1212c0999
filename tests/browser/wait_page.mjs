// Opens a page in headless Chromium and waits until it has a result: until the page's
// `document.body.dataset.result` is set, which it prints (or "timeout"). With SELECTOR,
// once the page says it is ready (`document.body.dataset.ready`), the element SELECTOR
// names is clicked, as a user would: the mouse pressed and released at its centre. The
// page's console goes to standard error. Talks to the browser through the DevTools
// protocol on a pipe (--remote-debugging-pipe), so that no port is opened.
//   node wait_page.mjs CHROMIUM URL TIMEOUT_SECONDS [SELECTOR]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [chromium, url, timeout, selector] = process.argv.slice(2);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pnacl-chromium-'));
const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank',
], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const toBrowser = browser.stdio[3], fromBrowser = browser.stdio[4];

let next = 1, buffer = '';
const pending = new Map();
fromBrowser.on('data', (chunk) => {
  buffer += chunk.toString();
  let i;
  while ((i = buffer.indexOf('\0')) >= 0) {
    const msg = JSON.parse(buffer.slice(0, i));
    buffer = buffer.slice(i + 1);
    if (msg.method === 'Runtime.consoleAPICalled') {
      const text = msg.params.args.map((a) => a.value ?? a.description ?? '').join(' ');
      process.stderr.write(`console.${msg.params.type}: ${text}\n`);
    } else if (msg.method === 'Runtime.exceptionThrown') {
      process.stderr.write(`exception: ${JSON.stringify(msg.params.exceptionDetails)}\n`);
    }
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

const finish = (line, code) => {
  console.log(line);
  browser.once('exit', () => {
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch { /* left to the system */ }
    process.exit(code);
  });
  browser.kill('SIGKILL');
};
setTimeout(() => finish('timeout', 1), Number(timeout) * 1000).unref();

try {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  await send('Runtime.enable', {}, sessionId);
  await send('Page.enable', {}, sessionId);
  await send('Page.navigate', { url }, sessionId);
  const value = async (expression) => {
    const r = await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId).catch(() => null);
    return r && r.result && r.result.value;
  };
  let clicked = !selector;
  for (;;) {
    if (!clicked && await value('document.body ? (document.body.dataset.ready || "") : ""')) {
      const box = await value(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; })()`);
      for (const type of ['mousePressed', 'mouseReleased']) {
        await send('Input.dispatchMouseEvent', { type, x: box[0], y: box[1], button: 'left', clickCount: 1 }, sessionId);
      }
      clicked = true;
    }
    const r = await send('Runtime.evaluate', {
      expression: 'document.body ? (document.body.dataset.result || "") : ""', returnByValue: true,
    }, sessionId).catch(() => null);
    const v = r && r.result && r.result.value;
    if (v) finish(v, 0);
    await new Promise((res) => setTimeout(res, 100));
  }
} catch (e) {
  finish(`error ${e}`, 1);
}
