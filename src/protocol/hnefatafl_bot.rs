//! `konakis hnefatafl-bot`: Konakis as a bot account on a hnefatafl-copenhagen
//! server (the server behind hnefatafl.org, crate `hnefatafl-copenhagen`,
//! binary `hnefatafl-server`), where people play it from the server's
//! desktop client.
//!
//! The wire (read from the server's code, version 6.4.1): plain TCP,
//! newline-delimited text. The client's first line is
//! `<version> login|create_account <name> <password>`; the server answers
//! `= login` or `? login …` (`? login wrong_version`,
//! `? login multiple_possible_errors wrong_password|logged_in_already|
//! retried_too_soon <time>`). Every later answer starts with `= ` (success)
//! or `? ` (error) and the command's name. A game is posted with
//! `new_game {json}` (`= new_game <id>`); a player asks to join it with
//! `join_game_pending <id>`, the poster hears `= challenge_requested <id>`
//! and accepts with `join_game <id>`; both then hear `= join_game <attacker>
//! <defender> rated|unrated <clock> <size>`. The side to move hears
//! `game <id> generate_move attacker|defender` and answers `game <id> play
//! <role> <from> <to>` (`= game`, or `? game <why>` when refused); the other
//! side hears the same `game <id> play …` line; both hear `= game_time {json}`
//! with the clocks. `resume_game_json <id>` answers the whole game as
//! OpenTafl JSON (`"moves":"d1-d3 e5-e2 d3-d2xe2"`): after a reconnection
//! it is the only way to learn the moves missed. The end: `= game_over <id>
//! attacker_wins|defender_wins`, or `= draw accept` after `request_draw`.
//!
//! The bot keeps its own game from the server's moves and checks each; it
//! plays the `hnefatafl-org-11` / `hnefatafl-org-7` presets, which follow
//! the server's rule code (docs/rules.md), so it never sends a move the
//! server refuses (the defenders' forbidden repetitions included).

use crate::play::{self, HostClock};
use crate::play::{accept_draw, should_resign};
use crate::rules::{Game, Move, Preset, Rules, Side, Square};
use crate::search::{Engine, Limits, Score};
use serde_json::Value;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// The protocol version token the server 6.4.1 (and its client) expects.
pub const PROTOCOL_VERSION: &str = "32d9a140";
/// The server's port.
pub const DEFAULT_PORT: u16 = 49152;
/// The longest line accepted from the server.
const MAX_LINE: usize = 1 << 20;

/// A game's clock: none, or Fischer (main time and an increment per move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Untimed,
    Fischer { ms: u64, add_s: u64 },
}

impl FromStr for Clock {
    type Err = String;
    /// `untimed`, or `<milliseconds>+<seconds>` such as `300000+10`.
    fn from_str(s: &str) -> Result<Clock, String> {
        if s.eq_ignore_ascii_case("untimed") {
            return Ok(Clock::Untimed);
        }
        let err = || {
            format!(
                "'{s}' is not a clock: write <milliseconds>+<seconds> (say 300000+10) or untimed"
            )
        };
        let (ms, add) = s.split_once('+').ok_or_else(err)?;
        let ms: u64 = ms.trim().parse().map_err(|_| err())?;
        let add_s: u64 = add.trim().parse().map_err(|_| err())?;
        if ms == 0 || ms > 100 * 24 * 3_600_000 || add_s > 3600 {
            return Err(err());
        }
        Ok(Clock::Fischer { ms, add_s })
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clock::Untimed => f.write_str("untimed"),
            Clock::Fischer { ms, add_s } => write!(f, "{ms}+{add_s}"),
        }
    }
}

/// The games the bot plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Post one game and play whoever joins it.
    Create(GameOffer),
    /// Post games one after another, playing each challenger, N games.
    Accept { games: u32, offer: GameOffer },
    /// Ask to join a posted game by its id and play it.
    Join { id: u128 },
}

/// What a posted game says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameOffer {
    pub role: Side,
    /// 7 or 11.
    pub board: usize,
    pub clock: Clock,
    pub rated: bool,
}

impl GameOffer {
    /// The `new_game` line.
    pub fn new_game_line(&self) -> String {
        let time = match self.clock {
            Clock::Untimed => Value::String("UnTimed".into()),
            Clock::Fischer { ms, add_s } => serde_json::json!({
                "Timed": { "add_seconds": add_s, "milliseconds_left": ms }
            }),
        };
        let role = match self.role {
            Side::Attackers => "Attacker",
            Side::Defenders => "Defender",
        };
        let json = serde_json::json!({
            "role": role,
            "rated": self.rated,
            "time_settings": time,
            "board_size": self.board,
        });
        format!("new_game {json}")
    }
}

