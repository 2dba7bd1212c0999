// `pnacl-chrome.js`: a Chrome packaged app (a manifest.json with `app.background`) run as
// a web page, as Chrome ran it. `pnacl-translate --site` writes this script (with the
// app's manifest, PNACL_CHROME_MANIFEST) and a launcher page, `pnacl-app.html`, which loads
// it and then the app's background scripts; every page of the app loads it first. In the
// launcher, once the background scripts have run, `chrome.app.runtime.onLaunched` fires;
// `chrome.app.window.create` opens a window page as a frame of the launcher, at the size
// asked, and the frame's own `chrome.app.window.current()` is that window. The `chrome.*`
// calls with a web equivalent are given over it (`app.runtime`, `app.window`,
// `system.cpu` and `system.memory` as far as a page knows them, `storage.local` and
// `storage.sync` over localStorage, `runtime.getManifest` and the like); what a page cannot
// know, and every namespace without an equivalent, is said once in the console, never
// answered silently wrong.

const CHROME_STORAGE = 'pnacl-chrome-storage:';
const DEFAULT_WIDTH = 512, DEFAULT_HEIGHT = 384;

// Once per subject: what is not as Chrome had it.
const chromeSaid = new Set();
const chromeSay = (what) => {
  if (chromeSaid.has(what)) return;
  chromeSaid.add(what);
  console.warn(`pnacl-chrome: ${what}`);
};

// An event as chrome.* had them: addListener, removeListener, hasListener(s); fire(...).
const chromeEvent = () => {
  const listeners = [];
  return {
    addListener: (f) => { if (typeof f === 'function' && !listeners.includes(f)) listeners.push(f); },
    removeListener: (f) => { const i = listeners.indexOf(f); if (i >= 0) listeners.splice(i, 1); },
    hasListener: (f) => listeners.includes(f),
    hasListeners: () => listeners.length > 0,
    fire: (...args) => { for (const f of listeners.slice()) { try { f(...args); } catch (e) { setTimeout(() => { throw e; }); } } },
  };
};

// A call's answer: through its callback (the last argument, if a function), else a promise.
const chromeAnswer = (args, value) => {
  const cb = args.length && typeof args[args.length - 1] === 'function' ? args[args.length - 1] : null;
  if (cb) { setTimeout(() => cb(value), 0); return undefined; }
  return Promise.resolve(value);
};

// chrome.storage.local (and .sync, kept here only): JSON values in localStorage.
const chromeStorage = (area, onChanged) => {
  const key = (k) => `${CHROME_STORAGE}${area}:${k}`;
  const read = (k) => { const v = localStorage.getItem(key(k)); return v === null ? undefined : JSON.parse(v); };
  const all = () => {
    const out = {};
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k.startsWith(key(''))) out[k.slice(key('').length)] = JSON.parse(localStorage.getItem(k));
    }
    return out;
  };
  const names = (keys) => (keys === null || keys === undefined ? null : typeof keys === 'string' ? [keys] : Array.isArray(keys) ? keys : Object.keys(keys));
  return {
    get(keys, ...rest) {
      if (typeof keys === 'function') return chromeAnswer([keys], all());
      const list = names(keys), out = {};
      if (list === null) return chromeAnswer(rest, all());
      for (const k of list) {
        const v = read(k);
        if (v !== undefined) out[k] = v;
        else if (keys && typeof keys === 'object' && !Array.isArray(keys)) out[k] = keys[k];
      }
      return chromeAnswer(rest, out);
    },
    set(items, ...rest) {
      const changes = {};
      for (const [k, v] of Object.entries(items || {})) {
        changes[k] = { oldValue: read(k), newValue: v };
        localStorage.setItem(key(k), JSON.stringify(v));
      }
      onChanged.fire(changes, area);
      return chromeAnswer(rest, undefined);
    },
    remove(keys, ...rest) {
      const changes = {};
      for (const k of names(keys) || []) { changes[k] = { oldValue: read(k) }; localStorage.removeItem(key(k)); }
      onChanged.fire(changes, area);
      return chromeAnswer(rest, undefined);
    },
    clear(...rest) {
      const changes = {};
      for (const [k, v] of Object.entries(all())) { changes[k] = { oldValue: v }; localStorage.removeItem(key(k)); }
      onChanged.fire(changes, area);
      return chromeAnswer(rest, undefined);
    },
    getBytesInUse(keys, ...rest) {
      const list = names(typeof keys === 'function' ? null : keys);
      let n = 0;
      for (const [k, v] of Object.entries(all())) if (!list || list.includes(k)) n += k.length + JSON.stringify(v).length;
      return chromeAnswer(typeof keys === 'function' ? [keys] : rest, n);
    },
  };
};

