//! A fuzz of `konakis serve`'s API, run by hand (it takes minutes):
//!
//! ```sh
//! cargo test --release --test serve_fuzz -- --ignored --nocapture
//! ```
//!
//! It sends mutated requests (bytes flipped, cut, repeated, numbers
//! stretched, headers garbled; `KONAKIS_FUZZ_REQUESTS`, default 100,000),
//! opens and drops analysis streams at once (`KONAKIS_FUZZ_STREAMS`,
//! default 1,000) and holds slow connections (200) past the header
//! timeout. It fails on any 5xx or a server that stops answering, and at
//! the end requires no search running, nothing queued, and the server's
//! threads and memory back near where they started. Figures in
//! docs/results/serve.md.

mod common;

use common::server::{cpu_seconds, get, Server};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Requests the API takes, each to be mutated.
fn seeds() -> Vec<(&'static str, &'static str, String)> {
    let game = json!({ "variant": "copenhagen", "moves": ["k8-h8", "f4-b4", "k4-c4"] });
    let mut analyse = game.clone();
    analyse["depth"] = json!(3);
    let mut infinite = game.clone();
    infinite["infinite"] = json!(true);
    infinite["multipv"] = json!(3);
    let mut review = game.clone();
    review["nodes"] = json!(2000);
    let mut export = game.clone();
    export["format"] = json!("opentafl");
    vec![
        ("GET", "/api/info", String::new()),
        ("GET", "/api/variants", String::new()),
        ("GET", "/", String::new()),
        ("GET", "/app.js", String::new()),
        ("POST", "/api/position", game.to_string()),
        ("POST", "/api/position", json!({ "variant": "tablut", "rules": { "KingArmed": "hammer" }, "start": "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/ a" }).to_string()),
        ("POST", "/api/analyse", analyse.to_string()),
        ("POST", "/api/analyse", infinite.to_string()),
        ("POST", "/api/analyse", json!({ "variant": "brandubh", "clock": { "atime": 5000, "dtime": 5000, "ainc": 100 } }).to_string()),
        ("POST", "/api/stop", json!({ "search": 3 }).to_string()),
        ("POST", "/api/review", review.to_string()),
        ("POST", "/api/export", export.to_string()),
        ("POST", "/api/import", json!({ "text": "k8-h8 f4-b4 k4-c4xb4\nd1-d3 e5-e2\n", "variant": "copenhagen" }).to_string()),
    ]
}

