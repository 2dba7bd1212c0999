//! The runtime's file-system sandbox and its handling of unimplemented IRT entries, shown
//! with a small C program linked directly with the runtime (tests/runtime/probe.c).
#![cfg(feature = "llvm")]

use std::path::Path;
use std::process::Command;

use pnacl::llvm::Target;

fn build_probe(dir: &Path) -> std::path::PathBuf {
    let objs = pnacl::translate::runtime_objects(Target::X86_32).expect("runtime builds");
    let probe_o = dir.join("probe.o");
    let st = Command::new(which::which(pnacl::tools::CLANG).unwrap())
        .args([
            "--target=i686-linux-gnu",
            "-O1",
            "-ffreestanding",
            "-fno-builtin",
            "-fno-pic",
            "-fno-stack-protector",
            "-c",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/probe.c"))
        .arg("-o")
        .arg(&probe_o)
        .status()
        .unwrap();
    assert!(st.success());
    let exe = dir.join("probe");
    let st = Command::new(which::which(pnacl::tools::LD_LLD).unwrap())
        .args(["-static", "--no-pie", "-e", "_start", "-o"])
        .arg(&exe)
        .arg(&probe_o)
        .args(&objs)
        .status()
        .unwrap();
    assert!(st.success());
    exe
}

#[test]
fn files_are_reachable_only_inside_pnacl_fs_root() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("inside.txt"), "in the root").unwrap();
    std::fs::write(root.join("sub/deeper.txt"), "deeper").unwrap();
    std::fs::write(dir.path().join("outside.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(dir.path(), root.join("link_out")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.txt"), root.join("link_file")).unwrap();

    // Without PNACL_FS_ROOT every file name is refused (EACCES = 13), even from the
    // directory that holds the files.
    let out = Command::new(&exe)
        .current_dir(&root)
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(line.ends_with(": error 13"), "without a root: {line}");
    }
    assert_eq!(text.lines().count(), 8);

    // With PNACL_FS_ROOT, names resolve inside it and nowhere else.
    let out = Command::new(&exe)
        .env_clear()
        .env("PNACL_FS_ROOT", &root)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let want = "\
inside.txt: read \"in the root\"
./sub/deeper.txt: read \"deeper\"
sub/../inside.txt: error 13
../outside.txt: error 13
/etc/hostname: error 13
link_out/outside.txt: error 13
link_file: error 13
missing.txt: error 2
";
    assert_eq!(text, want);
    assert!(!text.contains("secret"));
}

#[test]
fn an_unimplemented_irt_entry_says_its_name_and_exits_127() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let out = Command::new(&exe)
        .arg("rename")
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pnacl runtime: IRT function not implemented: rename\n"
    );
    assert!(out.stdout.is_empty());
}
