//! Output files, written whole or not at all: created beside their destination with the
//! mode other tools give their outputs, renamed onto it when complete, their errors naming
//! the destination; and standard output, buffered.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// An I/O error's reason as the C library words it ("No such file or directory"), without
/// Rust's "(os error N)".
pub fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// A file being written: created beside its destination with the mode other tools give
/// their outputs (0666, or 0777 for an executable, less the umask), renamed onto the
/// destination by `commit`, removed if dropped before. Its errors name the destination,
/// never the temporary file.
pub struct PendingFile {
    tmp: tempfile::TempPath,
    file: Option<io::BufWriter<fs::File>>,
    dest: PathBuf,
}

impl PendingFile {
    pub fn create(dest: &Path, executable: bool) -> Result<PendingFile, String> {
        use std::os::unix::fs::PermissionsExt;
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if dest.is_dir() {
            return Err(format!("{}: Is a directory", dest.display()));
        }
        let mode = if executable { 0o777 } else { 0o666 };
        let tmp = tempfile::Builder::new()
            .prefix(".pnacl-out")
            .permissions(fs::Permissions::from_mode(mode))
            .tempfile_in(&dir)
            .map_err(|e| {
                let reason = match e.kind() {
                    io::ErrorKind::NotFound => format!("no directory {}", dir.display()),
                    _ => io_reason(&io::Error::from(e.kind())),
                };
                format!("{}: cannot create: {reason}", dest.display())
            })?;
        let (file, tmp) = tmp.into_parts();
        Ok(PendingFile {
            tmp,
            file: Some(io::BufWriter::with_capacity(1 << 16, file)),
            dest: dest.to_path_buf(),
        })
    }

    /// Where the contents go until `commit` (for a program that writes the file itself).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Makes the file final: flushed and renamed onto the destination; or, where the
    /// destination is no regular file (`/dev/null`, `/dev/stdout`, a FIFO), written into
    /// it, which a rename would replace.
    pub fn commit(mut self) -> Result<(), String> {
        let name = |e: io::Error| format!("{}: {}", self.dest.display(), io_reason(&e));
        if let Some(f) = self.file.take() {
            let f = f.into_inner().map_err(|e| name(e.into_error()))?;
            f.sync_all().ok();
        }
        let dest = self.dest.clone();
        let special = fs::metadata(&dest).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if special {
            let mut from = fs::File::open(&self.tmp).map_err(name)?;
            let mut to = fs::OpenOptions::new()
                .write(true)
                .open(&dest)
                .map_err(name)?;
            return io::copy(&mut from, &mut to).map(drop).map_err(name);
        }
        self.tmp
            .persist(&dest)
            .map_err(|e| format!("{}: {}", dest.display(), io_reason(&e.error)))
    }
}

impl Write for PendingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("file already committed")),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// An output destination: a file written whole or not at all, or standard output.
pub enum Output {
    Stdout(io::BufWriter<io::Stdout>),
    File(PendingFile),
}

impl Output {
    /// `None` or `-` is standard output; anything else a file created beside `dest`
    /// and renamed onto it by `commit`. The error names `dest`.
    pub fn new(dest: Option<&str>) -> Result<Output, String> {
        match dest {
            None | Some("-") => Ok(Output::Stdout(io::BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            ))),
            Some(d) => Ok(Output::File(PendingFile::create(Path::new(d), false)?)),
        }
    }

    pub fn is_terminal(&self) -> bool {
        match self {
            Output::Stdout(_) => std::io::IsTerminal::is_terminal(&io::stdout()),
            Output::File(_) => false,
        }
    }

    /// Makes the output final (renames the temporary file onto the destination).
    pub fn commit(self) -> Result<(), String> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| io_reason(&e)),
            Output::File(f) => f.commit(),
        }
    }

    /// Drops a file output without creating the destination. Standard output is flushed
    /// (what was printed is printed).
    pub fn discard(self) {
        if let Output::Stdout(mut w) = self {
            let _ = w.flush();
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(f) => f.flush(),
        }
    }
}
