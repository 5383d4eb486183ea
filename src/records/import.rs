//! Game files as people and programs write them, read into games the rules
//! can replay: the runner's records (`konakis-game 1 | …`), OpenTafl game
//! records (tags, a rules string, numbered turns), the comma-separated
//! records of people's games (`../shared/cases/real/`: moves first), and a
//! bare list of moves (`1. d1-d3 e5-e6 …`). `konakis openings` and the
//! browser board's import read through here, so a format is read one way.

use super::game::GameRecord;
use crate::rules::otn::parse_otn_rules;
use crate::rules::{Game, Preset, Rules, Side, StartPoint};

/// Which kind of file a text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Konakis,
    OpenTafl,
    Csv,
    MoveList,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Konakis => "konakis",
            Format::OpenTafl => "opentafl",
            Format::Csv => "csv",
            Format::MoveList => "moves",
        }
    }
}

/// A result as a record states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatedResult {
    /// `None` for a draw.
    pub winner: Option<Side>,
    /// The record's own word for why (`king-escaped`, `time`, `resigned`…).
    pub reason: String,
}

/// One game of a file.
#[derive(Clone, Debug)]
pub struct FileGame {
    /// The line of the file it starts on (from 1).
    pub line: usize,
    /// The rules the record names; `None` when it names none.
    pub rules: Option<Rules>,
    pub start: StartPoint,
    /// The moves as `from-to`: capture marks, piece letters and OpenTafl's
    /// info symbols dropped.
    pub moves: Vec<String>,
    pub result: Option<StatedResult>,
    /// The record's names for the players, when it gives them.
    pub attackers: Option<String>,
    pub defenders: Option<String>,
}

/// The games of a text, and the records that could not be read (each
/// named by its line).
#[derive(Clone, Debug)]
pub struct FileGames {
    pub format: Format,
    pub games: Vec<FileGame>,
    pub errors: Vec<String>,
}

impl FileGames {
    fn new(format: Format) -> FileGames {
        FileGames {
            format,
            games: Vec::new(),
            errors: Vec::new(),
        }
    }
}

/// `Ke1-a1xb1/a2--` → `e1-a1`: the from-to core of a move in any of the
/// formats (a leading piece letter, capture records after `x` and trailing
/// `+`/`-` marks dropped).
pub fn plain_move(word: &str) -> String {
    let mut w = word.trim();
    let mut chars = w.chars();
    if let (Some(a), Some(b)) = (chars.next(), chars.next()) {
        if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() {
            w = &w[1..];
        }
    }
    let core = w.split('x').next().unwrap_or(w);
    core.trim_end_matches(['+', '-']).to_string()
}

/// Whether a word reads as a move (`d1-d3`, `d1d3`, `Kd1-d3xd4`).
fn looks_like_move(word: &str) -> bool {
    let m = plain_move(word);
    let mut chars = m.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && m.chars().any(|c| c.is_ascii_digit())
        && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && m.len() >= 4
}

/// Reads every game of a text, whichever format it holds.
pub fn read_games(text: &str) -> Result<FileGames, String> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .ok_or("the text holds no game")?;
    let out = if first.starts_with("konakis-game") {
        read_konakis(text)
    } else if first.starts_with('[') || first.starts_with("dim:") {
        read_opentafl(text)
    } else if first.contains(',') {
        read_csv(text)
    } else {
        read_move_list(text)?
    };
    if out.games.is_empty() && out.errors.is_empty() {
        return Err(format!("no game found in the {} text", out.format.name()));
    }
    Ok(out)
}

fn read_konakis(text: &str) -> FileGames {
    let mut out = FileGames::new(Format::Konakis);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = GameRecord::parse(line).and_then(|rec| {
            let rules = Rules::build(rec.variant, &rec.overrides)?;
            Ok(FileGame {
                line: i + 1,
                rules: Some(rules),
                start: rec.start.clone(),
                moves: rec.moves.iter().map(|m| plain_move(&m.text)).collect(),
                result: Some(StatedResult {
                    winner: rec.winner,
                    reason: rec.reason.name().to_string(),
                })
                .filter(|_| rec.reason != super::game::EndReason::Unfinished),
                attackers: Some(rec.attackers.clone()).filter(|n| !n.is_empty()),
                defenders: Some(rec.defenders.clone()).filter(|n| !n.is_empty()),
            })
        });
        match parsed {
            Ok(g) => out.games.push(g),
            Err(e) => out.errors.push(format!("line {}: {e}", i + 1)),
        }
    }
    out
}

/// An OpenTafl game being read: its tags and turns so far.
struct OpenTaflGame {
    line: usize,
    tags: Vec<(String, String)>,
    rules_line: Option<String>,
    start_record: Option<String>,
    moves: Vec<String>,
}

