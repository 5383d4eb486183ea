//! Searches for the page: one [`Engine`] serves every tab. A new search
//! stops the one running (whose stream then ends with its best move), so
//! two searches never share the table at once; a stream whose client went
//! away (a closed tab, an aborted request) stops its own search. Results
//! stream as Server-Sent Events: `start`, `info` per line and iteration,
//! `progress` twice a second, then one `bestmove`.

use super::api::{blocking, parse_body, parse_game_body, ApiError, GameSpec, MAX_MOVES};
use super::hub::{ClientId, NotStarted, Ticket, WorkGuard};
use super::AppState;
use crate::play::HostClock;
use crate::rules::{Game, Side};
use crate::search::{Info, Limits, Score, SearchId, SearchResult, Wdl};
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
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

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
    /// The result, and whether the search was stopped before its limits.
    Done(SearchResult, bool),
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
            if !(1..=MAX_DEPTH).contains(&d) {
                return Err(ApiError::bad(
                    "bad-limit",
                    format!("depth must be 1 to {MAX_DEPTH}, not {d}"),
                ));
            }
            limits.depth = Some(d);
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

/// What a search request asked for, checked.
struct Job {
    client: ClientId,
    game: Game,
    limits: Limits,
    multipv: usize,
    /// The `start` event's fields known before the search starts.
    start: Value,
}

/// A work stream's stages (a search's, a review's): waiting for the
/// cores, then streaming its events from `S`.
pub(super) enum Stage<J, S> {
    Begin(WorkGuard, J),
    Queued(WorkGuard, J),
    Running(Box<S>),
    Done,
}

/// The events of `client`'s work `job`: `queued` first if another
/// client's work holds the cores, then the start event `begin` gives (or
/// the event that ends work that never started), then `next`'s events
/// until it says `Done`.
pub(super) fn work_events<J, S, B, BF, N, NF>(
    guard: WorkGuard,
    job: J,
    client: ClientId,
    begin: B,
    next: N,
) -> impl Stream<Item = Result<Event, Infallible>>
where
    B: Fn(WorkGuard, J) -> BF + Copy,
    BF: std::future::Future<Output = Result<(Event, S), Event>>,
    N: Fn(Box<S>) -> NF + Copy,
    NF: std::future::Future<Output = Option<(Event, Stage<J, S>)>>,
{
    stream::unfold(Stage::Begin(guard, job), move |stage| {
        let client = client.clone();
        async move {
            match stage {
                Stage::Begin(guard, job) if guard.hub().would_wait(&client) => {
                    let waiting = guard.hub().busy().1;
                    let data = json!({ "queued": true, "waiting": waiting + 1 });
                    Some((event("queued", &data), Stage::Queued(guard, job)))
                }
                Stage::Begin(guard, job) | Stage::Queued(guard, job) => {
                    Some(match begin(guard, job).await {
                        Ok((start, s)) => (start, Stage::Running(Box::new(s))),
                        Err(end) => (end, Stage::Done),
                    })
                }
                Stage::Running(s) => next(s).await,
                Stage::Done => None,
            }
        }
    })
    .map(Ok)
}

/// A search's stream: its engine messages and a progress tick.
struct Streaming {
    rx: UnboundedReceiver<Message>,
    guard: WorkGuard,
    ticket: Arc<Ticket>,
    id: SearchId,
    tick: tokio::time::Interval,
    /// When the search is stopped whatever its limits (infinite ones too);
    /// `None` once it has been.
    cap: Option<tokio::time::Instant>,
}

