// Opens a page in headless Chromium and waits until it has a result: until the page's
// `document.body.dataset.result` is set, which it prints (or "timeout"). With SELECTOR,
// once the page says it is ready (`document.body.dataset.ready`), the element SELECTOR
// names is clicked, as a user would: the mouse pressed and released at its centre (and,
// with PNACL_TOUCH=1, then touched a quarter of the way in from its top left; with
// PNACL_IME=1, then given a composition, "ni" and then "你"). The
// page's console goes to standard error. With PNACL_SHOTS=SELECTOR in the environment,
// the result is followed by two screenshots of the element SELECTOR names: one when the
// result is first set, one once it has changed twice more; what is printed is then
// JSON: {"result", "later" (the result at the second), "colours" (distinct colours in
// each shot), "changed" (pixels that differ between them)}. Talks to the browser through
// the DevTools protocol on a pipe (--remote-debugging-pipe), so that no port is opened.
//   node wait_page.mjs CHROMIUM URL TIMEOUT_SECONDS [SELECTOR]
import fs from 'node:fs';
import zlib from 'node:zlib';

import { launch } from './cdp.mjs';

const [chromium, url, timeout, selector] = process.argv.slice(2);
const { send, onEvent, close, rss } = launch(chromium);
// With PNACL_RSS=1, the result is followed by the browser's peak resident memory (all
// its processes, sampled every 100 ms), in MiB: "RESULT rss=MIB".
let peak = 0;
if (process.env.PNACL_RSS) setInterval(() => { peak = Math.max(peak, rss()); }, 100).unref();
onEvent((msg) => {
  if (msg.method === 'Runtime.consoleAPICalled') {
    const text = msg.params.args.map((a) => a.value ?? a.description ?? '').join(' ');
    process.stderr.write(`console.${msg.params.type}: ${text}\n`);
  } else if (msg.method === 'Runtime.exceptionThrown') {
    process.stderr.write(`exception: ${JSON.stringify(msg.params.exceptionDetails)}\n`);
  }
});

// The pixels of a PNG (8-bit RGB or RGBA, not interlaced) as RGBA.
const decodePng = (buf) => {
  let i = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (i < buf.length) {
    const len = buf.readUInt32BE(i), kind = buf.toString('latin1', i + 4, i + 8);
    const body = buf.subarray(i + 8, i + 8 + len);
    if (kind === 'IHDR') { width = body.readUInt32BE(0); height = body.readUInt32BE(4); type = body[9]; }
    if (kind === 'IDAT') idat.push(body);
    i += 12 + len;
  }
  const bpp = type === 6 ? 4 : 3, raw = zlib.inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(width * height * 4), line = width * bpp;
  let prev = Buffer.alloc(line);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (line + 1)], cur = Buffer.from(raw.subarray(y * (line + 1) + 1, (y + 1) * (line + 1)));
    for (let x = 0; x < line; x++) {
      const a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      cur[x] = (cur[x] + pred) & 255;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) out[(y * width + x) * 4 + k] = cur[x * bpp + k];
      out[(y * width + x) * 4 + 3] = bpp === 4 ? cur[x * 4 + 3] : 255;
    }
    prev = cur;
  }
  return out;
};

const finish = (line, code) => {
  console.log(line);
  close(code);
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
  let clicked = !selector, shots = 0;
  for (;;) {
    if (!clicked && await value('document.body ? (document.body.dataset.ready || "") : ""')) {
      const box = await value(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; })()`);
      for (const type of ['mousePressed', 'mouseReleased']) {
        await send('Input.dispatchMouseEvent', { type, x: box[0], y: box[1], button: 'left', clickCount: 1 }, sessionId);
      }
      // Then a touch at the same place, a quarter of the way right and down from it
      // (PNACL_TOUCH=1): pressed and lifted.
      if (process.env.PNACL_TOUCH) {
        const at = await value(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
          return [r.left + r.width / 4, r.top + r.height / 4]; })()`);
        await send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 2 }, sessionId);
        await send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: at[0], y: at[1], id: 7 }] }, sessionId);
        await send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] }, sessionId);
      }
      // Then (PNACL_IME=1) a composition, as an input method makes one: "ni", then "你".
      if (process.env.PNACL_IME) {
        await send('Input.imeSetComposition', { text: 'ni', selectionStart: 2, selectionEnd: 2 }, sessionId);
        await send('Input.insertText', { text: '你' }, sessionId);
      }
      clicked = true;
    }
    const r = await send('Runtime.evaluate', {
      expression: 'document.body ? (document.body.dataset.result || "") : ""', returnByValue: true,
    }, sessionId).catch(() => null);
    const v = r && r.result && r.result.value;
    if (v && process.env.PNACL_SHOTS) {
      const shot = async () => {
        const box = await value(`(() => { const r = document.querySelector(${JSON.stringify(process.env.PNACL_SHOTS)}).getBoundingClientRect();
          return { x: r.left, y: r.top, width: r.width, height: r.height, scale: 1 }; })()`);
        const { data } = await send('Page.captureScreenshot', { format: 'png', clip: box }, sessionId);
        // (PNACL_SHOTS_SAVE=PREFIX keeps them, as PREFIX1.png and PREFIX2.png.)
        if (process.env.PNACL_SHOTS_SAVE) fs.writeFileSync(`${process.env.PNACL_SHOTS_SAVE}${++shots}.png`, Buffer.from(data, 'base64'));
        return decodePng(Buffer.from(data, 'base64'));
      };
      const first = await shot();
      let later = v;
      while (Number(later) < Number(v) + 2) {
        await new Promise((res) => setTimeout(res, 100));
        later = await value('document.body.dataset.result');
      }
      const second = await shot();
      const colours = (px) => { const set = new Set(); for (let k = 0; k < px.length; k += 4) set.add(px.readUInt32BE(k)); return set.size; };
      let changed = 0;
      for (let k = 0; k < first.length; k += 4) if (first.readUInt32BE(k) !== second.readUInt32BE(k)) changed++;
      finish(JSON.stringify({ result: v, later, colours: [colours(first), colours(second)], changed }), 0);
    } else if (v) {
      finish(process.env.PNACL_RSS ? `${v} rss=${Math.round(peak / (1 << 20))}` : v, 0);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
} catch (e) {
  finish(`error ${e}`, 1);
}
