//! `POST /api/review`: a game reviewed on the server by the review module
//! (`crate::review`): every position searched to a fixed budget by its own
//! single-threaded searcher (so the marks repeat), each move judged by the
//! winning chances it gave away. Results stream as Server-Sent Events:
//! `start`, one `position` per position searched (in any order, with the
//! count done and an estimate of the time left), then one `review` with
//! the judged moves and each side's figures. A review ends when its client
//! goes; a newer review or search stops it.

use super::analysis::{
    event, event_stream, moves_json, score_json, wdl_json, work_events, MAX_TIME_MS,
};
use super::api::{blocking, parse_game_body, ApiError, MAX_MOVES};
use super::hub::{ClientId, WorkGuard};
use super::AppState;
use crate::review::{self, Budget, Judged, MoveReview, SideSummary, STANDARD_BUDGET};
use crate::rules::{Game, Move};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::sse::Event;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// The largest budgets a request may ask for a position.
pub const MAX_NODES: u64 = 50_000_000;
pub const MAX_DEPTH: i32 = 30;
pub const MAX_MOVETIME_MS: u64 = 60_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewRequest {
    #[serde(default)]
    nodes: Option<u64>,
    #[serde(default)]
    depth: Option<i64>,
    #[serde(default)]
    movetime: Option<u64>,
    /// Review from the position after this many moves (default 0: all).
    #[serde(default)]
    from: Option<usize>,
}

impl ReviewRequest {
    fn budget(&self) -> Result<Budget, ApiError> {
        let out_of = |name: &str, v: String, max: String| {
            ApiError::bad("bad-limit", format!("{name} must be 1 to {max}, not {v}"))
        };
        let given = [
            self.nodes.is_some(),
            self.depth.is_some(),
            self.movetime.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(ApiError::bad(
                "bad-limit",
                "a review takes one budget: nodes, depth or movetime",
            ));
        }
        if let Some(n) = self.nodes {
            return match n {
                1..=MAX_NODES => Ok(Budget::Nodes(n)),
                _ => Err(out_of("nodes", n.to_string(), MAX_NODES.to_string())),
            };
        }
        if let Some(d) = self.depth {
            return match d {
                1..=30 => Ok(Budget::Depth(d as i32)),
                _ => Err(out_of("depth", d.to_string(), MAX_DEPTH.to_string())),
            };
        }
        if let Some(ms) = self.movetime {
            return match ms {
                1..=MAX_MOVETIME_MS => Ok(Budget::Millis(ms)),
                _ => Err(out_of(
                    "movetime",
                    ms.to_string(),
                    MAX_MOVETIME_MS.to_string(),
                )),
            };
        }
        Ok(STANDARD_BUDGET)
    }
}

/// What the review thread tells the stream.
enum Message {
    Position(usize, Judged),
    Done(Result<Option<review::Review>, String>),
}

fn position_json(index: usize, j: &Judged) -> Value {
    json!({
        "index": index,
        "side": j.side.name(),
        "score": j.score.map(score_json),
        "wdl": wdl_json(j.wdl),
        "best": j.best.map(|m| m.to_string()),
        "pv": moves_json(&j.pv),
        "depth": j.depth,
        "nodes": j.nodes,
    })
}

fn move_json(index: usize, r: &MoveReview) -> Value {
    json!({
        "index": index,
        "mover": r.mover.name(),
        "move": r.played.to_string(),
        "before": r.before,
        "after": r.after,
        "loss": r.loss,
        "accuracy": r.accuracy,
        "mark": r.mark.map(|m| m.name()),
        "sign": r.mark.map_or("", |m| m.sign()),
        "better": r.better.map(|m| m.to_string()),
        "line": moves_json(&r.better_line),
    })
}

fn side_json(s: &SideSummary) -> Value {
    json!({
        "moves": s.moves,
        "inaccuracies": s.inaccuracies,
        "mistakes": s.mistakes,
        "blunders": s.blunders,
        "average_loss": s.average_loss,
        "accuracy": s.accuracy,
    })
}

struct Streaming {
    rx: UnboundedReceiver<Message>,
    /// Holds the cores; dropped (the client went away), it stops the review.
    _guard: WorkGuard,
    stop: Arc<AtomicBool>,
    from: usize,
    total: usize,
    done: usize,
    started: Instant,
}

/// What a review request asked for, checked.
struct Job {
    client: ClientId,
    start: Game,
    line: Vec<Move>,
    from: usize,
    budget: Budget,
}

/// A review stream's stages.
type Stage = super::analysis::Stage<Job, Streaming>;

