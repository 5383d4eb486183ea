//! The tei session: applies typed commands to the engine, the rules and the
//! game, and formats the replies. stdin is read on its own thread, so
//! `isready`, `stop`, `ponderhit` and `quit` act while a search runs.

use super::command::{Command, GoSpec, PositionStart};
use super::Output;
use crate::rules::options::{
    Corners, Escape, Hostility, KingArmed, KingCapture, Repetition, Shieldwall, ThronePassage,
    RULE_OPTION_NAMES,
};
use crate::rules::otn::{otn_rules_string, parse_otn_rules};
use crate::rules::perft::{divide, Counting};
use crate::rules::{Game, Move, Preset, Rules, Side};
use crate::search::eval::breakdown;
use crate::search::{score_text, Engine, Info, Limits, SearchResult};
use std::sync::mpsc;
use std::time::Duration;

pub const ENGINE_NAME: &str = "Konakis";
pub const ENGINE_AUTHOR: &str = "the Konakis developers";

/// One protocol session.
pub struct Session {
    engine: Engine,
    rules: Rules,
    game: Game,
    out: Output,
    ponder: bool,
}

/// Formats an `info` line.
pub fn info_line(info: &Info) -> String {
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    let bound = match info.bound {
        Some(crate::search::tt::Bound::Lower) => " lowerbound",
        Some(crate::search::tt::Bound::Upper) => " upperbound",
        _ => "",
    };
    format!(
        "info depth {} seldepth {} multipv {} score {}{} nodes {} nps {} hashfull {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score_text(info.score),
        bound,
        info.nodes,
        info.nps,
        info.hashfull,
        info.time.as_millis(),
        pv.join(" ")
    )
}

/// Formats the `bestmove` line.
pub fn bestmove_line(result: &SearchResult) -> String {
    match (result.best, result.ponder) {
        (None, _) => "bestmove (none)".to_string(),
        (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
        (Some(b), None) => format!("bestmove {b}"),
    }
}

fn combo(name: &str, current: &str, vars: &[&str]) -> String {
    let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
    format!(
        "option name {name} type combo default {current} {}",
        vars.join(" ")
    )
}

fn check(name: &str, current: bool) -> String {
    format!("option name {name} type check default {current}")
}

fn spin(name: &str, current: impl std::fmt::Display, min: i64, max: i64) -> String {
    format!("option name {name} type spin default {current} min {min} max {max}")
}

fn parse_check(name: &str, v: &str) -> Result<bool, String> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("option {name} takes true or false, not '{v}'")),
    }
}

fn parse_spin(name: &str, v: &str, min: i64, max: i64) -> Result<i64, String> {
    match v.parse::<i64>() {
        Ok(x) if (min..=max).contains(&x) => Ok(x),
        _ => Err(format!(
            "option {name} takes a number from {min} to {max}, not '{v}'"
        )),
    }
}

impl Session {
    pub fn new(out: Output) -> Session {
        let rules = Rules::default();
        Session {
            engine: Engine::new(),
            game: Game::new(rules.clone()),
            rules,
            out,
            ponder: false,
        }
    }

    fn error(&self, msg: impl AsRef<str>) {
        self.out
            .line(&format!("info string error {}", msg.as_ref()));
    }

