//! A Konakis process driven over its stdin/stdout, for protocol tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl EngineProcess {
    pub fn start(args: &[&str]) -> EngineProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_konakis"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start konakis");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let stdin = child.stdin.take();
        EngineProcess {
            child,
            stdin,
            lines: rx,
        }
    }

    /// Sends raw bytes and a newline (for input that is not UTF-8).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to engine");
        stdin.write_all(b"\n").expect("write to engine");
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to engine");
        stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn expect(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    seen.push(l);
                    if done {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no '{prefix}' within {timeout:?}; got {seen:?}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine closed before '{prefix}'; got {seen:?}")
                }
            }
        }
    }

    /// The last line of `expect`.
    pub fn expect_line(&mut self, prefix: &str, timeout: Duration) -> String {
        self.expect(prefix, timeout).pop().unwrap()
    }

    /// Lines that arrive within `wait`.
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(l) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(l);
        }
        seen
    }

    /// Closes stdin and waits for the process to exit; returns its status code.
    pub fn finish(mut self, timeout: Duration) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("engine did not exit within {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
