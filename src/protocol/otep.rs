//! `konakis otep`: the OpenTafl Engine Protocol, so that Konakis plays and
//! analyses inside the OpenTafl GUI (or any OTEP host).
//!
//! The host sends `rules` at once and expects `hello` within 5 seconds;
//! `position`/`side` set up analysis; `opponent-move` + `clock` + `play`
//! ask for a move (`clock` may come before or after `play`); `move
//! <record>` acknowledges ours; `error 1|2` rejects it (the host then
//! re-sends the opponent move and `play`); `analyze n s` asks for the n best
//! moves; `finish` and `goodbye` end the game and the process. Rules that
//! Konakis cannot play are refused (`status` + `error 0`) at the first
//! `play` or `analyze`, never at `rules`.

use super::{InputLine, Output};
use crate::play::{self, HostClock};
use crate::rules::otn::parse_otn_rules;
use crate::rules::{parse_record, Move, Side, StartPoint};
use crate::search::{Engine, Info, Limits, Score, SearchId, SearchResult};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// Settings of `konakis otep`.
#[derive(Clone, Debug)]
pub struct OtepSettings {
    /// Time per move when the host sends no clock.
    pub untimed_move_ms: u64,
    pub threads: usize,
    pub hash_mib: usize,
}

impl Default for OtepSettings {
    fn default() -> Self {
        OtepSettings {
            untimed_move_ms: 3000,
            threads: 1,
            hash_mib: 64,
        }
    }
}

enum Event {
    Line(String),
    /// A line that is not UTF-8 text, shown escaped.
    NotText(String),
    Eof,
    Done(SearchResult),
}

fn input_event(input: InputLine) -> Event {
    match input {
        InputLine::Text(text) => Event::Line(text),
        InputLine::NotText(shown) => Event::NotText(shown),
    }
}

/// What the current search is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Play,
    Analyze(usize),
}

struct Clock {
    /// Remaining ms of attackers and defenders, and whether each is in overtime.
    ms: [u64; 2],
    overtime: [bool; 2],
    overtime_secs: u64,
    overtimes: [u32; 2],
}

struct OtepSession {
    out: Output,
    settings: OtepSettings,
    /// Owns the rules and the game.
    engine: Engine,
    clock: Option<Clock>,
    /// Our move, sent and not yet acknowledged.
    pending: Option<Move>,
    /// Moves the host rejected in the current position.
    rejected: Vec<Move>,
    /// The current search and what it is for; a result of any other search
    /// (one stopped by a later command) is dropped.
    searching: Option<(SearchId, Purpose)>,
    /// Why the host's last `rules` cannot be played. OpenTafl crashes on
    /// any `error` (or `status`) that arrives before its game screen is
    /// attached, which is when it sends `rules`; so the refusal waits for
    /// the first `play` or `analyze`, and everything about the board is
    /// ignored meanwhile.
    refused_rules: Option<String>,
    events: Sender<Event>,
}

fn side_word(s: &str) -> Option<Side> {
    match s {
        "attackers" => Some(Side::Attackers),
        "defenders" => Some(Side::Defenders),
        _ => None,
    }
}

/// Scores for `analysis`: centi-soldiers; wins and losses as ±10000.
fn analysis_eval(score: i32) -> i32 {
    Score::from_search(score).cp_or(10_000)
}

impl OtepSession {
    fn send(&self, line: &str) {
        self.out.line(line);
    }

    fn status(&self, text: &str) {
        self.send(&format!("status {text}"));
    }

    /// Rebuilds the game from a position record with the given side to move.
    fn reset_to(&mut self, record: &str, side: Side) -> Result<(), String> {
        let start = StartPoint::Position {
            setup: parse_record(record)?,
            side,
            plies_since_capture: 0,
            ply: 0,
        };
        self.stop_search();
        self.engine.set_position::<&str>(&start, &[])?;
        self.rejected.clear();
        Ok(())
    }

    /// The board record of the current position.
    fn board_record(&self) -> String {
        let size = self.engine.rules().size();
        self.engine.position().setup(size).record()
    }

    fn same_board(&self, record: &str) -> bool {
        let size = self.engine.rules().size();
        match parse_record(record) {
            Ok(setup) => setup == self.engine.position().setup(size),
            Err(_) => false,
        }
    }

    fn stop_search(&mut self) {
        if self.searching.take().is_some() {
            self.engine.stop();
            self.engine.wait();
        }
    }

