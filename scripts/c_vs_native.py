#!/usr/bin/env python3
"""C or C++ built into a pexe runs as the same source built natively does.

    c_vs_native.py SOURCE WORKDIR [--also SOURCE]... [--opt O0,O2] [--arch x86-32,arm,wasm32,...]
                   [--cflags FLAGS] [-- ARGS...]

C sources (.c) are compiled natively with `clang-14 -m32 -msse2 -mlong-double-64
-malign-double` (a pexe's long double is double, its i64 and double 8-aligned in
structs), C++ ones (.cpp) with `clang++-14 -m32 -msse2` (against libstdc++, whose own
layout those two flags would break), and run: its standard output and exit status are
what each pexe must give (a native death by SIGABRT counts as status 134, as a shell
reports it: a pexe's abort() ends it so on every target). Then for each optimization level it is built with pnacl-clang
(pnacl-clang++ for C++), the pexe is
checked with pnacl-abicheck, translated for each architecture (pnacl-translate; ARM and AArch64
run under pnacl-run, WebAssembly under node) and run with the same arguments. Any difference
is printed (the first differing lines) and the script fails.
"""
import argparse
import difflib
import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, 'toolchain.toml'), 'rb') as f:
    TOOLCHAIN = tomllib.load(f)
CLANG = TOOLCHAIN['native']['clang']
NODE = TOOLCHAIN['wasm']['node']


def run(cmd, what, **kw):
    """Runs cmd; a program that does not end within two minutes fails the test."""
    try:
        return subprocess.run(cmd, capture_output=True, timeout=120, **kw)
    except subprocess.TimeoutExpired as e:
        sys.stderr.write(f'{what}: {" ".join(cmd)} did not end within {e.timeout} s\n')
        sys.exit(1)


def must(cmd, what):
    p = run(cmd, what)
    if p.returncode != 0:
        sys.stderr.write(f'{what} failed ({p.returncode}): {" ".join(cmd)}\n')
        sys.stderr.write(p.stderr.decode(errors='replace'))
        sys.exit(1)
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('work')
    ap.add_argument('--also', action='append', default=[], help='more sources of the program')
    ap.add_argument('--opt', default='O0,O2')
    ap.add_argument('--arch', default='x86-32,arm,wasm32')
    ap.add_argument('--cflags', default='')
    ap.add_argument('args', nargs='*')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    name = os.path.splitext(os.path.basename(a.source))[0]
    cflags = a.cflags.split()
    sources = [a.source, *a.also]
    cxx = any(not s.endswith('.c') for s in sources)
    if cxx:
        native_cc = [CLANG, '--driver-mode=g++', '-m32', '-msse2']
        pnacl_cc = 'pnacl-clang++'
    else:
        native_cc = [CLANG, '-m32', '-msse2', '-mlong-double-64', '-malign-double']
        pnacl_cc = 'pnacl-clang'
    failed = False
    for opt in a.opt.split(','):
        native = os.path.join(a.work, f'{name}.{opt}.native')
        must([*native_cc, f'-{opt}', *cflags, *sources, '-o', native, '-lm', '-lpthread'],
             'the native build')
        ref = run([native, *a.args], 'the native program')
        if ref.returncode == -6:
            ref.returncode = 134
        pexe = os.path.join(a.work, f'{name}.{opt}.pexe')
        must([pnacl_cc, f'-{opt}', *cflags, *sources, '-o', pexe], pnacl_cc)
        must(['pnacl-abicheck', '-q', pexe], 'pnacl-abicheck')
        for arch in a.arch.split(','):
            ext = {'x86-32': 'x86', 'arm': 'arm', 'wasm32': 'mjs', 'x86-64': 'x64', 'aarch64': 'a64'}[arch]
            prog = os.path.join(a.work, f'{name}.{opt}.{ext}')
            must(['pnacl-translate', '--arch', arch, pexe, '-o', prog], f'pnacl-translate --arch {arch}')
            cmd = {'x86-32': [prog], 'arm': ['pnacl-run', prog], 'wasm32': [NODE, prog],
                   'x86-64': [prog], 'aarch64': ['pnacl-run', prog]}[arch]
            got = run([*cmd, *a.args], arch)
            where = f'{name} -{opt} on {arch}'
            if got.returncode != ref.returncode:
                failed = True
                print(f'{where}: exit status {got.returncode}, natively {ref.returncode}')
                sys.stdout.write(got.stderr.decode(errors='replace')[-2000:])
            if got.stdout != ref.stdout:
                failed = True
                print(f'{where}: its output differs from the native build\'s:')
                diff = difflib.unified_diff(
                    ref.stdout.decode(errors='replace').splitlines(),
                    got.stdout.decode(errors='replace').splitlines(),
                    'native', where, lineterm='', n=1)
                for k, line in enumerate(diff):
                    if k >= 40:
                        print('...')
                        break
                    print(line)
            else:
                print(f'{where}: same output ({len(got.stdout)} bytes) and status {got.returncode}')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
