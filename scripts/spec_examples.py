#!/usr/bin/env python3
"""Turns the pnacl-bcdis examples of spec/000 into lit tests (lit-tests/spec/).

Each example (the factorial example and every **Examples** block) is a list of dump lines.
A few are whole modules; most are fragments (a types block at 40:0, a function block at
96:0, ...). For each one this script builds a complete module as record text for
pnacl-bcasm: the example's own records, and around them what the fragment needs (a header,
a types block, function records, a globals block, function bodies) plus neutral local
DEFINE_ABBREV records as padding, sized with the project's own tools so that every record
of the fragment lands at exactly the bit position the example shows. The test then checks
that pnacl-bcdis prints every line of the example exactly.

Usage: scripts/spec_examples.py SPEC.txt OUTDIR BINDIR
  (BINDIR holds pnacl-bcasm and pnacl-bcdis.) Prints a summary; writes OUTDIR/*.test.
"""
import os
import re
import subprocess
import sys
import tempfile

LABEL = re.compile(r'^\s*(\d+):(\d)\|')
HEADER = '<65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0>'
MODULE_PREFIX = [HEADER, '1: <65535, 8, 2>', '3: <1, 1>', '1: <65535, 0, 2>', '0: <65534>']


# ------------------------------------------------------------------------------------
# Extraction

def blocks(text):
    """Yields (section title, line number, [lines]) for each example literal block."""
    lines = text.split('\n')
    title = ''
    i = 0
    while i < len(lines):
        l = lines[i]
        if i + 1 < len(lines) and re.match(r'^[=\-^~*]{4,}\s*$', lines[i + 1]) and l.strip():
            title = l.strip()
        is_example = re.match(r'^\s*\*{1,2}Examples\*{1,2}::\s*$', l) or (
            title == 'Factorial Example' and l.rstrip().endswith('the corresponding output is::'))
        if is_example:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            block = []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith(' ')):
                block.append(lines[j])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            yield title, i + 1, block
            i = j
            continue
        i += 1


def normalize(block):
    """Re-indents a block so the record column's '|' is at index 10 (the RST source strips
    each literal block's common indentation); splits it at '...' lines."""
    first = next(l for l in block if LABEL.match(l))
    shift = 10 - first.index('|')
    segments, cur = [], []
    for l in block:
        if l.strip() == '...':
            segments.append(cur)
            cur = []
            continue
        if not l.strip():
            continue
        if shift >= 0:
            l = ' ' * shift + l
        else:
            if l[:-shift].strip():
                raise ValueError('cannot dedent: ' + l)
            l = l[-shift:]
        cur.append(l)
    segments.append(cur)
    return [s for s in segments if s]


# Examples that leave out records without a '...' line: (example name, the line after
# which the gap is, the records that fill it). "Void Type" shows the types block of the
# "Count Record" example without its `@t3 = void (i32, float);` at 57:2.
IMPLICIT_GAPS = {
    'void-type': ('@t2 = void;', ['3: <21, 0, 2, 0, 1>']),
}


def apply_gaps(name, segments):
    """Splits segments at known unmarked gaps; returns (segments, fills per segment)."""
    fills = [[] for _ in segments]
    if name not in IMPLICIT_GAPS:
        return segments, fills
    after, recs = IMPLICIT_GAPS[name]
    out, out_fills = [], []
    for seg, fill in zip(segments, fills):
        idx = next((i for i, l in enumerate(seg) if l.rstrip().endswith(after)), None)
        if idx is None:
            out.append(seg)
            out_fills.append(fill)
        else:
            out += [seg[:idx + 1], seg[idx + 1:]]
            out_fills += [fill, recs]
    return out, out_fills


class Rec:
    """A record of a segment: position, abbreviation, values, the asm lines beside it."""

    def __init__(self, pos, abbrev, values, depth, asm):
        self.pos, self.abbrev, self.values, self.depth, self.asm = pos, abbrev, values, depth, asm

    def code(self):
        return self.values[0]