impl OpenTaflGame {
    fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn finish(self) -> Result<FileGame, String> {
        let preset = self.tag("variant").and_then(|v| v.parse::<Preset>().ok());
        let rules_text = self
            .tag("rules")
            .map(str::to_string)
            .or(self.rules_line.clone());
        let rules = match (preset, rules_text) {
            (Some(p), _) => Some(Rules::preset(p)),
            (None, Some(t)) => Some(parse_otn_rules(&t)?),
            (None, None) => None,
        };
        let start = match (&self.start_record, &rules) {
            (Some(record), Some(r)) if *record != r.options().setup.record() => {
                StartPoint::Position {
                    setup: crate::rules::parse_record(record)?,
                    side: r.options().first,
                    plies_since_capture: 0,
                    ply: 0,
                }
            }
            _ => StartPoint::Initial,
        };
        let result = match self.tag("result") {
            Some("1") => Some(Some(Side::Attackers)),
            Some("-1") => Some(Some(Side::Defenders)),
            Some("0") => Some(None),
            _ => None,
        }
        .map(|winner| StatedResult {
            winner,
            reason: self.tag("termination").unwrap_or("recorded").to_string(),
        });
        let attackers = self.tag("attackers").map(str::to_string);
        let defenders = self.tag("defenders").map(str::to_string);
        Ok(FileGame {
            line: self.line,
            rules,
            start,
            moves: self.moves,
            result,
            attackers,
            defenders,
        })
    }
}

/// The `[key:value]` groups of a tag line; `None` for a comment line
/// (`[|]`, `[a comment|…]`), whose first group is no `key:value`.
fn tags_of(line: &str) -> Option<Vec<(String, String)>> {
    let mut tags = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        // A rules string holds no ']', so the group ends at the next one.
        let close = rest[open..].find(']').map_or(rest.len(), |c| open + c);
        let group = &rest[open + 1..close];
        let (key, value) = group.split_once(':')?;
        let word = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !key.starts_with(|c: char| c.is_ascii_alphabetic()) || !word {
            return None;
        }
        tags.push((key.to_string(), value.trim().to_string()));
        rest = &rest[(close + 1).min(rest.len())..];
    }
    Some(tags)
}

fn read_opentafl(text: &str) -> FileGames {
    let mut out = FileGames::new(Format::OpenTafl);
    let mut current: Option<OpenTaflGame> = None;
    let mut in_turns = false;
    let finish = |game: Option<OpenTaflGame>, out: &mut FileGames| {
        if let Some(g) = game {
            let line = g.line;
            match g.finish() {
                Ok(g) => out.games.push(g),
                Err(e) => out.errors.push(format!("line {line}: {e}")),
            }
        }
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            let Some(tags) = tags_of(line) else {
                continue; // a comment
            };
            if in_turns || current.is_none() {
                finish(current.take(), &mut out);
                in_turns = false;
                current = Some(OpenTaflGame {
                    line: i + 1,
                    tags: Vec::new(),
                    rules_line: None,
                    start_record: None,
                    moves: Vec::new(),
                });
            }
            if let Some(g) = current.as_mut() {
                g.tags.extend(tags);
            }
            continue;
        }
        let game = current.get_or_insert_with(|| OpenTaflGame {
            line: i + 1,
            tags: Vec::new(),
            rules_line: None,
            start_record: None,
            moves: Vec::new(),
        });
        if line.starts_with("dim:") {
            game.rules_line = Some(line.to_string());
            continue;
        }
        if line.starts_with('/') {
            game.start_record = Some(line.to_string());
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        // `12.` numbers a turn; `2a.1.1a.` starts a variation, left out.
        let number = first.strip_suffix('.').unwrap_or("");
        if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) {
            in_turns = true;
            game.moves.extend(
                words
                    .take_while(|w| !w.starts_with('['))
                    .filter(|w| *w != "..." && looks_like_move(w))
                    .map(plain_move),
            );
        }
    }
    finish(current, &mut out);
    out
}

fn read_csv(text: &str) -> FileGames {
    let mut out = FileGames::new(Format::Csv);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let words: Vec<&str> = fields[0].split_whitespace().collect();
        let timeout = words.contains(&"timeout");
        let moves: Vec<String> = words
            .iter()
            .filter(|w| **w != "timeout")
            .map(|w| plain_move(w))
            .collect();
        if let Some(bad) = moves.iter().find(|m| !looks_like_move(m)) {
            out.errors
                .push(format!("line {}: '{bad}' is not a move", i + 1));
            continue;
        }
        let winner = match fields.get(3).copied() {
            Some("White") => Some(Some(Side::Defenders)),
            Some("Black") => Some(Some(Side::Attackers)),
            Some("Draw") => Some(None),
            _ => None,
        };
        out.games.push(FileGame {
            line: i + 1,
            rules: None,
            start: StartPoint::Initial,
            moves,
            result: winner.map(|winner| StatedResult {
                winner,
                reason: if timeout { "time" } else { "recorded" }.to_string(),
            }),
            attackers: None,
            defenders: None,
        });
    }
    out
}

