// Input for a plugin in a page (PPB_InputEvent and its kinds): the DOM's mouse, wheel,
// keyboard, touch and IME composition events on the element's screen, as the classes the
// plugin asked for (TO_INPUT) say, each sent to the host as a FROM_INPUT record.
import { FROM_INPUT } from './host_channel.js';

// One plugin's input: `el` its element, `screen()` what shows it now (the element, or the
// canvas in its place), `toHostWith(words, bytes)` a record to its host, `state` the
// plugin's (its canvas's listeners go in state.onCanvas).
export function pluginInput(el, screen, toHostWith, state) {
  // Input events: those of the classes the plugin asked for (mouse 1, keyboard 2,
  // wheel 4), on the element's screen, relative to it; an event of a class it asked
  // for without filtering is its own (the page's default action does not happen).
  let classes = 0, filtering = 0, listening = false;
  const MOUSE = { mousedown: 0, mouseup: 1, mousemove: 2, mouseenter: 3, mouseleave: 4, contextmenu: 10 };
  const KEYS = { keydown: 7, keyup: 8, keypress: 9 };
  const TOUCH = { touchstart: 15, touchmove: 16, touchend: 17, touchcancel: 18 };
  const IME = { compositionstart: 11, compositionupdate: 12, compositionend: 13 };
  const modifiers = (e) => {
    let m = (e.shiftKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.altKey ? 4 : 0) | (e.metaKey ? 8 : 0);
    if (e.buttons !== undefined) m |= (e.buttons & 1 ? 64 : 0) | (e.buttons & 4 ? 128 : 0) | (e.buttons & 2 ? 256 : 0);
    if (e.location !== undefined) m |= (e.location === 3 ? 16 : 0) | (e.location === 1 ? 2048 : 0) | (e.location === 2 ? 4096 : 0);
    if (e.repeat) m |= 32;
    if (e.getModifierState) m |= (e.getModifierState('CapsLock') ? 512 : 0) | (e.getModifierState('NumLock') ? 1024 : 0);
    return m;
  };
  const f32 = (v) => new Uint32Array(new Float32Array([v]).buffer)[0];
  const sendInput = (e) => {
    if (IME[e.type] !== undefined) { sendIme(e); return; }
    const type = MOUSE[e.type] ?? KEYS[e.type] ?? TOUCH[e.type] ?? (e.type === 'wheel' ? 5 : -1);
    const cls = type === 5 ? 4 : KEYS[e.type] !== undefined ? 2 : TOUCH[e.type] !== undefined ? 8 : 1;
    if (type < 0 || !(classes & cls)) return;
    if (!(filtering & cls)) e.preventDefault();
    if (e.type === 'mousedown') focusScreen();
    const r = screen().getBoundingClientRect();
    const mouse = cls === 1;
    const time = new Float64Array([(performance.timeOrigin + performance.now()) / 1000]);
    const tw = new Uint32Array(time.buffer);
    const scale = e.deltaMode === 1 ? 40 : 1;
    const words = [FROM_INPUT, type >>> 0, modifiers(e),
      mouse ? (e.type === 'mousemove' || e.type === 'mouseenter' || e.type === 'mouseleave' ? -1 : e.button) >>> 0 : 0xffffffff,
      mouse ? e.detail | 0 : 0,
      mouse ? Math.round(e.clientX - r.left) >>> 0 : 0, mouse ? Math.round(e.clientY - r.top) >>> 0 : 0,
      mouse ? (e.movementX | 0) >>> 0 : 0, mouse ? (e.movementY | 0) >>> 0 : 0,
      f32(type === 5 ? e.deltaX * scale : 0), f32(type === 5 ? e.deltaY * scale : 0),
      f32(type === 5 ? e.deltaX * scale / 100 : 0), f32(type === 5 ? e.deltaY * scale / 100 : 0),
      type === 5 && e.deltaMode === 2 ? 1 : 0, cls === 2 ? e.keyCode >>> 0 : 0, tw[0], tw[1]];
    const enc = new TextEncoder();
    const text = enc.encode(type === 9 && e.key && e.key.length <= 4 ? e.key : '').slice(0, 64);
    const code = enc.encode(cls === 2 ? e.code || '' : '').slice(0, 64);
    // A touch event's lists (touches, changed, target: at most 16 points each), each
    // point relative to the element: id, x, y, radius x, y, angle, pressure, tilt x, y
    // (touch events carry no tilt: 0).
    const lists = cls === 8 ? [e.touches, e.changedTouches, e.targetTouches].map((l) => Array.from(l || []).slice(0, 16)) : [];
    const points = lists.reduce((n, l) => n + l.length, 0);
    const tail = new Uint8Array(8 + text.length + code.length + (cls === 8 ? 12 + 36 * points : 0));
    const dv = new DataView(tail.buffer);
    dv.setUint32(0, text.length, true);
    dv.setUint32(4, code.length, true);
    tail.set(text, 8);
    tail.set(code, 8 + text.length);
    if (cls === 8) {
      let at = 8 + text.length + code.length;
      lists.forEach((l, k) => dv.setUint32(at + 4 * k, l.length, true));
      at += 12;
      for (const l of lists) {
        for (const t of l) {
          dv.setUint32(at, t.identifier >>> 0, true);
          [t.clientX - r.left, t.clientY - r.top, t.radiusX || 0, t.radiusY || 0, t.rotationAngle || 0,
            t.force || 0, 0, 0].forEach((v, i) => dv.setFloat32(at + 4 + 4 * i, v, true));
          at += 36;
        }
      }
    }
    toHostWith(words, tail);
  };
  // IME composition (class 16): composition events come only to an editable element,
  // so a plugin that asks for them has one of its own over its screen, invisible,
  // which takes the focus the screen would (its keys are the screen's).
  let ime = null;
  const focusScreen = () => {
    if (ime) ime.focus({ preventScroll: true });
    else if (screen().focus) screen().focus();
  };
  const enc8 = (t) => new TextEncoder().encode(t || '');
  const sendIme = (e) => {
    if (!(classes & 16)) return;
    const text = enc8(e.data).slice(0, 1024);
    const time = new Float64Array([(performance.timeOrigin + performance.now()) / 1000]);
    const tw = new Uint32Array(time.buffer);
    // type, modifiers, -, -, selection start and end (bytes), ..., time; the text
    const send = (type, bytes) => {
      const tail = new Uint8Array(8 + bytes.length);
      new DataView(tail.buffer).setUint32(0, bytes.length, true);
      tail.set(bytes, 8);
      toHostWith([FROM_INPUT, type, 0, 0xffffffff, 0, bytes.length, bytes.length, 0, 0, 0, 0, 0, 0, 0, 0,
        tw[0], tw[1]], tail);
    };
    if (e.type === 'compositionend') {
      // The text it makes, then the end (Chrome's order); the editable starts over.
      send(14, text);
      send(13, new Uint8Array(0));
      ime.value = '';
    } else {
      send(IME[e.type], e.type === 'compositionstart' ? new Uint8Array(0) : text);
    }
  };
  const listenIme = () => {
    if (ime || !(classes & 16)) return;
    ime = document.createElement('textarea');
    ime.setAttribute('aria-hidden', 'true');
    ime.style.cssText = 'position:absolute;opacity:0;width:1px;height:1px;border:0;padding:0;'
      + 'resize:none;overflow:hidden;pointer-events:none';
    const r = screen().getBoundingClientRect();
    ime.style.left = `${r.left + window.scrollX}px`;
    ime.style.top = `${r.top + window.scrollY}px`;
    document.body.appendChild(ime);
    for (const type of [...Object.keys(IME), ...Object.keys(KEYS)]) ime.addEventListener(type, sendInput);
    screen().addEventListener('focus', focusScreen);
  };
  const listen = (c, f) => {
    classes = c;
    filtering = f;
    listenIme();
    if (listening || !c) return;
    listening = true;
    for (const type of [...Object.keys(MOUSE), ...Object.keys(KEYS), ...Object.keys(TOUCH), 'wheel']) {
      for (const target of [el, () => screen()]) {
        const add = (t) => t.addEventListener(type, (e) => { if (e.currentTarget === screen()) sendInput(e); }, { passive: false });
        if (typeof target === 'function') state.onCanvas = (state.onCanvas || []).concat([add]);
        else add(target);
      }
    }
    if (el.tabIndex < 0) el.tabIndex = 0;
    if (screen() !== el) for (const add of state.onCanvas) add(screen());
  };
  return { listen };
}
