// The page's URL loading for a plugin (PPB_URLLoader), over fetch: the plugin's
// requests, relative to the page; a cross-origin one only if it allowed them (then CORS),
// as Chrome did. The response's head, its body in pieces of 256 KiB, its end or an error
// go back to the host as channel records.
import { MAX_LOADS } from './host_bounds.js';
import { FROM_URL_DATA, FROM_URL_END, FROM_URL_ERROR, FROM_URL_HEADERS, PP_ERROR_FAILED, PP_ERROR_NOACCESS } from './host_channel.js';


// One plugin's loads; `toHostWith(words, bytes)` sends a record to its host.
export function urlLoads(toHostWith) {
  const loads = new Map();
  const openUrl = async (loader, flags, url, method, headerText, body) => {
    const fail = (code) => { loads.delete(loader); toHostWith([FROM_URL_ERROR, loader, code >>> 0], new Uint8Array(0)); };
    let target;
    try { target = new URL(url, document.baseURI); } catch { fail(PP_ERROR_FAILED); return; }
    const same = target.origin === location.origin;
    if (!same && !(flags & 2)) { fail(PP_ERROR_NOACCESS); return; }
    if (!/^https?:$/.test(target.protocol)) { fail(PP_ERROR_NOACCESS); return; }
    const headers = new Headers();
    for (const line of headerText.split('\n')) {
      const at = line.indexOf(':');
      if (at > 0) { try { headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim()); } catch { /* a forbidden one */ } }
    }
    // (Loads at once are bounded, as a browser bounds a page's connections.)
    if (loads.size >= MAX_LOADS || loads.has(loader)) { fail(PP_ERROR_FAILED); return; }
    const verb = (method || 'GET').toUpperCase();
    const ctrl = new AbortController();
    loads.set(loader, ctrl);
    try {
      const response = await fetch(target, {
        method: verb, headers, signal: ctrl.signal,
        body: body.length && verb !== 'GET' && verb !== 'HEAD' ? body : undefined,
        mode: same ? 'same-origin' : 'cors',
        credentials: flags & 4 ? 'include' : same ? 'same-origin' : 'omit',
        redirect: 'follow',
      });
      const enc = new TextEncoder();
      const u = enc.encode(response.url), line = enc.encode(`HTTP/1.1 ${response.status} ${response.statusText}`);
      let text = '';
      response.headers.forEach((v, k) => { text += `${k}: ${v}\n`; });
      const h = enc.encode(text);
      const all = new Uint8Array(u.length + line.length + h.length);
      all.set(u, 0); all.set(line, u.length); all.set(h, u.length + line.length);
      toHostWith([FROM_URL_HEADERS, loader, response.status, u.length, line.length, h.length], all);
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (let i = 0; i < value.length; i += 262144) toHostWith([FROM_URL_DATA, loader], value.subarray(i, i + 262144));
        }
      }
      loads.delete(loader);
      toHostWith([FROM_URL_END, loader], new Uint8Array(0));
    } catch (e) {
      if (!ctrl.signal.aborted) fail(same ? PP_ERROR_FAILED : PP_ERROR_NOACCESS);
    }
  };
  const close = (loader) => {
    const c = loads.get(loader);
    if (c) { c.abort(); loads.delete(loader); }
  };
  return { open: openUrl, close };
}
