//! Searches for the page: one [`Engine`] serves every tab. A new search
//! stops the one running (whose stream then ends with its best move), so
//! two searches never share the table at once; a stream whose client went
//! away (a closed tab, an aborted request) stops its own search. Results
//! stream as Server-Sent Events: `start`, `info` per line and iteration,
//! `progress` twice a second, then one `bestmove`.

use super::api::{blocking, parse_body, parse_game_body, ApiError, GameSpec};
use super::AppState;
use crate::play::HostClock;
use crate::rules::Side;
use crate::search::{Engine, Info, Limits, Score, SearchId, SearchResult, Wdl};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// The most lines a search may show.
pub const MAX_MULTIPV: usize = 5;
/// The longest search (any search, infinite ones included, is stopped
/// after this long).
pub const MAX_TIME_MS: u64 = 60 * 60 * 1000;
/// The deepest search a request may ask for.
pub const MAX_DEPTH: i32 = 64;
/// The most nodes a request may ask for.
pub const MAX_NODES: u64 = 100_000_000_000;
/// The most clock time a request may give a side.
const MAX_CLOCK_MS: u64 = 24 * 60 * 60 * 1000;
/// How often a running search reports its node count.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// What the engine tells a stream.
enum Message {
    Info(Info),
    Done(SearchResult),
}

/// The one engine, and the search it runs now with the flag that says it
/// was asked to stop (by `/api/stop`, a newer search or its client).
pub struct Hub {
    engine: Mutex<Engine>,
    current: Mutex<Option<(SearchId, Arc<AtomicBool>)>>,
    /// The stop flag of the review running now (`/api/review`): a search
    /// or a newer review sets it, so the cores serve one thing at a time.
    review: Mutex<Option<Arc<AtomicBool>>>,
}

impl Hub {
    pub fn new(engine: Engine) -> Hub {
        Hub {
            engine: Mutex::new(engine),
            current: Mutex::new(None),
            review: Mutex::new(None),
        }
    }

    /// Stops the running search and review, and makes the stop flag of a
    /// new review; with the searchers it may run at once (the engine's
    /// threads). Blocks like [`Hub::stop`]: call off the runtime.
    pub fn start_review(&self) -> (Arc<AtomicBool>, usize) {
        self.stop(None);
        let flag = Arc::new(AtomicBool::new(false));
        if let Some(old) = self.review_slot().replace(flag.clone()) {
            old.store(true, Ordering::Relaxed);
        }
        (flag, self.engine().settings().threads)
    }

    fn review_slot(&self) -> MutexGuard<'_, Option<Arc<AtomicBool>>> {
        self.review.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The engine, locked. Locks are taken engine first, then `current`.
    fn engine(&self) -> MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn current(&self) -> MutexGuard<'_, Option<(SearchId, Arc<AtomicBool>)>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Threads and hash MiB of the engine, and whether it searches now.
    pub fn engine_state(&self) -> (usize, usize, bool) {
        let engine = self.engine();
        (
            engine.settings().threads,
            engine.settings().hash_mib,
            engine.current_search().is_some(),
        )
    }

    /// Starts a search of `game`, stopping the one running. Blocks until
    /// the older search has unwound (milliseconds): call off the runtime.
    fn start(
        &self,
        game: crate::rules::Game,
        limits: Limits,
        multipv: usize,
        tx: UnboundedSender<Message>,
    ) -> Result<(SearchId, Arc<AtomicBool>), String> {
        let mut engine = self.engine();
        if let Some((_, stopped)) = self.current().take() {
            stopped.store(true, Ordering::Relaxed);
        }
        if let Some(review) = self.review_slot().take() {
            review.store(true, Ordering::Relaxed);
        }
        engine.set_game(game);
        engine.set_option("MultiPV", Some(&multipv.to_string()))?;
        let info_tx = tx.clone();
        let id = engine.go(
            limits,
            Box::new(move |info| {
                let _ = info_tx.send(Message::Info(info.clone()));
            }),
            Box::new(move |result| {
                let _ = tx.send(Message::Done(result.clone()));
            }),
        )?;
        let stopped = Arc::new(AtomicBool::new(false));
        *self.current() = Some((id, stopped.clone()));
        Ok((id, stopped))
    }