// The app's windows, kept by the launcher: each a frame of its page.
const appWindows = (launcherDocument) => {
  const windows = [];
  const starting = new Map(); // frame -> the create call's callback, called as its page starts
  const boundsOf = (frame) => ({
    get left() { return parseInt(frame.style.left, 10) || 0; },
    get top() { return parseInt(frame.style.top, 10) || 0; },
    get width() { return frame.clientWidth; },
    get height() { return frame.clientHeight; },
    setPosition(l, t) { frame.style.left = `${l}px`; frame.style.top = `${t}px`; },
    setSize(w, h) { frame.style.width = `${w}px`; frame.style.height = `${h}px`; },
  });
  const make = (frame, id) => {
    const w = {
      id,
      get contentWindow() { return frame.contentWindow; },
      innerBounds: boundsOf(frame),
      outerBounds: boundsOf(frame),
      onClosed: chromeEvent(), onBoundsChanged: chromeEvent(), onFullscreened: chromeEvent(),
      onMaximized: chromeEvent(), onMinimized: chromeEvent(), onRestored: chromeEvent(),
      close() {
        const i = windows.indexOf(w);
        if (i < 0) return;
        windows.splice(i, 1);
        frame.remove();
        w.onClosed.fire();
      },
      focus() { frame.focus(); }, show() { frame.style.display = ''; }, hide() { frame.style.display = 'none'; },
      drawAttention() {}, clearAttention() {},
      fullscreen() { frame.requestFullscreen().catch(() => chromeSay('app.window fullscreen: refused by the browser')); },
      isFullscreen: () => launcherDocument.fullscreenElement === frame,
      maximize() { w.innerBounds.setPosition(0, 0); w.innerBounds.setSize(innerWidth, innerHeight); w.onMaximized.fire(); },
      minimize() { chromeSay('app.window minimize: a page cannot be minimized (the window is left as it is)'); },
      restore() { w.onRestored.fire(); },
      isMinimized: () => false, isMaximized: () => false, isAlwaysOnTop: () => false,
      setAlwaysOnTop() {}, setIcon() {},
    };
    return w;
  };
  return {
    create(url, options, callback) {
      options = options || {};
      const existing = options.id && windows.find((w) => w.id === options.id);
      if (existing) { existing.focus(); if (typeof callback === 'function') setTimeout(() => callback(existing), 0); return; }
      const b = options.innerBounds || options.bounds || options.outerBounds || {};
      const width = b.width || options.width || b.minWidth || options.minWidth || DEFAULT_WIDTH;
      const height = b.height || options.height || b.minHeight || options.minHeight || DEFAULT_HEIGHT;
      const frame = launcherDocument.createElement('iframe');
      frame.style.cssText = `position:absolute;border:0;left:${b.left || 0}px;top:${b.top || 0}px;width:${width}px;height:${height}px`;
      if (options.hidden) frame.style.display = 'none';
      const w = make(frame, options.id || `window${windows.length + 1}`);
      windows.push(w);
      // (Chrome called back before the window's page ran its scripts: so here, from the
      // page's own pnacl-chrome.js, its first script.)
      starting.set(frame, () => { if (typeof callback === 'function') callback(w); });
      frame.src = new URL(url, launcherDocument.baseURI).href;
      launcherDocument.body.appendChild(frame);
    },
    started(win) {
      for (const [frame, go] of starting) {
        if (frame.contentWindow === win) { starting.delete(frame); go(); }
      }
    },
    of: (win) => windows.find((w) => w.contentWindow === win) || null,
    getAll: () => windows.slice(),
    get: (id) => windows.find((w) => w.id === id) || null,
  };
};

