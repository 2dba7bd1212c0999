// The JavaScript hosts' modules (runtime/host_*.js) as one script, as pnacl-translate
// assembles them (src/translate/js.rs, which also checks their imports): the modules
// given and those they import, each once and after what it imports, their import lines
// gone and `export ` dropped. For node scripts that run parts of the hosts in a context
// of their own. The modules pnacl-translate writes from the runtime's lists
// (host_channel.js, host_gl_entries.js: src/translate/js.rs's `generated`) are read from
// the folder PNACL_GENERATED_JS names, where the tests that run these scripts write them.
import fs from 'node:fs';
import path from 'node:path';

const read = (f) => {
  const own = new URL(`../../runtime/${f}`, import.meta.url);
  if (fs.existsSync(own)) return fs.readFileSync(own, 'utf8');
  const dir = process.env.PNACL_GENERATED_JS;
  if (!dir) throw new Error(`${f} is in no runtime file: pnacl-translate writes it; set PNACL_GENERATED_JS to a folder holding it (the tests do)`);
  return fs.readFileSync(path.join(dir, f), 'utf8');
};

export const hostSource = (files) => {
  const done = new Set();
  const out = [];
  const add = (f) => {
    if (done.has(f)) return;
    done.add(f);
    const text = read(f).split('\n');
    for (const l of text) {
      const m = /^import \{[^}]*\} from '\.\/([\w.]+)';$/.exec(l);
      if (m) add(m[1]);
    }
    out.push(text
      .filter((l) => !l.startsWith('import '))
      .map((l) => (l.startsWith('export ') ? l.slice('export '.length) : l))
      .join('\n'));
  };
  files.forEach(add);
  return out.join('\n');
};
