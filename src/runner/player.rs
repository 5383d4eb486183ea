//! An engine child process seen from the match runner: started, set up,
//! asked for moves with a deadline, killed and restarted when it misbehaves.

use super::MatchConfig;
use crate::records::game::RecordedMove;
use crate::rules::{Game, Rules, StartPoint};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Which protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    /// `protocol.md`.
    Tei,
    /// The OpenTafl Engine Protocol.
    Otep,
}

/// How to start one engine.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: String,
    pub args: Vec<String>,
    /// Engine options (`option.<Name>=<value>`).
    pub options: Vec<(String, String)>,
    pub proto: Proto,
}

impl EngineSpec {
    /// Parses `cmd=<path> [name=<n>] [arg=<a>]… [option.<Name>=<v>]… [proto=tei|otep]`.
    pub fn parse(words: &[String]) -> Result<EngineSpec, String> {
        let mut spec = EngineSpec {
            name: String::new(),
            cmd: String::new(),
            args: Vec::new(),
            options: Vec::new(),
            proto: Proto::Tei,
        };
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| format!("--engine: '{w}' is not key=value"))?;
            match k {
                "cmd" => spec.cmd = v.to_string(),
                "name" => spec.name = v.to_string(),
                "arg" => spec.args.push(v.to_string()),
                "proto" => {
                    spec.proto = match v {
                        "tei" => Proto::Tei,
                        "otep" => Proto::Otep,
                        _ => return Err(format!("--engine: proto must be tei or otep, not '{v}'")),
                    }
                }
                _ => match k.strip_prefix("option.") {
                    Some(name) if !name.is_empty() => {
                        spec.options.push((name.to_string(), v.to_string()))
                    }
                    _ => return Err(format!("--engine: unknown key '{k}'")),
                },
            }
        }
        if spec.cmd.is_empty() {
            return Err("--engine needs cmd=<path>".into());
        }
        if spec.name.is_empty() {
            spec.name = std::path::Path::new(&spec.cmd)
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.cmd.clone());
        }
        Ok(spec)
    }
}

/// An engine's move, as text, and the last score it reported for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    /// Centi-soldiers from the engine's side (a win or loss as ±30,000 less
    /// the plies to it), for adjudication.
    pub score: Option<i32>,
}

/// The score of an `info … score cp N` or `score mate N` line (also the
/// `status … score …` lines of Konakis's OTEP mode).
pub fn parse_score(line: &str) -> Option<i32> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "score")?;
    let value: i32 = words.get(at + 2)?.parse().ok()?;
    match *words.get(at + 1)? {
        "cp" => Some(value),
        "mate" if value > 0 => Some(30_000 - (2 * value - 1)),
        "mate" => Some(-30_000 + 2 * value.abs()),
        _ => None,
    }
}

/// Why an engine failed to give a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No answer before the deadline.
    Timeout,
    /// The process ended or closed its output.
    Crashed,
    /// It answered something that is not a move.
    Malformed(String),
}

/// How the runner speaks one protocol to a running engine. TEI
/// (`tei_client.rs`) and OTEP (`otep_client.rs`) are its two
/// implementations; the player itself only carries lines.
pub trait Protocol: Sync {
    /// Sets the engine up for the rules (`variant` and `overrides` as the
    /// match names them) once it has started.
    fn handshake(
        &self,
        p: &mut Player,
        variant: &str,
        overrides: &[(String, String)],
        rules: &Rules,
    ) -> Result<(), String>;
    /// Whether the engine answers (before a game).
    fn ready(&self, p: &mut Player) -> Result<(), String>;
    /// A new game starts.
    fn new_game(&self, p: &mut Player) -> Result<(), String>;
    /// The engine's move in `turn`, within its deadline.
    fn request_move(&self, p: &mut Player, turn: &Turn) -> Result<Answer, Failure>;
    /// Asks the engine to leave.
    fn quit(&self, p: &mut Player);
}

/// What a player is asked to move in.
pub struct Turn<'a> {
    pub game: &'a Game,
    /// The game's start.
    pub start: &'a StartPoint,
    pub moves: &'a [RecordedMove],
    pub cfg: &'a MatchConfig,
    /// Both sides' clocks in ms (attackers, defenders).
    pub clocks: &'a [i64; 2],
}

/// A running engine.
pub struct Player {
    pub spec: EngineSpec,
    protocol: &'static dyn Protocol,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// How many plies of the current game the engine has been told (OTEP
    /// tells only the last move); `None` until it is told the position.
    pub known_plies: Option<usize>,
}

/// How long an engine may take to start or to answer `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

impl Player {
    /// Starts the engine and sets up the variant and rule overrides in
    /// its `protocol`.
    pub fn start(
        spec: &EngineSpec,
        protocol: &'static dyn Protocol,
        variant: &str,
        overrides: &[(String, String)],
        rules: &Rules,
    ) -> Result<Player, String> {
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if spec.proto == Proto::Otep {
            // OTEP engines run in their own folder.
            if let Some(dir) = std::path::Path::new(&spec.cmd)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
            {
                cmd.current_dir(dir);
            }
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start engine '{}' ({}): {e}", spec.name, spec.cmd))?;
        let stdout = child.stdout.take().ok_or("engine has no stdout")?;
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name(format!("reader-{}", spec.name))
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    match line {
                        Ok(l) => {
                            if tx.send(l.trim_end().to_string()).is_err() {
                                break;
                            }
                        }
                        Err(_) => break,
                    }
                }
            })
            .map_err(|e| format!("cannot start reader thread: {e}"))?;
        let stdin = child.stdin.take();
        let mut p = Player {
            spec: spec.clone(),
            protocol,
            child,
            stdin,
            lines: rx,
            known_plies: None,
        };
        protocol.handshake(&mut p, variant, overrides, rules)?;
        Ok(p)
    }

    pub fn describe(&self, what: &str) -> String {
        format!("engine '{}': {what}", self.spec.name)
    }

    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        let stdin = self.stdin.as_mut().ok_or(Failure::Crashed)?;
        let mut buf = line.to_string();
        buf.push('\n');
        stdin
            .write_all(buf.as_bytes())
            .map_err(|_| Failure::Crashed)?;
        stdin.flush().map_err(|_| Failure::Crashed)
    }

    /// The next line, within `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Result<String, Failure> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Crashed),
        }
    }

    /// Reads lines until one starts with `prefix`; returns it.
    pub fn wait_for(&mut self, prefix: &str, timeout: Duration) -> Result<String, Failure> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.next_line(left)?;
            if line.starts_with(prefix) {
                return Ok(line);
            }
        }
    }

    /// Whether the engine answers (before a game).
    pub fn ready(&mut self) -> Result<(), String> {
        let protocol = self.protocol;
        protocol.ready(self)
    }

    /// Starts a new game.
    pub fn new_game(&mut self) -> Result<(), String> {
        let protocol = self.protocol;
        protocol.new_game(self)
    }

    /// The engine's move in `turn`.
    pub fn request_move(&mut self, turn: &Turn) -> Result<Answer, Failure> {
        let protocol = self.protocol;
        protocol.request_move(self, turn)
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Asks the engine to quit, then makes sure it is gone.
    pub fn quit(mut self) {
        let protocol = self.protocol;
        protocol.quit(&mut self);
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if !self.alive() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        if self.alive() {
            self.kill();
        }
    }
}