/// Settings of `konakis hnefatafl-bot`.
#[derive(Clone, Debug)]
pub struct BotSettings {
    pub host: String,
    pub port: u16,
    pub username: String,
    pub password: String,
    /// Create the account at the first login instead of logging in.
    pub create_account: bool,
    pub mode: Mode,
    pub threads: usize,
    pub hash_mib: usize,
    /// Thinking time per move in untimed games.
    pub move_time_ms: u64,
    /// Fixed nodes per move instead of the clock (tests, a weaker bot).
    pub nodes: Option<u64>,
    /// Kept back from the clock for the network.
    pub move_overhead_ms: u64,
    /// The first wait before a reconnection or a login retry; it doubles
    /// after each failure in a row.
    pub backoff: Duration,
    /// Reconnection attempts in a row before giving up.
    pub reconnects: u32,
}

impl BotSettings {
    pub fn new(host: &str, username: &str, password: &str, mode: Mode) -> BotSettings {
        BotSettings {
            host: host.into(),
            port: DEFAULT_PORT,
            username: username.into(),
            password: password.into(),
            create_account: false,
            mode,
            threads: 1,
            hash_mib: 256,
            move_time_ms: 5000,
            nodes: None,
            move_overhead_ms: 300,
            // The server refuses a login retried within 1, 2, 4, 8 or 16
            // seconds of a failed one (and locks the name for 30 minutes
            // after five): start at 2 s and double.
            backoff: Duration::from_secs(2),
            reconnects: 5,
        }
    }
}

/// The server's name of a side.
pub fn role_name(side: Side) -> &'static str {
    match side {
        Side::Attackers => "attacker",
        Side::Defenders => "defender",
    }
}

fn parse_role(s: &str) -> Option<Side> {
    match s.to_ascii_lowercase().as_str() {
        "attacker" => Some(Side::Attackers),
        "defender" => Some(Side::Defenders),
        _ => None,
    }
}

/// The rules the server plays on a board of this size.
pub fn rules_for_board(board: usize) -> Result<Rules, String> {
    match board {
        11 => Ok(Rules::preset(Preset::HnefataflOrg11)),
        7 => Ok(Rules::preset(Preset::HnefataflOrg7)),
        13 => Err("13x13 games are not supported: Konakis's boards hold at most 11x11".into()),
        n => Err(format!("the server named a {n}x{n} board")),
    }
}

/// A square as the server writes it (`d1`; the 7x7 client of old wrote
/// `0d1`, upper case on 13x13).
pub fn parse_square(text: &str, size: usize) -> Result<Square, String> {
    let t = text.strip_prefix('0').unwrap_or(text).to_ascii_lowercase();
    Square::parse(&t, size)
}

/// A move as the server writes it, from its two squares (checked for
/// legality only when played).
pub fn parse_move(from: &str, to: &str, size: usize) -> Result<Move, String> {
    Ok(Move::new(
        parse_square(from, size)?,
        parse_square(to, size)?,
    ))
}

/// One line from the server, read.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerLine {
    LoggedIn,
    /// `? login …` or `? create_account …`: the rest of the line.
    LoginRefused(String),
    NewGame(u128),
    JoinPending(u128),
    ChallengeRequested(u128),
    JoinGame {
        attacker: String,
        defender: String,
        board: usize,
        clock: Clock,
    },
    Play {
        id: u128,
        side: Side,
        from: String,
        to: String,
    },
    Resign {
        id: u128,
        side: Side,
    },
    GenerateMove {
        id: u128,
        side: Side,
    },
    /// Milliseconds left: attackers, defenders.
    GameTime([i64; 2]),
    GameOver {
        id: u128,
        winner: Side,
    },
    /// `= draw accept|decline`.
    Draw(bool),
    RequestDraw {
        id: u128,
        side: Side,
    },
    /// `= resume_game_json {…}`.
    Resume(ResumedGame),
    /// `? <command> <why>` for a command of ours (a refused move is
    /// `? game …`).
    Refused {
        command: String,
        why: String,
    },
    /// Anything else (chat, lists of users and games, …).
    Other,
}

