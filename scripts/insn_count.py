#!/usr/bin/env python3
"""The instructions programs execute, counted by qemu-user, side by side.

    insn_count.py TITLE NAME1 EXE1 NAME2 EXE2 ... -- ARGS...

Each EXE (a static Linux ELF of any architecture qemu-user runs) is run under its
architecture's qemu with ARGS, logging each translated block's instructions (-d in_asm)
and each block executed (-d exec, with chaining off so that every execution is logged);
the count is the sum over executions of their blocks' instructions. Under qemu a
translated pexe's runtime cannot contain itself, so each is run named in
PNACL_ALLOW_UNSANDBOXED (a benchmark, not an untrusted program). Prints each count and
its ratio to the first.
"""
import os
import re
import subprocess
import sys

QEMU = {62: "qemu-x86_64", 183: "qemu-aarch64", 3: "qemu-i386", 40: "qemu-arm"}


def machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], "little")


def count(exe, args):
    qemu = QEMU[machine(exe)]
    env = {"PNACL_ALLOW_UNSANDBOXED": os.path.basename(exe)}
    p = subprocess.Popen(
        [qemu, "-d", "in_asm,exec,nochain", exe] + args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    sizes = {}  # block start -> instructions
    total = 0
    block_pc = None
    block_len = 0
    trace = re.compile(rb"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
    insn = re.compile(rb"^0x([0-9a-f]+):")
    for line in p.stderr:
        if line.startswith(b"Trace"):
            m = trace.match(line)
            if m:
                total += sizes.get(int(m.group(1), 16), 0)
        elif line.startswith(b"IN:"):
            block_pc, block_len = None, 0
        elif line.startswith(b"0x"):
            m = insn.match(line)
            if m:
                if block_pc is None:
                    block_pc = int(m.group(1), 16)
                block_len += 1
                sizes[block_pc] = block_len
    if p.wait() != 0:
        sys.exit(f"insn_count: {exe} failed under {qemu}")
    return total


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    title, pairs, args = argv[0], argv[1:sep], argv[sep + 1 :]
    counts = [(pairs[i], count(pairs[i + 1], args)) for i in range(0, len(pairs), 2)]
    base = counts[0][1]
    print(f"{title}:")
    for name, n in counts:
        print(f"  {name:10} {n:>14,} instructions  {n / base:.2f}x")


if __name__ == "__main__":
    main()