    fn start_search(&mut self, purpose: Purpose, limits: Limits) {
        self.stop_search();
        let lines = match purpose {
            Purpose::Analyze(n) => n.max(1),
            Purpose::Play => 1,
        };
        if let Err(e) = self.engine.set_option("MultiPV", Some(&lines.to_string())) {
            self.status(&format!("error {e}"));
        }
        let tx = self.events.clone();
        let out = self.out.clone();
        let started = self.engine.go(
            limits,
            Box::new(move |info: &Info| {
                if info.multipv == 1 && info.bound.is_none() {
                    let pv: Vec<String> = info.pv.iter().take(6).map(|m| m.to_string()).collect();
                    out.line(&format!(
                        "status depth {} score {} nodes {} pv {}",
                        info.depth,
                        crate::search::Score::from_search(info.score),
                        info.nodes,
                        pv.join(" ")
                    ));
                }
            }),
            Box::new(move |r: &SearchResult| {
                let _ = tx.send(Event::Done(r.clone()));
            }),
        );
        match started {
            Ok(id) => self.searching = Some((id, purpose)),
            Err(e) => {
                self.status(&format!("error {e}"));
                if purpose == Purpose::Play {
                    self.send("error -1 the engine cannot search");
                }
            }
        }
    }

    /// The side to move has no move. Not `error -1`: OpenTafl 0.4.8.0b
    /// takes it as a resignation but names the resigning side the winner
    /// (tried: Brandub, "Defenders win!" with the defenders boxed in).
    /// A non-critical error leaves the game waiting for a move that never
    /// comes, so a timed game is lost on time by the side that is stuck,
    /// as the rules would have it; the status line says why.
    fn no_move(&mut self) {
        let side = self.engine.game().side_to_move();
        self.status(&format!(
            "no legal move: the {} have no move and lose by the rules",
            side.name()
        ));
        self.send(&format!(
            "error 0 no legal move: the {} have no move and lose",
            side.name()
        ));
    }

    fn play_limits(&self) -> Limits {
        let side = self.engine.game().side_to_move();
        let clock = match &self.clock {
            None => HostClock::Untimed {
                move_ms: self.settings.untimed_move_ms,
            },
            Some(c) => HostClock::Overtime {
                remaining_ms: c.ms,
                in_overtime: c.overtime,
                periods_left: c.overtimes,
                period_ms: c.overtime_secs.saturating_mul(1000),
            },
        };
        let limits = clock.limits(side);
        // With every move rejected the search plays the first it finds
        // and the host answers again.
        play::avoiding_refused(limits.clone(), self.engine.game(), &self.rejected).unwrap_or(limits)
    }

    /// Handles one host line; returns false when the session ends.
    fn handle_line(&mut self, line: &str) -> bool {
        let line = line.trim();
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        match cmd {
            "" => {}
            "rules" => self.on_rules(rest),
            "play" | "analyze" if self.refused_rules.is_some() => self.refuse(cmd),
            "position" | "side" | "clock" | "opponent-move" | "move" | "error"
                if self.refused_rules.is_some() => {}
            "position" => {
                let side = self.engine.game().side_to_move();
                if let Err(e) = self.reset_to(rest, side) {
                    self.send(&format!("error 0 bad position: {e}"));
                }
            }
            "side" => self.on_side(rest),
            "clock" => self.on_clock(rest),
            "opponent-move" => self.on_opponent_move(rest),
            "play" => self.on_play(rest),
            "move" => self.on_move_accepted(rest),
            "error" => {
                // 1: wrong side, 2: illegal move. The host re-sends the
                // opponent's move and `play`.
                if let Some(mv) = self.pending.take() {
                    self.rejected.push(mv);
                }
            }
            "analyze" => self.on_analyze(rest),
            "finish" => {
                self.stop_search();
                self.pending = None;
            }
            "goodbye" => {
                self.stop_search();
                return false;
            }
            "hello" | "status" | "simple-moves" => {}
            other => self.send(&format!("error 0 unknown command '{other}'")),
        }
        true
    }

    fn on_rules(&mut self, rest: &str) {
        self.stop_search();
        self.pending = None;
        self.rejected.clear();
        match parse_otn_rules(rest) {
            Ok(r) => {
                self.engine.set_rules(r);
                self.refused_rules = None;
            }
            Err(e) => self.refused_rules = Some(e),
        }
    }