/// Claims the cores for `job` (waiting in the queue if another client's work holds them), stops the
/// work it replaces and starts the search: its `start` event and stream,
/// or the event that ends a search that never started.
async fn begin(mut guard: WorkGuard, job: Job) -> Result<(Event, Streaming), Event> {
    let hub = guard.hub().clone();
    let (ticket, old) = hub.claim(&job.client, job.limits.infinite, || {}).await;
    guard.hold(ticket.clone());
    let (tx, rx) = unbounded_channel();
    let info_tx = tx.clone();
    let (done_hub, done_ticket) = (hub.clone(), ticket.clone());
    let held = ticket.clone();
    let Job {
        game,
        limits,
        multipv,
        mut start,
        ..
    } = job;
    let started = blocking(move || {
        if let Some(old) = old {
            hub.halt(&old);
        }
        hub.start_search(
            &ticket,
            game,
            limits,
            multipv,
            move |info| {
                let _ = info_tx.send(Message::Info(info.clone()));
            },
            move |result| {
                // Read before the cores are freed: a queued request then
                // takes them and marks this ticket replaced.
                let stopped = done_ticket.stopped();
                done_hub.finish(&done_ticket);
                let _ = tx.send(Message::Done(result.clone(), stopped));
            },
        )
    })
    .await;
    let id = match started {
        Ok(Ok(id)) => id,
        Ok(Err(why)) => {
            // The hub freed the cores already.
            guard.release();
            return Err(match why {
                NotStarted::Replaced => event(
                    "bestmove",
                    &json!({ "search": null, "best": null, "stopped": true, "replaced": true }),
                ),
                NotStarted::Failed(e) => {
                    event("error", &json!({ "error": "engine", "message": e }))
                }
            });
        }
        Err(e) => return Err(event("error", &e.body())),
    };
    if let Some(map) = start.as_object_mut() {
        map.insert("search".into(), json!(id.0));
    }
    let now = tokio::time::Instant::now();
    let mut tick = tokio::time::interval_at(now + PROGRESS_EVERY, PROGRESS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let streaming = Streaming {
        rx,
        guard,
        ticket: held,
        id,
        cap: Some(now + Duration::from_millis(MAX_TIME_MS)),
        tick,
    };
    Ok((event("start", &start), streaming))
}

/// The next event of a running search, or `None` once it has ended.
async fn next_event(mut s: Box<Streaming>) -> Option<(Event, Stage<Job, Streaming>)> {
    loop {
        tokio::select! {
            message = s.rx.recv() => {
                return match message? {
                    Message::Info(info) => Some((event("info", &info_json(&info)), Stage::Running(s))),
                    Message::Done(result, stopped) => {
                        // Ended: nothing for the guard to stop.
                        s.guard.release();
                        Some((event("bestmove", &bestmove_json(&result, stopped)), Stage::Done))
                    }
                };
            }
            // Every search ends within the cap, infinite ones included;
            // its stream then ends with its move.
            _ = sleep_until_cap(s.cap) => {
                s.cap = None;
                let (hub, ticket) = (s.guard.hub().clone(), s.ticket.clone());
                let _ = tokio::task::spawn_blocking(move || hub.halt(&ticket)).await;
            }
            _ = s.tick.tick() => {
                let hub = s.guard.hub().clone();
                let id = s.id;
                let progress = tokio::task::spawn_blocking(move || hub.progress(id))
                    .await
                    .ok()
                    .flatten();
                if let Some((nodes, time)) = progress {
                    let nps = (nodes as f64 / time.as_secs_f64().max(1e-3)) as u64;
                    let data = json!({ "nodes": nodes, "nps": nps, "time": time.as_millis() as u64 });
                    return Some((event("progress", &data), Stage::Running(s)));
                }
            }
        }
    }
}

/// Waits until the cap, or for ever once it has passed.
async fn sleep_until_cap(cap: Option<tokio::time::Instant>) {
    match cap {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// `POST /api/analyse`: searches a position and streams the search's
/// reports as Server-Sent Events. The request owns its search from the
/// moment it is accepted: if it is dropped while queued or while the
/// search starts, the search is stopped as soon as it has started.
pub async fn analyse(
    State(state): State<AppState>,
    client: ClientId,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (spec, req): (GameSpec, AnalyseRequest) = parse_game_body(body)?;
    let limits = req.limits()?;
    let multipv = req.multipv()?;
    let game = blocking(move || spec.game()).await??;
    let start = json!({
        "search": null,
        "side": game.side_to_move().name(),
        "legal": game.legal_moves().len(),
        "multipv": multipv,
        "result": game.outcome().map(|o| o.to_string()),
    });
    let job = Job {
        client,
        game,
        limits,
        multipv,
        start,
    };
    let guard = WorkGuard::new(state.hub.clone());
    let client = job.client.clone();
    Ok(event_stream(work_events(
        guard, job, client, begin, next_event,
    )))
}

/// A stream of events as the answer: never cached, with a comment every
/// second, whose failed write tells that the client went away.
pub(super) fn event_stream(
    events: impl Stream<Item = Result<Event, Infallible>> + Send + 'static,
) -> Response {
    let sse = Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(1)));
    ([("cache-control", "no-store")], sse).into_response()
}

/// `GET /api/info`: who serves, with what.
pub async fn info(State(state): State<AppState>) -> Json<Value> {
    let (searching, waiting) = state.hub.busy();
    let (threads, hash) = (state.hub.threads(), state.hub.hash_mib());
    Json(json!({
        "searching": searching,
        "queued": waiting,
        "name": crate::ENGINE_NAME,
        "version": env!("CARGO_PKG_VERSION"),
        "threads": threads,
        "hash_mib": hash,
        "limits": {
            "max_moves": MAX_MOVES,
            "max_multipv": MAX_MULTIPV,
            "max_movetime_ms": MAX_TIME_MS,
            "max_depth": MAX_DEPTH,
            "max_body_bytes": super::MAX_BODY,
            "max_import_bytes": super::MAX_IMPORT_BODY,
        },
    }))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StopRequest {
    #[serde(default)]
    search: Option<u64>,
}

/// `POST /api/stop`: stops the caller's running search (only `search`,
/// when named); its stream ends with its best move.
pub async fn stop(
    State(state): State<AppState>,
    client: ClientId,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let empty = matches!(&body, Ok(b) if b.iter().all(u8::is_ascii_whitespace));
    let req: StopRequest = if empty {
        StopRequest::default()
    } else {
        parse_body(body)?
    };
    let hub = state.hub.clone();
    let stopped = blocking(move || hub.stop_for(&client, req.search.map(SearchId))).await?;
    Ok(Json(json!({ "stopped": stopped })))
}