/// A game as `resume_game_json` tells it.
#[derive(Clone, Debug, PartialEq)]
pub struct ResumedGame {
    pub id: u128,
    pub attackers: String,
    pub defenders: String,
    pub board: usize,
    /// The moves so far, `from`/`to` as the server wrote them.
    pub moves: Vec<(String, String)>,
    /// Milliseconds left: attackers, defenders (timed games).
    pub clock_ms: Option<[i64; 2]>,
}

impl ServerLine {
    pub fn parse(line: &str) -> ServerLine {
        let words: Vec<&str> = line.split_whitespace().collect();
        let rest_after = |n: usize| -> &str {
            let mut s = line.trim_start();
            for _ in 0..n {
                s = s.trim_start();
                s = s.find(char::is_whitespace).map_or("", |i| &s[i..]);
            }
            s.trim()
        };
        match words.as_slice() {
            ["=", "login", ..] | ["=", "create_account", ..] => ServerLine::LoggedIn,
            ["?", "login", ..] | ["?", "create_account", ..] => {
                ServerLine::LoginRefused(rest_after(1).to_string())
            }
            ["=", "new_game", id, ..] => id.parse().map_or(ServerLine::Other, ServerLine::NewGame),
            ["=", "join_game_pending", id, ..] => id
                .parse()
                .map_or(ServerLine::Other, ServerLine::JoinPending),
            ["=", "challenge_requested", id, ..] => id
                .parse()
                .map_or(ServerLine::Other, ServerLine::ChallengeRequested),
            ["=", "join_game", attacker, defender, rest @ ..] if !rest.is_empty() => {
                let Some(board) = rest.last().and_then(|b| b.parse().ok()) else {
                    return ServerLine::Other;
                };
                let clock = match rest.iter().position(|w| w.eq_ignore_ascii_case("fischer")) {
                    Some(i) => match (
                        rest.get(i + 1).and_then(|v| v.parse().ok()),
                        rest.get(i + 2).and_then(|v| v.parse().ok()),
                    ) {
                        (Some(ms), Some(add_s)) => Clock::Fischer { ms, add_s },
                        _ => Clock::Untimed,
                    },
                    None => Clock::Untimed,
                };
                ServerLine::JoinGame {
                    attacker: attacker.to_string(),
                    defender: defender.to_string(),
                    board,
                    clock,
                }
            }
            ["game", id, "play", role, "resigns", ..] => {
                match (id.parse::<u128>().ok(), parse_role(role)) {
                    (Some(id), Some(side)) => ServerLine::Resign { id, side },
                    _ => ServerLine::Other,
                }
            }
            ["game", id, "play", role, from, to, ..] => {
                match (id.parse::<u128>().ok(), parse_role(role)) {
                    (Some(id), Some(side)) => ServerLine::Play {
                        id,
                        side,
                        from: from.to_string(),
                        to: to.to_string(),
                    },
                    _ => ServerLine::Other,
                }
            }
            ["game", id, "generate_move", role, ..] => {
                match (id.parse::<u128>().ok(), parse_role(role)) {
                    (Some(id), Some(side)) => ServerLine::GenerateMove { id, side },
                    _ => ServerLine::Other,
                }
            }
            ["=", "game_time", ..] => {
                let v: Value = serde_json::from_str(rest_after(2)).unwrap_or(Value::Null);
                match (
                    v["attacker_ms_left"].as_i64(),
                    v["defender_ms_left"].as_i64(),
                ) {
                    (Some(a), Some(d)) => ServerLine::GameTime([a, d]),
                    _ => ServerLine::Other,
                }
            }
            ["=", "game_over", id, result, ..] => {
                let winner = match *result {
                    "attacker_wins" => Side::Attackers,
                    "defender_wins" => Side::Defenders,
                    _ => return ServerLine::Other,
                };
                id.parse()
                    .map_or(ServerLine::Other, |id| ServerLine::GameOver { id, winner })
            }
            ["=", "draw", answer, ..] => ServerLine::Draw(answer.eq_ignore_ascii_case("accept")),
            ["request_draw", id, role, ..] => match (id.parse::<u128>().ok(), parse_role(role)) {
                (Some(id), Some(side)) => ServerLine::RequestDraw { id, side },
                _ => ServerLine::Other,
            },
            ["=", "resume_game_json", ..] => match parse_resumed(rest_after(2)) {
                Ok(g) => ServerLine::Resume(g),
                Err(_) => ServerLine::Other,
            },
            ["?", command, ..] => ServerLine::Refused {
                command: command.to_string(),
                why: rest_after(2).to_string(),
            },
            _ => ServerLine::Other,
        }
    }
}