    /// `play` or `analyze` under rules Konakis cannot play: a non-critical
    /// error, which OpenTafl shows and carries on. Not `error -1`: OpenTafl
    /// 0.4.8.0b ends the game on it but names the resigning side the
    /// winner. The game waits for a move that never comes (a timed game is
    /// lost on time).
    fn refuse(&mut self, cmd: &str) {
        let reason = self.refused_rules.clone().unwrap_or_default();
        let verb = if cmd == "play" { "play" } else { "analyse" };
        let text = format!("Konakis cannot {verb} these rules: {reason}");
        self.status(&text);
        self.send(&format!("error 0 {text}"));
        if cmd == "analyze" {
            self.send("analysis 0");
        }
    }

    fn on_side(&mut self, rest: &str) {
        match side_word(rest) {
            Some(side) => {
                // Whatever ran was for the other side or the old board.
                self.stop_search();
                if side != self.engine.game().side_to_move() {
                    let record = self.board_record();
                    if let Err(e) = self.reset_to(&record, side) {
                        self.send(&format!("error 0 {e}"));
                    }
                }
            }
            None => self.send(&format!("error 0 bad side '{rest}'")),
        }
    }

    /// `clock <a>[*] <d>[*] <overtime s> <a periods> <d periods>`; `*` marks
    /// a side in overtime.
    fn on_clock(&mut self, rest: &str) {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        let time = |s: &str| -> Option<(u64, bool)> {
            let over = s.ends_with('*');
            let v: i64 = s.trim_end_matches('*').parse().ok()?;
            Some((v.max(0) as u64, over))
        };
        if parts.len() >= 2 {
            if let (Some(a), Some(d)) = (time(parts[0]), time(parts[1])) {
                self.clock = Some(Clock {
                    ms: [a.0, d.0],
                    overtime: [a.1, d.1],
                    overtime_secs: parts.get(2).and_then(|s| s.parse().ok()).unwrap_or(0),
                    overtimes: [
                        parts.get(3).and_then(|s| s.parse().ok()).unwrap_or(0),
                        parts.get(4).and_then(|s| s.parse().ok()).unwrap_or(0),
                    ],
                });
            }
        }
    }

    fn on_opponent_move(&mut self, rest: &str) {
        self.stop_search();
        self.pending = None;
        let (moves, record) = rest.rsplit_once(' ').unwrap_or((rest, ""));
        if !record.is_empty() && self.same_board(record) {
            // A re-send after `error`: we already have this board; keep the
            // list of rejected moves.
            return;
        }
        let mut synced = true;
        for m in moves.split('|').filter(|m| !m.is_empty()) {
            if self.engine.play_text(m).is_err() {
                synced = false;
                break;
            }
        }
        if !synced || (!record.is_empty() && !self.same_board(record)) {
            // Trust the host's board.
            let side = self.engine.game().side_to_move();
            if let Err(e) = self.reset_to(record, side) {
                self.send(&format!("error 0 bad opponent-move: {e}"));
            }
        } else {
            self.rejected.clear();
        }
    }

    fn on_play(&mut self, rest: &str) {
        let Some(side) = side_word(rest) else {
            self.send(&format!("error 0 bad side '{rest}'"));
            return;
        };
        if side != self.engine.game().side_to_move() {
            let record = self.board_record();
            if let Err(e) = self.reset_to(&record, side) {
                self.send(&format!("error 0 {e}"));
                return;
            }
        }
        if self.engine.game().playable_moves().is_empty() {
            self.no_move();
            return;
        }
        if let Some(outcome) = self.engine.game().outcome() {
            // Our rules end the game where OpenTafl's play on. The search
            // does not search a finished game, so there is no move to give;
            // said without `error -1` (see `no_move`).
            let text = format!("the game is over by these rules: {outcome}");
            self.status(&text);
            self.send(&format!("error 0 {text}"));
            return;
        }
        let limits = self.play_limits();
        self.start_search(Purpose::Play, limits);
    }

    /// Our move was accepted; `rest` is the board after it.
    fn on_move_accepted(&mut self, rest: &str) {
        self.stop_search();
        if let Some(mv) = self.pending.take() {
            let _ = self.engine.play(mv);
        }
        if !self.same_board(rest) {
            let side = self.engine.game().side_to_move();
            if let Err(e) = self.reset_to(rest, side) {
                self.send(&format!("error 0 bad move acknowledgement: {e}"));
            }
        }
        self.rejected.clear();
    }

