//! The state-less JSON endpoints: variants, positions, import and export.
//! Each request names its whole game (variant, rule changes, start and
//! moves), which the rules library replays and checks; nothing is kept
//! between requests.

use crate::records::game::{EndReason, GameRecord, RecordedMove};
use crate::records::import::{self, FileGame};
use crate::rules::otn::otn_move;
use crate::rules::{Game, Preset, Reason, Rules, Side, StartPoint};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The most moves a game may have in a request.
pub const MAX_MOVES: usize = 5000;
/// The most games an import returns.
pub const MAX_IMPORT_GAMES: usize = 5000;

/// An error answer: a status and `{"error": code, "message": …}` plus any
/// details (an illegal move's index and reason).
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: Value,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: json!({ "error": code, "message": message.into() }),
        }
    }

    pub fn bad(code: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        self.body.clone()
    }

    /// Adds a detail field.
    fn with(mut self, key: &str, value: Value) -> ApiError {
        if let Some(map) = self.body.as_object_mut() {
            map.insert(key.to_string(), value);
        }
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

/// Runs `f` off the runtime (it may wait on the engine); a task that
/// could not finish is a 500.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "engine", e.to_string()))
}

/// The value of the cookie `name`, if the request sends it.
pub fn cookie(headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Parses a JSON body into `T`, answering a clear 4xx for an oversized
/// body, bad JSON or a field of the wrong kind.
pub fn parse_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| {
        let status = e.status();
        let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "body-too-large"
        } else {
            "bad-body"
        };
        ApiError::new(status, code, e.body_text())
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::bad(
            "bad-json",
            format!("the request body is not the JSON expected: {e}"),
        )
    })
}

/// Parses a body that names a game and more: the game's fields go to a
/// [`GameSpec`], the rest to `T`, and a field neither knows is refused.
pub fn parse_game_body<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
) -> Result<(GameSpec, T), ApiError> {
    let UniqueObject(mut map) = parse_body(body)?;
    let mut game = serde_json::Map::new();
    for key in GameSpec::FIELDS {
        if let Some(v) = map.remove(key) {
            game.insert(key.to_string(), v);
        }
    }
    let bad = |e: serde_json::Error| {
        ApiError::bad(
            "bad-json",
            format!("the request body is not the JSON expected: {e}"),
        )
    };
    let spec = serde_json::from_value(Value::Object(game)).map_err(bad)?;
    let rest = serde_json::from_value(Value::Object(map)).map_err(bad)?;
    Ok((spec, rest))
}

/// A JSON object whose keys are all different: a request that names a
/// field twice is refused, as the endpoints parsed by their types do.
struct UniqueObject(serde_json::Map<String, Value>);

impl<'de> Deserialize<'de> for UniqueObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = UniqueObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut access: A,
            ) -> Result<UniqueObject, A::Error> {
                let mut map = serde_json::Map::new();
                while let Some((key, value)) = access.next_entry::<String, Value>()? {
                    if map.contains_key(&key) {
                        return Err(serde::de::Error::custom(format!("duplicate field `{key}`")));
                    }
                    map.insert(key, value);
                }
                Ok(UniqueObject(map))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// The game a request names: every request that shows or searches a
/// position carries these fields.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    pub variant: String,
    /// Rule options changed from the preset's (`{"KingArmed": "hammer"}`).
    #[serde(default)]
    pub rules: BTreeMap<String, String>,
    /// `startpos` (the default) or `<record> <a|d> [<plies-since-capture> <ply>]`.
    #[serde(default)]
    pub start: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
}

