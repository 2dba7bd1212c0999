//! Helpers shared by the integration tests: where the real pexes are.
#![allow(dead_code)]

use std::path::PathBuf;

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

/// Enough of a 32-bit little-endian ELF file for the tests: its symbols, the bytes at an
/// address, and its sections.
pub struct Elf32 {
    data: Vec<u8>,
}

impl Elf32 {
    pub fn read(path: &std::path::Path) -> Elf32 {
        let data = std::fs::read(path).unwrap();
        assert!(data.starts_with(b"\x7fELF") && data[4] == 1, "not ELF32");
        Elf32 { data }
    }

    fn u16(&self, o: usize) -> usize {
        u16::from_le_bytes([self.data[o], self.data[o + 1]]) as usize
    }

    fn u32(&self, o: usize) -> usize {
        u32::from_le_bytes(self.data[o..o + 4].try_into().unwrap()) as usize
    }

    /// Each section: name, address, file offset, size, type.
    pub fn sections(&self) -> Vec<(String, usize, usize, usize, usize)> {
        let (shoff, shentsize, shnum, shstrndx) =
            (self.u32(32), self.u16(46), self.u16(48), self.u16(50));
        let hdr = |i: usize| shoff + i * shentsize;
        let strs = self.u32(hdr(shstrndx) + 16);
        (0..shnum)
            .map(|i| {
                let h = hdr(i);
                let name = self.cstr(strs + self.u32(h));
                (
                    name,
                    self.u32(h + 12),
                    self.u32(h + 16),
                    self.u32(h + 20),
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
        (0..size / 16)
            .map(|k| off + 16 * k)
            .find(|&e| self.cstr(strtab + self.u32(e)) == name)
            .map(|e| self.u32(e + 4))
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }

    /// Each program header: its type and flags (1 X, 2 W, 4 R).
    pub fn segments(&self) -> Vec<(usize, usize)> {
        let (phoff, phentsize, phnum) = (self.u32(28), self.u16(42), self.u16(44));
        (0..phnum)
            .map(|i| {
                let h = phoff + i * phentsize;
                (self.u32(h), self.u32(h + 24))
            })
            .collect()
    }

    /// `n` bytes at address `addr` of a loaded segment.
    pub fn bytes_at(&self, addr: usize, n: usize) -> Vec<u8> {
        let (phoff, phentsize, phnum) = (self.u32(28), self.u16(42), self.u16(44));
        for i in 0..phnum {
            let h = phoff + i * phentsize;
            let (ty, off, va, filesz) = (
                self.u32(h),
                self.u32(h + 4),
                self.u32(h + 8),
                self.u32(h + 16),
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