def parse_segment(lines):
    """Records of a segment, with the asm text beside each (continuations joined)."""
    recs = []
    for l in lines:
        m = LABEL.match(l)
        rec_col = l[11:40] if len(l) > 11 else ''
        asm = l[41:] if len(l) > 41 else ''
        if m:
            pos = int(m.group(1)) * 8 + int(m.group(2))
            text = rec_col
            depth = (len(text) - len(text.lstrip())) // 2
            recs.append([pos, text.strip(), depth, asm])
        elif recs:
            if rec_col.strip():
                recs[-1][1] += ' ' + rec_col.strip()
            recs[-1][3] += '\n' + asm
    out = []
    for pos, text, depth, asm in recs:
        head, _, rest = text.partition('<')
        head = head.strip().rstrip(':')
        vals = [int(v) for v in rest.rstrip('>').replace(' ', '').split(',') if v]
        out.append(Rec(pos, int(head) if head else None, vals, depth, asm))
    return out


# ------------------------------------------------------------------------------------
# Types

SCALARS = {'void': '3: <2>', 'float': '3: <3>', 'double': '3: <4>'}


def type_record(t, ids):
    if t in SCALARS:
        return SCALARS[t]
    m = re.fullmatch(r'i(\d+)', t)
    if m:
        return f'3: <7, {m.group(1)}>'
    m = re.fullmatch(r'<(\d+) x (\w+)>', t)
    if m:
        return f'3: <12, {m.group(1)}, {ids[m.group(2)]}>'
    ret, params = split_fn(t)
    return '3: <21, 0, ' + ', '.join(str(ids[x]) for x in [ret] + params) + '>'


def split_fn(t):
    m = re.fullmatch(r'(.+?) \((.*)\)', t)
    ret = m.group(1)
    params = [p.strip() for p in m.group(2).split(',') if p.strip()]
    return ret, params


def components(t):
    m = re.fullmatch(r'<(\d+) x (\w+)>', t)
    if m:
        return [m.group(2)]
    if '(' in t:
        ret, params = split_fn(t)
        return [ret] + params
    return []


def build_types(fixed, needed):
    """A type table: `fixed` maps id -> type; `needed` types go in free slots, components
    first. Returns the list or raises ValueError."""
    want = list(needed)
    for t in list(fixed.values()) + list(needed):
        stack = [t]
        while stack:
            x = stack.pop()
            for c in components(x):
                if c not in want and c not in fixed.values():
                    want.append(c)
                stack.append(c)
    free = [t for t in dict.fromkeys(want) if t not in fixed.values()]
    free.sort(key=lambda t: (0 if not components(t) else 1 if t.startswith('<') else 2))
    size = max(list(fixed) + [-1]) + 1
    size = max(size, len(fixed) + len(free))
    # Slots no constraint fills get types nothing uses.
    spare = [t for t in ['float', 'double', 'i8', 'i16', 'i64', 'i1', 'i32', 'void']
             if t not in fixed.values() and t not in free]
    while len(fixed) + len(free) < size:
        free.insert(0, spare.pop(0))
    table = [None] * size
    for i, t in fixed.items():
        table[i] = t
    it = iter(free)
    for i in range(size):
        if table[i] is None:
            table[i] = next(it)
    ids = {t: i for i, t in enumerate(table)}
    for i, t in enumerate(table):
        for c in components(t):
            if ids[c] >= i:
                raise ValueError(f'type @t{i} = {t} needs {c} defined before it')
    return table


# ------------------------------------------------------------------------------------
# Completion

def asm_first(r):
    return r.asm.split('\n')[0].strip()


