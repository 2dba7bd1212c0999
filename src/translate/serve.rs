//! A small web server on the loopback interface for the pages `pnacl-translate` writes: it
//! serves the files of one directory with the headers that give a page cross-origin
//! isolation (`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy:
//! require-corp`), without which a browser gives no shared memory, hence no threads.
//! GET and HEAD of the directory's own files only; nothing outside it, nothing but
//! 127.0.0.1.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// Binds 127.0.0.1:`port` (0: any free port); the listener and the address it has.
pub fn bind(port: u16) -> std::io::Result<(TcpListener, std::net::SocketAddr)> {
    let l = TcpListener::bind(("127.0.0.1", port))?;
    let a = l.local_addr()?;
    Ok((l, a))
}

/// Serves `dir` on `listener` until the process ends, a thread per connection.
pub fn serve(listener: TcpListener, dir: &Path) -> std::io::Result<()> {
    let dir = dir.canonicalize()?;
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = handle(conn, &dir);
        });
    }
    Ok(())
}

fn handle(mut conn: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        // The headers, up to the empty line (no request here has a body).
        let mut keep_alive = true;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
                break;
            }
            if h.to_ascii_lowercase().starts_with("connection:")
                && h.to_ascii_lowercase().contains("close")
            {
                keep_alive = false;
            }
        }
        let (status, kind, body) = match (method, file_for(dir, target)) {
            ("GET" | "HEAD", Some(p)) => match std::fs::read(&p) {
                Ok(b) => ("200 OK", content_type(&p), b),
                Err(_) => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
            },
            ("GET" | "HEAD", None) => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
            _ => (
                "405 Method Not Allowed",
                "text/plain",
                b"GET or HEAD only\n".to_vec(),
            ),
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
             Cross-Origin-Opener-Policy: same-origin\r\n\
             Cross-Origin-Embedder-Policy: require-corp\r\n\
             Cross-Origin-Resource-Policy: same-origin\r\n\
             Cache-Control: no-store\r\nConnection: {}\r\n\r\n",
            body.len(),
            if keep_alive { "keep-alive" } else { "close" }
        );
        conn.write_all(head.as_bytes())?;
        if method != "HEAD" {
            conn.write_all(&body)?;
        }
        if !keep_alive {
            return Ok(());
        }
    }
}

/// The file of `dir` that request target `target` names: its path without the query,
/// percent-decoded, with no `..`, hidden or empty component; the directory's own files
/// only (a symbolic link out of it is not followed).
fn file_for(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let path = percent_decode(path)?;
    let mut p = dir.to_path_buf();
    for c in path.split('/').filter(|c| !c.is_empty()) {
        if c.starts_with('.') || c.contains('\\') {
            return None;
        }
        p.push(c);
    }
    let real = p.canonicalize().ok()?;
    (real.starts_with(dir) && real.is_file()).then_some(real)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
