//! Helpers shared by the integration tests: where the real pexes are.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/pexes` beside the checkout (or `$PNACL_SHARED/pexes`).
pub fn pexes_dir() -> PathBuf {
    let shared = std::env::var_os("PNACL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("pexes");
    assert!(
        dir.is_dir(),
        "the real pexes are expected in {}",
        dir.display()
    );
    dir
}

/// The `.pexe` files of `pexes/<sub>`, sorted.
pub fn pexes(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(pexes_dir().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pexe"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no pexes in {sub}");
    v
}

/// Every valid real pexe (run/ and parse/).
pub fn valid_pexes() -> Vec<PathBuf> {
    let mut v = pexes("run");
    v.extend(pexes("parse"));
    v
}

/// Every pexe of pexes/ (run/, parse/ and bad/).
pub fn all_pexes() -> Vec<PathBuf> {
    let mut v = valid_pexes();
    v.extend(pexes("bad"));
    v
}

/// The real pexes not written with pnacl-freeze's own abbreviations (pnacl-compress's
/// file-specific ones, or an older writer's set): their records come back from the model,
/// their bits do not.
pub const OTHER_ABBREVIATIONS: [&str; 3] = ["simple.pexe", "star.pexe", "stockfish.pexe"];

/// Whether pnacl-freeze's abbreviations wrote `p` (its bits come back from the model).
pub fn freeze_wrote(p: &std::path::Path) -> bool {
    !OTHER_ABBREVIATIONS.contains(&name(p).as_str())
}

pub fn name(p: &std::path::Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Where two sequences first differ (the shorter one's length if one is a prefix of the
/// other).
pub fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Enough of a little-endian ELF file, 32-bit or 64-bit, for the tests: its symbols, the
/// bytes at an address, its sections and segments.
pub struct Elf {
    data: Vec<u8>,
    wide: bool,
}

impl Elf {
    pub fn read(path: &std::path::Path) -> Elf {
        let data = std::fs::read(path).unwrap();
        assert!(data.starts_with(b"\x7fELF"), "not ELF");
        let wide = data[4] == 2;
        Elf { data, wide }
    }

    fn u16(&self, o: usize) -> usize {
        u16::from_le_bytes([self.data[o], self.data[o + 1]]) as usize
    }

    fn u32(&self, o: usize) -> usize {
        u32::from_le_bytes(self.data[o..o + 4].try_into().unwrap()) as usize
    }

    /// An address-sized field: at `o32` in a 32-bit file, `o64` in a 64-bit one.
    fn word(&self, o32: usize, o64: usize) -> usize {
        if self.wide {
            u64::from_le_bytes(self.data[o64..o64 + 8].try_into().unwrap()) as usize
        } else {
            self.u32(o32)
        }
    }

    /// A 32-bit or 16-bit field whose place differs by class.
    fn at(&self, o32: usize, o64: usize) -> usize {
        if self.wide {
            o64
        } else {
            o32
        }
    }

    /// Each section: name, address, file offset, size, type.
    pub fn sections(&self) -> Vec<(String, usize, usize, usize, usize)> {
        let shoff = self.word(32, 40);
        let (shentsize, shnum, shstrndx) = (
            self.u16(self.at(46, 58)),
            self.u16(self.at(48, 60)),
            self.u16(self.at(50, 62)),
        );
        let hdr = |i: usize| shoff + i * shentsize;
        let strs = self.word(hdr(shstrndx) + 16, hdr(shstrndx) + 24);
        (0..shnum)
            .map(|i| {
                let h = hdr(i);
                let name = self.cstr(strs + self.u32(h));
                (
                    name,
                    self.word(h + 12, h + 16),
                    self.word(h + 16, h + 24),
                    self.word(h + 20, h + 32),
                    self.u32(h + 4),
                )
            })
            .collect()
    }

    fn cstr(&self, o: usize) -> String {
        let end = self.data[o..].iter().position(|&b| b == 0).unwrap();
        String::from_utf8_lossy(&self.data[o..o + end]).into_owned()
    }

    /// The bytes of section `name`.
    pub fn section_bytes(&self, name: &str) -> Vec<u8> {
        let s = self.sections().into_iter().find(|s| s.0 == name).unwrap();
        self.data[s.2..s.2 + s.3].to_vec()
    }

    /// The address of symbol `name`.
    pub fn symbol(&self, name: &str) -> usize {
        let secs = self.sections();
        let (_, _, off, size, _) = secs.iter().find(|s| s.4 == 2).cloned().expect("symtab");
        let strtab = secs.iter().find(|s| s.0 == ".strtab").unwrap().2;
        let entry = if self.wide { 24 } else { 16 };
        (0..size / entry)
            .map(|k| off + entry * k)
            .find(|&e| self.cstr(strtab + self.u32(e)) == name)
            .map(|e| self.word(e + 4, e + 8))
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }

    /// Each program header (`phoff`, `phentsize`, `phnum`'s): its offset in the file.
    fn program_headers(&self) -> Vec<usize> {
        let phoff = self.word(28, 32);
        let (phentsize, phnum) = (self.u16(self.at(42, 54)), self.u16(self.at(44, 56)));
        (0..phnum).map(|i| phoff + i * phentsize).collect()
    }

    /// Each program header: its type and flags (1 X, 2 W, 4 R).
    pub fn segments(&self) -> Vec<(usize, usize)> {
        self.program_headers()
            .into_iter()
            .map(|h| (self.u32(h), self.u32(self.at(h + 24, h + 4))))
            .collect()
    }

    /// `n` bytes at address `addr` of a loaded segment.
    pub fn bytes_at(&self, addr: usize, n: usize) -> Vec<u8> {
        for h in self.program_headers() {
            let (ty, off, va, filesz) = (
                self.u32(h),
                self.word(h + 4, h + 8),
                self.word(h + 8, h + 16),
                self.word(h + 16, h + 32),
            );
            if ty == 1 && va <= addr && addr + n <= va + filesz {
                let o = off + addr - va;
                return self.data[o..o + n].to_vec();
            }
        }
        panic!("address {addr:#x} is in no segment");
    }
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The attack programs (tests/attacks).
pub fn attacks_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks")
}

/// Attack `name` of tests/attacks (the prelude and its own part) finalized into a pexe in
/// `dir`, which pnacl-abicheck must call clean.
pub fn attack_pexe(dir: &std::path::Path, name: &str) -> PathBuf {
    prelude_pexe(dir, &attacks_dir().join(format!("{name}.ll")))
}

/// The C program tests/programs/`name`.c built by pnacl-clang -O2 into a pexe in `dir` (or
/// the C++ one, `name`.cpp, by pnacl-clang++).
pub fn c_program_pexe(dir: &std::path::Path, name: &str) -> PathBuf {
    use assert_cmd::cargo::cargo_bin;
    let pexe = dir.join(format!("{name}.pexe"));
    // tests/programs/NAME.c, or NAME.cpp built as pnacl-clang++ builds it.
    let programs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let c = programs.join(format!("{name}.c"));
    let (source, mode) = if c.is_file() {
        (c, "--driver-mode=gcc")
    } else {
        (programs.join(format!("{name}.cpp")), "--driver-mode=g++")
    };
    let o = std::process::Command::new(cargo_bin("pnacl-clang"))
        .args([mode, "-O2", "-w"])
        .arg(source)
        .arg("-o")
        .arg(&pexe)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    pexe
}

/// The program `part` (LLVM text using the helpers of tests/attacks/prelude.ll) with the
/// prelude, finalized into a pexe in `dir`, which pnacl-abicheck must call clean.
pub fn prelude_pexe(dir: &std::path::Path, part: &std::path::Path) -> PathBuf {
    use assert_cmd::cargo::cargo_bin;
    use std::process::Command;
    let name = part.file_stem().unwrap().to_str().unwrap();
    let ll = dir.join(format!("{name}.ll"));
    let mut text = std::fs::read_to_string(attacks_dir().join("prelude.ll")).unwrap();
    text.push_str(&std::fs::read_to_string(part).unwrap());
    std::fs::write(&ll, text).unwrap();
    let pexe = dir.join(format!("{name}.pexe"));
    // The prelude's programs are written in the PNaCl subset, instruction by instruction
    // as the attack needs them: checked as they are, not simplified.
    let st = Command::new(cargo_bin("pnacl-finalize"))
        .arg("--no-simplify")
        .arg(&ll)
        .arg("-o")
        .arg(&pexe)
        .status()
        .unwrap();
    assert!(st.success(), "{name} does not finalize");
    let out = Command::new(cargo_bin("pnacl-abicheck"))
        .arg(&pexe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} is not clean by the ABI rules: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    pexe
}

/// Runs `cmd`, which must succeed (else the test fails, with `what` and its standard
/// error); its output.
pub fn run_ok(cmd: &mut std::process::Command, what: &str) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The argv and expected stdout of run/ program `p`.
pub fn expectations(p: &std::path::Path) -> (Vec<String>, Vec<u8>) {
    let argv = std::fs::read_to_string(p.with_extension("argv"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    (argv, std::fs::read(p.with_extension("stdout")).unwrap())
}

/// `pnacl-translate --serve DIR`, ended when dropped: its address (`base`,
/// `http://127.0.0.1:PORT/`) and port.
pub struct Server {
    pub child: std::process::Child,
    pub base: String,
    pub port: u16,
}

impl Server {
    pub fn start(dir: &std::path::Path) -> Server {
        use std::io::BufRead;
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pnacl-translate"))
            .arg("--serve")
            .arg(dir)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "serving DIR at http://127.0.0.1:PORT/"
        let base = line.trim().rsplit(' ').next().unwrap().to_string();
        let port = base
            .strip_prefix("http://127.0.0.1:")
            .and_then(|p| p.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        Server { child, base, port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The directory of a real program's sources: a crate tests/sources/Cargo.toml names,
/// fetched from the crates registry by cargo's metadata of that package (nothing built).
pub fn source_crate(name: &str) -> PathBuf {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sources/Cargo.toml"))
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata of tests/sources: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("tests/sources names no crate {name}"));
    Path::new(p["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_path_buf()
}
