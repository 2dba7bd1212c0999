// Opens a page in headless Chromium and waits for the program on it to end: prints the
// page's state ("ended", "failed", "timeout" or "error") and the exit status, writes the
// text the page shows as standard output to TEXT_FILE, and the rest (standard error, the
// page's message) to standard error. Talks to the browser through the DevTools protocol
// on a pipe (--remote-debugging-pipe), so that no port is opened.
//   node run_page.mjs CHROMIUM URL TIMEOUT_SECONDS TEXT_FILE
import fs from 'node:fs';

import { launch } from './cdp.mjs';

const [chromium, url, timeout, textFile] = process.argv.slice(2);
const { send, close } = launch(chromium);

const finish = (result, code) => {
  console.log(`${result.state} ${result.status ?? ''}`.trim());
  if (result.stdout !== undefined) fs.writeFileSync(textFile, result.stdout);
  if (result.stderr) process.stderr.write(`stderr: ${result.stderr}\n`);
  if (result.message) process.stderr.write(`page: ${result.message}\n`);
  close(code);
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
