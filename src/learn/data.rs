//! Training data files: a header naming the rules, then one 48-byte record
//! per position (format in `docs/data-format.md`).

use crate::rules::{Bitboard, Move, Position, Rules, Side, Square, StartPoint};
use std::io::{Read, Write};

/// The first bytes of every data file.
pub const MAGIC: &[u8; 8] = b"KNKSDATA";
/// The format version this build writes and reads.
pub const VERSION: u16 = 1;
/// Bytes per position record.
pub const RECORD_BYTES: usize = 48;

/// How a game ended, for training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    AttackersWon,
    DefendersWon,
    Draw,
}

impl GameResult {
    /// The result as a score for the defenders: 1, 0.5 or 0.
    pub fn defenders_score(self) -> f64 {
        match self {
            GameResult::AttackersWon => 0.0,
            GameResult::DefendersWon => 1.0,
            GameResult::Draw => 0.5,
        }
    }
    fn code(self) -> u8 {
        match self {
            GameResult::AttackersWon => 0,
            GameResult::DefendersWon => 1,
            GameResult::Draw => 2,
        }
    }
    fn from_code(code: u8) -> Option<GameResult> {
        match code {
            0 => Some(GameResult::AttackersWon),
            1 => Some(GameResult::DefendersWon),
            2 => Some(GameResult::Draw),
            _ => None,
        }
    }
    pub fn from_winner(winner: Option<Side>) -> GameResult {
        match winner {
            Some(Side::Attackers) => GameResult::AttackersWon,
            Some(Side::Defenders) => GameResult::DefendersWon,
            None => GameResult::Draw,
        }
    }
}

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub attackers: Bitboard,
    /// Defending soldiers, without the king.
    pub defenders: Bitboard,
    pub king: Square,
    pub side: Side,
    pub plies_since_capture: u16,
    pub ply: u16,
    /// The search's score, centi-soldiers from the side to move's view.
    pub score: i16,
    pub best: Option<Move>,
    pub result: GameResult,
    /// The game ran into the length limit and was scored a draw.
    pub adjudicated: bool,
    /// No search score: the position comes from a game record (the best
    /// move is the move played).
    pub no_score: bool,
    /// Which game of the file the position comes from.
    pub game: u32,
}

impl Record {
    pub fn new(pos: &Position, score: i32, best: Option<Move>, game: u32) -> Option<Record> {
        Some(Record {
            attackers: pos.attackers(),
            defenders: pos.defenders(),
            king: pos.king_square()?,
            side: pos.side_to_move(),
            plies_since_capture: pos.plies_since_capture.min(u16::MAX as u32) as u16,
            ply: pos.ply.min(u16::MAX as u32) as u16,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            best,
            result: GameResult::Draw,
            adjudicated: false,
            no_score: false,
            game,
        })
    }

    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..16].copy_from_slice(&self.attackers.0.to_le_bytes());
        b[16..32].copy_from_slice(&self.defenders.0.to_le_bytes());
        b[32] = self.king.index() as u8;
        b[33] = (self.side == Side::Defenders) as u8
            | (self.result.code() << 1)
            | ((self.adjudicated as u8) << 3)
            | ((self.no_score as u8) << 4);
        b[34..36].copy_from_slice(&self.plies_since_capture.to_le_bytes());
        b[36..38].copy_from_slice(&self.ply.to_le_bytes());
        b[38..40].copy_from_slice(&self.score.to_le_bytes());
        b[40..42].copy_from_slice(&self.best.map_or(0, Move::raw).to_le_bytes());
        b[42..46].copy_from_slice(&self.game.to_le_bytes());
        b
    }

    /// A record from its bytes, checked: pieces on the board and apart, a
    /// known result, a real move or none.
    pub fn from_bytes(b: &[u8; RECORD_BYTES], size: usize) -> Result<Record, String> {
        let u128_at = |i: usize| {
            let mut a = [0u8; 16];
            a.copy_from_slice(&b[i..i + 16]);
            u128::from_le_bytes(a)
        };
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let attackers = Bitboard(u128_at(0));
        let defenders = Bitboard(u128_at(16));
        let board = board_mask(size);
        if (attackers | defenders).0 & !board.0 != 0 || (attackers & defenders).any() {
            return Err("pieces off the board or on one square".into());
        }
        let king = b[32] as usize;
        if king >= crate::rules::types::NUM_SQUARES || !board.has(Square::from_index(king)) {
            return Err(format!("king square {king} is off the board"));
        }
        let king = Square::from_index(king);
        if (attackers | defenders).has(king) {
            return Err("the king shares a square".into());
        }
        let flags = b[33];
        let result = GameResult::from_code((flags >> 1) & 3)
            .ok_or_else(|| format!("unknown result code {}", (flags >> 1) & 3))?;
        let raw_move = u16_at(40);
        let best = Move::from_raw(raw_move);
        if raw_move != 0 && best.is_none() {
            return Err(format!("bad move {raw_move:#x}"));
        }
        Ok(Record {
            attackers,
            defenders,
            king,
            side: if flags & 1 == 1 {
                Side::Defenders
            } else {
                Side::Attackers
            },
            plies_since_capture: u16_at(34),
            ply: u16_at(36),
            score: i16::from_le_bytes([b[38], b[39]]),
            best,
            result,
            adjudicated: flags & 8 != 0,
            no_score: flags & 16 != 0,
            game: u32::from_le_bytes([b[42], b[43], b[44], b[45]]),
        })
    }

    /// The position, under `rules`.
    pub fn position(&self, rules: &Rules) -> Result<Position, String> {
        let start = StartPoint::Position {
            setup: crate::rules::Setup {
                size: rules.size(),
                attackers: self.attackers,
                defenders: self.defenders,
                king: self.king.bb(),
            },
            side: self.side,
            plies_since_capture: self.plies_since_capture as u32,
            ply: self.ply as u32,
        };
        crate::rules::Game::from_start(rules.clone(), &start).map(|g| *g.position())
    }
}

