//! `konakis tablut-challenge`: a player for the University of Bologna's
//! Tablut Challenge server (AGalassi/TablutCompetition), Ashton rules.
//!
//! The wire: every message is a 4-byte big-endian length and that many bytes
//! of UTF-8 JSON. The client first sends its name as a JSON string. The
//! server sends states `{"board": [[…9 × "EMPTY"|"WHITE"|"BLACK"|"KING"|
//! "THRONE"]…], "turn": "WHITE"|"BLACK"|"WHITEWIN"|"BLACKWIN"|"DRAW"}`, where
//! `board[r][c]` is rank r+1, file c; a move is `{"from":"e3","to":"f3",
//! "turn":"WHITE"}`. After each move both players receive the new state (the
//! mover its own echo first). White is the defenders, Black the attackers.
//!
//! The client keeps its own game: each state is reached from the last by one
//! legal move, which it plays, so the engine sees repetitions exactly as the
//! server (which draws at the first recurrence) does. A state that no move
//! explains resets the game to that board. The game ends with an end state
//! or when the server closes the connection (as it does after a timeout).

use crate::play::HostClock;
use crate::rules::{parse_record, Game, Move, Preset, Rules, Side, StartPoint};
use crate::search::Engine;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The largest message accepted (a state is about 1 KB).
const MAX_MESSAGE: usize = 1 << 20;

/// Settings of `konakis tablut-challenge`.
#[derive(Clone, Debug)]
pub struct ChallengeSettings {
    /// Our side: White (defenders) or Black (attackers).
    pub side: Side,
    pub name: String,
    /// The server's time per move, in seconds.
    pub timeout_s: u64,
    pub host: String,
    /// The port; by default 5800 for White, 5801 for Black.
    pub port: Option<u16>,
    pub threads: usize,
    pub hash_mib: usize,
}

impl ChallengeSettings {
    pub fn new(side: Side) -> ChallengeSettings {
        ChallengeSettings {
            side,
            name: crate::ENGINE_NAME.into(),
            timeout_s: 60,
            host: "localhost".into(),
            port: None,
            threads: 1,
            hash_mib: 256,
        }
    }

    fn port(&self) -> u16 {
        self.port.unwrap_or(match self.side {
            Side::Defenders => 5800,
            Side::Attackers => 5801,
        })
    }

    /// The time we think per move: the server's budget less a margin for
    /// its polling (about once a second) and the network, never below half
    /// the budget.
    pub fn think_time(&self) -> Duration {
        self.clock()
            .limits(self.side)
            .move_time
            .unwrap_or(Duration::from_secs(1))
    }

    /// The server's clock: a fixed time a move, 2.5 s of it kept for the
    /// server's polling and the network.
    pub fn clock(&self) -> HostClock {
        HostClock::PerMove {
            budget_ms: self.timeout_s.max(1).saturating_mul(1000),
            margin_ms: 2500,
        }
    }
}

/// The server's name of a side.
pub fn color(side: Side) -> &'static str {
    match side {
        Side::Defenders => "WHITE",
        Side::Attackers => "BLACK",
    }
}

/// How a game ended, as the server said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    WhiteWins,
    BlackWins,
    Draw,
    /// The server closed the connection without a final state: it does
    /// so when a player runs out of time or breaks the rules (its log
    /// names the loser).
    Closed,
}

impl Ending {
    /// One line for stderr, from our side's point of view.
    pub fn describe(self, ours: Side) -> String {
        let (text, winner) = match self {
            Ending::WhiteWins => ("White (defenders) wins", Some(Side::Defenders)),
            Ending::BlackWins => ("Black (attackers) wins", Some(Side::Attackers)),
            Ending::Draw => ("draw", None),
            Ending::Closed => {
                return format!(
                    "result: the server closed the connection without a result (a player's timeout or illegal move ends a game so; the server's log names the loser); we played {}",
                    color(ours)
                )
            }
        };
        let verdict = match winner {
            None => "a draw",
            Some(w) if w == ours => "we won",
            Some(_) => "we lost",
        };
        format!("result: {text}; we played {}: {verdict}", color(ours))
    }
}

/// A state the server sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerState {
    /// The board as a position record (rank 1 first).
    pub record: String,
    pub turn: Turn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    ToMove(Side),
    Over(Ending),
}

/// Reads a state message.
pub fn parse_state(text: &str) -> Result<ServerState, String> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| format!("the server sent bad JSON ({e}): {}", short(text)))?;
    let turn = match v.get("turn").and_then(Value::as_str) {
        Some("WHITE") => Turn::ToMove(Side::Defenders),
        Some("BLACK") => Turn::ToMove(Side::Attackers),
        Some("WHITEWIN") => Turn::Over(Ending::WhiteWins),
        Some("BLACKWIN") => Turn::Over(Ending::BlackWins),
        Some("DRAW") => Turn::Over(Ending::Draw),
        _ => {
            return Err(format!(
                "the server's state has no valid 'turn': {}",
                short(text)
            ))
        }
    };
    let rows = v
        .get("board")
        .and_then(Value::as_array)
        .filter(|rows| rows.len() == 9)
        .ok_or_else(|| format!("the server's state has no 9x9 'board': {}", short(text)))?;
    let mut record = String::from("/");
    for row in rows {
        let cells = row
            .as_array()
            .filter(|c| c.len() == 9)
            .ok_or_else(|| format!("a board row is not 9 squares: {}", short(text)))?;
        let mut empty = 0;
        for cell in cells {
            let piece = match cell.as_str() {
                Some("EMPTY") | Some("THRONE") => None,
                Some("WHITE") => Some('T'),
                Some("BLACK") => Some('t'),
                Some("KING") => Some('K'),
                _ => return Err(format!("unknown square {cell} in the server's board")),
            };
            match piece {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        record.push_str(&empty.to_string());
                        empty = 0;
                    }
                    record.push(p);
                }
            }
        }
        if empty > 0 {
            record.push_str(&empty.to_string());
        }
        record.push('/');
    }
    Ok(ServerState { record, turn })
}

