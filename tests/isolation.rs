//! Isolation by construction on the region targets (x86-64 natively, AArch64 under
//! qemu-aarch64 contained by pnacl-run), tested as an attacker would: one pexe
//! (tests/isolation/attacker.c, built by pnacl-clang, so it passes pnacl-abicheck) that
//! writes every page it can have, reads its whole 4 GiB for the runtime's bytes, calls
//! what is no function or a function as another type, hands the IRT pointers past its
//! region, changes a file name while the runtime checks it, and runs its stacks out. Each
//! either stays in the region or traps (status 134, the reason on standard error), and the
//! runtime keeps answering.
#![cfg(feature = "llvm")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use assert_cmd::cargo::cargo_bin;
use pnacl::target::{Runner, Target};

const TARGETS: [Target; 2] = [Target::X86_64, Target::Aarch64];

/// The attacker, translated for each region target, built once for the tests.
fn attacker(target: Target) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pexe = dir.path().join("attacker.pexe");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/isolation/attacker.c");
        pnacl_clang(&src, &pexe);
        // (Its findings are on standard output.)
        let out = Command::new(cargo_bin("pnacl-abicheck"))
            .arg(&pexe)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        for t in TARGETS {
            translate(t, &pexe, &dir.path().join(t.name()));
        }
        dir
    });
    dir.path().join(target.name())
}

/// `src` built by pnacl-clang -O2 into the pexe `pexe`.
fn pnacl_clang(src: &Path, pexe: &Path) {
    common::run_ok(
        Command::new(cargo_bin("pnacl-clang"))
            .arg("-O2")
            .arg(src)
            .arg("-o")
            .arg(pexe),
        "pnacl-clang",
    );
}

/// `pexe` translated for `target` into `exe`.
fn translate(target: Target, pexe: &Path, exe: &Path) {
    common::run_ok(
        Command::new(cargo_bin("pnacl-translate"))
            .args(["--arch", target.name()])
            .arg(pexe)
            .arg("-o")
            .arg(exe),
        "pnacl-translate",
    );
}

/// The attacker for `target` run with `args` (under pnacl-run where it runs under qemu).
fn run(target: Target, args: &[&str]) -> Output {
    run_in(target, args, None)
}

/// The same, its files under `root` if given.
fn run_in(target: Target, args: &[&str], root: Option<&Path>) -> Output {
    let exe = attacker(target);
    let mut cmd = match target.spec().runs {
        Runner::Qemu(_) => {
            let mut c = Command::new(cargo_bin("pnacl-run"));
            c.arg(&exe);
            c
        }
        _ => Command::new(&exe),
    };
    cmd.args(args).env_clear();
    if let Some(root) = root {
        cmd.env("PNACL_FS_ROOT", root);
    }
    cmd.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The program trapped for `why`: status 134, its reason the last line of standard error.
fn assert_trapped(out: &Output, why: &str, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(134), "{what}: {err}");
    assert_eq!(
        err.lines().last(),
        Some(format!("pnacl: the program trapped: {why}").as_str()),
        "{what}"
    );
}

#[test]
fn every_page_the_pexe_can_have_takes_its_writes_and_the_runtime_keeps_working() {
    for t in TARGETS {
        let out = run(t, &["fill"]);
        assert!(out.status.success(), "{t}: {}", text(&out.stderr));
        let s = text(&out.stdout);
        // "wrote N pages (M MiB)": all of the 4 GiB but the globals, the stack and the
        // start-up's, below 64 KiB nothing.
        let mib: u64 = s
            .split('(')
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{t}: {s}"));
        assert!((4000..4096).contains(&mib), "{t}: {s}");
    }
}

/// The bytes at the program's entry point (the runtime's `_start`), from its ELF file.
fn entry_bytes(exe: &Path, n: usize) -> Vec<u8> {
    let f = std::fs::read(exe).unwrap();
    let u64_at = |o: usize| u64::from_le_bytes(f[o..o + 8].try_into().unwrap());
    let u16_at = |o: usize| u16::from_le_bytes(f[o..o + 2].try_into().unwrap()) as usize;
    let entry = u64_at(24);
    let (phoff, phentsize, phnum) = (u64_at(32) as usize, u16_at(54), u16_at(56));
    for k in 0..phnum {
        let p = phoff + k * phentsize;
        let (ty, off, vaddr, filesz) = (
            u32::from_le_bytes(f[p..p + 4].try_into().unwrap()),
            u64_at(p + 8),
            u64_at(p + 16),
            u64_at(p + 32),
        );
        if ty == 1 && (vaddr..vaddr + filesz).contains(&entry) {
            let at = (off + entry - vaddr) as usize;
            return f[at..at + n].to_vec();
        }
    }
    panic!("no segment holds the entry point");
}