/// One game as a bare list of moves, turn numbers allowed.
fn read_move_list(text: &str) -> Result<FileGames, String> {
    let mut moves = Vec::new();
    for word in text.split_whitespace() {
        let number = word.strip_suffix('.').unwrap_or("x");
        if number.chars().all(|c| c.is_ascii_digit()) || word == "..." {
            continue;
        }
        if !looks_like_move(word) {
            return Err(format!(
                "'{word}' is not a move: expected a runner record (konakis-game 1 | …), an OpenTafl record ([tags] and turns), comma-separated games, or moves such as d1-d3"
            ));
        }
        moves.push(plain_move(word));
    }
    let mut out = FileGames::new(Format::MoveList);
    out.games.push(FileGame {
        line: 1,
        rules: None,
        start: StartPoint::Initial,
        moves,
        result: None,
        attackers: None,
        defenders: None,
    });
    Ok(out)
}

/// A game replayed under some rules: as far as the rules let it go.
#[derive(Clone, Debug)]
pub struct Replayed {
    pub game: Game,
    /// Moves the record has after the rules ended the game (left out).
    pub beyond_end: usize,
}

impl FileGame {
    /// Replays the moves under `rules`. Moves recorded after the rules end
    /// the game are left out and counted (people's sites do not all apply
    /// every rule); any other move that cannot be played is an error.
    pub fn replay(&self, rules: &Rules) -> Result<Replayed, String> {
        let mut game = Game::from_start(rules.clone(), &self.start)?;
        match game.play_all(&self.moves) {
            Ok(()) => Ok(Replayed {
                game,
                beyond_end: 0,
            }),
            Err(_) if game.outcome().is_some() => Ok(Replayed {
                beyond_end: self.moves.len() - game.moves().len(),
                game,
            }),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The rules to replay under: the record's own, else `preferred`, else
    /// the first preset under which every move is legal. The flag says
    /// whether the rules were guessed.
    pub fn choose_rules(&self, preferred: Option<&Rules>) -> Result<(Rules, bool), String> {
        if let Some(r) = &self.rules {
            return Ok((r.clone(), false));
        }
        let mut first_error = None;
        if let Some(p) = preferred {
            match self.replay(p) {
                Ok(_) => return Ok((p.clone(), false)),
                Err(e) => first_error = Some(format!("under {}: {e}", p.options().preset)),
            }
        }
        for preset in Preset::ALL {
            let rules = Rules::preset(preset);
            if self.replay(&rules).is_ok() {
                return Ok((rules, true));
            }
        }
        Err(format!(
            "the record names no rules and no preset replays it{}",
            first_error.map(|e| format!(" ({e})")).unwrap_or_default()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_moves() {
        assert_eq!(plain_move("Ke1-a1xb1/a2--"), "e1-a1");
        assert_eq!(plain_move("g3-e3xe2"), "g3-e3");
        assert_eq!(plain_move("d1d3"), "d1d3");
        assert_eq!(plain_move("e5-e8+"), "e5-e8");
        assert!(looks_like_move("a10-a11"));
        assert!(!looks_like_move("timeout"));
        assert!(!looks_like_move("1."));
    }

    #[test]
    fn opentafl_with_comments_and_variations() {
        let text = "[date:2017.04.15]\n[result:?]\n[rules:dim:7 name:Brandub atkf:y start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n1. d7-f7 d5-f5\n[|]\n\n2a.1.1a. d5-f5 Kd4-d5\n2. d6-e6 e4-f4\n";
        let read = read_games(text).unwrap();
        assert_eq!(read.format, Format::OpenTafl);
        assert_eq!(read.games.len(), 1);
        let g = &read.games[0];
        assert_eq!(g.moves, ["d7-f7", "d5-f5", "d6-e6", "e4-f4"]);
        assert_eq!(g.rules.as_ref().unwrap().size(), 7);
        assert!(g.result.is_none());
    }

    #[test]
    fn move_lists_and_csv() {
        let read = read_games("1. d1-d3 e5-e6\n2. d3-d2").unwrap();
        assert_eq!(read.format, Format::MoveList);
        assert_eq!(read.games[0].moves, ["d1-d3", "e5-e6", "d3-d2"]);
        let read = read_games("g1-g3 h6-h3xh2 timeout,1,0,Black\n").unwrap();
        assert_eq!(read.format, Format::Csv);
        let g = &read.games[0];
        assert_eq!(g.moves, ["g1-g3", "h6-h3"]);
        assert_eq!(g.result.as_ref().unwrap().winner, Some(Side::Attackers));
        assert_eq!(g.result.as_ref().unwrap().reason, "time");
        assert!(read_games("hello world").is_err());
        assert!(read_games("   \n").is_err());
    }
}