/// The message for one of our moves.
pub fn move_message(mv: Move, side: Side) -> String {
    json!({
        "from": mv.from().to_string(),
        "to": mv.to().to_string(),
        "turn": color(side),
    })
    .to_string()
}

fn short(text: &str) -> String {
    let t: String = text.chars().take(120).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// Writes one framed message.
pub fn write_message(w: &mut impl Write, text: &str) -> std::io::Result<()> {
    let bytes = text.as_bytes();
    w.write_all(&(bytes.len() as u32).to_be_bytes())?;
    w.write_all(bytes)?;
    w.flush()
}

/// Reads one framed message; `Ok(None)` when the connection closed before
/// a new message began.
pub fn read_message(r: &mut impl Read) -> Result<Option<String>, String> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err("the connection closed inside a message".into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("reading from the server: {e}")),
        }
    }
    let n = u32::from_be_bytes(len) as usize;
    if n > MAX_MESSAGE {
        return Err(format!("the server announced a message of {n} bytes"));
    }
    let mut buf = vec![0u8; n];
    r.read_exact(&mut buf)
        .map_err(|e| format!("the connection closed inside a message: {e}"))?;
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| "the server sent a message that is not UTF-8".into())
}

/// Connects to the server and plays one game; returns how it ended.
pub fn run(settings: &ChallengeSettings) -> Result<Ending, String> {
    let addr = format!("{}:{}", settings.host, settings.port());
    let stream = TcpStream::connect(&addr).map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let _ = stream.set_nodelay(true);
    eprintln!(
        "connected to {addr} as {} ({})",
        settings.name,
        color(settings.side)
    );
    play(stream, settings, |line| eprintln!("{line}"))
}

/// Plays one game over an open connection (a socket, or a test's pipe).
pub fn play<S: Read + Write>(
    mut stream: S,
    settings: &ChallengeSettings,
    mut log: impl FnMut(&str),
) -> Result<Ending, String> {
    let mut engine = Engine::new();
    engine.set_option("Threads", Some(&settings.threads.to_string()))?;
    engine.set_option("Hash", Some(&settings.hash_mib.to_string()))?;
    let rules = Rules::preset(Preset::Ashton);
    engine.set_game(Game::new(rules.clone()));
    write_message(
        &mut stream,
        &Value::String(settings.name.clone()).to_string(),
    )
    .map_err(|e| format!("sending our name: {e}"))?;
    loop {
        let Some(text) = read_message(&mut stream)? else {
            log(&Ending::Closed.describe(settings.side));
            return Ok(Ending::Closed);
        };
        let state = parse_state(&text)?;
        let to_move = match state.turn {
            Turn::Over(ending) => {
                log(&ending.describe(settings.side));
                return Ok(ending);
            }
            Turn::ToMove(side) => side,
        };
        follow(&mut engine, &rules, &state.record, to_move, &mut log)?;
        if to_move != settings.side {
            continue;
        }
        let started = Instant::now();
        let result = engine.search(settings.clock().limits(settings.side));
        let mv = match result.best {
            Some(mv) => mv,
            None => {
                // Our game says it is over (say, by a repetition the server
                // did not count) while the server asks for a move: any
                // legal move beats none.
                let mut moves = crate::rules::MoveList::new();
                engine.game().position().generate_moves(&rules, &mut moves);
                match moves.first() {
                    Some(&mv) => {
                        log("our game is over but the server asks for a move: sending a legal one");
                        mv
                    }
                    // No legal move: the server has no stalemate rule, we lose.
                    None => return Err("no legal move in this position: the game is lost".into()),
                }
            }
        };
        log(&format!(
            "ply {}: {mv} (depth {}, score {}, {} nodes, {} ms)",
            engine.game().moves().len() + 1,
            result.depth,
            crate::search::Score::from_search(result.score),
            result.nodes,
            started.elapsed().as_millis()
        ));
        write_message(&mut stream, &move_message(mv, settings.side))
            .map_err(|e| format!("sending our move: {e}"))?;
    }
}

/// Brings the engine's game to the server's board: by the one legal move
/// that leads there, or (when none does) by starting again from that board.
fn follow(
    engine: &mut Engine,
    rules: &Rules,
    record: &str,
    to_move: Side,
    log: &mut impl FnMut(&str),
) -> Result<(), String> {
    let setup = parse_record(record)?;
    let game = engine.game();
    let here = game.position();
    let size = rules.size();
    if here.setup(size) == setup && here.side_to_move() == to_move {
        return Ok(());
    }
    let found = game.legal_moves().into_iter().find(|&mv| {
        let next = here.make(rules, mv);
        next.setup(size) == setup && next.side_to_move() == to_move
    });
    if let Some(mv) = found {
        return engine.play(mv);
    }
    log(&format!(
        "the server's board {record} ({} to move) follows from no move here: starting from it",
        color(to_move)
    ));
    let start = StartPoint::Position {
        setup,
        side: to_move,
        plies_since_capture: 0,
        ply: 0,
    };
    engine.set_position::<&str>(&start, &[])
}
