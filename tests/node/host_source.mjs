// The JavaScript hosts' modules (runtime/host_*.js) as one script, as pnacl-translate
// assembles them (src/translate/js.rs, which also checks their imports): each module's
// import lines go and `export ` is dropped, in the order given (each after those it
// imports). For node scripts that run parts of the hosts in a context of their own.
import fs from 'node:fs';

export const hostSource = (files) => files
  .map((f) => fs.readFileSync(new URL(`../../runtime/${f}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('import '))
    .map((l) => (l.startsWith('export ') ? l.slice('export '.length) : l))
    .join('\n'))
  .join('\n');
