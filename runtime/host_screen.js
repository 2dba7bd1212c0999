// The element's screen, for a plugin in a page (runtime/host_plugin.js): the canvas that
// takes the element's place once the plugin binds a device (BIND), its 2-D frames (FLUSH)
// and 3-D frames (a worker's ImageBitmaps) shown at the animation frame, its cursor
// (PPB_MouseCursor), and the view the plugin is told of (DidChangeView).

import { memoryTo } from './host_core.js';
import { FROM_FLUSHED, FROM_VIEW } from './host_channel.js';

// PP_MouseCursor_Type's cursors (0 .. 44) as CSS names: the pannings CSS lacks are
// all-scroll, as is MIDDLEPANNING.
const CURSORS = ['default', 'crosshair', 'pointer', 'text', 'wait', 'help', 'e-resize', 'n-resize',
  'ne-resize', 'nw-resize', 's-resize', 'se-resize', 'sw-resize', 'w-resize', 'ns-resize', 'ew-resize',
  'nesw-resize', 'nwse-resize', 'col-resize', 'row-resize', 'all-scroll', 'e-resize', 'n-resize',
  'ne-resize', 'nw-resize', 's-resize', 'se-resize', 'sw-resize', 'w-resize', 'move', 'vertical-text',
  'cell', 'context-menu', 'alias', 'progress', 'no-drop', 'copy', 'none', 'not-allowed', 'zoom-in',
  'zoom-out', 'grab', 'grabbing', 'all-scroll', 'all-scroll'];

// A size the page draws: what the plugin says sits in its memory, which it can write.
const sane = (w, h) => w > 0 && h > 0 && w <= 16384 && h <= 16384 && w * h <= (1 << 26);