/// A needle for the attacker: its bytes XORed with 0x55, in hex.
fn needle(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b ^ 0x55)).collect()
}

#[test]
fn a_scan_of_the_whole_region_finds_nothing_of_the_runtime() {
    for t in TARGETS {
        let code = needle(&entry_bytes(&attacker(t), 16));
        let data = needle(b"pnacl: the program trapped");
        // A control: a string of the attacker's own, which the scan must find.
        let own = needle(b"nacl-irt-memory-0.3");
        let out = run(t, &["scan", &code, &data, &own]);
        assert!(out.status.success(), "{t}: {}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(s.contains("needle 0: found 0\n"), "{t}: {s}");
        assert!(s.contains("needle 1: found 0\n"), "{t}: {s}");
        assert!(
            s.lines()
                .any(|l| l.starts_with("needle 2: found ") && l != "needle 2: found 0"),
            "{t}: {s}"
        );
    }
}

#[test]
fn calls_of_what_is_no_function_or_of_another_type_trap() {
    for t in TARGETS {
        for (mode, why) in [
            (
                "call-number",
                "indirect call of a number that is no function's address",
            ),
            (
                "call-null",
                "indirect call of a number that is no function's address",
            ),
            (
                "call-last",
                "indirect call of a number that is no function's address",
            ),
            (
                "call-data",
                "indirect call of a number that is no function's address",
            ),
            ("call-type", "indirect call of a function of another type"),
            ("call-irt", "indirect call of a function of another type"),
            (
                "call-tail-null",
                "indirect call of a number that is no function's address",
            ),
            (
                "call-tail-type",
                "indirect call of a function of another type",
            ),
        ] {
            let out = run(t, &[mode]);
            assert_eq!(text(&out.stdout), "calling\n", "{t} {mode}");
            assert_trapped(&out, why, &format!("{t} {mode}"));
        }
    }
}

/// A C program whose indirect calls ask for more signatures than x86-64's packed table
/// numbers in its 16 bits (`PACKED_SIGNATURES`): 66,000 types, in a block it never runs;
/// it calls one function through a pointer, then, given an argument, as another type.
fn many_signatures_source() -> String {
    let params = ["int", "double", "long long", "float"];
    let calls: String = ["void", "int", "double", "long long", "float"]
        .iter()
        .flat_map(|ret| (0..params.len().pow(7)).map(move |k| (ret, k)))
        .take(66_000)
        .map(|(ret, k)| {
            let ps: Vec<&str> = (0..7).map(|i| params[k >> (2 * i) & 3]).collect();
            format!(
                "    (({ret} (*)({}))p)({});\n",
                ps.join(", "),
                ["0"; 7].join(", ")
            )
        })
        .collect();
    format!(
        r#"#include <stdio.h>
static int twice(int x) {{ return 2 * x; }}
int (*volatile fp)(int) = twice;
void *volatile vp;
int main(int argc, char **argv) {{
  if (argc == 99) {{
    void *p = vp;
{calls}  }}
  printf("%d\n", fp(21));
  if (argc > 1) {{
    fflush(stdout);
    printf("%d\n", ((int (*)(int, int))fp)(1, 2));
  }}
  return 0;
}}
"#
    )
}

/// x86-64 packs its table (a signature id in 16 bits of each entry) only where the
/// module's signatures fit; a module with more is translated with the branch and runs,
/// its calls checked as exactly.
#[test]
fn a_module_with_more_signatures_than_a_packed_table_holds_is_checked_with_the_branch() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("many.c");
    std::fs::write(&src, many_signatures_source()).unwrap();
    let pexe = dir.path().join("many.pexe");
    pnacl_clang(&src, &pexe);
    let ll = Command::new(cargo_bin("pnacl-llvm"))
        .args(["-S", "--target", "x86-64"])
        .arg(&pexe)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(ll.status.success(), "{}", text(&ll.stderr));
    assert!(text(&ll.stdout).contains("@__pnacl_packed_signature_shift = hidden constant i32 0"));
    let exe = dir.path().join("many");
    translate(Target::X86_64, &pexe, &exe);
    let out = Command::new(&exe).env_clear().output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "42\n");
    let out = Command::new(&exe)
        .arg("as-other")
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "42\n");
    assert_trapped(&out, "indirect call of a function of another type", "many");
}