impl GameSpec {
    /// The JSON fields of a game.
    const FIELDS: [&'static str; 4] = ["variant", "rules", "start", "moves"];

    /// The preset and its changes, checked.
    pub fn rules(&self) -> Result<Rules, ApiError> {
        let preset: Preset = self.variant.trim().parse().map_err(|e: String| {
            ApiError::bad("unknown-variant", e).with("variants", json!(Preset::NAMES))
        })?;
        let overrides: Vec<(&String, &String)> = self.rules.iter().collect();
        Rules::build(preset, &overrides).map_err(|e| ApiError::bad("bad-rules", e))
    }

    /// The game after its moves. An illegal move is a 400 naming its index
    /// (from 0) and why.
    pub fn game(&self) -> Result<Game, ApiError> {
        let mut game = self.start_game()?;
        game.play_all(&self.moves).map_err(|f| {
            ApiError::bad("illegal-move", f.to_string())
                .with("move_index", json!(f.index))
                .with("move", json!(f.text))
                .with("why", json!(f.why))
        })?;
        Ok(game)
    }

    /// The game at its start, before any of its moves.
    pub fn start_game(&self) -> Result<Game, ApiError> {
        let rules = self.rules()?;
        if self.moves.len() > MAX_MOVES {
            return Err(ApiError::bad(
                "too-many-moves",
                format!(
                    "{} moves; a game may have at most {MAX_MOVES}",
                    self.moves.len()
                ),
            ));
        }
        let start = match self.start.as_deref().map(str::trim) {
            None | Some("") => StartPoint::Initial,
            Some(text) => text
                .parse::<StartPoint>()
                .map_err(|e| ApiError::bad("bad-start", e))?,
        };
        Game::from_start(rules, &start).map_err(|e| ApiError::bad("bad-start", e))
    }
}

fn squares(b: crate::rules::Bitboard) -> Vec<String> {
    b.squares().map(|s| s.to_string()).collect()
}

/// The preset name and changes of some rules, for answers and records.
fn rules_json(rules: &Rules) -> Value {
    let changes: BTreeMap<String, String> = rules.overrides().into_iter().collect();
    json!({ "variant": rules.options().preset.name(), "rules": changes })
}

/// The special squares of a board, for drawing it.
fn marks_json(rules: &Rules) -> Value {
    let m = rules.masks();
    let o = rules.options();
    json!({
        "throne": m.throne_sq.map(|s| s.to_string()),
        "corners": squares(m.corners),
        "escape": if o.escape == crate::rules::options::Escape::Edge { "edge" } else { "corners" },
        "restricted": squares(m.soldier_forbidden & !m.throne),
        "camps": o.camps.iter().map(|g| squares(*g)).collect::<Vec<_>>(),
        "hostile": squares(m.extra_hostile),
    })
}

/// A result in words.
pub fn result_json(winner: Option<Side>, reason: &str) -> Value {
    let why = match reason.parse::<Reason>() {
        Ok(Reason::KingEscaped) => "the king escaped",
        Ok(Reason::KingCaptured) => "the king was captured",
        Ok(Reason::Encircled) => "the defenders were encircled",
        Ok(Reason::ExitFort) => "the king built an exit fort",
        Ok(Reason::CannotEscape) => "the defenders cannot escape",
        Ok(Reason::NoMoves) => "the side to move has no legal move",
        Ok(Reason::Repetition) => "the position repeated",
        Ok(Reason::NoCaptureLimit) => "too many moves without a capture",
        Ok(Reason::MoveLimit) => "the move limit was reached",
        Err(_) => match reason {
            "time" => "time ran out",
            "resigned" | "adjudicated-resign" => "resignation",
            _ => reason,
        },
    };
    let text = match (winner, reason) {
        (Some(side), "recorded") => format!("the {} win (as recorded)", side.name()),
        (None, "recorded") => "draw (as recorded)".to_string(),
        (Some(side), _) => format!("the {} win: {why}", side.name()),
        (None, _) => format!("draw: {why}"),
    };
    json!({ "winner": winner.map(Side::name), "reason": reason, "text": text })
}

/// What the page shows of a game: the board, whose move, the legal moves,
/// the moves played with their captures, and the result.
pub fn game_json(game: &Game) -> Value {
    let rules = game.rules();
    let pos = game.position();
    let size = rules.size();
    let positions = game.positions();
    let played: Vec<Value> = game
        .moves()
        .iter()
        .enumerate()
        .map(|(i, mv)| {
            let (before, after) = (&positions[i], &positions[i + 1]);
            let enemy = before.side_to_move().other();
            json!({
                "move": mv.to_string(),
                "notation": otn_move(before, after, *mv),
                "side": before.side_to_move().name(),
                "captured": squares(before.pieces(enemy) & !after.pieces(enemy)),
            })
        })
        .collect();
    let legal: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
    let mut out = rules_json(rules);
    let fields = json!({
        "size": size,
        "first": rules.options().first.name(),
        "start": StartPoint::at(game.setup_position(), rules).to_string(),
        "record": pos.setup(size).record(),
        "position": StartPoint::at(pos, rules).to_string(),
        "side": pos.side_to_move().name(),
        "ply": pos.ply,
        "plies_since_capture": pos.plies_since_capture,
        "pieces": {
            "attackers": squares(pos.attackers()),
            "defenders": squares(pos.defenders()),
            "king": pos.king_square().map(|s| s.to_string()),
        },
        "marks": marks_json(rules),
        "legal": legal,
        "moves": played,
        "occurrences": game.occurrences(),
        "result": game.outcome().map(|o| result_json(o.winner, o.reason.name())),
    });
    if let (Some(out), Some(fields)) = (out.as_object_mut(), fields.as_object()) {
        out.extend(fields.clone());
    }
    out
}

/// `GET /api/variants`: every preset with its board.
pub async fn variants() -> Json<Value> {
    let list: Vec<Value> = Preset::ALL
        .iter()
        .map(|&p| {
            let rules = Rules::preset(p);
            let o = rules.options();
            json!({
                "name": p.name(),
                "title": title(p),
                "size": rules.size(),
                "sides": ["attackers", "defenders"],
                "first": o.first.name(),
                "start": o.setup.record(),
                "marks": marks_json(&rules),
                "summary": rules.summary(),
            })
        })
        .collect();
    Json(json!({ "variants": list, "default": Preset::Copenhagen.name() }))
}

/// A preset's name as people write it.
fn title(p: Preset) -> &'static str {
    match p {
        Preset::Tablut => "Tablut (Linnaeus, 9x9, edge escape)",
        Preset::TablutLatin => "Tablut, Latin reading (9x9)",
        Preset::Tablut1811 => "Tablut, 1811 reading (9x9)",
        Preset::TablutEnglish => "Tablut, English reading (9x9)",
        Preset::TablutCorner => "Tablut with corner escape (9x9)",
        Preset::Brandubh => "Brandubh (7x7)",
        Preset::Copenhagen => "Copenhagen hnefatafl (11x11)",
        Preset::Fetlar => "Fetlar hnefatafl (11x11)",
        Preset::Ashton => "Ashton Tablut, Tablut Challenge (9x9)",
        Preset::HnefataflOrg11 => "hnefatafl.org 11x11",
        Preset::HnefataflOrg7 => "hnefatafl.org 7x7 (brandubh)",
    }
}

