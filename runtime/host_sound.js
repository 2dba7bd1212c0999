// Sound for a plugin in a page (PPB_Audio): an AudioWorklet that plays from the ring the
// host's audio thread fills, reading the plugin's memory (shared), as the page's channel
// says (TO_AUDIO_START, TO_AUDIO_STOP).
import { memoryTo } from './host_core.js';
import { MAX_SOUNDS } from './host_bounds.js';

// The worklet: the ring (runtime/ppapi/ppb_audio.h: [written, read] frame counts, then
// 16-bit stereo samples) played as it fills, the audio thread woken as it reads on.
const AUDIO_WORKLET = `registerProcessor('pnacl-audio', class extends AudioWorkletProcessor {
  constructor(o) {
    super();
    const { buffer, ring, frames } = o.processorOptions;
    this.counts = new Int32Array(buffer, ring, 2);
    this.samples = new Int16Array(buffer, ring + 16, frames * 2);
    this.frames = frames;
    this.port.onmessage = () => { this.stopped = true; };
  }
  process(_inputs, outputs) {
    if (this.stopped) return false;
    const [left, right] = outputs[0];
    const written = Atomics.load(this.counts, 0) >>> 0, read = Atomics.load(this.counts, 1) >>> 0;
    const have = Math.min((written - read) >>> 0, left.length);
    for (let i = 0; i < left.length; i++) {
      const at = ((read + i) % this.frames) * 2;
      left[i] = i < have ? this.samples[at] / 32768 : 0;
      if (right) right[i] = i < have ? this.samples[at + 1] / 32768 : 0;
    }
    if (have) {
      Atomics.store(this.counts, 1, (read + have) | 0);
      Atomics.notify(this.counts, 1);
    }
    return true;
  }
});`;
let audioModule = null;
const audioContexts = new Map(); // rate → AudioContext
const audioContext = async (rate) => {
  let c = audioContexts.get(rate);
  if (!c) {
    c = new AudioContext({ sampleRate: rate });
    audioContexts.set(rate, c);
    // Browsers start sound only after the user does something on the page.
    const resume = () => { if (c.state === 'suspended') c.resume(); };
    for (const type of ['pointerdown', 'keydown', 'touchstart']) document.addEventListener(type, resume, { capture: true });
    resume();
  }
  if (!audioModule) audioModule = URL.createObjectURL(new Blob([AUDIO_WORKLET], { type: 'text/javascript' }));
  if (!c.pnaclModule) c.pnaclModule = c.audioWorklet.addModule(audioModule);
  await c.pnaclModule;
  return c;
};

// One plugin's sounds (audio resource → its worklet node, null while it starts) in its
// `memory`; `ended()` says whether the plugin is gone.
export function pluginSounds(memory, ended) {
  const sounds = new Map();
  // The ring's address, its frames, the rate: each checked (the plugin's memory is its own).
  const start = ([id, ring, frames, rate]) => {
    const end = ring + 16 + frames * 4;
    const fits = frames > 0 && frames <= 4 * 32768 && ring % 4 === 0
      && end <= memoryTo(memory, end).byteLength && (rate === 44100 || rate === 48000);
    if (!fits || sounds.has(id) || sounds.size >= MAX_SOUNDS) return;
    sounds.set(id, null);
    audioContext(rate).then((c) => {
      if (!sounds.has(id) || ended()) return;
      const node = new AudioWorkletNode(c, 'pnacl-audio', {
        numberOfInputs: 0, outputChannelCount: [2],
        processorOptions: { buffer: memory.buffer, ring, frames },
      });
      node.connect(c.destination);
      sounds.set(id, node);
    }).catch((e) => console.error(`NaCl module: no sound: ${e.message}`));
  };
  const silence = (node) => { if (node) { node.port.postMessage('stop'); node.disconnect(); } };
  const stop = (id) => {
    const node = sounds.get(id);
    sounds.delete(id);
    silence(node);
  };
  const stopAll = () => { for (const node of sounds.values()) silence(node); };
  return { start, stop, stopAll };
}
