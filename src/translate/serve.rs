//! A small web server on the loopback interface for the pages `pnacl-translate` writes: it
//! serves the files of one directory with the headers that give a page cross-origin
//! isolation (`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy:
//! require-corp`), without which a browser gives no shared memory, hence no threads.
//! GET and HEAD of the directory's own files only; nothing outside it, nothing but
//! 127.0.0.1, and only for requests that name it (`Host: 127.0.0.1:PORT` or
//! `localhost:PORT`: a page elsewhere cannot reach it by rebinding a name of its own).
//! Requests are bounded (line, headers), as are the connections served at once and the
//! time a request's head may take: a client that sends slowly (slowloris) holds a
//! connection for [`HEAD_DEADLINE`] at most, and when every connection is taken a new one
//! takes the place of the one that has waited longest for its request, so that slow
//! clients cannot lock others out.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest request line, and the most header bytes and lines, a request may have.
pub const MAX_REQUEST_LINE: u64 = 8 * 1024;
pub const MAX_HEADERS: u64 = 32 * 1024;
pub const MAX_HEADER_LINES: usize = 100;
/// The most connections served at once. One more takes the place of the connection that
/// has waited longest for a request's head; when all are sending a response, it is
/// answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 32;
/// A request's whole head (its line and headers) must arrive within this time of the
/// connection's start, or of the end of the response before it on the connection;
/// otherwise the connection is closed (408 if part of a head came).
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);

/// Binds 127.0.0.1:`port` (0: any free port); the listener and the address it has.
pub fn bind(port: u16) -> std::io::Result<(TcpListener, SocketAddr)> {
    let l = TcpListener::bind(("127.0.0.1", port))?;
    let a = l.local_addr()?;
    Ok((l, a))
}

/// A connection being served: whether it waits for a request's head, and since when.
struct Conn {
    id: u64,
    waiting: bool,
    since: Instant,
    stream: TcpStream,
}

/// The connections served at once.
#[derive(Clone, Default)]
struct Table(Arc<Mutex<Vec<Conn>>>);

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes room for one more (closing the connection that has waited longest for a
    /// request's head, if all are taken) and enters it: false if all are sending.
    fn enter(&self, id: u64, stream: &TcpStream) -> bool {
        let mut t = self.lock();
        if t.len() >= MAX_CONNECTIONS {
            let oldest = (0..t.len())
                .filter(|&i| t[i].waiting)
                .min_by_key(|&i| t[i].since);
            let Some(i) = oldest else { return false };
            let _ = t.swap_remove(i).stream.shutdown(Shutdown::Both);
        }
        let Ok(stream) = stream.try_clone() else {
            return false;
        };
        t.push(Conn {
            id,
            waiting: true,
            since: Instant::now(),
            stream,
        });
        true
    }

    /// Connection `id` now waits for a request's head (from now), or sends a response.
    fn mark(&self, id: u64, waiting: bool) {
        if let Some(c) = self.lock().iter_mut().find(|c| c.id == id) {
            c.waiting = waiting;
            c.since = Instant::now();
        }
    }

    fn leave(&self, id: u64) {
        self.lock().retain(|c| c.id != id);
    }
}

/// Serves `dir` on `listener` until the process ends, a thread per connection, at most
/// [`MAX_CONNECTIONS`] at once.
pub fn serve(listener: TcpListener, dir: &Path) -> std::io::Result<()> {
    let dir = dir.canonicalize()?;
    let port = listener.local_addr()?.port();
    // The names a request may give in its Host header: this server's own address. Any
    // other (a name a page on another site made resolve to 127.0.0.1) is refused.
    let hosts = Arc::new([format!("127.0.0.1:{port}"), format!("localhost:{port}")]);
    let table = Table::default();
    for (id, conn) in (0u64..).zip(listener.incoming()) {
        let Ok(mut conn) = conn else { continue };
        if !table.enter(id, &conn) {
            let _ = conn.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = respond(
                &mut conn,
                "503 Service Unavailable",
                "too many connections\n",
                false,
            );
            continue;
        }
        let (dir, hosts, table) = (dir.clone(), hosts.clone(), table.clone());
        std::thread::spawn(move || {
            let _ = handle(conn, &dir, &hosts[..], &|waiting| table.mark(id, waiting));
            table.leave(id);
        });
    }
    Ok(())
}

/// A connection's reading side, which ends (`TimedOut`) at a deadline however the bytes
/// come: a read timeout alone restarts with each byte.
struct Timed {
    stream: TcpStream,
    until: Instant,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

/// A line of at most `limit` bytes (its end included): `Ok(None)` at the end of the
/// stream, `Err(())` for a longer line.
fn read_line_within(
    r: &mut BufReader<Timed>,
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

fn handle(
    mut conn: TcpStream,
    dir: &Path,
    hosts: &[String],
    mark: &dyn Fn(bool),
) -> std::io::Result<()> {
    conn.set_write_timeout(Some(HEAD_DEADLINE))?;
    // A response is its head and its body, two writes: without this, the body of each one
    // after the first on a connection waits for the browser's delayed ACK (40 ms).
    conn.set_nodelay(true)?;
    let mut reader = BufReader::new(Timed {
        stream: conn.try_clone()?,
        until: Instant::now() + HEAD_DEADLINE,
    });
    let late = |e: &std::io::Error| {
        matches!(
            e.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        )
    };
    loop {
        let line = match read_line_within(&mut reader, MAX_REQUEST_LINE) {
            Ok(Ok(Some(l))) => l,
            Ok(Ok(None)) => return Ok(()),
            Ok(Err(())) => {
                return respond(
                    &mut conn,
                    "414 URI Too Long",
                    "request line too long\n",
                    false,
                )
            }
            // No request, or one too slow to read: closed.
            Err(e) if late(&e) => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        // The headers, up to the empty line (no request here has a body).
        let mut keep_alive = true;
        let mut host = None;
        let mut left = MAX_HEADERS;
        let mut lines = 0;
        loop {
            let h = match read_line_within(&mut reader, left) {
                Ok(Ok(Some(h))) if lines < MAX_HEADER_LINES => h,
                Ok(Ok(None)) => return Ok(()),
                Ok(_) => {
                    let why = "request headers too large\n";
                    return respond(&mut conn, "431 Request Header Fields Too Large", why, false);
                }
                Err(e) if late(&e) => {
                    return respond(
                        &mut conn,
                        "408 Request Timeout",
                        "request too slow\n",
                        false,
                    )
                }
                Err(e) => return Err(e),
            };
            lines += 1;
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
        mark(false);
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
        mark(true);
        reader.get_mut().until = Instant::now() + HEAD_DEADLINE;
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