    /// Handles one input line; returns false on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        match line.parse::<Command>() {
            Ok(Command::Quit) => {
                self.engine.stop();
                self.engine.wait();
                false
            }
            Ok(cmd) => {
                if let Err(e) = self.handle(cmd) {
                    self.error(e);
                }
                true
            }
            Err(e) => {
                self.error(e);
                true
            }
        }
    }

    /// Stops and waits for a running search (its `bestmove` is printed).
    fn finish_search(&mut self) {
        if self.engine.is_searching() {
            self.engine.stop();
        }
        self.engine.wait();
    }

    fn handle(&mut self, cmd: Command) -> Result<(), String> {
        match cmd {
            Command::Empty => {}
            Command::Tei => {
                self.out.line(&format!(
                    "id name {ENGINE_NAME} {}",
                    env!("CARGO_PKG_VERSION")
                ));
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                for line in self.option_lines() {
                    self.out.line(&line);
                }
                self.out.line("teiok");
            }
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => {
                self.finish_search();
                self.set_option(&name, value.as_deref().unwrap_or(""))?;
            }
            Command::NewGame => {
                self.finish_search();
                self.engine.clear();
                self.game = Game::new(self.rules.clone());
            }
            Command::Position { start, moves } => {
                self.finish_search();
                self.game = self.build_game(&start, &moves)?;
            }
            Command::Go(spec) => {
                self.finish_search();
                self.go(spec)?;
            }
            Command::Stop => {
                self.engine.stop();
                self.engine.wait();
            }
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {}
            Command::Display => {
                self.finish_search();
                self.display();
            }
            Command::Result => self.out.line(&self.result_text()),
            Command::Moves => {
                let moves: Vec<String> = self
                    .game
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                self.out
                    .line(format!("moves {}", moves.join(" ")).trim_end());
            }
            Command::Perft(depth) => {
                self.finish_search();
                let pos = *self.game.position();
                let mut total = 0;
                for (mv, n) in divide(&pos, &self.rules, depth, Counting::Replies) {
                    self.out.line(&format!("{mv} {n}"));
                    total += n;
                }
                self.out.line(&format!("nodes {total}"));
            }
            Command::Eval => {
                let b = breakdown(self.game.position(), &self.rules);
                for (name, v) in [
                    ("material", b.material),
                    ("king-freedom", b.king_freedom),
                    ("king-distance", b.king_distance),
                    ("roads", b.roads),
                    ("two-move-escapes", b.two_move_escapes),
                    ("blockade", b.blockade),
                    ("king-exposure", b.king_exposure),
                    ("en-prise", b.en_prise),
                    ("mobility", b.mobility),
                    ("tempo", b.tempo),
                ] {
                    self.out.line(&format!("eval {name} {v}"));
                }
                let total = b.total();
                let stm = match self.game.side_to_move() {
                    Side::Defenders => total,
                    Side::Attackers => -total,
                };
                self.out.line(&format!(
                    "eval total {total} (defenders' view) {stm} (side to move)"
                ));
            }
            Command::Roads => {
                let roads = self.game.position().open_roads(&self.rules);
                let names: Vec<String> = roads.squares().map(|s| s.to_string()).collect();
                let call = match roads.count() {
                    0 => "none",
                    1 => "raichi",
                    _ => "tuichu",
                };
                self.out
                    .line(format!("roads {call} {}", names.join(" ")).trim_end());
            }
            Command::Bench(depth) => {
                self.finish_search();
                let out = self.out.clone();
                let (nodes, time) = crate::search::bench::run(
                    depth.unwrap_or(crate::search::bench::DEFAULT_DEPTH),
                    |l| {
                        out.line(&format!(
                            "info string bench position {} {} nodes {}",
                            l.index, l.preset, l.nodes
                        ));
                    },
                )?;
                let nps = (nodes as f64 / time.as_secs_f64().max(1e-9)) as u64;
                self.out
                    .line(&format!("info string bench {nodes} nodes {nps} nps"));
            }
        }
        Ok(())
    }

    fn result_text(&self) -> String {
        match self.game.outcome() {
            None => "result ongoing".to_string(),
            Some(o) => format!("result {o}"),
        }
    }

    fn display(&self) {
        let pos = self.game.position();
        for line in pos.diagram(&self.rules).lines() {
            self.out.line(line);
        }
        self.out
            .line(&format!("record {}", pos.record(&self.rules)));
        self.out
            .line(&format!("side {}", pos.side_to_move().name()));
        self.out.line(&format!("hash {:016x}", pos.hash()));
        self.out.line(&format!(
            "counters plies-since-capture {} ply {}",
            pos.plies_since_capture, pos.ply
        ));
        self.out.line(&format!("rules {}", self.rules.summary()));
        self.out.line(&self.result_text());
    }

    fn build_game(&self, start: &PositionStart, moves: &[String]) -> Result<Game, String> {
        let mut game = match start {
            PositionStart::StartPos => Game::new(self.rules.clone()),
            PositionStart::Record {
                record,
                side,
                plies_since_capture,
                ply,
            } => {
                let side: Side = side.parse()?;
                let count = |name: &str, v: &Option<String>| -> Result<u32, String> {
                    match v {
                        None => Ok(0),
                        Some(t) => t.parse().map_err(|_| format!("bad {name} '{t}'")),
                    }
                };
                Game::from_record(
                    self.rules.clone(),
                    record,
                    side,
                    count("plies-since-capture", plies_since_capture)?,
                    count("ply number", ply)?,
                )?
            }
        };
        for (i, m) in moves.iter().enumerate() {
            game.play_str(m)
                .map_err(|e| format!("move {} '{m}': {e}; position unchanged", i + 1))?;
        }
        Ok(game)
    }

    fn go(&mut self, spec: GoSpec) -> Result<(), String> {
        let size = self.rules.size();
        let mut search_moves = Vec::new();
        for m in &spec.search_moves {
            let mv = Move::parse(m, size)?;
            if !self.game.position().is_legal(&self.rules, mv) || self.game.outcome().is_some() {
                return Err(format!("searchmoves: '{m}' is not a legal move here"));
            }
            search_moves.push(mv);
        }
        let ms = Duration::from_millis;
        let mut limits = Limits {
            time: [spec.time[0].map(ms), spec.time[1].map(ms)],
            inc: [ms(spec.inc[0].unwrap_or(0)), ms(spec.inc[1].unwrap_or(0))],
            moves_to_go: spec.moves_to_go,
            move_time: spec.move_time.map(ms),
            depth: spec.depth,
            nodes: spec.nodes,
            mate: spec.mate,
            infinite: spec.infinite,
            ponder: spec.ponder,
            search_moves,
        };
        let side = self.game.side_to_move();
        let bounded = limits.uses_clock(side)
            || limits.move_time.is_some()
            || limits.depth.is_some()
            || limits.nodes.is_some()
            || limits.mate.is_some();
        if !bounded {
            limits.infinite = true;
        }
        if let Some(o) = self.game.outcome() {
            self.out.line(&format!("info string game over: {o}"));
            self.out.line("bestmove (none)");
            return Ok(());
        }
        let info_out = self.out.clone();
        let done_out = self.out.clone();
        self.engine.go(
            &self.game,
            limits,
            Box::new(move |info| info_out.line(&info_line(info))),
            Box::new(move |result| done_out.line(&bestmove_line(result))),
        );
        Ok(())
    }

    /// The `option` lines, with current values as defaults.
    pub fn option_lines(&self) -> Vec<String> {
        let o = &self.engine.options;
        let f = o.features;
        let r = &self.rules;
        let mut lines = vec![
            spin("Threads", o.threads, 1, 256),
            spin("Hash", o.hash_mib, 1, 65536),
            "option name Clear Hash type button".to_string(),
            spin("MoveOverhead", o.move_overhead.as_millis(), 0, 5000),
            spin("MultiPV", o.multipv, 1, 64),
            check("Ponder", self.ponder),
            spin("Contempt", o.contempt, -1000, 1000),
            check("NullMove", f.null_move),
            check("LMR", f.lmr),
            check("Aspiration", f.aspiration),
            check("Quiescence", f.quiescence),
            check("Futility", f.futility),
            check("LMP", f.late_move_pruning),
            combo("Variant", r.preset.name(), Preset::NAMES),
            format!(
                "option name OpenTaflRules type string default {}",
                otn_rules_string(r)
            ),
        ];
        for name in RULE_OPTION_NAMES {
            let current = r.get(name).unwrap_or_default();
            lines.push(match *name {
                "Start" => format!("option name Start type string default {current}"),
                "FirstMove" => combo(name, &current, &["attackers", "defenders"]),
                "Escape" => combo(name, &current, Escape::NAMES),
                "ThronePassage" => combo(name, &current, ThronePassage::NAMES),
                "EmptyThroneHostile" | "OccupiedThroneHostile" => {
                    combo(name, &current, Hostility::NAMES)
                }
                "Corners" => combo(name, &current, Corners::NAMES),
                "KingArmed" => combo(name, &current, KingArmed::NAMES),
                "Shieldwall" => combo(name, &current, Shieldwall::NAMES),
                "KingCapture" => combo(name, &current, KingCapture::NAMES),
                "Repetition" => combo(name, &current, Repetition::NAMES),
                "NoCaptureLimit" | "PlyLimit" => spin(name, &current, 0, 100_000),
                _ => check(name, current == "true"),
            });
        }
        lines
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "threads" => {
                let n = parse_spin(name, value, 1, 256)?;
                self.engine.set_threads(n as usize)?;
            }
            "hash" => {
                let n = parse_spin(name, value, 1, 65536)?;
                self.engine.set_hash(n as usize)?;
            }
            "clear hash" => self.engine.clear(),
            "moveoverhead" => {
                let n = parse_spin(name, value, 0, 5000)?;
                self.engine.options.move_overhead = Duration::from_millis(n as u64);
            }
            "multipv" => self.engine.options.multipv = parse_spin(name, value, 1, 64)? as usize,
            "ponder" => self.ponder = parse_check(name, value)?,
            "contempt" => {
                self.engine.options.contempt = parse_spin(name, value, -1000, 1000)? as i32
            }
            "nullmove" => self.engine.options.features.null_move = parse_check(name, value)?,
            "lmr" => self.engine.options.features.lmr = parse_check(name, value)?,
            "aspiration" => self.engine.options.features.aspiration = parse_check(name, value)?,
            "quiescence" => self.engine.options.features.quiescence = parse_check(name, value)?,
            "futility" => self.engine.options.features.futility = parse_check(name, value)?,
            "lmp" => self.engine.options.features.late_move_pruning = parse_check(name, value)?,
            "opentaflrules" => {
                // OpenTafl's rules strings are ordinary option values here.
                self.rules = parse_otn_rules(value)?;
                self.game = Game::new(self.rules.clone());
            }
            "variant" => {
                let preset: Preset = value.parse().map_err(|e| format!("option Variant: {e}"))?;
                self.rules = Rules::preset(preset);
                self.game = Game::new(self.rules.clone());
            }
            _ => {
                if self.rules.get(name).is_none() {
                    return Err(format!("unknown option '{name}'"));
                }
                let mut rules = self.rules.clone();
                rules.set(name, value)?;
                // A changed rule resets the game to the start position.
                self.rules = rules;
                self.game = Game::new(self.rules.clone());
            }
        }
        Ok(())
    }
}

/// Runs the protocol on stdin/stdout until `quit` or end of input.
pub fn run_stdio() {
    let out = Output::stdout();
    let mut session = Session::new(out);
    let (tx, rx) = mpsc::channel::<String>();
    // Without a reader the channel closes at once: end of input, so quit.
    super::spawn_stdin_reader(tx, |line| line, None);
    while let Ok(line) = rx.recv() {
        if !session.handle_line(&line) {
            return;
        }
    }
    // End of input means quit.
    session.handle_line("quit");
}