/// Reads `resume_game_json`'s JSON.
pub fn parse_resumed(json: &str) -> Result<ResumedGame, String> {
    let v: Value =
        serde_json::from_str(json).map_err(|e| format!("resume_game_json: bad JSON: {e}"))?;
    let id = match &v["id"] {
        Value::Number(n) => n.to_string().parse().ok(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
    .ok_or("resume_game_json: no game id")?;
    let board = v["dim"].as_u64().ok_or("resume_game_json: no 'dim'")? as usize;
    let mut moves = Vec::new();
    for token in v["moves"].as_str().unwrap_or("").split_whitespace() {
        // `d3-d2xe2`: captures follow an `x`; `---` is a resignation.
        let mv = token.split('x').next().unwrap_or("");
        if let Some((from, to)) = mv.split_once('-') {
            if !from.is_empty() && !to.is_empty() {
                moves.push((from.to_string(), to.to_string()));
            }
        }
    }
    let clock_ms = match (
        v["time_remaining_ms"]["attackers"].as_i64(),
        v["time_remaining_ms"]["defenders"].as_i64(),
    ) {
        (Some(a), Some(d)) => Some([a, d]),
        _ => None,
    };
    Ok(ResumedGame {
        id,
        attackers: v["attackers"].as_str().unwrap_or("").to_string(),
        defenders: v["defenders"].as_str().unwrap_or("").to_string(),
        board,
        moves,
        clock_ms,
    })
}

/// How one game ended, for our side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    pub id: u128,
    pub ours: Side,
    /// `None` for a draw.
    pub winner: Option<Side>,
    pub plies: usize,
}

impl fmt::Display for GameReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.winner {
            None => "a draw".to_string(),
            Some(w) if w == self.ours => format!("we won ({} win)", role_name(w)),
            Some(w) => format!("we lost ({} win)", role_name(w)),
        };
        write!(
            f,
            "game {} over after {} plies: {verdict}; we played {}",
            self.id,
            self.plies,
            role_name(self.ours)
        )
    }
}

/// A game being played.
struct Current {
    id: u128,
    ours: Side,
    board: usize,
    clock: Clock,
    /// Milliseconds left, attackers and defenders, as last told.
    clock_ms: Option<[i64; 2]>,
    /// Our moves the server refused in this position.
    refused: Vec<Move>,
    /// Our score after our last search (our side's view).
    last_score: Option<i32>,
    /// Waiting for `resume_game_json`; then move if it is our turn.
    resyncing: bool,
}

/// The connection: a writer and a line reader.
struct Link {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Link {
    fn send(&mut self, line: &str, log: &mut dyn FnMut(&str)) -> Result<(), String> {
        if !line.starts_with(PROTOCOL_VERSION) {
            log(&format!("> {line}"));
        }
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|_| self.writer.flush())
            .map_err(|e| format!("sending to the server: {e}"))
    }

    /// The next line; `None` when the connection closed.
    fn read(&mut self) -> Result<Option<String>, String> {
        let mut buf = Vec::new();
        let n = (&mut self.reader)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("reading from the server: {e}"))?;
        if n == 0 {
            return Ok(None);
        }
        if n == MAX_LINE && !buf.ends_with(b"\n") {
            return Err("the server sent a line longer than 1 MiB".into());
        }
        Ok(Some(String::from_utf8_lossy(&buf).trim_end().to_string()))
    }
}

/// What ended a session's reading loop.
enum Break {
    /// The connection dropped: reconnect.
    Dropped(String),
    /// Stop with this error.
    Fatal(String),
}

/// The bot: its settings, its engine and what it is doing.
pub struct Bot<'a> {
    settings: BotSettings,
    engine: Engine,
    log: &'a mut dyn FnMut(&str),
    current: Option<Current>,
    /// A game we posted or asked to join, not started yet.
    pending: Option<u128>,
    /// Whether the next post/join is still to be sent.
    need_offer: bool,
    reports: Vec<GameReport>,
    /// Whether a login (or account creation) was tried already.
    tried_login: bool,
}