def infer(segments):
    """What the example needs: type constraints, functions, globals."""
    fixed, needed = {}, []
    funcs = {}  # index -> [signature, defined]
    types_given = None
    globals_count = None
    for seg in segments:
        in_types = False
        for r in parse_segment(seg):
            a = r.asm.replace('\n', ' ')
            a = re.sub(r'\s+', ' ', a).strip()
            if r.values[:2] == [65535, 17]:
                in_types = True
                types_given = []
                continue
            if in_types:
                if r.values[0] == 65534:
                    in_types = False
                m = re.match(r'@t(\d+) = (.+?);', a)
                if m:
                    types_given.append(m.group(2))
                continue
            m = re.match(r'function (.+?) @f(\d+)\((.*?)\) \{', a)
            if m and r.values[:2] == [65535, 12]:
                params = [p.rsplit(' ', 1)[0] for p in m.group(3).split(', ') if p]
                funcs[int(m.group(2))] = [f'{m.group(1)} ({", ".join(params)})', True]
            m = re.match(r'(declare|define) (external|internal) +(.+?) @f(\d+)\((.*?)\);', a)
            if m and r.values[0] == 8:
                sig = f'{m.group(3)} ({m.group(5)})'
                funcs[int(m.group(4))] = [sig, m.group(1) == 'define']
                fixed[r.values[1]] = sig
            m = re.match(r'count (\d+);', a)
            if m and r.values[0] == 5:
                globals_count = int(m.group(1))
            m = re.fullmatch(r'(\S.*):', a)
            if m and r.values[0] == 1 and r.depth == 3:
                fixed[r.values[1]] = m.group(1)
            m = re.match(r'switch (\S+) ', a)
            if m and r.values[0] == 12:
                fixed[r.values[1]] = m.group(1)
            for t in re.findall(r'\b(i\d+|float|double|<\d+ x \w+>)\b', a):
                needed.append(t)
            for f in re.findall(r'@f(\d+)', a):
                funcs.setdefault(int(f), ['void ()', False])
    # A fragment that starts inside a function body needs a defined function.
    inside_fn = any(
        (lambda r: r.abbrev is not None and r.depth >= 2)(parse_segment(seg)[0]) for seg in segments)
    if inside_fn and not any(d for _, d in funcs.values()):
        funcs.setdefault(0, ['void ()', True])
        funcs[0][1] = True
    if funcs:
        for i in range(max(funcs) + 1):
            funcs.setdefault(i, ['void ()', False])
    for sig, _ in funcs.values():
        needed.append(sig)
    return types_given, fixed, needed, funcs, globals_count