fn board_mask(size: usize) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for r in 0..size {
        for f in 0..size {
            b.set(Square::new(r, f));
        }
    }
    b
}

/// The rules a file's positions were played under, as text: the preset and
/// its overrides (`copenhagen`, `tablut NoCaptureLimit=80`).
pub fn rules_text(preset: crate::rules::Preset, overrides: &[(String, String)]) -> String {
    let mut parts = vec![preset.name().to_string()];
    parts.extend(overrides.iter().map(|(k, v)| format!("{k}={v}")));
    parts.join(" ")
}

/// The rules a file names.
pub fn rules_from_text(text: &str) -> Result<Rules, String> {
    let mut words = text.split_whitespace();
    let preset: crate::rules::Preset = words.next().ok_or("the file names no rules")?.parse()?;
    let mut overrides = Vec::new();
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("bad rule '{w}' in the file's header"))?;
        overrides.push((k.to_string(), v.to_string()));
    }
    Rules::build(preset, &overrides)
}

/// Writes a file header.
pub fn write_header(out: &mut impl Write, rules_text: &str) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&(RECORD_BYTES as u16).to_le_bytes())?;
    out.write_all(&(rules_text.len() as u32).to_le_bytes())?;
    out.write_all(rules_text.as_bytes())
}

/// Checks that a data file holds positions of `family` (the first file
/// read decides it when none was asked for).
pub fn check_family(
    family: &mut Option<crate::search::eval::Family>,
    path: &str,
    file: &DataFile,
) -> Result<(), String> {
    let f = crate::search::eval::Family::of(&file.rules);
    match *family {
        None => *family = Some(f),
        Some(want) if want != f => {
            return Err(format!(
                "{path} holds {} positions ('{}'), not {}",
                f.name(),
                file.rules_text,
                want.name()
            ))
        }
        Some(_) => {}
    }
    Ok(())
}

/// One game people played, from the CSV format of `../shared/cases/real/`
/// (moves, two capture counts, `White`, `Black`, `Draw` or `Ongoing`).
pub struct PeopleGame<'a> {
    /// The game's line in the file, from 1.
    pub line: usize,
    /// Its moves, without a closing `timeout`.
    pub moves: Vec<&'a str>,
    /// `None` for a game without a result.
    pub result: Option<GameResult>,
}

/// The games of a people's-games CSV text (`path` names it in errors).
pub fn people_games<'a>(path: &str, text: &'a str) -> Result<Vec<PeopleGame<'a>>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let [moves, _, _, result] = fields.as_slice() else {
                return Err(format!("{path}:{}: expected four fields", i + 1));
            };
            Ok(PeopleGame {
                line: i + 1,
                moves: moves
                    .split_whitespace()
                    .filter(|t| *t != "timeout")
                    .collect(),
                result: match *result {
                    "White" => Some(GameResult::DefendersWon),
                    "Black" => Some(GameResult::AttackersWon),
                    "Draw" => Some(GameResult::Draw),
                    _ => None,
                },
            })
        })
        .collect()
}

/// A whole data file in memory.
pub struct DataFile {
    pub rules_text: String,
    pub rules: Rules,
    pub records: Vec<Record>,
}

/// Reads a data file; every record is checked.
pub fn read_file(path: &str) -> Result<DataFile, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| format!("{path}: {e}"))?;
    let (rules_text, body) = parse_header(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let rules = rules_from_text(&rules_text).map_err(|e| format!("{path}: {e}"))?;
    if body.len() % RECORD_BYTES != 0 {
        return Err(format!(
            "{path}: truncated: {} bytes after the last whole record",
            body.len() % RECORD_BYTES
        ));
    }
    let mut records = Vec::with_capacity(body.len() / RECORD_BYTES);
    for (i, chunk) in body.chunks_exact(RECORD_BYTES).enumerate() {
        let mut b = [0u8; RECORD_BYTES];
        b.copy_from_slice(chunk);
        records.push(
            Record::from_bytes(&b, rules.size())
                .map_err(|e| format!("{path}: record {}: {e}", i + 1))?,
        );
    }
    Ok(DataFile {
        rules_text,
        rules,
        records,
    })
}

/// The rules text of a file's header and the bytes after it.
pub fn parse_header(bytes: &[u8]) -> Result<(String, &[u8]), String> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err("not a Konakis data file".into());
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(format!(
            "data format version {version}; this build reads {VERSION}"
        ));
    }
    let record = u16::from_le_bytes([bytes[10], bytes[11]]) as usize;
    if record != RECORD_BYTES {
        return Err(format!(
            "records of {record} bytes; expected {RECORD_BYTES}"
        ));
    }
    let len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let text = bytes.get(16..16 + len).ok_or("truncated header")?;
    let text = std::str::from_utf8(text).map_err(|_| "the header's rules are not text")?;
    Ok((text.to_string(), &bytes[16 + len..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;

    #[test]
    fn records_round_trip() {
        let rules = Rules::preset(Preset::Copenhagen);
        let pos = Position::start(&rules);
        let mv = Move::new(Square::new(0, 3), Square::new(2, 3));
        let mut r = Record::new(&pos, -123, Some(mv), 7).unwrap();
        r.result = GameResult::DefendersWon;
        r.adjudicated = true;
        r.no_score = true;
        let back = Record::from_bytes(&r.to_bytes(), 11).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.position(&rules).unwrap().hash(), pos.hash());
        let mut bad = r.to_bytes();
        bad[33] |= 6; // result code 3
        assert!(Record::from_bytes(&bad, 11).is_err());
    }
}
