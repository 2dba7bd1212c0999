// The JavaScript hosts' modules (runtime/host_*.js) as one script, as pnacl-translate
// assembles them (src/translate/js.rs, which also checks their imports): the modules
// given and those they import, each once and after what it imports, their import lines
// gone and `export ` dropped. For node scripts that run parts of the hosts in a context
// of their own.
import fs from 'node:fs';

export const hostSource = (files) => {
  const done = new Set();
  const out = [];
  const add = (f) => {
    if (done.has(f)) return;
    done.add(f);
    const text = fs.readFileSync(new URL(`../../runtime/${f}`, import.meta.url), 'utf8').split('\n');
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