/// `POST /api/position`: the position after a game's moves.
pub async fn position(body: Result<Bytes, BytesRejection>) -> Result<Json<Value>, ApiError> {
    let spec: GameSpec = parse_body(body)?;
    Ok(Json(game_json(&spec.game()?)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportRequest {
    text: String,
    /// The rules for records that name none (comma-separated games, move
    /// lists); when they do not replay under it, the first preset that
    /// does is taken.
    #[serde(default)]
    variant: Option<String>,
}

#[derive(Serialize)]
struct ImportedGame {
    index: usize,
    line: usize,
    variant: String,
    rules: BTreeMap<String, String>,
    /// Whether the rules were guessed (the record named none).
    guessed: bool,
    start: String,
    moves: Vec<String>,
    /// The result under the rules, when they ended the game.
    result: Option<Value>,
    /// The result the record states, when it states one.
    recorded: Option<Value>,
    attackers: Option<String>,
    defenders: Option<String>,
    note: Option<String>,
}

fn imported(index: usize, g: &FileGame, preferred: Option<&Rules>) -> Result<ImportedGame, String> {
    let (rules, guessed) = g.choose_rules(preferred)?;
    let replayed = g.replay(&rules)?;
    let game = &replayed.game;
    let note = (replayed.beyond_end > 0).then(|| {
        format!(
            "{} recorded moves after the game ended ({}) were left out",
            replayed.beyond_end,
            game.outcome().map(|o| o.to_string()).unwrap_or_default()
        )
    });
    Ok(ImportedGame {
        index,
        line: g.line,
        variant: rules.options().preset.name().to_string(),
        rules: rules.overrides().into_iter().collect(),
        guessed,
        start: g.start.to_string(),
        moves: game.moves().iter().map(|m| m.to_string()).collect(),
        result: game
            .outcome()
            .map(|o| result_json(o.winner, o.reason.name())),
        recorded: g.result.as_ref().map(|r| result_json(r.winner, &r.reason)),
        attackers: g.attackers.clone(),
        defenders: g.defenders.clone(),
        note,
    })
}

/// `POST /api/import`: the games of a record file, each replayed.
pub async fn import(body: Result<Bytes, BytesRejection>) -> Result<Json<Value>, ApiError> {
    // Up to 8 MiB of records: parsed and replayed off the runtime.
    blocking(move || import_games(body)).await?
}

fn import_games(body: Result<Bytes, BytesRejection>) -> Result<Json<Value>, ApiError> {
    let req: ImportRequest = parse_body(body)?;
    let preferred = match req.variant.as_deref() {
        Some(v) => Some(
            GameSpec {
                variant: v.to_string(),
                ..GameSpec::default()
            }
            .rules()?,
        ),
        None => None,
    };
    let read = import::read_games(&req.text).map_err(|e| ApiError::bad("bad-record", e))?;
    let mut games = Vec::new();
    let mut errors = read.errors.clone();
    for (i, g) in read.games.iter().enumerate().take(MAX_IMPORT_GAMES) {
        match imported(i, g, preferred.as_ref()) {
            Ok(game) => games.push(game),
            Err(e) => errors.push(format!("line {}: {e}", g.line)),
        }
    }
    if games.is_empty() {
        let first = errors.first().cloned().unwrap_or_default();
        return Err(ApiError::bad(
            "bad-record",
            format!(
                "no game could be read ({} failed; the first: {first})",
                errors.len()
            ),
        )
        .with("errors", json!(errors)));
    }
    Ok(Json(json!({
        "format": read.format.name(),
        "games": games,
        "errors": errors,
        "total": read.games.len(),
        "truncated": read.games.len() > MAX_IMPORT_GAMES,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportRequest {
    /// `konakis` (a runner record line) or `opentafl`.
    format: String,
    /// How a game the rules did not end ended: `{"winner": "attackers",
    /// "reason": "time" | "resigned"}`; without it the game is unfinished.
    #[serde(default)]
    result: Option<StatedEnd>,
    #[serde(default)]
    attackers: Option<String>,
    #[serde(default)]
    defenders: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatedEnd {
    winner: Option<String>,
    reason: String,
}

/// A player's name as a record field: no separators, not empty.
fn player_name(name: Option<&str>, default: &str) -> String {
    let clean: String = name
        .unwrap_or(default)
        .chars()
        .filter(|c| !c.is_control() && *c != '|' && *c != '[' && *c != ']')
        .take(40)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("_");
    if clean.is_empty() {
        default.to_string()
    } else {
        clean
    }
}

/// `POST /api/export`: the game as a runner record or an OpenTafl record.
pub async fn export(body: Result<Bytes, BytesRejection>) -> Result<Json<Value>, ApiError> {
    let (spec, req): (GameSpec, ExportRequest) = parse_game_body(body)?;
    let game = spec.game()?;
    let (winner, reason) = match (game.outcome(), &req.result) {
        (Some(o), _) => (o.winner, EndReason::Rule(o.reason)),
        (None, None) => (None, EndReason::Unfinished),
        (None, Some(end)) => {
            let winner = match end.winner.as_deref() {
                None | Some("draw") => None,
                Some(w) => Some(
                    w.parse::<Side>()
                        .map_err(|e| ApiError::bad("bad-result", e))?,
                ),
            };
            let reason = match end.reason.as_str() {
                "time" => EndReason::Time,
                "resigned" | "adjudicated-resign" => EndReason::AdjudicatedResign,
                "unfinished" => EndReason::Unfinished,
                other => {
                    return Err(ApiError::bad(
                        "bad-result",
                        format!("result reason '{other}': expected time, resigned or unfinished (the rules' own results come from the moves)"),
                    ))
                }
            };
            if winner.is_none() && reason != EndReason::Unfinished {
                return Err(ApiError::bad(
                    "bad-result",
                    "a game lost on time or by resignation has a winner",
                ));
            }
            (winner, reason)
        }
    };
    let rules = game.rules();
    let record = GameRecord {
        number: 1,
        opening: None,
        variant: rules.options().preset,
        overrides: rules.overrides(),
        start: StartPoint::at(game.setup_position(), rules),
        attackers: player_name(req.attackers.as_deref(), "attackers"),
        defenders: player_name(req.defenders.as_deref(), "defenders"),
        winner,
        reason,
        moves: game
            .moves()
            .iter()
            .map(|m| RecordedMove::opening(&m.to_string()))
            .collect(),
        illegal: None,
    };
    let text = match req.format.as_str() {
        "konakis" => record.line() + "\n",
        "opentafl" => record
            .to_opentafl()
            .map_err(|e| ApiError::bad("not-expressible", e))?,
        other => {
            return Err(ApiError::bad(
                "bad-format",
                format!("format '{other}': expected konakis or opentafl"),
            ))
        }
    };
    Ok(Json(json!({ "format": req.format, "text": text })))
}

/// A method the path does not take.
pub async fn method_not_allowed(method: axum::http::Method) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        format!("this path does not take {method} (see docs/http-api.md)"),
    )
}

/// Any other `/api/…` path.
pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not-found",
        "no such endpoint (see docs/http-api.md)",
    )
}
