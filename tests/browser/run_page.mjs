// Opens a page in headless Chromium and waits for the program on it to end: prints the
// page's state ("ended", "failed", "timeout" or "error") and the exit status, writes the
// text the page shows as standard output to TEXT_FILE, and the rest (standard error, the
// page's message) to standard error. Talks to the browser through the DevTools protocol
// on a pipe (--remote-debugging-pipe), so that no port is opened.
//   node run_page.mjs CHROMIUM URL TIMEOUT_SECONDS TEXT_FILE
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [chromium, url, timeout, textFile] = process.argv.slice(2);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pnacl-chromium-'));
const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank',
], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const toBrowser = browser.stdio[3], fromBrowser = browser.stdio[4];

let next = 1, pending = new Map(), buffer = '';
fromBrowser.on('data', (chunk) => {
  buffer += chunk.toString();
  let i;
  while ((i = buffer.indexOf('\0')) >= 0) {
    const msg = JSON.parse(buffer.slice(0, i));
    buffer = buffer.slice(i + 1);
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

const finish = (result, code) => {
  console.log(`${result.state} ${result.status ?? ''}`.trim());
  if (result.stdout !== undefined) fs.writeFileSync(textFile, result.stdout);
  if (result.stderr) process.stderr.write(`stderr: ${result.stderr}\n`);
  if (result.message) process.stderr.write(`page: ${result.message}\n`);
  browser.once('exit', () => {
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch { /* left to the system */ }
    process.exit(code);
  });
  browser.kill('SIGKILL');
};
setTimeout(() => finish({ state: 'timeout' }, 1), Number(timeout) * 1000).unref();

try {
  const { targetId } = await send('Target.createTarget', { url });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = async (expression) =>
    (await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
  for (;;) {
    // (Until the page has loaded, it may have no context to evaluate in.)
    const state = await page('document.body ? document.body.dataset.state : ""').catch(() => '');
    if (state === 'ended' || state === 'failed') {
      finish({
        state,
        status: Number(await page('document.body.dataset.status')),
        stdout: await page("document.getElementById('stdout').textContent"),
        stderr: await page("document.getElementById('stderr').textContent"),
        message: await page("document.getElementById('status').textContent"),
      }, 0);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
} catch (e) {
  finish({ state: 'error', message: String(e) }, 1);
}
