//! `konakis serve` for the tests: started on a port the system picks, and a
//! plain HTTP/1.1 client that sends exactly the headers a test names (a
//! foreign `Host` or `Origin` included).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `konakis serve`, killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    pub url: String,
    /// The token the URL carries, when the server needs one.
    pub token: Option<String>,
}

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        let hash: &[&str] = if extra.contains(&"--hash") {
            &[]
        } else {
            &["--hash", "16"]
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_konakis"))
            .args(["serve", "--port", "0"])
            .args(hash)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start konakis serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        let mut stdout = BufReader::new(stdout);
        stdout.read_line(&mut line).expect("read the URL line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in '{line}'"))
            .to_string();
        let (base, token) = match url.split_once("/?token=") {
            Some((base, token)) => (base.to_string(), Some(token.to_string())),
            None => (url.clone(), None),
        };
        let addr = base
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        // The rest of what it prints is read and dropped, so that it never
        // blocks on a full pipe.
        std::thread::spawn(move || {
            let mut rest = BufReader::new(stdout);
            let mut sink = String::new();
            while rest.read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        Server {
            child,
            addr,
            url,
            token,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The Server-Sent Events of a stream: (event name, data as JSON).
    pub fn events(&self) -> Vec<(String, serde_json::Value)> {
        self.body
            .split("\n\n")
            .filter_map(|block| {
                let mut name = "message".to_string();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(n) = line.strip_prefix("event:") {
                        name = n.trim().to_string();
                    } else if let Some(d) = line.strip_prefix("data:") {
                        data.push_str(d.trim_start());
                    }
                }
                (!data.is_empty()).then(|| (name, serde_json::from_str(&data).expect("event data")))
            })
            .collect()
    }
}

/// Sends one request with `headers` (a `Host` is added unless given) and
/// reads the whole answer; the connection is closed after it.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let mut text = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(text.as_bytes()).expect("send head");
    stream.write_all(body.as_bytes()).expect("send body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read answer");
    parse_answer(&raw)
}

pub fn post(addr: &str, path: &str, body: &str) -> Answer {
    request(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body,
    )
}

pub fn get(addr: &str, path: &str) -> Answer {
    request(addr, "GET", path, &[], "")
}

fn parse_answer(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw);
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// The CPU seconds a process has used (Linux `/proc`; `None` elsewhere).
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Posts `body` to a stream endpoint with `headers` and returns the open
/// connection, to read its Server-Sent Events with [`next_event`].
pub fn open_events(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> BufReader<TcpStream> {
    let mut stream = TcpStream::connect(addr).expect("connect");
    let mut head = format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(
        stream,
        "{head}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    BufReader::new(stream)
}

/// The next event of a stream (its name and data), or `None` at its end.
pub fn next_event(reader: &mut BufReader<TcpStream>) -> Option<(String, serde_json::Value)> {
    let mut line = String::new();
    let mut name = None;
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if let Some(n) = line.strip_prefix("event:") {
            name = Some(n.trim().to_string());
        } else if let Some(d) = line.strip_prefix("data:") {
            if let Some(name) = name.take() {
                return Some((name, serde_json::from_str(d.trim()).expect("event data")));
            }
        }
    }
}
