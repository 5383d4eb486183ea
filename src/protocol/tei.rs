//! The tei session: parses commands, hands them to the engine, formats the
//! replies. The engine owns the rules, the game and the options; this file
//! only translates. stdin is read on its own thread, so `isready`, `stop`,
//! `ponderhit` and `quit` act while a search runs.

use super::command::{Command, GoSpec};
use super::{InputLine, Output};
use crate::rules::perft::Counting;
use crate::rules::{Move, Side};
use crate::search::{Engine, Info, Limits, OptionInfo, OptionKind, Score, SearchResult};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

pub use crate::ENGINE_NAME;
pub const ENGINE_AUTHOR: &str = "the Konakis developers";

/// One protocol session.
pub struct Session {
    engine: Engine,
    out: Output,
    /// A `perft` or `bench` running on its own thread: like a search, it
    /// leaves `isready` answered and ends on `stop`, `quit`, or any command
    /// that changes the state or starts other work.
    task: Option<Task>,
}

struct Task {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

/// What `help` prints: the commands (protocol.md has the details).
const HELP: &[&str] = &[
    "commands (protocol.md has the details):",
    "tei | uci                                 identify; list the options; teiok (uciok)",
    "isready                                   readyok once ready",
    "setoption name <Name> [value <V>]         set an option (Variant, rules, Hash, Threads, MultiPV, ...)",
    "newgame                                   a new game: clear the table, the start position",
    "position startpos|<record> <a|d> [moves <m>...]   set the position",
    "go [depth|nodes|movetime|atime dtime ainc dinc|infinite|ponder|mate|searchmoves ...]   search",
    "stop | ponderhit                          end a search; the expected move was played",
    "d | result | moves | eval | roads         show the board, the result, the legal moves, the evaluation, open roads",
    "perft <depth> | bench [depth]             count the move tree; the bench signature",
    "help | quit",
];

/// Formats an `info` line; `show_wdl` adds the chances (`wdl W D L`)
/// after the score, as UCI's `UCI_ShowWDL` does.
pub fn info_line(info: &Info, show_wdl: bool) -> String {
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    let bound = match info.bound {
        Some(crate::search::tt::Bound::Lower) => " lowerbound",
        Some(crate::search::tt::Bound::Upper) => " upperbound",
        _ => "",
    };
    // An aspiration failure may have no line yet: no empty `pv`.
    let pv = if pv.is_empty() {
        String::new()
    } else {
        format!(" pv {}", pv.join(" "))
    };
    let wdl = if show_wdl {
        format!(" wdl {}", info.wdl)
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {} multipv {} score {}{}{wdl} nodes {} nps {} hashfull {} time {}{pv}",
        info.depth,
        info.seldepth,
        info.multipv,
        Score::from_search(info.score),
        bound,
        info.nodes,
        info.nps,
        info.hashfull,
        info.time.as_millis(),
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

/// Formats an `option` line; the current value is shown as the default.
pub fn option_line(o: &OptionInfo) -> String {
    let name = o.name;
    match &o.kind {
        OptionKind::Spin { min, max } => format!(
            "option name {name} type spin default {} min {min} max {max}",
            o.value
        ),
        OptionKind::Check => format!("option name {name} type check default {}", o.value),
        OptionKind::Combo(vars) => {
            let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
            format!(
                "option name {name} type combo default {} {}",
                o.value,
                vars.join(" ")
            )
        }
        OptionKind::Text => format!("option name {name} type string default {}", o.value),
        OptionKind::Button => format!("option name {name} type button"),
    }
}

impl Session {
    pub fn new(out: Output) -> Session {
        Session {
            engine: Engine::new(),
            out,
            task: None,
        }
    }

    fn error(&self, msg: impl AsRef<str>) {
        self.out
            .line(&format!("info string error {}", msg.as_ref()));
    }

    /// Handles one line as read (text or not); returns false on `quit`.
    pub fn handle_input(&mut self, input: InputLine) -> bool {
        match input {
            InputLine::Text(line) => self.handle_line(&line),
            InputLine::NotText(shown) => {
                self.error(InputLine::not_text_error(&shown));
                true
            }
        }
    }

    /// Handles one input line; returns false on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        match line.parse::<Command>() {
            Ok(Command::Quit) => {
                self.end_task();
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

    /// Stops a running `perft` or `bench` and waits for it.
    fn end_task(&mut self) {
        if let Some(task) = self.task.take() {
            task.stop.store(true, Ordering::Relaxed);
            let _ = task.handle.join();
        }
    }

    fn handle(&mut self, cmd: Command) -> Result<(), String> {
        let read_only = matches!(
            cmd,
            Command::Empty
                | Command::Tei { .. }
                | Command::Help
                | Command::IsReady
                | Command::PonderHit
                | Command::Display
                | Command::Result
                | Command::Moves
                | Command::Eval
                | Command::Roads
        );
        if !read_only {
            self.end_task();
        }
        match cmd {
            Command::Empty | Command::Quit => {}
            Command::Tei { uci } => {
                self.out.line(&format!(
                    "id name {ENGINE_NAME} {}",
                    env!("CARGO_PKG_VERSION")
                ));
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                for o in self.engine.option_table() {
                    self.out.line(&option_line(&o));
                }
                self.out.line(if uci { "uciok" } else { "teiok" });
            }
            Command::IsReady => {
                self.engine.ready();
                self.out.line("readyok");
            }
            Command::Help => {
                for line in HELP {
                    self.out.line(&format!("info string {line}"));
                }
            }
            Command::SetOption { name, value } => {
                self.engine.set_option(&name, value.as_deref())?;
                if name.eq_ignore_ascii_case("hash") {
                    let asked = self.engine.settings().hash_mib;
                    let used = crate::search::tt::used_mib(asked);
                    if used != asked {
                        self.out.line(&format!(
                            "info string Hash {asked} MiB: the table takes {used} MiB (its size is a power of two)"
                        ));
                    }
                }
            }
            Command::NewGame => self.engine.new_game(),
            Command::Position { start, moves } => self
                .engine
                .set_position(&start, &moves)
                .map_err(|e| format!("{e}; position unchanged"))?,
            Command::Go(spec) => {
                if let Err(e) = self.go(spec) {
                    self.error(e);
                    self.answer_at_once();
                }
            }
            Command::BadGo(e) => {
                self.error(format!("{e}; answering with a depth-1 search"));
                self.answer_at_once();
            }
            Command::Stop => {
                self.engine.stop();
                self.engine.wait();
            }
            Command::PonderHit => self.engine.ponderhit(),
            Command::Display => self.display(),
            Command::Result => self.out.line(&self.result_text()),
            Command::Moves => {
                let moves: Vec<String> = self
                    .engine
                    .game()
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                self.out
                    .line(format!("moves {}", moves.join(" ")).trim_end());
            }
            Command::Perft(depth) => {
                let stop = Arc::new(AtomicBool::new(false));
                let each_out = self.out.clone();
                let done_out = self.out.clone();
                let handle = self.engine.perft_in_background(
                    depth,
                    Counting::Replies,
                    stop.clone(),
                    move |mv, n| each_out.line(&format!("{mv} {n}")),
                    move |total| match total {
                        Some(n) => done_out.line(&format!("nodes {n}")),
                        None => done_out.line("info string perft stopped"),
                    },
                )?;
                self.task = Some(Task { stop, handle });
            }
            Command::Eval => self.eval(),
            Command::Roads => {
                let roads = self.engine.position().open_roads(self.engine.rules());
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
                self.engine.stop();
                self.engine.wait();
                let stop = Arc::new(AtomicBool::new(false));
                let task_stop = stop.clone();
                let out = self.out.clone();
                let depth = depth.unwrap_or(crate::search::bench::DEFAULT_DEPTH);
                let handle = std::thread::Builder::new()
                    .name("konakis-bench".into())
                    .spawn(move || {
                        let lines = out.clone();
                        let settings = crate::search::bench::BenchSettings::signature(depth);
                        let run = crate::search::bench::run_until(settings, &task_stop, |l| {
                            lines.line(&format!(
                                "info string bench position {} {} nodes {}",
                                l.index, l.preset, l.nodes
                            ));
                        });
                        match run {
                            Ok(Some((nodes, time))) => {
                                let nps = (nodes as f64 / time.as_secs_f64().max(1e-9)) as u64;
                                out.line(&format!("info string bench {nodes} nodes {nps} nps"));
                            }
                            Ok(None) => out.line("info string bench stopped"),
                            Err(e) => out.line(&format!("info string error bench: {e}")),
                        }
                    })
                    .map_err(|e| format!("cannot start the bench thread: {e}"))?;
                self.task = Some(Task { stop, handle });
            }
        }
        Ok(())
    }

    fn eval(&self) {
        let b = self.engine.evaluation();
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
            self.out.line(&format!("eval {name} {v} (defenders' view)"));
        }
        let total = b.total();
        let stm = match self.engine.game().side_to_move() {
            Side::Defenders => total,
            Side::Attackers => -total,
        };
        self.out.line(&format!(
            "eval total {total} (defenders' view) {stm} (side to move)"
        ));
        // The other evaluations this position has, and the one in use.
        let rules = self.engine.rules();
        let pos = self.engine.position();
        // Each evaluation this position has, once (`nnue` falls back to the
        // learned weights where no net fits).
        use crate::search::eval::Evaluator;
        for name in ["learned", "nnue"] {
            let e = self.engine.evaluator_named(name);
            let shown = matches!(
                (&e, name),
                (Evaluator::Learned(_), "learned") | (Evaluator::Nnue(_), _)
            );
            if shown {
                let v = e.evaluate(pos, rules);
                let what = e.describe(rules);
                self.out.line(&format!("eval {what} {v} (side to move)"));
            }
        }
        let (used, evaluator) = self.engine.static_eval();
        self.out.line(&format!(
            "eval in use {} {used} (side to move)",
            evaluator.describe(rules)
        ));
    }

    fn result_text(&self) -> String {
        match self.engine.game().outcome() {
            None => "result ongoing".to_string(),
            Some(o) => format!("result {o}"),
        }
    }

    fn display(&self) {
        let rules = self.engine.rules();
        let pos = self.engine.position();
        for line in pos.diagram(rules).lines() {
            self.out.line(line);
        }
        self.out.line(&format!("record {}", pos.record(rules)));
        self.out
            .line(&format!("side {}", pos.side_to_move().name()));
        self.out.line(&format!("hash {:016x}", pos.hash()));
        self.out.line(&format!(
            "counters plies-since-capture {} ply {}",
            pos.plies_since_capture, pos.ply
        ));
        self.out.line(&format!("rules {}", rules.summary()));
        self.out.line(&self.result_text());
    }

    /// Answers a `go` that could not be carried out as asked: a depth-1
    /// search, so that a GUI waiting for `bestmove` always gets one.
    fn answer_at_once(&mut self) {
        let result = if self.engine.game().outcome().is_some() {
            None
        } else {
            Some(self.engine.search(Limits::depth(1)))
        };
        match result {
            Some(r) => self.out.line(&bestmove_line(&r)),
            None => self.out.line("bestmove (none)"),
        }
    }

    fn go(&mut self, spec: GoSpec) -> Result<(), String> {
        let size = self.engine.rules().size();
        let mut search_moves = Vec::new();
        for m in &spec.search_moves {
            let mv = Move::parse(m, size)?;
            if !self.engine.game().legal_moves().contains(&mv) {
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
        let side = self.engine.game().side_to_move();
        let bounded = limits.uses_clock(side)
            || limits.move_time.is_some()
            || limits.depth.is_some()
            || limits.nodes.is_some()
            || limits.mate.is_some();
        if !bounded {
            limits.infinite = true;
        }
        if let Some(o) = self.engine.game().outcome() {
            if self.engine.settings().show_wdl {
                let wdl = crate::search::wdl::wdl_of_outcome(o.winner, side);
                self.out.line(&format!("info depth 0 wdl {wdl}"));
            }
            self.out.line(&format!("info string game over: {o}"));
            self.out.line("bestmove (none)");
            return Ok(());
        }
        let info_out = self.out.clone();
        let done_out = self.out.clone();
        let show_wdl = self.engine.settings().show_wdl;
        self.engine.go(
            limits,
            Box::new(move |info| info_out.line(&info_line(info, show_wdl))),
            Box::new(move |result| done_out.line(&bestmove_line(result))),
        )?;
        Ok(())
    }
}

/// Runs the protocol on stdin/stdout until `quit` or end of input.
pub fn run_stdio() {
    let out = Output::stdout();
    let mut session = Session::new(out);
    let (tx, rx) = mpsc::channel::<InputLine>();
    // Without a reader the channel closes at once: end of input, so quit.
    super::spawn_stdin_reader(tx, |line| line, None);
    while let Ok(input) = rx.recv() {
        if !session.handle_input(input) {
            return;
        }
    }
    // End of input means quit.
    session.handle_line("quit");
}