/// One mutation of a request's text.
fn mutate(rng: &mut StdRng, text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    for _ in 0..rng.gen_range(1..4) {
        if out.is_empty() {
            out.push(b'{');
        }
        let at = rng.gen_range(0..out.len());
        match rng.gen_range(0..9) {
            0 => out[at] = rng.gen(),
            1 => out.truncate(at),
            2 => {
                let end = (at + rng.gen_range(1..40)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            3 => {
                let junk = [
                    &b"-1"[..],
                    b"99999999999999999999",
                    b"1e308",
                    b"null",
                    b"\"\"",
                    b"[]",
                    b"{}",
                    b"\\u0000",
                    b"\xff\xfe",
                    b",\"depth\":-1",
                    b",\"infinite\":true",
                    b",\"movetime\":3600000",
                ];
                let j = junk[rng.gen_range(0..junk.len())];
                out.splice(at..at, j.iter().copied());
            }
            4 => {
                out.remove(at);
            }
            5 => out[at] = b"{}[]\":,0123456789-"[rng.gen_range(0..18)],
            6 => out.extend(std::iter::repeat_n(b'9', rng.gen_range(1..30))),
            7 => {
                let other = rng.gen_range(0..out.len());
                out.swap(at, other);
            }
            _ => {}
        }
    }
    out
}

/// Sends one raw request and reads its status (0 when none came): a
/// stream is read for at most `wait` and then dropped, as a tab that
/// closes.
fn send(addr: &str, raw: &[u8], wait: Duration) -> u16 {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return 0;
    };
    let _ = s.set_read_timeout(Some(wait));
    if s.write_all(raw).is_err() {
        return 0;
    }
    let mut buf = [0u8; 512];
    let mut got = Vec::new();
    let end = Instant::now() + wait;
    while Instant::now() < end && !got.windows(2).any(|w| w == b"\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&got)
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// A request's text, and whether it is honest (its length true, its head
/// whole): a dishonest one leaves the server waiting, so its client does
/// not wait long for an answer.
fn request_text(
    rng: &mut StdRng,
    addr: &str,
    method: &str,
    path: &str,
    body: &[u8],
) -> (Vec<u8>, bool) {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n");
    if rng.gen_bool(0.3) {
        head.push_str(&format!("X-Konakis-Client: c{}\r\n", rng.gen_range(0..4)));
    }
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    let lies = rng.gen_bool(0.03);
    let length = if lies {
        rng.gen_range(0..body.len() + 50).to_string()
    } else {
        body.len().to_string()
    };
    head.push_str(&format!(
        "Content-Length: {length}\r\nConnection: close\r\n\r\n"
    ));
    let mut raw = head.into_bytes();
    raw.extend_from_slice(body);
    let mangled = rng.gen_bool(0.05);
    if mangled {
        raw = mutate(rng, &raw);
    }
    (raw, !lies && !mangled)
}

/// The server's threads and resident memory (Linux `/proc`).
fn threads_and_rss(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("Threads:"), field("VmRSS:"))
}

fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore]
fn fuzz_the_api() {
    let server = Server::start(&[
        "--threads",
        "2",
        "--hash",
        "64",
        "--header-timeout-ms",
        "2000",
    ]);
    let addr = server.addr.clone();
    let pid = server.pid();
    let started = Instant::now();
    // Warm: the page and one search, so the baseline holds the table.
    assert_eq!(get(&addr, "/").status, 200);
    send(
        &addr,
        &request_text(
            &mut StdRng::seed_from_u64(0),
            &addr,
            "POST",
            "/api/analyse",
            br#"{"variant":"copenhagen","depth":4}"#,
        )
        .0,
        Duration::from_secs(5),
    );
    std::thread::sleep(Duration::from_millis(500));
    let (threads0, rss0) = threads_and_rss(pid);

    // 1. Mutated requests, from 4 client threads.
    let total = count("KONAKIS_FUZZ_REQUESTS", 100_000);
    let seeds = seeds();
    let tallies: Vec<BTreeMap<u16, u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4u64)
            .map(|t| {
                let (addr, seeds) = (&addr, &seeds);
                scope.spawn(move || {
                    let mut rng = StdRng::seed_from_u64(1000 + t);
                    let mut tally = BTreeMap::new();
                    for _ in 0..total / 4 {
                        let (method, path, body) = &seeds[rng.gen_range(0..seeds.len())];
                        let body = if body.is_empty() || rng.gen_bool(0.1) {
                            body.as_bytes().to_vec()
                        } else {
                            mutate(&mut rng, body.as_bytes())
                        };
                        let (raw, honest) = request_text(&mut rng, addr, method, path, &body);
                        let stream = path.contains("analyse") || path.contains("review");
                        let wait = Duration::from_millis(match (stream, honest) {
                            (true, _) => 30,
                            (false, true) => 2000,
                            (false, false) => 100,
                        });
                        *tally.entry(send(addr, &raw, wait)).or_insert(0) += 1;
                    }
                    tally
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut statuses = BTreeMap::new();
    for t in tallies {
        for (k, v) in t {
            *statuses.entry(k).or_insert(0u64) += v;
        }
    }
    let after_requests = started.elapsed();
    println!("{total} mutated requests in {after_requests:.1?}: statuses {statuses:?}");
    assert!(statuses.keys().all(|s| *s < 500), "a 5xx: {statuses:?}");

    // 2. Streams opened and dropped at once (0-20 ms).
    let streams = count("KONAKIS_FUZZ_STREAMS", 1000);
    let mut rng = StdRng::seed_from_u64(7);
    for i in 0..streams {
        let body = if i % 3 == 0 {
            r#"{"variant":"copenhagen","nodes":2000}"#.to_string()
        } else {
            format!(
                r#"{{"variant":"{}","infinite":true}}"#,
                ["copenhagen", "brandubh", "tablut"][i % 3]
            )
        };
        let path = if i % 3 == 0 {
            "/api/review"
        } else {
            "/api/analyse"
        };
        let (raw, _) = request_text(&mut rng, &addr, "POST", path, body.as_bytes());
        if let Ok(mut s) = TcpStream::connect(&addr) {
            let _ = s.write_all(&raw);
            std::thread::sleep(Duration::from_millis(rng.gen_range(0..20)));
        }
    }
    println!(
        "{streams} streams opened and dropped by {:.1?}",
        started.elapsed()
    );

    // 3. 200 slow connections, held past the header timeout; the server
    // answers meanwhile.
    let mut slow: Vec<TcpStream> = (0..200)
        .filter_map(|_| TcpStream::connect(&addr).ok())
        .collect();
    for s in &mut slow {
        let _ = s.write_all(b"POST /api/analyse HTTP/1.1\r\nHost: x");
    }
    let t = Instant::now();
    let info = get(&addr, "/api/info");
    println!(
        "/api/info with 200 slow connections held: {} in {:?}",
        info.status,
        t.elapsed()
    );
    assert_eq!(info.status, 200);
    std::thread::sleep(Duration::from_secs(3));
    let cut = slow
        .iter_mut()
        .filter_map(|s| {
            let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
            let mut b = [0u8; 64];
            let closed = match s.read(&mut b) {
                Ok(0) => true,
                Ok(_) => false,
                Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
            };
            closed.then_some(())
        })
        .count();
    println!("slow connections closed by the server after 3 s: {cut} of 200");
    drop(slow);

    // The end: nothing runs, nothing waits, the process is idle and its
    // threads (the blocking pool's idle ones go after 5 s) and memory are
    // bounded.
    std::thread::sleep(Duration::from_secs(6));
    let info = get(&addr, "/api/info").json();
    assert_eq!(info["searching"], false, "{info}");
    assert_eq!(info["queued"], 0, "{info}");
    let cpu = cpu_seconds(pid).unwrap_or(0.0);
    std::thread::sleep(Duration::from_secs(1));
    let idle = cpu_seconds(pid).unwrap_or(0.0) - cpu;
    let (threads1, rss1) = threads_and_rss(pid);
    println!(
        "end after {:.1?}: idle CPU {idle:.2} s/s; threads {threads0} -> {threads1}; resident memory {} -> {} MiB",
        started.elapsed(),
        rss0 / 1024,
        rss1 / 1024
    );
    assert!(
        idle < 0.3,
        "the server is busy with no client: {idle:.2} CPU s/s"
    );
    assert!(
        threads1 <= threads0 + 8,
        "threads grew: {threads0} -> {threads1}"
    );
    assert!(
        rss1 < rss0 + 256 * 1024,
        "memory grew: {rss0} -> {rss1} KiB"
    );
}