    /// Stops the running search (only if it is `id`, when given); whether
    /// one was stopped.
    fn stop(&self, id: Option<SearchId>) -> bool {
        let engine = self.engine();
        let current = self.current();
        match current.as_ref() {
            Some((running, stopped))
                if id.is_none_or(|id| id == *running)
                    && engine.current_search() == Some(*running) =>
            {
                stopped.store(true, Ordering::Relaxed);
                engine.stop_search(*running);
                true
            }
            _ => false,
        }
    }

    /// Nodes and time of the search `id`, while it runs.
    fn progress(&self, id: SearchId) -> Option<(u64, Duration)> {
        self.engine()
            .progress()
            .filter(|(running, _, _)| *running == id)
            .map(|(_, nodes, time)| (nodes, time))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseRequest {
    /// Milliseconds for this move.
    #[serde(default)]
    movetime: Option<u64>,
    #[serde(default)]
    depth: Option<i32>,
    #[serde(default)]
    nodes: Option<u64>,
    /// Search until stopped (or for at most an hour).
    #[serde(default)]
    infinite: bool,
    /// Both clocks, for a move in a timed game: the engine's time manager
    /// decides how long to think.
    #[serde(default)]
    clock: Option<Clock>,
    #[serde(default)]
    multipv: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Clock {
    atime: u64,
    dtime: u64,
    #[serde(default)]
    ainc: u64,
    #[serde(default)]
    dinc: u64,
}

impl AnalyseRequest {
    /// The search limits asked for, checked against the caps.
    fn limits(&self) -> Result<Limits, ApiError> {
        let range = |name: &str, v: u64, max: u64| {
            if (1..=max).contains(&v) {
                Ok(v)
            } else {
                Err(ApiError::bad(
                    "bad-limit",
                    format!("{name} must be 1 to {max}, not {v}"),
                ))
            }
        };
        let mut limits = Limits::default();
        if let Some(ms) = self.movetime {
            limits.move_time = Some(Duration::from_millis(range("movetime", ms, MAX_TIME_MS)?));
        }
        if let Some(d) = self.depth {
            limits.depth = Some(range("depth", d.max(0) as u64, MAX_DEPTH as u64)? as i32);
        }
        if let Some(n) = self.nodes {
            limits.nodes = Some(range("nodes", n, MAX_NODES)?);
        }
        if let Some(c) = &self.clock {
            for (name, v) in [("clock.atime", c.atime), ("clock.dtime", c.dtime)] {
                range(name, v, MAX_CLOCK_MS)?;
            }
            for (name, v) in [("clock.ainc", c.ainc), ("clock.dinc", c.dinc)] {
                if v > MAX_CLOCK_MS {
                    return Err(ApiError::bad(
                        "bad-limit",
                        format!("{name} is more than a day"),
                    ));
                }
            }
            let clock = HostClock::Fischer {
                remaining_ms: [c.atime, c.dtime],
                increment_ms: [c.ainc, c.dinc],
            }
            .limits(Side::Attackers);
            limits.time = clock.time;
            limits.inc = clock.inc;
        }
        let bounded = self.movetime.is_some()
            || self.depth.is_some()
            || self.nodes.is_some()
            || self.clock.is_some();
        match (self.infinite, bounded) {
            (true, true) => Err(ApiError::bad(
                "bad-limit",
                "an infinite search takes no other limit",
            )),
            (false, false) => Err(ApiError::bad(
                "bad-limit",
                "say how long to search: movetime, depth, nodes, clock or infinite",
            )),
            (infinite, _) => {
                limits.infinite = infinite;
                Ok(limits)
            }
        }
    }

    fn multipv(&self) -> Result<usize, ApiError> {
        match self.multipv.unwrap_or(1) {
            n @ 1..=MAX_MULTIPV => Ok(n),
            n => Err(ApiError::bad(
                "bad-multipv",
                format!("multipv must be 1 to {MAX_MULTIPV}, not {n}"),
            )),
        }
    }
}

/// A score for the side to move: centi-soldiers, or moves to a win or a
/// loss once one is proven.
pub fn score_json(score: i32) -> Value {
    match Score::from_search(score) {
        Score::Cp(cp) => json!({ "cp": cp }),
        Score::Win(n) => json!({ "win": n }),
        Score::Loss(n) => json!({ "loss": n }),
    }
}

/// Chances for the side to move, in permille: `[win, draw, loss]`.
pub fn wdl_json(wdl: Wdl) -> Value {
    json!([wdl.win, wdl.draw, wdl.loss])
}

pub(super) fn moves_json(moves: &[crate::rules::Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

fn info_json(info: &Info) -> Value {
    let bound = match info.bound {
        Some(crate::search::tt::Bound::Lower) => Some("lower"),
        Some(crate::search::tt::Bound::Upper) => Some("upper"),
        _ => None,
    };
    json!({
        "depth": info.depth,
        "seldepth": info.seldepth,
        "multipv": info.multipv,
        "score": score_json(info.score),
        "wdl": wdl_json(info.wdl),
        "bound": bound,
        "nodes": info.nodes,
        "nps": info.nps,
        "hashfull": info.hashfull,
        "time": info.time.as_millis() as u64,
        "pv": moves_json(&info.pv),
    })
}

fn bestmove_json(result: &SearchResult, stopped: bool) -> Value {
    let lines: Vec<Value> = result
        .lines
        .iter()
        .map(|l| {
            json!({
                "move": l.mv.to_string(),
                "score": score_json(l.score),
                "wdl": wdl_json(l.wdl),
                "pv": moves_json(&l.pv),
            })
        })
        .collect();
    json!({
        "search": result.id.0,
        "best": result.best.map(|m| m.to_string()),
        "ponder": result.ponder.map(|m| m.to_string()),
        "score": score_json(result.score),
        "wdl": wdl_json(result.wdl),
        "depth": result.depth,
        "nodes": result.nodes,
        "time": result.time.as_millis() as u64,
        "pv": moves_json(&result.pv),
        "lines": lines,
        "stopped": stopped,
    })
}

pub(super) fn event(name: &str, data: &Value) -> Event {
    Event::default().event(name).data(data.to_string())
}

/// A request's hold on its search, from the moment the request is
/// accepted: dropped before the search ended (the client went away, even
/// while the search was still starting), it stops the search.
struct SearchGuard {
    hub: Arc<Hub>,
    hold: Arc<Hold>,
}

/// What the guard and the code starting the search share.
#[derive(Default)]
struct Hold {
    /// The search, once started.
    id: Mutex<Option<SearchId>>,
    /// The request was dropped.
    gone: AtomicBool,
    /// The search ended: nothing to stop.
    finished: AtomicBool,
}

impl Hold {
    /// Records the started search; stops it at once if its client has
    /// already gone (whichever of this and the guard's drop comes second
    /// sees the other).
    fn started(&self, hub: &Hub, id: SearchId) {
        *self.id.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
        if self.gone.load(Ordering::SeqCst) {
            hub.stop(Some(id));
        }
    }

    fn id(&self) -> Option<SearchId> {
        *self.id.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SearchGuard {
    fn new(hub: Arc<Hub>) -> SearchGuard {
        SearchGuard {
            hub,
            hold: Arc::new(Hold::default()),
        }
    }
}

impl Drop for SearchGuard {
    fn drop(&mut self) {
        self.hold.gone.store(true, Ordering::SeqCst);
        if self.hold.finished.load(Ordering::SeqCst) {
            return;
        }
        let Some(id) = self.hold.id() else {
            return;
        };
        let hub = self.hub.clone();
        // Off the runtime: the engine's lock may be held while a search unwinds.
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn_blocking(move || hub.stop(Some(id)));
            }
            Err(_) => {
                hub.stop(Some(id));
            }
        }
    }
}

/// A search's stream: its engine messages and a progress tick.
struct Streaming {
    rx: UnboundedReceiver<Message>,
    guard: SearchGuard,
    id: SearchId,
    stopped: Arc<AtomicBool>,
    tick: tokio::time::Interval,
    /// When the search is stopped whatever its limits (infinite ones too);
    /// `None` once it has been.
    cap: Option<tokio::time::Instant>,
}

fn search_events(start: Value, mut s: Streaming) -> impl Stream<Item = Result<Event, Infallible>> {
    s.tick
        .set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let first = stream::once(async move { Ok(event("start", &start)) });
    let rest = stream::unfold(Some(s), |state| async move {
        let mut s = state?;
        loop {
            tokio::select! {
                message = s.rx.recv() => {
                    return match message {
                        Some(Message::Info(info)) => Some((Ok(event("info", &info_json(&info))), Some(s))),
                        Some(Message::Done(result)) => {
                            s.guard.hold.finished.store(true, Ordering::SeqCst);
                            let stopped = s.stopped.load(Ordering::Relaxed);
                            Some((Ok(event("bestmove", &bestmove_json(&result, stopped))), None))
                        }
                        None => None,
                    };
                }
                // Every search ends within the cap, infinite ones included;
                // its stream then ends with its move.
                _ = sleep_until_cap(s.cap) => {
                    s.cap = None;
                    let (hub, id) = (s.guard.hub.clone(), s.id);
                    let _ = tokio::task::spawn_blocking(move || hub.stop(Some(id))).await;
                }
                _ = s.tick.tick() => {
                    let hub = s.guard.hub.clone();
                    let id = s.id;
                    let progress = tokio::task::spawn_blocking(move || hub.progress(id))
                        .await
                        .ok()
                        .flatten();
                    if let Some((nodes, time)) = progress {
                        let nps = (nodes as f64 / time.as_secs_f64().max(1e-3)) as u64;
                        let data = json!({ "nodes": nodes, "nps": nps, "time": time.as_millis() as u64 });
                        return Some((Ok(event("progress", &data)), Some(s)));
                    }
                }
            }
        }
    });
    first.chain(rest)
}

/// Waits until the cap, or for ever once it has passed.
async fn sleep_until_cap(cap: Option<tokio::time::Instant>) {
    match cap {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// `POST /api/analyse`: searches a position and streams the search's
/// reports as Server-Sent Events.
pub async fn analyse(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (spec, req): (GameSpec, AnalyseRequest) = parse_game_body(body)?;
    let limits = req.limits()?;
    let multipv = req.multipv()?;
    let game = spec.game()?;
    let side = game.side_to_move().name();
    let legal = game.legal_moves().len();
    let result = game.outcome().map(|o| o.to_string());
    let (tx, rx) = unbounded_channel();
    // From here the request owns its search: if it is dropped while the
    // search starts, the search is stopped as soon as it has.
    let guard = SearchGuard::new(state.hub.clone());
    let (hub, hold) = (state.hub.clone(), guard.hold.clone());
    let (id, stopped) = blocking(move || {
        let started = hub.start(game, limits, multipv, tx);
        if let Ok((id, _)) = &started {
            hold.started(&hub, *id);
        }
        started
    })
    .await?
    .map_err(|e| ApiError::new(axum::http::StatusCode::SERVICE_UNAVAILABLE, "engine", e))?;
    let start = json!({
        "search": id.0,
        "side": side,
        "legal": legal,
        "multipv": multipv,
        "result": result,
    });
    let streaming = Streaming {
        rx,
        guard,
        id,
        cap: Some(tokio::time::Instant::now() + Duration::from_millis(MAX_TIME_MS)),
        stopped,
        tick: tokio::time::interval_at(
            tokio::time::Instant::now() + PROGRESS_EVERY,
            PROGRESS_EVERY,
        ),
    };
    let sse = Sse::new(search_events(start, streaming))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(1)));
    Ok(([("cache-control", "no-store")], sse).into_response())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StopRequest {
    #[serde(default)]
    search: Option<u64>,
}

/// `POST /api/stop`: stops the running search (only `search`, when named);
/// its stream ends with its best move.
pub async fn stop(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let empty = matches!(&body, Ok(b) if b.iter().all(u8::is_ascii_whitespace));
    let req: StopRequest = if empty {
        StopRequest::default()
    } else {
        parse_body(body)?
    };
    let hub = state.hub.clone();
    let stopped = tokio::task::spawn_blocking(move || hub.stop(req.search.map(SearchId)))
        .await
        .unwrap_or(false);
    Ok(Json(json!({ "stopped": stopped })))
}