    /// `analyze <lines> <seconds>`.
    fn on_analyze(&mut self, rest: &str) {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        let n: usize = parts
            .first()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1)
            .clamp(1, 16);
        let secs: u64 = parts
            .get(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(5)
            .clamp(1, 3600);
        if self.engine.game().outcome().is_some() {
            self.send("analysis 0");
            return;
        }
        let limits = Limits::move_time(secs.saturating_mul(1000));
        self.start_search(Purpose::Analyze(n), limits);
    }

    fn on_done(&mut self, result: SearchResult) {
        let purpose = match self.searching {
            Some((id, purpose)) if id == result.id => {
                self.searching = None;
                Some(purpose)
            }
            // A search stopped by a later command: its result is stale.
            _ => None,
        };
        match purpose {
            Some(Purpose::Play) => match result.best {
                Some(mv) => {
                    self.pending = Some(mv);
                    self.send(&format!("move {mv}"));
                }
                None => self.no_move(),
            },
            Some(Purpose::Analyze(n)) => {
                let mut parts = Vec::new();
                for line in result.lines.iter().take(n) {
                    let moves: Vec<String> = line.pv.iter().map(|m| m.to_string()).collect();
                    parts.push(format!("{} {}", moves.join("|"), analysis_eval(line.score)));
                }
                if parts.is_empty() {
                    if let Some(b) = result.best {
                        parts.push(format!("{b} {}", analysis_eval(result.score)));
                    }
                }
                self.send(&format!("analysis {} {}", parts.len(), parts.join(" ")));
            }
            None => {}
        }
    }
}

/// Runs `konakis otep` on stdin/stdout. Fails (before saying `hello`)
/// when the settings cannot be applied.
pub fn run_stdio(settings: OtepSettings) -> Result<(), String> {
    let mut engine = Engine::new();
    engine.set_option("Threads", Some(&settings.threads.to_string()))?;
    engine.set_option("Hash", Some(&settings.hash_mib.to_string()))?;
    let out = Output::stdout();
    let (tx, rx) = channel::<Event>();
    if !super::spawn_stdin_reader(tx.clone(), input_event, Some(Event::Eof)) {
        return Err("cannot start the input thread".into());
    }
    run(settings, engine, out, tx, rx);
    Ok(())
}

/// The session loop over an event channel (stdin lines and search results).
fn run(
    settings: OtepSettings,
    engine: Engine,
    out: Output,
    tx: Sender<Event>,
    rx: Receiver<Event>,
) {
    let mut s = OtepSession {
        out,
        settings,
        engine,
        clock: None,
        pending: None,
        rejected: Vec::new(),
        searching: None,
        refused_rules: None,
        events: tx,
    };
    s.send("hello");
    let mut deferred: Vec<String> = Vec::new();
    loop {
        let event = if let Some(l) = deferred.pop() {
            Event::Line(l)
        } else {
            match rx.recv() {
                Ok(e) => e,
                Err(_) => break,
            }
        };
        match event {
            Event::Line(l) => {
                if l.trim_start().starts_with("play") {
                    // Give a `clock` line sent right after `play` a moment
                    // to arrive, and apply it first.
                    let mut later = Vec::new();
                    loop {
                        match rx.recv_timeout(Duration::from_millis(15)) {
                            Ok(Event::Line(next)) => {
                                if next.trim_start().starts_with("clock") {
                                    s.handle_line(&next);
                                    break;
                                }
                                later.push(next);
                                break;
                            }
                            Ok(Event::Done(r)) => s.on_done(r),
                            Ok(Event::NotText(shown)) => {
                                s.send(&format!("error 0 {}", InputLine::not_text_error(&shown)));
                                break;
                            }
                            Ok(Event::Eof) => {
                                later.push("goodbye".into());
                                break;
                            }
                            Err(RecvTimeoutError::Timeout)
                            | Err(RecvTimeoutError::Disconnected) => break,
                        }
                    }
                    if !s.handle_line(&l) {
                        return;
                    }
                    later.reverse();
                    deferred.extend(later);
                } else if !s.handle_line(&l) {
                    return;
                }
            }
            Event::Done(r) => s.on_done(r),
            Event::NotText(shown) => {
                s.send(&format!("error 0 {}", InputLine::not_text_error(&shown)))
            }
            Event::Eof => {
                s.stop_search();
                return;
            }
        }
    }
}
