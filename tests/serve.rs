//! `pnacl-translate --serve DIR` on the loopback interface, attacked as a page elsewhere
//! or a local client would: it answers only requests that name its own address (no DNS
//! rebinding), bounds request lines and headers with a clear 4xx, serves a bounded number
//! of connections at once, and drops idle ones.
#![cfg(feature = "llvm")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

mod common;

use common::Server;

/// A connection to the server, and the status line it answers a request with.
trait Ask {
    fn connect(&self) -> TcpStream;
    fn ask(&self, request: &[u8]) -> String;
}

impl Ask for Server {
    fn connect(&self) -> TcpStream {
        let c = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        c
    }

    /// The status line the server answers `request` with (and then the connection's end).
    fn ask(&self, request: &[u8]) -> String {
        let mut c = self.connect();
        c.write_all(request).unwrap();
        status_line(&mut c)
    }
}

fn status_line(c: &mut TcpStream) -> String {
    let mut r = BufReader::new(c);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    line.trim_end().to_string()
}

fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    dir
}

#[test]
fn only_requests_for_its_own_address_are_answered() {
    let dir = site();
    let s = Server::start(dir.path());
    let get = |host: Option<String>| {
        let h = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
        s.ask(format!("GET /a.txt HTTP/1.1\r\n{h}Connection: close\r\n\r\n").as_bytes())
    };
    let port = s.port;
    assert_eq!(get(Some(format!("127.0.0.1:{port}"))), "HTTP/1.1 200 OK");
    assert_eq!(get(Some(format!("LOCALHOST:{port}"))), "HTTP/1.1 200 OK");
    for host in [
        Some("attacker.example".to_string()),
        Some(format!("attacker.example:{port}")),
        Some(format!("127.0.0.1:{}", port.wrapping_add(1))),
        Some("127.0.0.1".to_string()),
        None,
    ] {
        assert_eq!(
            get(host.clone()),
            "HTTP/1.1 421 Misdirected Request",
            "{host:?}"
        );
    }
}

#[test]
fn long_request_lines_and_headers_get_a_clear_4xx_and_no_memory() {
    let dir = site();
    let s = Server::start(dir.path());
    // 64 MiB of request line with no end: refused once the line passes its bound, long
    // before the rest is sent (the write fails when the server has closed).
    let mut c = s.connect();
    let chunk = vec![b'a'; 1 << 20];
    c.write_all(b"GET /").unwrap();
    let mut sent = 0;
    for _ in 0..64 {
        if c.write_all(&chunk).is_err() {
            break;
        }
        sent += 1;
    }
    assert!(sent < 64, "the server read 64 MiB of one request line");
    assert_eq!(status_line(&mut c), "HTTP/1.1 414 URI Too Long");
    let host = format!("Host: 127.0.0.1:{}\r\n", s.port);
    let many = format!("X-Filler: {}\r\n", "b".repeat(1000)).repeat(40);
    let r = format!("GET /a.txt HTTP/1.1\r\n{host}{many}\r\n");
    assert_eq!(
        s.ask(r.as_bytes()),
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    // And it still serves.
    let r = format!("GET /a.txt HTTP/1.1\r\n{host}Connection: close\r\n\r\n");
    assert_eq!(s.ask(r.as_bytes()), "HTTP/1.1 200 OK");
    // Its memory stayed small (what it had to read was bounded).
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.child.id())).unwrap();
    let rss: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .unwrap();
    assert!(rss < 64 * 1024, "peak memory {rss} kB");
}

#[test]
fn connections_are_bounded_and_idle_ones_dropped() {
    let dir = site();
    let s = Server::start(dir.path());
    let get = format!(
        "GET /a.txt HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        s.port
    );
    // 32 idle connections are served (they wait); a 33rd takes the place of the one that
    // has waited longest, which is closed, and gets its page.
    let idle: Vec<TcpStream> = (0..32)
        .map(|_| {
            let c = s.connect();
            std::thread::sleep(Duration::from_millis(20));
            c
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.ask(get.as_bytes()), "HTTP/1.1 200 OK");
    let mut idle = idle.into_iter();
    let mut first = idle.next().unwrap();
    let mut buf = [0u8; 16];
    let start = Instant::now();
    assert_eq!(first.read(&mut buf).unwrap_or(0), 0, "the oldest got data");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "the oldest stayed"
    );
    // The others are dropped when their time for a request is up (10 s), and the server
    // serves again.
    let mut second = idle.next().unwrap();
    let start = Instant::now();
    let n = second.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "an idle connection got data");
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(20), "idle for {waited:?}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.ask(get.as_bytes()), "HTTP/1.1 200 OK");
}

/// A request's head that comes a line a second is cut off 10 s after the connection
/// began (408), whatever it still sends; and while 48 such clients keep every connection
/// taken (reconnecting whenever one is closed), a normal client gets each of its pages
/// at once.
#[test]
fn slow_clients_lock_no_one_out() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = site();
    let s = Server::start(dir.path());
    let port = s.port;
    // One slow client, a header line a second: answered 408 within the deadline.
    let slow = std::thread::spawn(move || {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let start = Instant::now();
        c.write_all(b"GET /a.txt HTTP/1.1\r\n").unwrap();
        for i in 0..30 {
            std::thread::sleep(Duration::from_secs(1));
            if c.write_all(format!("X-{i}: y\r\n").as_bytes()).is_err() {
                break;
            }
        }
        let mut text = String::new();
        let _ = c.read_to_string(&mut text);
        (start.elapsed(), text)
    });
    // The slowloris: 48 threads, each a connection at a time sending a byte a second.
    let stop = Arc::new(AtomicBool::new(false));
    let lorises: Vec<_> = (0..48)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) else {
                        continue;
                    };
                    for b in b"GET /a.txt HTTP/1.1\r\nX: ".iter().cycle() {
                        if stop.load(Ordering::Relaxed) || c.write_all(&[*b]).is_err() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(1000));
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let get = format!("GET /a.txt HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut slowest = Duration::ZERO;
    for _ in 0..15 {
        let start = Instant::now();
        assert_eq!(s.ask(get.as_bytes()), "HTTP/1.1 200 OK");
        slowest = slowest.max(start.elapsed());
        std::thread::sleep(Duration::from_millis(700));
    }
    stop.store(true, Ordering::Relaxed);
    assert!(slowest < Duration::from_secs(2), "a page took {slowest:?}");
    let (took, text) = slow.join().unwrap();
    assert!(
        text.starts_with("HTTP/1.1 408 Request Timeout") || text.is_empty(),
        "{text:?}"
    );
    assert!(
        took < Duration::from_secs(13),
        "the slow client stayed {took:?}"
    );
    for l in lorises {
        l.join().unwrap();
    }
}