(() => {
  const manifest = PNACL_CHROME_MANIFEST;
  const isLauncher = document.documentElement.hasAttribute('data-pnacl-launcher');
  let launcher = null;
  try { if (window !== top && top.pnaclChromeApp) launcher = top.pnaclChromeApp; } catch { /* another origin's */ }
  if (isLauncher) {
    launcher = { windows: appWindows(document), onLaunched: chromeEvent() };
    window.pnaclChromeApp = launcher;
    document.title = manifest.name || document.title;
    // Once the background scripts have run: the app is launched, as Chrome launched it.
    addEventListener('load', () => launcher.onLaunched.fire({ isKioskSession: false, source: 'app_launcher' }));
  } else if (launcher) {
    launcher.windows.started(window);
  }
  const onChanged = chromeEvent();
  const syncArea = chromeStorage('sync', onChanged);
  const system = {
    cpu: {
      getInfo(...args) {
        chromeSay('system.cpu.getInfo: a page knows only the number of processors (archName, modelName and features are empty, usage 0)');
        const n = navigator.hardwareConcurrency || 1;
        const usage = { user: 0, kernel: 0, idle: 0, total: 0 };
        return chromeAnswer(args, {
          numOfProcessors: n, archName: '', modelName: '', features: [],
          processors: Array.from({ length: n }, () => ({ usage: { ...usage } })),
        });
      },
    },
    memory: {
      getInfo(...args) {
        chromeSay('system.memory.getInfo: a page knows the memory only roughly (navigator.deviceMemory), and not what is available (given as the capacity)');
        const bytes = (navigator.deviceMemory || 0) * 2 ** 30;
        return chromeAnswer(args, { capacity: bytes, availableCapacity: bytes });
      },
    },
  };
  const platform = () => {
    const ua = navigator.userAgent;
    const os = /CrOS/.test(ua) ? 'cros' : /Android/.test(ua) ? 'android' : /Win/.test(ua) ? 'win' : /Mac/.test(ua) ? 'mac' : /Linux/.test(ua) ? 'linux' : 'openbsd';
    return { os, arch: 'x86-64', nacl_arch: 'x86-64' };
  };
  const api = {
    app: {
      runtime: { onLaunched: launcher ? launcher.onLaunched : chromeEvent(), onRestarted: chromeEvent(), onEmbedRequested: chromeEvent() },
      window: {
        create(url, options, callback) {
          if (!launcher) { chromeSay('app.window.create: not in the app launcher (pnacl-app.html): the page opens in a new tab'); open(url); return; }
          launcher.windows.create(url, options, callback);
        },
        current: () => (launcher ? launcher.windows.of(window) : null),
        getAll: () => (launcher ? launcher.windows.getAll() : []),
        get: (id) => (launcher ? launcher.windows.get(id) : null),
        canSetVisibleOnAllWorkspaces: () => false,
      },
    },
    runtime: {
      id: (manifest.name || 'app').toLowerCase().replace(/[^a-z]/g, '').padEnd(32, 'a').slice(0, 32),
      lastError: undefined,
      getManifest: () => JSON.parse(JSON.stringify(manifest)),
      getURL: (path) => new URL(path, launcher ? top.location.href : location.href).href,
      getPlatformInfo(...args) {
        chromeSay('runtime.getPlatformInfo: the architecture is that of the translated program (x86-64 is said)');
        return chromeAnswer(args, platform());
      },
      onInstalled: chromeEvent(), onStartup: chromeEvent(), onSuspend: chromeEvent(), onMessage: chromeEvent(),
      reload: () => (launcher ? top.location.reload() : location.reload()),
    },
    storage: {
      local: chromeStorage('local', onChanged),
      get sync() { chromeSay('storage.sync: kept in this browser only, not synced'); return syncArea; },
      onChanged,
    },
    system,
  };
  const known = new Set(Object.keys(api));
  // An unknown namespace is said once and is undefined: no call is answered wrong.
  window.chrome = new Proxy(api, {
    get(t, p) {
      if (typeof p === 'string' && !known.has(p) && !(p in t)) {
        chromeSay(`chrome.${p}: the packaged-app API of Chrome has no equivalent in a page here`);
        return undefined;
      }
      return Reflect.get(t, p);
    },
  });
})();