#[test]
fn accesses_outside_the_mapped_region_trap() {
    for t in TARGETS {
        // Null, a reserved page never mapped, and a word that crosses the region's end.
        for addr in ["0", "20000000", "fffffffe"] {
            let out = run(t, &["load", addr]);
            assert_eq!(text(&out.stdout), "loading\n", "{t} {addr}");
            assert_trapped(&out, "memory access out of bounds", &format!("{t} {addr}"));
        }
        // A constant offset the code adds in 64 bits: past the region's end into its
        // guard, or below address 0, never wrapping around onto the pexe's own pages
        // (0xfffff000 + 2 GiB - 16 would wrap to 0x7fffeff0, 0x10000 - 2 GiB to 0x80010000).
        for (mode, addr) in [("load-far", "fffff000"), ("load-back", "10000")] {
            let out = run(t, &[mode, addr]);
            assert_eq!(text(&out.stdout), "loading\n", "{t} {mode}");
            assert_trapped(&out, "memory access out of bounds", &format!("{t} {mode}"));
        }
        // The runtime's memmove for the pexe's code, from the end of 4 GiB - 1 bytes: its
        // first store, nearly 4 GiB past the region's end, still lands in the guard.
        let out = run(t, &["move-far"]);
        assert_eq!(text(&out.stdout), "moving\n", "{t} move-far");
        assert_trapped(
            &out,
            "memory access out of bounds",
            &format!("{t} move-far"),
        );
    }
}

#[test]
fn the_irt_refuses_pointers_and_lengths_past_the_region() {
    let want = "write past the end: 14\n\
                read past the end: 14\n\
                write's count past the end: 14\n\
                clock_gettime past the end: 14\n\
                nanosleep past the end: 14\n\
                futex_wake past the end: 14\n\
                thread_create of no function: 22\n\
                mmap of the last page: 0\n\
                open of a name past the end: 14\n\
                mmap past the end: 22\n\
                mmap below the region: 22\n\
                munmap below the region: 22\n\
                munmap past the end: 22\n\
                mprotect past the end: 22\n\
                mprotect executable: 13\n\
                the runtime still answers\n";
    for t in TARGETS {
        let out = run(t, &["bounds"]);
        assert!(out.status.success(), "{t}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "{t}");
    }
}

/// A file name is the runtime's once checked: another thread of the pexe's turning it
/// from "abcde/file" into "lnk/./file" and back, as fast as it can, never gets the runtime
/// to follow the link (which a name read once to check and again to use let it do, in
/// about one open of 500).
#[test]
fn a_name_changed_while_the_runtime_checks_it_is_never_followed_through_a_link() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("sub")).unwrap();
    std::fs::write(root.path().join("sub/file"), "inside\n").unwrap();
    std::os::unix::fs::symlink("sub", root.path().join("lnk")).unwrap();
    for t in TARGETS {
        let out = run_in(t, &["path-race", "50000"], Some(root.path()));
        assert!(out.status.success(), "{t}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "opened 0 of 50000\n", "{t}");
    }
}

#[test]
fn deep_recursion_and_huge_arrays_on_the_stack_trap() {
    for t in TARGETS {
        let out = run(t, &["recurse"]);
        assert_trapped(&out, "the stack is exhausted", &format!("{t} recurse"));
        // Frames that never touch their arrays (60 and 100 KiB, their addresses escaping):
        // none passes the stack's end unseen, whatever it leaves untouched.
        for mode in ["recurse-wide", "recurse-wider"] {
            let out = run(t, &[mode]);
            assert_trapped(&out, "the stack is exhausted", &format!("{t} {mode}"));
        }
        let out = run(t, &["recurse-calls"]);
        assert_trapped(&out, "the call stack is exhausted", &format!("{t} calls"));
        let out = run(t, &["vla", "100"]);
        assert_trapped(&out, "the stack is exhausted", &format!("{t} vla"));
        // An array that fits is the program's.
        let out = run(t, &["vla", "4"]);
        assert_eq!(text(&out.stdout), "allocated 4 MiB: 3\n", "{t}");
    }
}