impl<'a> Bot<'a> {
    pub fn new(settings: BotSettings, log: &'a mut dyn FnMut(&str)) -> Result<Bot<'a>, String> {
        let mut engine = Engine::new();
        engine.set_option("Threads", Some(&settings.threads.to_string()))?;
        engine.set_option("Hash", Some(&settings.hash_mib.to_string()))?;
        engine.set_option("MoveOverhead", Some(&settings.move_overhead_ms.to_string()))?;
        if let Mode::Create(o) | Mode::Accept { offer: o, .. } = &settings.mode {
            rules_for_board(o.board)?;
        }
        Ok(Bot {
            settings,
            engine,
            log,
            current: None,
            pending: None,
            need_offer: true,
            reports: Vec::new(),
            tried_login: false,
        })
    }

    fn games_wanted(&self) -> usize {
        match self.settings.mode {
            Mode::Accept { games, .. } => games as usize,
            Mode::Create(_) | Mode::Join { .. } => 1,
        }
    }

    /// Plays until the games asked for are over; returns their reports.
    pub fn run(mut self) -> Result<Vec<GameReport>, String> {
        let mut failures = 0u32;
        loop {
            let link = match self.connect_and_login() {
                Ok(link) => link,
                Err(Break::Fatal(e)) => return Err(e),
                Err(Break::Dropped(e)) => {
                    failures += 1;
                    if failures > self.settings.reconnects {
                        return Err(format!(
                            "giving up after {failures} failed connections: {e}"
                        ));
                    }
                    self.wait_backoff(failures, &e);
                    continue;
                }
            };
            failures = 0;
            match self.session(link) {
                Ok(()) => return Ok(self.reports),
                Err(Break::Fatal(e)) => return Err(e),
                Err(Break::Dropped(e)) => {
                    failures += 1;
                    if failures > self.settings.reconnects {
                        return Err(format!("giving up after {failures} lost connections: {e}"));
                    }
                    self.wait_backoff(failures, &e);
                }
            }
        }
    }

    fn wait_backoff(&mut self, failures: u32, why: &str) {
        let wait = self.settings.backoff * 2u32.saturating_pow(failures.saturating_sub(1).min(6));
        (self.log)(&format!(
            "{why}; trying again in {:.1} s (attempt {failures} of {})",
            wait.as_secs_f64(),
            self.settings.reconnects
        ));
        std::thread::sleep(wait);
    }

    fn connect_and_login(&mut self) -> Result<Link, Break> {
        let addr = format!("{}:{}", self.settings.host, self.settings.port);
        let stream = TcpStream::connect(&addr)
            .map_err(|e| Break::Dropped(format!("cannot connect to {addr}: {e}")))?;
        let _ = stream.set_nodelay(true);
        let reader = BufReader::new(
            stream
                .try_clone()
                .map_err(|e| Break::Fatal(format!("socket: {e}")))?,
        );
        let mut link = Link {
            writer: stream,
            reader,
        };
        // The account is created by the first attempt only: a retry logs in.
        let verb = if self.settings.create_account && !self.tried_login {
            "create_account"
        } else {
            "login"
        };
        self.tried_login = true;
        (self.log)(&format!(
            "connected to {addr}; {verb} as {}",
            self.settings.username
        ));
        let line = format!(
            "{PROTOCOL_VERSION} {verb} {} {}",
            self.settings.username, self.settings.password
        );
        link.send(&line, self.log).map_err(Break::Dropped)?;
        loop {
            let Some(text) = link.read().map_err(Break::Dropped)? else {
                return Err(Break::Dropped(
                    "the server closed the connection during login".into(),
                ));
            };
            match ServerLine::parse(&text) {
                ServerLine::LoggedIn => break,
                ServerLine::LoginRefused(why) => {
                    // Only a login that may work later is retried.
                    if why.contains("logged_in_already") || why.contains("retried_too_soon") {
                        return Err(Break::Dropped(format!("login refused: {why}")));
                    }
                    let hint = if why.contains("wrong_version") {
                        format!(" (this bot speaks protocol version {PROTOCOL_VERSION}, the server 6.4.1's)")
                    } else {
                        String::new()
                    };
                    return Err(Break::Fatal(format!("login refused: {why}{hint}")));
                }
                _ => {}
            }
        }
        (self.log)("logged in");
        Ok(link)
    }

    /// One connection's life: offer or join a game, play, repeat; `Ok`
    /// once every game asked for is over.
    fn session(&mut self, mut link: Link) -> Result<(), Break> {
        if let Some(cur) = &mut self.current {
            // Back after a dropped connection: the moves we missed.
            cur.resyncing = true;
            let id = cur.id;
            link.send(&format!("resume_game_json {id}"), self.log)
                .map_err(Break::Dropped)?;
        } else if self.pending.is_some() {
            // A posted game may have gone with the connection: offer again.
            self.pending = None;
            self.need_offer = true;
        }
        loop {
            if self.current.is_none() && self.need_offer {
                self.need_offer = false;
                let line = match &self.settings.mode {
                    Mode::Create(o) | Mode::Accept { offer: o, .. } => o.new_game_line(),
                    Mode::Join { id } => format!("join_game_pending {id}"),
                };
                link.send(&line, self.log).map_err(Break::Dropped)?;
            }
            let Some(text) = link.read().map_err(Break::Dropped)? else {
                return Err(Break::Dropped("the server closed the connection".into()));
            };
            if self.handle(&text, &mut link)? {
                return Ok(());
            }
        }
    }

    /// Handles one line; `Ok(true)` when every game asked for is over.
    fn handle(&mut self, text: &str, link: &mut Link) -> Result<bool, Break> {
        match ServerLine::parse(text) {
            ServerLine::NewGame(id) => {
                (self.log)(&format!("posted game {id}; waiting for a challenger"));
                self.pending = Some(id);
            }
            ServerLine::JoinPending(id) => {
                (self.log)(&format!("asked to join game {id}; waiting for its poster"));
                self.pending = Some(id);
            }
            ServerLine::ChallengeRequested(id) if self.pending == Some(id) => {
                (self.log)(&format!("challenge for game {id}: accepting"));
                link.send(&format!("join_game {id}"), self.log)
                    .map_err(Break::Dropped)?;
            }
            ServerLine::JoinGame {
                attacker,
                defender,
                board,
                clock,
            } => self.on_game_start(&attacker, &defender, board, clock)?,
            ServerLine::Play { id, side, from, to } => {
                self.on_server_move(id, side, &from, &to, link)?
            }
            ServerLine::GameTime(ms) => {
                if let Some(cur) = &mut self.current {
                    cur.clock_ms = Some(ms);
                }
            }
            ServerLine::GenerateMove { id, side } => self.on_move_asked(id, side, link)?,
            ServerLine::Resume(resumed)
                if self.current.as_ref().is_some_and(|c| c.id == resumed.id) =>
            {
                self.rebuild(&resumed)?;
                let our_turn = self
                    .current
                    .as_ref()
                    .is_some_and(|c| c.ours == self.engine.game().side_to_move());
                if our_turn {
                    self.move_now(link)?;
                }
            }
            ServerLine::Refused { command, why } if command == "game" => {
                self.on_move_refused(&why, link)?
            }
            ServerLine::Refused { command, why } if command == "join_game_pending" => {
                return Err(Break::Fatal(format!("cannot join that game: {why}")));
            }
            ServerLine::RequestDraw { id, side } => self.on_draw_offer(id, side, link)?,
            ServerLine::Resign { id, side } => {
                if let Some(cur) = &self.current {
                    if cur.id == id && side != cur.ours {
                        (self.log)(&format!("the {} resign", Side::name(side)));
                    }
                }
            }
            ServerLine::GameOver { id, winner } => {
                return Ok(self.finish(id, Some(winner)));
            }
            ServerLine::Draw(accepted) => {
                if let Some(id) = self.current.as_ref().map(|c| c.id) {
                    if accepted {
                        return Ok(self.finish(id, None));
                    }
                    (self.log)("draw declined");
                }
            }
            _ => {}
        }
        Ok(false)
    }

    /// Our game `id` no longer matches the server's: ask for the whole game
    /// (`rebuild` follows), and move only once it has come.
    fn resync(&mut self, id: u128, link: &mut Link) -> Result<(), Break> {
        if let Some(cur) = &mut self.current {
            cur.resyncing = true;
        }
        link.send(&format!("resume_game_json {id}"), self.log)
            .map_err(Break::Dropped)
    }

    /// The game we posted or joined starts.
    fn on_game_start(
        &mut self,
        attacker: &str,
        defender: &str,
        board: usize,
        clock: Clock,
    ) -> Result<(), Break> {
        let Some(id) = self.pending.take() else {
            return Ok(());
        };
        let me = &self.settings.username;
        let ours = if me == attacker {
            Side::Attackers
        } else if me == defender {
            Side::Defenders
        } else {
            return Err(Break::Fatal(format!(
                "game {id} started between {attacker} and {defender}, not us"
            )));
        };
        let rules = rules_for_board(board).map_err(Break::Fatal)?;
        self.engine.set_game(Game::new(rules));
        self.engine.clear_hash();
        (self.log)(&format!(
            "game {id} starts: {attacker} (attackers) against {defender} (defenders), {board}x{board}, clock {clock}; we are the {}",
            Side::name(ours)
        ));
        let clock_ms = match clock {
            Clock::Fischer { ms, .. } => Some([ms as i64, ms as i64]),
            Clock::Untimed => None,
        };
        self.current = Some(Current {
            id,
            ours,
            board,
            clock,
            clock_ms,
            refused: Vec::new(),
            last_score: None,
            resyncing: false,
        });
        Ok(())
    }

    /// The opponent's move in game `id`.
    fn on_server_move(
        &mut self,
        id: u128,
        side: Side,
        from: &str,
        to: &str,
        link: &mut Link,
    ) -> Result<(), Break> {
        let Some(cur) = &self.current else {
            return Ok(());
        };
        if cur.id != id || side == cur.ours {
            return Ok(());
        }
        let board = cur.board;
        let played = parse_move(from, to, board).and_then(|mv| self.engine.play(mv).map(|_| mv));
        match played {
            Ok(mv) => (self.log)(&format!(
                "ply {}: {} {mv}",
                self.engine.game().moves().len(),
                role_name(side)
            )),
            Err(e) => {
                (self.log)(&format!(
                    "the server's move {from}-{to} is not legal in our game ({e}): asking for the whole game"
                ));
                self.resync(id, link)?;
            }
        }
        Ok(())
    }

    /// The server asks for our move in game `id`.
    fn on_move_asked(&mut self, id: u128, side: Side, link: &mut Link) -> Result<(), Break> {
        let ours = matches!(&self.current, Some(c) if c.id == id && c.ours == side && !c.resyncing);
        if !ours {
            return Ok(());
        }
        let game = self.engine.game();
        if game.outcome().is_none() && game.side_to_move() != side {
            // A move we never heard of: fetch the game, then move.
            (self.log)(
                "asked to move while our game has the other side to move: asking for the whole game",
            );
            self.resync(id, link)
        } else {
            self.move_now(link)
        }
    }

    /// The server refused our last move: take it back, never offer it again
    /// here, and fetch the game.
    fn on_move_refused(&mut self, why: &str, link: &mut Link) -> Result<(), Break> {
        let Some(cur) = &mut self.current else {
            return Ok(());
        };
        (self.log)(&format!(
            "the server refused our move: {why}; asking for the whole game"
        ));
        let mut game = self.engine.game().clone();
        if let Some(last) = game.undo() {
            cur.refused.push(last);
            self.engine.set_game(game);
        }
        let id = cur.id;
        self.resync(id, link)
    }

    /// The opponent offers a draw in game `id`.
    fn on_draw_offer(&mut self, id: u128, side: Side, link: &mut Link) -> Result<(), Break> {
        let Some(cur) = &self.current else {
            return Ok(());
        };
        if cur.id != id || side == cur.ours {
            return Ok(());
        }
        let plies = self.engine.game().moves().len() as u32;
        let limit = self.engine.rules().options().ply_limit;
        if accept_draw(cur.last_score, plies, limit) {
            (self.log)(&format!("the {} offer a draw: accepting", Side::name(side)));
            link.send(&format!("draw {id} accept"), self.log)
                .map_err(Break::Dropped)?;
        } else {
            // Not answered: the 6.4.1 server drops the whole game on
            // `draw <id> decline`, so a refusal is silence.
            (self.log)(&format!(
                "the {} offer a draw: not accepted (score {})",
                Side::name(side),
                cur.last_score
                    .map_or("-".into(), |s| Score::from_search(s).to_string())
            ));
        }
        Ok(())
    }

    /// Ends the current game; `true` when no more games are wanted.
    fn finish(&mut self, id: u128, winner: Option<Side>) -> bool {
        let Some(cur) = self.current.take_if(|c| c.id == id) else {
            return false;
        };
        let report = GameReport {
            id,
            ours: cur.ours,
            winner,
            plies: self.engine.game().moves().len(),
        };
        (self.log)(&format!("result: {report}"));
        // A check of our rules against the server's: after a move that
        // ended the game, both must name the same winner.
        let ours = self.engine.game().outcome();
        (self.log)(&match ours {
            Some(o) if o.winner == winner => format!("our rules agree: {o}"),
            Some(o) => format!(
                "RULES DIFFER: our game says {o}, the server {}",
                winner.map_or("a draw", Side::name)
            ),
            None => "our rules play on here: the game ended by resignation, agreement or the clock"
                .into(),
        });
        self.reports.push(report);
        self.need_offer = true;
        self.reports.len() >= self.games_wanted()
    }

    /// Rebuilds our game from the server's move list.
    fn rebuild(&mut self, resumed: &ResumedGame) -> Result<(), Break> {
        let rules = rules_for_board(resumed.board).map_err(Break::Fatal)?;
        let mut game = Game::new(rules);
        for (i, (from, to)) in resumed.moves.iter().enumerate() {
            let mv = parse_move(from, to, resumed.board).and_then(|mv| game.play(mv).map(|_| mv));
            if let Err(e) = mv {
                return Err(Break::Fatal(format!(
                    "the server's game {} has a move we cannot follow (ply {}, {from}-{to}: {e})",
                    resumed.id,
                    i + 1
                )));
            }
        }
        let plies = game.moves().len();
        let before = self.engine.game().moves().len();
        self.engine.set_game(game);
        if let Some(cur) = &mut self.current {
            cur.resyncing = false;
            if resumed.clock_ms.is_some() {
                cur.clock_ms = resumed.clock_ms;
            }
            if plies != before {
                cur.refused.clear();
            }
        }
        (self.log)(&format!(
            "game {} resumed from the server: {plies} plies",
            resumed.id
        ));
        Ok(())
    }

    /// Resigns the current game, saying why in the log.
    fn resign(&mut self, link: &mut Link, why: &str) -> Result<(), Break> {
        let Some(cur) = &self.current else {
            return Ok(());
        };
        let line = format!("game {} play {} resigns _", cur.id, role_name(cur.ours));
        (self.log)(&format!("{why}: resigning"));
        link.send(&line, self.log).map_err(Break::Dropped)
    }

    /// Searches and sends our move (or our resignation).
    fn move_now(&mut self, link: &mut Link) -> Result<(), Break> {
        let Some(cur) = &self.current else {
            return Ok(());
        };
        let (id, ours) = (cur.id, cur.ours);
        let game = self.engine.game();
        let clock = match (cur.clock, cur.clock_ms) {
            (Clock::Fischer { add_s, .. }, Some(ms)) => HostClock::Fischer {
                remaining_ms: ms.map(|t| t.max(1) as u64),
                increment_ms: [add_s.saturating_mul(1000); 2],
            },
            _ => HostClock::Untimed {
                move_ms: self.settings.move_time_ms,
            },
        };
        let limits = match self.settings.nodes {
            Some(n) => Limits::nodes(n),
            None => clock.limits(ours),
        };
        let Some(limits) = play::avoiding_refused(limits, game, &cur.refused) else {
            return self.resign(link, "no move left to play here");
        };
        let mut playable = game.playable_moves();
        playable.retain(|m| !cur.refused.contains(m));
        let started = Instant::now();
        let over = game.outcome().is_some();
        let mv = if over {
            // Our rules say the game is over where the server's do not:
            // any move it accepts beats none.
            (self.log)("our game is over but the server asks for a move: sending a legal one");
            playable[0]
        } else {
            let result = self.engine.search(limits);
            if let Some(cur) = &mut self.current {
                cur.last_score = Some(result.score);
            }
            let Some(mv) = result.best.filter(|m| playable.contains(m)) else {
                return Err(Break::Fatal("the search found no move".into()));
            };
            (self.log)(&format!(
                "ply {}: {} {mv} (depth {}, score {}, {} nodes, {} ms)",
                self.engine.game().moves().len() + 1,
                role_name(ours),
                result.depth,
                Score::from_search(result.score),
                result.nodes,
                started.elapsed().as_millis()
            ));
            if should_resign(result.score) {
                return self.resign(link, "the search sees a forced loss");
            }
            mv
        };
        self.engine
            .play(mv)
            .map_err(|e| Break::Fatal(format!("our own move {mv}: {e}")))?;
        link.send(
            &format!(
                "game {id} play {} {} {}",
                role_name(ours),
                mv.from(),
                mv.to()
            ),
            self.log,
        )
        .map_err(Break::Dropped)
    }
}

/// Connects, plays the games the settings ask for, and logs to stderr.
pub fn run(settings: BotSettings) -> Result<Vec<GameReport>, String> {
    let mut log = |line: &str| eprintln!("hnefatafl-bot: {line}");
    Bot::new(settings, &mut log)?.run()
}
