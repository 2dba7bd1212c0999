// The page's WebSockets for a plugin (PPB_WebSocket): the page's own, with the page's
// origin; each message goes to the host in pieces of at most 256 KiB, text as UTF-8.
import { MAX_SOCKETS } from './host_bounds.js';
import { FROM_WS_CLOSED, FROM_WS_ERROR, FROM_WS_MESSAGE, FROM_WS_OPEN } from './host_channel.js';

// One plugin's sockets; `toHostWith(words, bytes)` sends a record to its host.
export function webSockets(toHostWith) {
  const sockets = new Map();
  const openSocket = (id, url, protocols) => {
    let ws;
    try {
      if (sockets.size >= MAX_SOCKETS || sockets.has(id)) throw new Error('too many sockets');
      ws = new WebSocket(url, protocols ? protocols.split(',') : []);
    } catch {
      toHostWith([FROM_WS_ERROR, id], new Uint8Array(0));
      toHostWith([FROM_WS_CLOSED, id, 1006, 0], new Uint8Array(0));
      return;
    }
    ws.binaryType = 'arraybuffer';
    sockets.set(id, ws);
    const enc = new TextEncoder();
    ws.onopen = () => {
      const p = enc.encode(ws.protocol), x = enc.encode(ws.extensions);
      const both = new Uint8Array(p.length + x.length);
      both.set(p, 0);
      both.set(x, p.length);
      toHostWith([FROM_WS_OPEN, id, p.length, x.length], both);
    };
    ws.onmessage = (e) => {
      const binary = typeof e.data !== 'string';
      const b = binary ? new Uint8Array(e.data) : enc.encode(e.data);
      for (let i = 0; i === 0 || i < b.length; i += 262144) {
        const last = i + 262144 >= b.length;
        toHostWith([FROM_WS_MESSAGE, id, (binary ? 1 : 0) | (last ? 2 : 0)], b.subarray(i, i + 262144));
      }
    };
    ws.onerror = () => { if (ws.readyState !== WebSocket.OPEN) toHostWith([FROM_WS_ERROR, id], new Uint8Array(0)); };
    ws.onclose = (e) => {
      sockets.delete(id);
      toHostWith([FROM_WS_CLOSED, id, e.code, e.wasClean ? 1 : 0], enc.encode(e.reason).slice(0, 123));
    };
  };
  return { open: openSocket, sockets };
}