// The screen of element `el`, whose plugin's memory is `memory`; `toHost(words)` sends a
// record to the plugin; `state` is the plugin's (`ended`, `onCanvas`).
export function pluginScreen(el, memory, toHost, state) {
  // The element's screen: a canvas in its place once the plugin binds a device.
  let canvas = null, ctx2d = null, bitmaps = null, canvas3d = false, bound = 0;
  // The canvas takes the element's place, look and size (a percentage stays one; a
  // number is CSS pixels; else the size `box` measured, while the element showed).
  const dress = (box) => {
    canvas.className = el.className;
    canvas.style.cssText = el.style.cssText;
    for (const attr of ['width', 'height']) {
      const a = (el.getAttribute(attr) || '').trim();
      if (/%$/.test(a)) canvas.style[attr] = a;
      else if (/^\d+(\.\d+)?(px)?$/.test(a)) canvas.style[attr] = `${parseFloat(a)}px`;
      else if (box) canvas.style[attr] = `${Math.round(box[attr])}px`;
    }
    canvas.style.display = 'inline-block';
  };
  // The canvas that takes the element's place when the plugin binds a device: a 2-D
  // context's for Graphics2D, an image renderer's for Graphics3D's frames. A device of
  // the other kind bound later gets a new canvas in the same place.
  const makeCanvas = (is3d) => {
    const old = canvas;
    canvas = document.createElement('canvas');
    dress((old || el).getBoundingClientRect());
    if (old) {
      resizes.unobserve(old);
      old.replaceWith(canvas);
    } else {
      el.insertAdjacentElement('beforebegin', canvas);
      el.style.display = 'none';
      // What the page does to the element later (its size, its class) the canvas
      // follows.
      new MutationObserver(() => {
        dress(null);
        if (el.style.display !== 'none') el.style.display = 'none';
      }).observe(el, { attributes: true, attributeFilter: ['width', 'height', 'class', 'style'] });
    }
    canvas3d = is3d;
    ctx2d = is3d ? null : canvas.getContext('2d');
    bitmaps = is3d ? canvas.getContext('bitmaprenderer') : null;
    canvas.tabIndex = 0;
    if (state.onCanvas) for (const add of state.onCanvas) add(canvas);
    resizes.observe(canvas);
  };
  // The bound device (BIND: its id, size, scale, kind), applied at the next animation
  // frame, however many binds come before it: a canvas of the device's kind, of the
  // device's size but no larger than the element's own in device pixels (as in
  // Chrome, a larger device shows its top left corner).
  let binding = null;
  const applyBind = () => {
    const b = binding;
    binding = null;
    if (!b || b.device !== bound || !bound) return;
    if (!canvas || canvas3d !== b.is3d) makeCanvas(b.is3d);
    device2d = b.is3d ? null : b;
  };
  let device2d = null, image = null;
  const fitCanvas = (w, h, scale) => {
    const v = viewOf(), dpr = Math.max(1, window.devicePixelRatio || 1);
    const cw = Math.min(w, Math.ceil(v.vw * dpr / scale)), ch = Math.min(h, Math.ceil(v.vh * dpr / scale));
    if (cw > 0 && ch > 0 && (canvas.width !== cw || canvas.height !== ch)) {
      canvas.width = cw;
      canvas.height = ch;
    }
    return cw > 0 && ch > 0;
  };
  // 2-D frames (FLUSH): each device's latest, drawn once an animation frame; every
  // flush is answered then (its callback completes).
  const flushes = new Map();
  let painting = false;
  const paint = () => {
    painting = false;
    applyBind();
    const done = [...flushes.entries()];
    flushes.clear();
    for (const [device, rec] of done) {
      if (device === bound && device2d && ctx2d && !state.ended) draw(rec);
      toHost([12, FROM_FLUSHED, device >>> 0]);
    }
  };
  const repaint = () => {
    if (!painting) { painting = true; requestAnimationFrame(paint); }
  };
  const draw = ([, ptr, w, h, stride, format]) => {
    if (w !== device2d.w || h !== device2d.h || !fitCanvas(w, h, device2d.scale)) return;
    const cw = canvas.width, ch = canvas.height;
    const end = ptr + stride * (ch - 1) + cw * 4;
    // One copy, from the plugin's memory into the canvas's pixels (BGRA → RGBA), of
    // what the canvas shows; the image reused while its size stays.
    const src = new Uint8Array(memoryTo(memory, end), ptr, end - ptr);
    if (!image || image.width !== cw || image.height !== ch) image = ctx2d.createImageData(cw, ch);
    const dst = image.data;
    const r = format === 0 ? 2 : 0, b = format === 0 ? 0 : 2;
    for (let y = 0; y < ch; y++) {
      let s = y * stride, d = y * cw * 4;
      for (let x = 0; x < cw; x++, s += 4, d += 4) {
        dst[d] = src[s + r];
        dst[d + 1] = src[s + 1];
        dst[d + 2] = src[s + b];
        dst[d + 3] = src[s + 3];
      }
    }
    ctx2d.putImageData(image, 0, 0);
  };
  // A 3-D context's frame (SwapBuffers): shown at the next animation frame if its
  // device is the bound one, then the host is told, which completes the swap.
  let pending = null;
  const onFrame = (frame, device) => {
    if (device !== bound) {
      frame.close();
      toHost([12, FROM_FLUSHED, device >>> 0]);
      return;
    }
    if (pending) pending.close();
    pending = frame;
    requestAnimationFrame(() => {
      applyBind();
      if (pending === frame) {
        pending = null;
        if (bitmaps && device === bound) {
          if (canvas.width !== frame.width || canvas.height !== frame.height) {
            canvas.width = frame.width;
            canvas.height = frame.height;
          }
          bitmaps.transferFromImageBitmap(frame);
        } else {
          frame.close();
        }
      }
      toHost([12, FROM_FLUSHED, device >>> 0]);
    });
  };
  // PPB_MouseCursor: the element's CSS cursor (and its screen's, once it has one),
  // PP_MouseCursor_Type's by number; a custom one (at most 32 x 32, its hot spot
  // inside) as an image of its pixels.
  const setCursor = ([type, x, y, w, h, format], pixels) => {
    let css = CURSORS[type];
    if (type === 0xffffffff) {
      if (!w || !h || w > 32 || h > 32 || x >= w || y >= h || pixels.length < w * h * 4) return;
      const c = document.createElement('canvas');
      c.width = w;
      c.height = h;
      const img = new ImageData(w, h);
      for (let k = 0; k < w * h * 4; k += 4) {
        // premultiplied BGRA (format 0) or RGBA (1) to straight RGBA
        const a = pixels[k + 3], un = (v) => (a ? Math.min(255, Math.round(v * 255 / a)) : 0);
        const r = pixels[k + (format === 0 ? 2 : 0)], b = pixels[k + (format === 0 ? 0 : 2)];
        img.data[k] = un(r), img.data[k + 1] = un(pixels[k + 1]), img.data[k + 2] = un(b), img.data[k + 3] = a;
      }
      c.getContext('2d').putImageData(img, 0, 0);
      css = `url(${c.toDataURL()}) ${x} ${y}, auto`;
    }
    if (css === undefined) return;
    el.style.cursor = css;
    if (canvas) canvas.style.cursor = css;
  };

  // The view: the element's size in CSS pixels, the device's scale, and whether the
  // page shows it; each change is sent to the plugin (DidChangeView).
  const viewOf = () => {
    const r = (canvas || el).getBoundingClientRect();
    const vw = Math.min(32767, Math.round(r.width)), vh = Math.min(32767, Math.round(r.height));
    const scale = Math.min(16, Math.max(0.25, window.devicePixelRatio || 1));
    return { vw, vh, scale, visible: document.visibilityState !== 'hidden' && vw > 0 && vh > 0 ? 1 : 0 };
  };
  let view = viewOf();
  const sendView = () => {
    const v = viewOf();
    if (v.vw === view.vw && v.vh === view.vh && v.scale === view.scale && v.visible === view.visible) return;
    view = v;
    toHost([24, FROM_VIEW, v.vw, v.vh, new Uint32Array(new Float32Array([v.scale]).buffer)[0], v.visible]);
  };
  const resizes = new ResizeObserver(sendView);
  resizes.observe(el);
  document.addEventListener('visibilitychange', sendView);

  // BIND: device, width, height, scale, whether it is 3-D (its frames then come from the
  // worker that draws them, as images).
  const bind = (rec) => {
    if (rec.length < 5) return;
    const is3d = rec[4] === 1;
    if (rec[0] && !is3d && !sane(rec[1], rec[2])) return;
    const scale = new Float32Array(new Uint32Array([rec[3]]).buffer)[0];
    bound = rec[0];
    binding = { device: rec[0], w: rec[1], h: rec[2], is3d, scale: scale >= 0.25 && scale <= 16 ? scale : 1 };
    repaint();
  };
  // FLUSH: device, its pixels' address, width, height, stride, format: the latest of each
  // device's is drawn at the next animation frame (above).
  const flush = (rec) => {
    if (rec.length < 6) return;
    const [device, ptr, w, h, stride] = rec;
    const end = ptr + stride * (h - 1) + w * 4;
    const fits = sane(w, h) && stride >= w * 4 && stride <= 65536 * 4
      && end <= memoryTo(memory, end).byteLength;
    if (fits || !flushes.has(device)) flushes.set(device, fits ? rec.slice() : [device, 0, 0, 0, 0, 0]);
    repaint();
  };
  return { target: () => canvas || el, view: () => view, bind, flush, frame: onFrame, cursor: setCursor };
}