def pad_abbrev(bits):
    """A local DEFINE_ABBREV record of exactly `bits` bits (abbrev id width 2, small
    literals 9 bits, char6 4 bits), or None. Operand count < 16."""
    for lits in range(0, 15):
        rest = bits - 7 - 9 * lits
        if rest < 0:
            break
        if rest % 4 == 0 and 1 <= lits + rest // 4 <= 15:
            ops = ['1, 1'] * lits + ['0, 4'] * (rest // 4)
            return f'2: <65533, {len(ops)}, ' + ', '.join(ops) + '>'
    return None


def pad_records(bits, width=2):
    """Local DEFINE_ABBREV records totalling `bits` bits (in a block of abbrev width 2)."""
    assert width == 2
    if bits == 0:
        return []
    one = pad_abbrev(bits)
    if one:
        return [one]
    for first in range(11, bits):
        a, b = pad_abbrev(first), pad_abbrev(bits - first)
        if a and b:
            return [a, b]
        if a:
            rest = pad_records(bits - first)
            if rest is not None:
                return [a] + rest
    return None


class Tools:
    def __init__(self, bindir):
        self.asm = os.path.join(bindir, 'pnacl-bcasm')
        self.dis = os.path.join(bindir, 'pnacl-bcdis')

    def dump(self, lines):
        with tempfile.TemporaryDirectory() as d:
            src, pexe = os.path.join(d, 'in.txt'), os.path.join(d, 'out.pexe')
            open(src, 'w').write('\n'.join(lines) + '\n')
            r = subprocess.run([self.asm, src, '-o', pexe], capture_output=True, text=True)
            if r.returncode:
                raise ValueError('pnacl-bcasm: ' + r.stderr.strip())
            r = subprocess.run([self.dis, '--no-abbrev-quirks', pexe], capture_output=True, text=True)
            return r.stdout, r.returncode


def dump_positions(dump):
    """Positions of the record lines of a dump, in order, with their record text."""
    out = []
    for l in dump.split('\n'):
        m = LABEL.match(l)
        if m:
            out.append((int(m.group(1)) * 8 + int(m.group(2)), l))
    return out


def complete(segments, tools, gap_fills=None):
    """Record lines of a whole module around the example's segments."""
    types_given, fixed, needed, funcs, globals_count = infer(segments)
    segs = [parse_segment(s) for s in segments]
    first = segs[0][0]
    if types_given is None:
        table = build_types(fixed, needed)
    else:
        table = types_given
    ids = {t: i for i, t in enumerate(table)}
    nf = max(funcs) + 1 if funcs else 0
    for i in range(nf):
        funcs.setdefault(i, ['void ()', False])
        if funcs[i][0] not in ids:
            raise ValueError(f'function @f{i} type {funcs[i][0]} not in the type table {table}')

    # The pieces of the module, in order; each segment is preceded by a padding slot.
    types_block = ['1: <65535, 17, 2>', f'3: <1, {len(table)}>'] + [type_record(t, ids) for t in table] + ['0: <65534>']
    fn_records = {i: f'3: <8, {ids[funcs[i][0]]}, 0, {0 if funcs[i][1] else 1}, 0>' for i in range(nf)}
    globals_block = ['1: <65535, 19, 2>', '3: <5, 0>', '0: <65534>']

    has = {'header': False, 'types': False, 'globals': False}
    done_fn_records = set()
    for s in segs:
        for r in s:
            if r.abbrev is None:
                has['header'] = True
            if r.values[:2] == [65535, 17]:
                has['types'] = True
            if r.values[:2] == [65535, 19]:
                has['globals'] = True
            if r.values[0] == 8 and r.depth == 1:
                m = re.search(r'@f(\d+)', r.asm)
                done_fn_records.add(int(m.group(1)))

    pieces = []  # list of (kind, lines)
    # Module prefix.
    if first.abbrev is None:
        pass
    elif first.values[:2] == [65535, 8]:
        pieces.append(('fixed', [HEADER]))
    else:
        pieces.append(('fixed', MODULE_PREFIX))

    stage = 0  # 0 before types, 1 types done, 2 fn records done, 3 globals done
    open_fn = None
    for si, s in enumerate(segs):
        r0 = s[0]
        kind = ('types' if r0.values[:2] == [65535, 17] else 'globals' if r0.values[:2] == [65535, 19]
                else 'fnrec' if r0.values[0] == 8 and r0.depth == 1
                else 'fnblock' if r0.values[:2] == [65535, 12]
                else 'module' if r0.abbrev is None or r0.values[:2] == [65535, 8]
                else 'infn' if r0.depth >= 2 else 'other')
        fill = []
        if kind in ('globals', 'fnrec', 'fnblock', 'infn') and stage < 1 and not has['types']:
            fill += types_block
        if kind in ('globals', 'fnblock', 'infn') and stage < 2:
            fill += [fn_records[i] for i in range(nf) if i not in done_fn_records]
        if kind in ('fnblock', 'infn') and stage < 3 and not has['globals']:
            fill += globals_block
        if gap_fills and gap_fills[si]:
            fill += gap_fills[si]
            kind = 'gap'
        if kind == 'infn':
            if open_fn is None:
                fill += ['1: <65535, 12, 2>', '3: <1, 1>']
                open_fn = min(i for i in range(nf) if funcs[i][1])
        pieces.append(('fill', fill))
        pieces.append(('pad', r0.pos))
        pieces.append(('seg', segments[si]))
        if kind in ('types', 'globals', 'fnrec', 'fnblock', 'infn'):
            stage = max(stage, {'types': 1, 'fnrec': 1, 'globals': 3, 'fnblock': 3, 'infn': 3}[kind])
        if kind == 'fnrec':
            stage = max(stage, 1)

    # What the module still lacks after the last segment (module-level pieces).
    suffix_stage_lines = []
    if stage < 1 and not has['types']:
        suffix_stage_lines += types_block
    if stage < 3:
        suffix_stage_lines += [fn_records[i] for i in range(nf) if i not in done_fn_records]
        if not has['globals']:
            suffix_stage_lines += globals_block
    # Bodies for functions defined by a record of the example but given no block by it.
    shown_blocks = set()
    for seg in segs:
        for r in seg:
            if r.values[:2] == [65535, 12]:
                m = re.search(r'@f(\d+)', r.asm)
                shown_blocks.add(int(m.group(1)))
    if open_fn is not None:
        shown_blocks.add(open_fn)
    for i in range(nf):
        if funcs[i][1] and i not in shown_blocks:
            suffix_stage_lines += ['1: <65535, 12, 2>', '3: <1, 1>', '3: <15>', '0: <65534>']
    return pieces, suffix_stage_lines


def record_values(line):
    """(abbrev, values) of a record line (bare or dump form)."""
    if '|' in line:
        parts = line.split('|')
        if len(parts) >= 2 and parts[0].strip():
            line = parts[1]
        else:
            return None
    if '<' not in line:
        return None
    head, _, rest = line.partition('<')
    vals = [int(v) for v in rest.split('>')[0].replace(' ', '').split(',') if v]
    return head.strip().rstrip(':'), vals


def close_lines(lines):
    """Records closing the blocks left open at the end of `lines`, terminating the open
    function's remaining basic blocks (with `unreachable`)."""
    stack = []
    declared, terminated = None, 0
    # Join continuation lines of dump records first.
    joined = []
    for l in lines:
        if '|' in l and not l.split('|')[0].strip():
            if joined:
                joined[-1] = joined[-1].rstrip() + ' ' + l.split('|')[1].strip()
            continue
        joined.append(l if '|' not in l else l.split('|')[1])
    for l in joined:
        rv = record_values(l)
        if rv is None:
            continue
        _, v = rv
        if v[0] == 65535:
            stack.append(v[1])
            if v[1] == 12:
                declared, terminated = None, 0
        elif v[0] == 65534:
            if stack:
                stack.pop()
        elif stack and stack[-1] == 12:
            if v[0] == 1 and declared is None:
                declared = v[1]
            elif v[0] in (10, 11, 12, 15):
                terminated += 1
    out = []
    while stack:
        b = stack.pop()
        if b == 12 and declared is not None:
            out += ['3: <15>'] * max(0, declared - terminated)
        out.append('0: <65534>')
    return out


def assemble_lines(pieces, suffix_fill, pads):
    lines = []
    pi = 0
    for kind, v in pieces:
        if kind == 'pad':
            lines += pads[pi]
            pi += 1
        else:
            lines += v
    closing = close_lines(lines)
    if not any(record_values(l) and record_values(l)[1][:2] == [65535, 8] for l in lines):
        # A header alone: add the smallest module.
        lines += MODULE_PREFIX[1:] + ['1: <65535, 17, 2>', '3: <1, 0>', '0: <65534>',
                                      '1: <65535, 19, 2>', '3: <5, 0>', '0: <65534>', '0: <65534>']
        return lines
    # Module-level pieces still missing go just before the module block's end.
    if suffix_fill and closing:
        lines += closing[:-1] + suffix_fill + closing[-1:]
    else:
        lines += closing
    return lines


def solve(segments, tools, gap_fills=None):
    """Finds padding so that every segment lands where the example says."""
    pieces, suffix_fill = complete(segments, tools, gap_fills)
    npads = sum(1 for k, _ in pieces if k == 'pad')
    pads = [[] for _ in range(npads)]
    targets = [v for k, v in pieces if k == 'pad']
    for si in range(npads):
        for _attempt in range(4):
            lines = assemble_lines(pieces, suffix_fill, pads)
            dump, _ = tools.dump(lines)
            positions = dump_positions(dump)
            first_line = segments[si][0]
            want = targets[si]
            # The segment's first record in the dump: the first record line whose record
            # text matches, at or after the padding.
            rec_text = first_line[11:40].rstrip()
            cands = [p for p, l in positions if l[11:40].rstrip() == rec_text]
            got = None
            # Choose the candidate closest after the previous segment.
            for p in cands:
                if si == 0 or p > targets[si - 1]:
                    got = p
                    break
            if got is None:
                raise ValueError(f'segment {si} not found in the dump')
            if got == want:
                break
            delta = want - got
            if delta < 0:
                raise ValueError(f'segment {si} lands at {got // 8}:{got % 8}, after {want // 8}:{want % 8}')
            cur = sum(pad_bits(p) for p in pads[si])
            new = pad_records(cur + delta)
            if new is None:
                raise ValueError(f'no padding of {cur + delta} bits')
            pads[si] = new
        else:
            raise ValueError(f'segment {si} does not converge')
    lines = assemble_lines(pieces, suffix_fill, pads)
    dump, rc = tools.dump(lines)
    return lines, dump, rc


def pad_bits(rec):
    vals = [int(v) for v in rec[rec.index('<') + 1:-1].split(',')]
    n = vals[1]
    bits = 2 + 5
    i = 2
    for _ in range(n):
        bits += 9 if vals[i] == 1 else 4
        i += 2
    return bits


def check(segments, dump):
    """Whether each segment's lines appear consecutively, in order, in the dump."""
    lines = dump.split('\n')
    at = 0
    for s in segments:
        for start in range(at, len(lines)):
            if lines[start:start + len(s)] == s:
                at = start + len(s)
                break
        else:
            return False
    return True


def slug(title):
    return re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')


def main():
    spec, outdir, bindir = sys.argv[1:4]
    tools = Tools(bindir)
    text = open(spec).read()
    os.makedirs(outdir, exist_ok=True)
    made, skipped = [], []
    seen = {}
    for title, line, block in blocks(text):
        name = slug(title)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name += f'-{seen[name]}'
        try:
            segments, gap_fills = apply_gaps(name, normalize(block))
            lines, dump, rc = solve(segments, tools, gap_fills)
            if not check(segments, dump):
                raise ValueError('the dump does not contain the example')
        except (ValueError, StopIteration, KeyError) as e:
            skipped.append((name, line, str(e)))
            continue
        errors = [l for l in dump.split('\n') if l.startswith('Error(')]
        out = [f'# spec/000 "{title}" (line {line}): the example, completed into a whole module.',
               '# Generated by scripts/spec_examples.py from ../shared/spec/000_54c3d08b7f1b093e.txt.']
        if errors:
            out.append('# The example itself is inconsistent; pnacl-bcdis reports:')
            out += ['#   ' + e for e in errors]
            out.append('# RUN: pnacl-bcasm %s -o %t.pexe')
            out.append('# RUN: not pnacl-bcdis --no-abbrev-quirks %t.pexe > %t.dump')
        else:
            out.append('# RUN: pnacl-bcasm %s -o %t.pexe')
            out.append('# RUN: pnacl-bcdis --no-abbrev-quirks %t.pexe > %t.dump')
        out.append('# RUN: FileCheck --strict-whitespace --match-full-lines --input-file=%t.dump %s')
        out.append('')
        out += lines
        out.append('')
        for s in segments:
            for i, l in enumerate(s):
                out.append(('# CHECK:' if i == 0 else '# CHECK-NEXT:') + l)
        open(os.path.join(outdir, name + '.test'), 'w').write('\n'.join(out) + '\n')
        made.append((name, bool(errors)))
    print(f'{len(made)} tests written, {sum(1 for _, e in made if e)} of them with inconsistent examples')
    for name, line, why in skipped:
        print(f'skipped {name} (spec line {line}): {why}')


if __name__ == '__main__':
    main()
