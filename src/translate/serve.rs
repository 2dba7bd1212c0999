//! A small web server on the loopback interface for the pages `pnacl-translate` writes: it
//! serves the files of one directory with the headers that give a page cross-origin
//! isolation (`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy:
//! require-corp`), without which a browser gives no shared memory, hence no threads.
//! GET and HEAD of the directory's own files only; nothing outside it, nothing but
//! 127.0.0.1, and only for requests that name it (`Host: 127.0.0.1:PORT` or
//! `localhost:PORT`: a page elsewhere cannot reach it by rebinding a name of its own).
//! Requests are bounded (line, headers), as are the connections served at once and the
//! time a connection may stay idle.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The longest request line, and the most header bytes, a request may have.
pub const MAX_REQUEST_LINE: u64 = 8 * 1024;
pub const MAX_HEADERS: u64 = 32 * 1024;
/// The most connections served at once; one more is answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 32;
/// A connection that sends nothing for this long is closed.
pub const IDLE: Duration = Duration::from_secs(10);

/// Binds 127.0.0.1:`port` (0: any free port); the listener and the address it has.
pub fn bind(port: u16) -> std::io::Result<(TcpListener, SocketAddr)> {
    let l = TcpListener::bind(("127.0.0.1", port))?;
    let a = l.local_addr()?;
    Ok((l, a))
}

/// Serves `dir` on `listener` until the process ends, a thread per connection, at most
/// [`MAX_CONNECTIONS`] at once.
pub fn serve(listener: TcpListener, dir: &Path) -> std::io::Result<()> {
    let dir = dir.canonicalize()?;
    let port = listener.local_addr()?.port();
    // The names a request may give in its Host header: this server's own address. Any
    // other (a name a page on another site made resolve to 127.0.0.1) is refused.
    let hosts = Arc::new([format!("127.0.0.1:{port}"), format!("localhost:{port}")]);
    let open = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(mut conn) = conn else { continue };
        if open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::AcqRel);
            let _ = respond(
                &mut conn,
                "503 Service Unavailable",
                "too many connections\n",
                false,
            );
            continue;
        }
        let (dir, hosts, open) = (dir.clone(), hosts.clone(), open.clone());
        std::thread::spawn(move || {
            let _ = handle(conn, &dir, &hosts[..]);
            open.fetch_sub(1, Ordering::AcqRel);
        });
    }
    Ok(())
}

/// A line of at most `limit` bytes (its end included): `Ok(None)` at the end of the
/// stream, `Err(())` for a longer line.
fn read_line_within(
    r: &mut BufReader<TcpStream>,
    limit: u64,
) -> std::io::Result<Result<Option<String>, ()>> {
    let mut buf = Vec::new();
    let n = r.by_ref().take(limit).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(Ok(None));
    }
    if buf.last() != Some(&b'\n') {
        // Cut short by the limit (or by the peer's end, which is as bad a request).
        return Ok(Err(()));
    }
    Ok(Ok(Some(String::from_utf8_lossy(&buf).into_owned())))
}

fn respond(
    conn: &mut TcpStream,
    status: &str,
    text: &str,
    keep_alive: bool,
) -> std::io::Result<()> {
    write_response(
        conn,
        status,
        "text/plain; charset=utf-8",
        text.as_bytes(),
        true,
        keep_alive,
    )
}

fn write_response(
    conn: &mut TcpStream,
    status: &str,
    kind: &str,
    body: &[u8],
    with_body: bool,
    keep_alive: bool,
) -> std::io::Result<()> {
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
    if with_body {
        conn.write_all(body)?;
    }
    Ok(())
}

fn handle(mut conn: TcpStream, dir: &Path, hosts: &[String]) -> std::io::Result<()> {
    conn.set_read_timeout(Some(IDLE))?;
    conn.set_write_timeout(Some(IDLE))?;
    // A response is its head and its body, two writes: without this, the body of each one
    // after the first on a connection waits for the browser's delayed ACK (40 ms).
    conn.set_nodelay(true)?;
    let mut reader = BufReader::new(conn.try_clone()?);
    loop {
        let line = match read_line_within(&mut reader, MAX_REQUEST_LINE)? {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(()),
            Err(()) => {
                return respond(
                    &mut conn,
                    "414 URI Too Long",
                    "request line too long\n",
                    false,
                )
            }
        };
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        // The headers, up to the empty line (no request here has a body).
        let mut keep_alive = true;
        let mut host = None;
        let mut left = MAX_HEADERS;
        loop {
            let h = match read_line_within(&mut reader, left)? {
                Ok(Some(h)) => h,
                Ok(None) => return Ok(()),
                Err(()) => {
                    let why = "request headers too large\n";
                    return respond(&mut conn, "431 Request Header Fields Too Large", why, false);
                }
            };
            left -= h.len() as u64;
            if h.trim().is_empty() {
                break;
            }
            let (name, value) = h.split_once(':').unwrap_or((&h, ""));
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "connection" && value.to_ascii_lowercase().contains("close") {
                keep_alive = false;
            } else if name == "host" {
                host = Some(value.to_ascii_lowercase());
            }
        }
        if !host
            .as_deref()
            .is_some_and(|h| hosts.iter().any(|a| a == h))
        {
            let why = format!("this server answers only for {}\n", hosts[0]);
            return respond(&mut conn, "421 Misdirected Request", &why, false);
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
        write_response(&mut conn, status, kind, &body, method != "HEAD", keep_alive)?;
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
    let mut real = p.canonicalize().ok()?;
    if real.is_dir() {
        // A folder's page: its index.html.
        real = real.join("index.html").canonicalize().ok()?;
    }
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
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("txt") => "text/plain; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "nmf") => "application/json",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("webp") => "image/webp",
        _ => "application/octet-stream",
    }
}