/// Claims the cores (waiting in the queue if another client's work holds
/// them), stops the work it replaces and starts the review's thread.
async fn begin(mut guard: WorkGuard, job: Job) -> Result<(Event, Streaming), Event> {
    let hub = guard.hub().clone();
    let (ticket, old) = hub.claim(&job.client, false, || {}).await;
    guard.hold(ticket.clone());
    if let Some(old) = old {
        let hub = hub.clone();
        if let Err(e) = blocking(move || hub.halt(&old)).await {
            return Err(event("error", &e.body()));
        }
    }
    let workers = hub.threads();
    let (tx, rx) = unbounded_channel();
    let Job {
        start,
        line,
        from,
        budget,
        ..
    } = job;
    let total = line.len() + 1;
    let flag = ticket.stop_flag();
    // From here the review's thread frees the cores when it ends.
    hub.started(&ticket);
    let spawned = std::thread::Builder::new()
        .name("konakis-review".into())
        .spawn(move || {
            let on_position = |i: usize, j: &Judged| {
                let _ = tx.send(Message::Position(i, j.clone()));
            };
            let flag = ticket.stop_flag();
            let result = review::review_line(&start, &line, budget, workers, &flag, &on_position);
            hub.finish(&ticket);
            let _ = tx.send(Message::Done(result));
        });
    if let Err(e) = spawned {
        if let Some(t) = guard.ticket() {
            guard.hub().finish(t);
        }
        let data = json!({ "error": "engine", "message": format!("cannot start the review: {e}") });
        return Err(event("error", &data));
    }
    let start_data = json!({
        "positions": total,
        "from": from,
        "budget": budget.to_string(),
        "repeatable": budget.repeatable(),
        "workers": workers,
    });
    let streaming = Streaming {
        rx,
        _guard: guard,
        stop: flag,
        from,
        total,
        done: 0,
        started: Instant::now(),
    };
    Ok((event("start", &start_data), streaming))
}

/// The next event of a running review, or `None` once it has ended.
async fn next_event(mut s: Box<Streaming>) -> Option<(Event, Stage)> {
    // Every review ends within the cap: past it, its searchers are
    // told to stop and the stream says so.
    let deadline = tokio::time::Instant::from_std(s.started) + Duration::from_millis(MAX_TIME_MS);
    let Ok(message) = tokio::time::timeout_at(deadline, s.rx.recv()).await else {
        s.stop.store(true, Ordering::Relaxed);
        let data = json!({ "stopped": true, "why": "the review ran past its cap of an hour" });
        return Some((event("stopped", &data), Stage::Done));
    };
    let data = match message? {
        Message::Position(i, j) => {
            s.done += 1;
            let elapsed = s.started.elapsed();
            let left = review::time_left(s.done, s.total, elapsed);
            let mut data = position_json(s.from + i, &j);
            if let Some(map) = data.as_object_mut() {
                map.insert("done".into(), json!(s.done));
                map.insert("total".into(), json!(s.total));
                map.insert("elapsed".into(), json!(elapsed.as_millis() as u64));
                map.insert("left".into(), json!(left.as_millis() as u64));
            }
            return Some((event("position", &data), Stage::Running(s)));
        }
        Message::Done(Ok(Some(r))) => {
            let moves: Vec<Value> = r
                .moves
                .iter()
                .enumerate()
                .map(|(i, m)| move_json(s.from + i + 1, m))
                .collect();
            let data = json!({
                "budget": r.budget.to_string(),
                "repeatable": r.budget.repeatable(),
                "moves": moves,
                "sides": {
                    "attackers": side_json(&r.sides[0]),
                    "defenders": side_json(&r.sides[1]),
                },
                "time": s.started.elapsed().as_millis() as u64,
            });
            event("review", &data)
        }
        Message::Done(Ok(None)) => event("stopped", &json!({ "stopped": true })),
        Message::Done(Err(e)) => event("error", &json!({ "error": "engine", "message": e })),
    };
    Some((data, Stage::Done))
}

/// `POST /api/review`: reviews a game (from its move `from`) and streams
/// the searches and the verdict.
pub async fn review(
    State(state): State<AppState>,
    client: ClientId,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (spec, req): (super::api::GameSpec, ReviewRequest) = parse_game_body(body)?;
    let budget = req.budget()?;
    let from = req.from.unwrap_or(0);
    let (start, line) = blocking(move || start_and_line(&spec, from)).await??;
    let job = Job {
        client,
        start,
        line,
        from,
        budget,
    };
    let guard = WorkGuard::new(state.hub.clone());
    let client = job.client.clone();
    Ok(event_stream(work_events(
        guard, job, client, begin, next_event,
    )))
}

/// The position after `from` moves of the game, and the moves after it.
fn start_and_line(spec: &super::api::GameSpec, from: usize) -> Result<(Game, Vec<Move>), ApiError> {
    let whole = spec.game()?;
    let moves: Vec<Move> = whole.moves().to_vec();
    if from > moves.len() || moves.len() > MAX_MOVES {
        return Err(ApiError::bad(
            "bad-from",
            format!("from must be 0 to {} (the game's moves)", moves.len()),
        ));
    }
    let mut start = spec.start_game()?;
    for &mv in &moves[..from] {
        start
            .play(mv)
            .map_err(|e| ApiError::bad("illegal-move", e))?;
    }
    Ok((start, moves[from..].to_vec()))
}
