// Runs a WASI command module (a C program built by clang --target=wasm32-wasi against
// Debian's wasi-libc) under node's own WASI, for scripts/bench wasm: the reference the
// pexes' WebAssembly is measured against.
//   node --no-warnings scripts/wasi_run.mjs X.wasm ARGS...
import { WASI } from 'node:wasi';
import fs from 'node:fs';

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(fs.readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
