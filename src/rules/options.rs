//! Rule options and presets.
//!
//! A [`Rules`] value holds every rule option of a game, built from a preset
//! plus named overrides. When an option changes, the masks the hot path reads
//! (forbidden squares, hostile squares for each side, escape squares, walls)
//! are recomputed, so move generation and capture never branch on options.

use super::notation::{parse_record, Setup};
use super::types::{Bitboard, Side, Square, MAX_SIZE, STRIDE};
use std::fmt;
use std::str::FromStr;

/// Where the king escapes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escape {
    Edge,
    Corner,
}

/// Who may cross the empty throne.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThronePassage {
    /// Every piece (soldiers may not stop there).
    Pass,
    /// Only the king.
    Wall,
    /// Nobody, the king included: once he has left it he never crosses or
    /// returns to it (Ashton Tablut).
    Closed,
}

/// Which sides a special square is hostile to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hostility {
    None,
    Attackers,
    Defenders,
    Both,
}

impl Hostility {
    pub fn includes(self, side: Side) -> bool {
        matches!(
            (self, side),
            (Hostility::Both, _)
                | (Hostility::Attackers, Side::Attackers)
                | (Hostility::Defenders, Side::Defenders)
        )
    }
}

/// Corner squares: ordinary, or restricted to the king and hostile to all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corners {
    Plain,
    Restricted,
}

/// How the king is captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KingCapture {
    /// Custodial, like a soldier.
    Weak,
    /// Four attackers on the throne, three beside it, custodial elsewhere.
    Linnaeus,
    /// Four attackers (the empty throne counting as one) everywhere.
    Strong,
    /// Four attackers on the throne; anywhere else custodial between two
    /// attackers or an attacker and a corner, the throne never an anvil
    /// (Brandubh as the hnefatafl.org server plays it).
    Sandwich,
}

/// Whether the king takes part in captures: as hammer (the moving piece),
/// as anvil (the far piece), both or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KingArmed {
    Yes,
    No,
    Anvil,
    Hammer,
}

impl KingArmed {
    pub fn hammer(self) -> bool {
        matches!(self, KingArmed::Yes | KingArmed::Hammer)
    }
    pub fn anvil(self) -> bool {
        matches!(self, KingArmed::Yes | KingArmed::Anvil)
    }
}

/// Shieldwall captures: none, or with or without corners closing a wall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shieldwall {
    None,
    /// Corners may not close a shieldwall.
    Weak,
    /// Corners (when hostile) may close a shieldwall.
    Strong,
}

/// What a third occurrence of a position does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    None,
    Draw,
    MoverLoses,
    DefendersLose,
    /// No occurrence ends the game; instead the defenders may not make a
    /// move whose board (before its captures) equals any earlier board of
    /// the game, whoever was to move then (the hnefatafl.org server).
    DefendersForbidden,
}

/// Whether and how an exit fort wins for the defenders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitFort {
    None,
    /// The Copenhagen rule, decided exactly: the attackers can never break
    /// the fort (see `position::fort`); checked after the defenders' moves.
    Strict,
    /// The hnefatafl.org server's test, after either side's move: the king
    /// on the edge can move, no attacker is in his region of empty squares,
    /// and each defender bounding it is flanked along the region's side by
    /// defenders or the board's edge (see `Position::is_flood_fort`).
    Flood,
}

/// Whether and how encirclement wins for the attackers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encirclement {
    None,
    /// No defender (nor the king) can reach the edge through squares free
    /// of attackers.
    Every,
    /// The king's region of squares free of attackers holds every defender
    /// and touches no edge (the hnefatafl.org server).
    King,
}

macro_rules! named_enum {
    ($ty:ident { $($variant:ident => $name:literal),* $(,)? }) => {
        impl $ty {
            pub const NAMES: &'static [&'static str] = &[$($name),*];
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }
        }
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.to_ascii_lowercase().as_str() {
                    $($name => Ok($ty::$variant),)*
                    _ => Err(format!("'{}' is not one of: {}", s, $ty::NAMES.join(", "))),
                }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum!(Escape { Edge => "edge", Corner => "corner" });
named_enum!(ThronePassage { Pass => "pass", Wall => "wall", Closed => "closed" });
named_enum!(Hostility { None => "none", Attackers => "attackers", Defenders => "defenders", Both => "both" });
named_enum!(Corners { Plain => "plain", Restricted => "restricted" });
named_enum!(KingCapture { Weak => "weak", Linnaeus => "linnaeus", Strong => "strong", Sandwich => "sandwich" });
named_enum!(KingArmed { Yes => "true", No => "false", Anvil => "anvil", Hammer => "hammer" });
named_enum!(Shieldwall { None => "none", Weak => "weak", Strong => "strong" });
named_enum!(Repetition { None => "none", Draw => "draw", MoverLoses => "mover-loses", DefendersLose => "defenders-lose", DefendersForbidden => "defenders-forbidden" });
named_enum!(ExitFort { None => "false", Strict => "true", Flood => "flood" });
named_enum!(Encirclement { None => "false", Every => "true", King => "king" });

/// The named rule presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    Tablut,
    TablutLatin,
    Tablut1811,
    TablutEnglish,
    TablutCorner,
    Brandubh,
    Copenhagen,
    Fetlar,
    Ashton,
    HnefataflOrg11,
    HnefataflOrg7,
}

named_enum!(Preset {
    Tablut => "tablut",
    TablutLatin => "tablut-latin",
    Tablut1811 => "tablut-1811",
    TablutEnglish => "tablut-english",
    TablutCorner => "tablut-corner",
    Brandubh => "brandubh",
    Copenhagen => "copenhagen",
    Fetlar => "fetlar",
    Ashton => "ashton",
    HnefataflOrg11 => "hnefatafl-org-11",
    HnefataflOrg7 => "hnefatafl-org-7",
});

impl Preset {
    pub const ALL: [Preset; 11] = [
        Preset::Tablut,
        Preset::TablutLatin,
        Preset::Tablut1811,
        Preset::TablutEnglish,
        Preset::TablutCorner,
        Preset::Brandubh,
        Preset::Copenhagen,
        Preset::Fetlar,
        Preset::Ashton,
        Preset::HnefataflOrg11,
        Preset::HnefataflOrg7,
    ];
}

/// Start position of the 9x9 tablut family.
pub const START_9: &str = "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";
/// Start position of brandubh.
pub const START_7: &str = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
/// Start position of Copenhagen and Fetlar.
pub const START_11: &str =
    "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";

/// Masks derived from the options, read by the hot path.
#[derive(Clone, Debug, Default)]
pub struct Masks {
    /// Every square of the board.
    pub board: Bitboard,
    /// The outer ring.
    pub edge: Bitboard,
    /// The central square.
    pub throne: Bitboard,
    pub throne_sq: Option<Square>,
    /// The four corner squares.
    pub corners: Bitboard,
    /// Squares where the king wins by arriving.
    pub escape: Bitboard,
    /// Squares beside an escape square no soldier may stop on (beside a
    /// restricted corner): a king standing there escapes next move unless
    /// he is captured at once, since no soldier can block the way.
    pub escape_approach: Bitboard,
    /// Squares only the king may stop on (throne, restricted corners).
    pub soldier_forbidden: Bitboard,
    /// Squares that block soldiers even when empty (a walled throne).
    pub soldier_walls: Bitboard,
    /// Every camp square (Ashton Tablut).
    pub camps: Bitboard,
    /// Per line and position on it: the camp squares that block a soldier
    /// starting its move there (every camp on the line, less the one it
    /// stands in). Zero without camps.
    pub origin_blocks: [[u16; MAX_SIZE]; 2 * MAX_SIZE],
    /// Per line: its camp squares (zero on lines without camps, where
    /// the hot path skips `origin_blocks`).
    pub camp_lines: [u16; 2 * MAX_SIZE],
    /// Squares hostile to some side besides the throne and the corners.
    pub extra_hostile: Bitboard,
    /// Squares hostile to a side's pieces while the throne is empty.
    pub hostile_throne_empty: [Bitboard; 2],
    /// Squares hostile to a side's pieces while the king is on the throne.
    pub hostile_throne_occupied: [Bitboard; 2],
    /// Every square besides the attackers that may stand opposite an
    /// attacker arriving beside the king in a capture of him, under any
    /// rule: a king capture needs one of these (or an attacker) there.
    pub king_anvils: Bitboard,
    /// Per line (ranks 0..11, then files 11..22): bits that stop a king
    /// slide besides the pieces: a sentinel just past the board's end.
    pub king_blocks: [u16; 2 * MAX_SIZE],
    /// Per line: bits that stop a soldier slide besides the pieces: the
    /// sentinel, restricted corners (a soldier can neither stop on nor pass
    /// a corner) and a walled throne.
    pub soldier_blocks: [u16; 2 * MAX_SIZE],
    /// Per line: squares a soldier may cross but not stop on (a passable
    /// throne).
    pub soldier_pass_only: [u16; 2 * MAX_SIZE],
    /// Per line: squares the king may cross but not stop on (a throne he
    /// may not return to).
    pub king_pass_only: [u16; 2 * MAX_SIZE],
    /// Per line: the escape squares on it.
    pub escape_lines: [u16; 2 * MAX_SIZE],
}

/// Every rule option of a game, as plain values: what a preset and its
/// overrides say. A [`Rules`] is built from one only after it is checked,
/// so a `RuleOptions` may hold a combination that cannot be played; a
/// `Rules` never does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOptions {
    pub preset: Preset,
    pub setup: Setup,
    pub first: Side,
    pub escape: Escape,
    /// Whether the centre square is a throne at all (OpenTafl `cen:`).
    pub throne: bool,
    pub throne_passage: ThronePassage,
    /// Whether the king may stop on the throne again once he has left it.
    pub king_returns: bool,
    pub empty_throne_hostile: Hostility,
    pub occupied_throne_hostile: Hostility,
    pub corners: Corners,
    pub king_armed: KingArmed,
    pub king_capture: KingCapture,
    pub law10: bool,
    pub shieldwall: Shieldwall,
    /// Whether a shieldwall is taken only by the move that closes it along
    /// the edge (Copenhagen), or, when false, by any move of the other side
    /// once it is closed (OpenTafl's relaxed shieldwall, `swf:n`).
    pub shieldwall_flank: bool,
    /// Camps (Ashton Tablut): groups of squares that no piece may enter or
    /// cross unless it starts its move in that same group.
    pub camps: Vec<Bitboard>,
    /// Squares hostile (anvils, empty or not) to the attackers' and the
    /// defenders' pieces, besides the throne and corners; the defenders'
    /// set is also an anvil against the king where custodial capture
    /// takes him.
    pub hostile_to: [Bitboard; 2],
    pub exit_fort: ExitFort,
    pub encirclement: Encirclement,
    /// The hnefatafl.org server's "defenders can't escape" win for the
    /// attackers, tested after every move (`Position::cannot_escape`).
    pub cannot_escape: bool,
    pub repetition: Repetition,
    /// The occurrence of a position that ends the game: 3 (the third,
    /// counting the start position) or 2 (the first recurrence of a
    /// position reached by a move, as the Tablut Challenge server rules).
    pub repetition_count: u32,
    /// Draw after this many plies without a capture (0 = off).
    pub no_capture_limit: u32,
    /// Draw after this many plies in total (0 = off).
    pub ply_limit: u32,
}

/// The hnefatafl.org server draws a game whose 141st ply does not win: a
/// play made with more than `MAX_TURNS` = 140 records before it, and a
/// server game starts with one empty record.
pub const HNEFATAFL_ORG_PLY_LIMIT: u32 = 141;

/// The largest value of `NoCaptureLimit` and `PlyLimit`.
pub const MAX_PLY_LIMIT: u32 = 100_000;

/// The names of the rule options, in the order `tei` lists them.
pub const RULE_OPTION_NAMES: &[&str] = &[
    "Start",
    "FirstMove",
    "Escape",
    "Throne",
    "ThronePassage",
    "KingReturns",
    "EmptyThroneHostile",
    "OccupiedThroneHostile",
    "Corners",
    "KingArmed",
    "KingCapture",
    "Law10",
    "Shieldwall",
    "ShieldwallFlank",
    "Camps",
    "HostileToAttackers",
    "HostileToDefenders",
    "ExitFort",
    "Encirclement",
    "CannotEscape",
    "Repetition",
    "RepetitionCount",
    "NoCaptureLimit",
    "PlyLimit",
];

fn parse_bool(v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" | "y" => Ok(true),
        "false" | "off" | "no" | "0" | "n" => Ok(false),
        _ => Err(format!("'{v}' is not a boolean (true or false)")),
    }
}

/// An option that takes a boolean for its two usual values, or a name:
/// `true` is `on`, `false` is `off`.
fn bool_or_named<T: FromStr<Err = String>>(v: &str, on: T, off: T) -> Result<T, String> {
    match parse_bool(v) {
        Ok(true) => Ok(on),
        Ok(false) => Ok(off),
        Err(_) => v.parse(),
    }
}

fn parse_ply_limit(v: &str) -> Result<u32, String> {
    match v.parse::<u32>() {
        Ok(n) if n <= MAX_PLY_LIMIT => Ok(n),
        _ => Err(format!(
            "'{v}' is not a number of plies from 0 to {MAX_PLY_LIMIT}"
        )),
    }
}

/// The Tablut Challenge's camps, one group per edge.
const ASHTON_CAMPS: [&[(usize, usize)]; 4] = [
    // (rank, file) from 0: a4 a5 a6 b5; d1 e1 f1 e2; i4 i5 i6 h5; d9 e9 f9 e8.
    &[(3, 0), (4, 0), (5, 0), (4, 1)],
    &[(0, 3), (0, 4), (0, 5), (1, 4)],
    &[(3, 8), (4, 8), (5, 8), (4, 7)],
    &[(8, 3), (8, 4), (8, 5), (7, 4)],
];
/// The middle camp squares a5 e1 i5 e9: no anvil against the attackers.
const ASHTON_CAMP_MIDDLES: [(usize, usize); 4] = [(4, 0), (0, 4), (4, 8), (8, 4)];

fn squares_bb(list: &[(usize, usize)]) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for &(r, f) in list {
        b.set(Square::new(r, f));
    }
    b
}

/// Squares named like `a4 a5, b5` (commas or spaces), on the largest
/// board; whether they lie on the game's board is checked by `Rules::new`.
fn parse_squares(v: &str) -> Result<Bitboard, String> {
    let mut b = Bitboard::EMPTY;
    for name in v.split([',', ' ']).filter(|t| !t.trim().is_empty()) {
        b.set(Square::parse(name.trim(), MAX_SIZE)?);
    }
    Ok(b)
}

/// Camp groups separated by `;`: `a4 a5 a6 b5; d1 e1 f1 e2`.
fn parse_camps(v: &str) -> Result<Vec<Bitboard>, String> {
    let groups: Vec<Bitboard> = v
        .split(';')
        .filter(|g| !g.trim().is_empty())
        .map(parse_squares)
        .collect::<Result<_, _>>()?;
    let mut seen = Bitboard::EMPTY;
    for g in &groups {
        if (seen & *g).any() {
            return Err("a square is in two camps".into());
        }
        seen |= *g;
    }
    Ok(groups)
}

/// A list option's value: `<empty>` and `none` (as GUIs show and send an
/// empty list) are the empty list.
fn list(value: &str) -> &str {
    if value == "<empty>" || value.eq_ignore_ascii_case("none") {
        ""
    } else {
        value
    }
}

fn squares_text(b: Bitboard) -> String {
    b.squares()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl RuleOptions {
    /// The options of a named preset (see `docs/rules.md`).
    pub fn preset(preset: Preset) -> RuleOptions {
        use Hostility as H;
        let start = match preset {
            Preset::Brandubh | Preset::HnefataflOrg7 => START_7,
            Preset::Copenhagen | Preset::Fetlar | Preset::HnefataflOrg11 => START_11,
            _ => START_9,
        };
        let mut r = RuleOptions {
            preset,
            setup: parse_record(start).expect("built-in start positions are valid"), // ok: constant
            first: Side::Attackers,
            escape: Escape::Edge,
            throne: true,
            throne_passage: ThronePassage::Pass,
            king_returns: true,
            empty_throne_hostile: H::Both,
            occupied_throne_hostile: H::Attackers,
            corners: Corners::Plain,
            king_armed: KingArmed::Yes,
            king_capture: KingCapture::Linnaeus,
            law10: false,
            shieldwall: Shieldwall::None,
            shieldwall_flank: true,
            camps: Vec::new(),
            hostile_to: [Bitboard::EMPTY; 2],
            exit_fort: ExitFort::None,
            encirclement: Encirclement::None,
            cannot_escape: false,
            repetition: Repetition::MoverLoses,
            repetition_count: 3,
            no_capture_limit: 100,
            ply_limit: 0,
        };
        match preset {
            Preset::Tablut => {}
            Preset::Ashton => {
                // The Tablut Challenge server's rules (docs/rules.md).
                r.first = Side::Defenders;
                r.throne_passage = ThronePassage::Closed;
                r.king_returns = false;
                r.empty_throne_hostile = H::Both;
                r.occupied_throne_hostile = H::Both;
                r.camps = ASHTON_CAMPS.iter().map(|group| squares_bb(group)).collect();
                let all = squares_bb(&ASHTON_CAMPS.concat());
                r.hostile_to[Side::Attackers.index()] = all & !squares_bb(&ASHTON_CAMP_MIDDLES);
                r.hostile_to[Side::Defenders.index()] = all;
                r.repetition = Repetition::Draw;
                r.repetition_count = 2;
                r.no_capture_limit = 0;
            }
            Preset::TablutLatin => {
                r.throne_passage = ThronePassage::Wall;
                r.occupied_throne_hostile = H::None;
                r.repetition = Repetition::None;
                r.no_capture_limit = 160;
            }
            Preset::Tablut1811 | Preset::TablutEnglish => {
                r.empty_throne_hostile = H::None;
                r.occupied_throne_hostile = H::None;
                r.law10 = true;
                r.repetition = Repetition::Draw;
                r.no_capture_limit = 0;
                r.ply_limit = 200;
                if preset == Preset::TablutEnglish {
                    r.king_capture = KingCapture::Strong;
                }
            }
            Preset::TablutCorner | Preset::Brandubh | Preset::Copenhagen | Preset::Fetlar => {
                r.escape = Escape::Corner;
                r.corners = Corners::Restricted;
                r.king_capture = if preset == Preset::Brandubh {
                    KingCapture::Linnaeus
                } else {
                    KingCapture::Strong
                };
                r.repetition = Repetition::Draw;
                r.no_capture_limit = 0;
                if preset == Preset::Copenhagen {
                    r.shieldwall = Shieldwall::Strong;
                    r.exit_fort = ExitFort::Strict;
                    r.encirclement = Encirclement::Every;
                    r.repetition = Repetition::DefendersLose;
                }
                if preset == Preset::Fetlar {
                    r.encirclement = Encirclement::Every;
                }
            }
            Preset::HnefataflOrg11 | Preset::HnefataflOrg7 => {
                // The hnefatafl-copenhagen server's rules (docs/rules.md).
                r.escape = Escape::Corner;
                r.corners = Corners::Restricted;
                r.shieldwall = Shieldwall::Strong;
                r.encirclement = Encirclement::King;
                r.cannot_escape = true;
                r.repetition = Repetition::DefendersForbidden;
                r.no_capture_limit = 0;
                r.ply_limit = HNEFATAFL_ORG_PLY_LIMIT;
                if preset == Preset::HnefataflOrg11 {
                    r.king_capture = KingCapture::Strong;
                    r.exit_fort = ExitFort::Flood;
                } else {
                    r.first = Side::Defenders;
                    r.king_capture = KingCapture::Sandwich;
                    r.throne_passage = ThronePassage::Wall;
                }
            }
        }
        r
    }

    /// Sets one option by name (case-insensitive) from text. Checks the
    /// value's form only: whether the whole set can be played is checked
    /// when a [`Rules`] is built from it. On error nothing changes.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        let err = |e: String| format!("rule option {name}: {e}");
        match name.to_ascii_lowercase().as_str() {
            "start" => self.setup = parse_record(value).map_err(err)?,
            "firstmove" => self.first = value.parse().map_err(err)?,
            "escape" => self.escape = value.parse().map_err(err)?,
            "thronepassage" => self.throne_passage = value.parse().map_err(err)?,
            "emptythronehostile" => self.empty_throne_hostile = value.parse().map_err(err)?,
            "occupiedthronehostile" => self.occupied_throne_hostile = value.parse().map_err(err)?,
            "corners" => self.corners = value.parse().map_err(err)?,
            "kingarmed" => {
                self.king_armed =
                    bool_or_named(value, KingArmed::Yes, KingArmed::No).map_err(err)?
            }
            "throne" => self.throne = parse_bool(value).map_err(err)?,
            "kingreturns" => self.king_returns = parse_bool(value).map_err(err)?,
            "kingcapture" => self.king_capture = value.parse().map_err(err)?,
            "law10" => self.law10 = parse_bool(value).map_err(err)?,
            "shieldwall" => {
                self.shieldwall =
                    bool_or_named(value, Shieldwall::Strong, Shieldwall::None).map_err(err)?
            }
            "shieldwallflank" => self.shieldwall_flank = parse_bool(value).map_err(err)?,
            "camps" => self.camps = parse_camps(list(value)).map_err(err)?,
            "hostiletoattackers" => {
                self.hostile_to[Side::Attackers.index()] =
                    parse_squares(list(value)).map_err(err)?
            }
            "hostiletodefenders" => {
                self.hostile_to[Side::Defenders.index()] =
                    parse_squares(list(value)).map_err(err)?
            }
            "repetitioncount" => {
                self.repetition_count = match value {
                    "2" => 2,
                    "3" => 3,
                    _ => return Err(err(format!("'{value}' is not 2 or 3"))),
                }
            }
            "exitfort" => {
                self.exit_fort =
                    bool_or_named(value, ExitFort::Strict, ExitFort::None).map_err(err)?
            }
            "encirclement" => {
                self.encirclement =
                    bool_or_named(value, Encirclement::Every, Encirclement::None).map_err(err)?
            }
            "cannotescape" => self.cannot_escape = parse_bool(value).map_err(err)?,
            "repetition" => self.repetition = value.parse().map_err(err)?,
            "nocapturelimit" => self.no_capture_limit = parse_ply_limit(value).map_err(err)?,
            "plylimit" => self.ply_limit = parse_ply_limit(value).map_err(err)?,
            _ => return Err(format!("unknown rule option '{name}'")),
        }
        Ok(())
    }

    /// Reads one option back as text, in the form [`RuleOptions::set`] takes.
    pub fn get(&self, name: &str) -> Option<String> {
        Some(match name.to_ascii_lowercase().as_str() {
            "start" => self.setup.record(),
            "firstmove" => self.first.name().to_string(),
            "escape" => self.escape.to_string(),
            "thronepassage" => self.throne_passage.to_string(),
            "emptythronehostile" => self.empty_throne_hostile.to_string(),
            "occupiedthronehostile" => self.occupied_throne_hostile.to_string(),
            "corners" => self.corners.to_string(),
            "kingarmed" => self.king_armed.to_string(),
            "throne" => self.throne.to_string(),
            "kingreturns" => self.king_returns.to_string(),
            "kingcapture" => self.king_capture.to_string(),
            "law10" => self.law10.to_string(),
            "shieldwall" => self.shieldwall.to_string(),
            "shieldwallflank" => self.shieldwall_flank.to_string(),
            "camps" => self
                .camps
                .iter()
                .map(|g| squares_text(*g))
                .collect::<Vec<_>>()
                .join(";"),
            "hostiletoattackers" => squares_text(self.hostile_to[Side::Attackers.index()]),
            "hostiletodefenders" => squares_text(self.hostile_to[Side::Defenders.index()]),
            "repetitioncount" => self.repetition_count.to_string(),
            "exitfort" => self.exit_fort.to_string(),
            "encirclement" => self.encirclement.to_string(),
            "cannotescape" => self.cannot_escape.to_string(),
            "repetition" => self.repetition.to_string(),
            "nocapturelimit" => self.no_capture_limit.to_string(),
            "plylimit" => self.ply_limit.to_string(),
            _ => return None,
        })
    }
}

/// A playable rule set: options that passed every check, with the masks the
/// hot path reads computed from them. The only ways to get one are
/// [`Rules::preset`], [`Rules::build`], [`Rules::new`] and [`Rules::set`],
/// each of which checks, so the masks are always in step with the options
/// and the start position is always legal.
#[derive(Clone, Debug)]
pub struct Rules {
    options: RuleOptions,
    masks: Masks,
}

impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        self.options == other.options
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules::preset(Preset::Tablut)
    }
}

impl Rules {
    /// Whether pieces may stand as `setup` places them under these rules:
    /// the board is their size and no soldier stands where only the king
    /// may (the throne, restricted corners).
    pub(crate) fn check_setup(&self, setup: &Setup) -> Result<(), String> {
        if setup.size != self.size() {
            return Err(format!(
                "the position is {0}x{0} but the rules' board is {1}x{1}; set the rules' Start first",
                setup.size,
                self.size()
            ));
        }
        let soldiers = setup.attackers | setup.defenders;
        if let Some(sq) = (soldiers & self.masks().soldier_forbidden).first() {
            return Err(format!(
                "a soldier stands on {sq}, where only the king may stand"
            ));
        }
        Ok(())
    }

    /// The rules of a named preset (see `docs/rules.md`).
    pub fn preset(preset: Preset) -> Rules {
        // The presets' options are constants, checked by a test.
        Rules::with_masks(RuleOptions::preset(preset))
    }

    /// Checks a whole set of options and builds the rules from it: the
    /// ply limits in range, and the start position legal under the options
    /// (no soldier where only the king may stand, the king not already on
    /// an escape square).
    pub fn new(options: RuleOptions) -> Result<Rules, String> {
        for (name, v) in [
            ("NoCaptureLimit", options.no_capture_limit),
            ("PlyLimit", options.ply_limit),
        ] {
            if v > MAX_PLY_LIMIT {
                return Err(format!(
                    "rule option {name}: {v} is more than {MAX_PLY_LIMIT} plies"
                ));
            }
        }
        let rules = Rules::with_masks(options);
        let o = &rules.options;
        let special = o
            .camps
            .iter()
            .fold(o.hostile_to[0] | o.hostile_to[1], |a, g| a | *g);
        if let Some(sq) = (special & !rules.masks.board).first() {
            return Err(format!(
                "the camp or hostile square {sq} is off the {n}x{n} board",
                n = o.setup.size
            ));
        }
        if !o.camps.is_empty() && o.exit_fort != ExitFort::None {
            return Err("camps and exit forts cannot be combined".into());
        }
        let setup = &rules.options.setup;
        let camps = rules.masks.camps;
        if let Some(sq) = ((setup.defenders | setup.king | rules.masks.throne) & camps).first() {
            return Err(format!(
                "the camp square {sq} holds a defender, the king or the throne: only attackers may start in a camp"
            ));
        }
        rules
            .check_setup(setup)
            .map_err(|e| format!("the start position {} is not legal: {e}", setup.record()))?;
        if let Some(k) = (setup.king & rules.masks.escape).first() {
            return Err(format!(
                "the start position {} is not legal: the king stands on {k}, an escape square",
                setup.record()
            ));
        }
        Ok(rules)
    }

    /// A preset with named overrides applied in order: the one place where
    /// "preset + overrides" becomes rules, for every front end. The whole
    /// set is checked once, after the last override.
    pub fn build<K: AsRef<str>, V: AsRef<str>>(
        preset: Preset,
        overrides: &[(K, V)],
    ) -> Result<Rules, String> {
        let mut options = RuleOptions::preset(preset);
        for (name, value) in overrides {
            options.set(name.as_ref(), value.as_ref())?;
        }
        Rules::new(options)
    }

    fn with_masks(options: RuleOptions) -> Rules {
        let masks = Masks::compute(&options);
        Rules { options, masks }
    }

    /// The option values.
    #[inline]
    pub fn options(&self) -> &RuleOptions {
        &self.options
    }

    /// Board side length.
    #[inline]
    pub fn size(&self) -> usize {
        self.options.setup.size
    }

    #[inline]
    pub fn masks(&self) -> &Masks {
        &self.masks
    }

    /// Sets one rule option by name (case-insensitive) and checks the
    /// result as [`Rules::new`] does. On error nothing changes.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let mut options = self.options.clone();
        options.set(name, value)?;
        *self = Rules::new(options).map_err(|e| format!("rule option {name}: {e}"))?;
        Ok(())
    }

    /// Reads one rule option back as text, in the form [`Rules::set`] takes.
    pub fn get(&self, name: &str) -> Option<String> {
        self.options.get(name)
    }

    /// The options that differ from the preset's, as the name-value pairs
    /// [`Rules::build`] takes: `Rules::build(preset, &rules.overrides())`
    /// gives these rules back (for records and front ends that name rules
    /// as a preset and its changes).
    pub fn overrides(&self) -> Vec<(String, String)> {
        let preset = Rules::preset(self.options.preset);
        RULE_OPTION_NAMES
            .iter()
            .filter_map(|name| {
                let value = self.get(name)?;
                (preset.get(name).as_deref() != Some(value.as_str()))
                    .then(|| (name.to_string(), value))
            })
            .collect()
    }

    /// One line naming the preset and every option.
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("preset {}", self.options.preset)];
        for name in RULE_OPTION_NAMES.iter().skip(1) {
            if let Some(v) = self.get(name) {
                parts.push(format!("{name}={v}"));
            }
        }
        parts.join(" ")
    }
}

/// Per line (ranks 0..n, then files from `MAX_SIZE`): the bits of the
/// squares of `b` on it, in the form the move generator's line tables take.
fn line_bits(b: Bitboard, n: usize) -> [u16; 2 * MAX_SIZE] {
    let mut out = [0u16; 2 * MAX_SIZE];
    for sq in b.squares() {
        let (r, f) = (sq.rank(), sq.file());
        if r < n && f < n {
            out[r] |= 1 << f;
            out[MAX_SIZE + f] |= 1 << r;
        }
    }
    out
}

impl Masks {
    fn compute(options: &RuleOptions) -> Masks {
        let o = options;
        let n = o.setup.size;
        let mut m = Masks::default();
        for r in 0..n {
            for f in 0..n {
                let sq = Square::new(r, f);
                m.board.set(sq);
                if r == 0 || f == 0 || r == n - 1 || f == n - 1 {
                    m.edge.set(sq);
                }
            }
        }
        for (r, f) in [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)] {
            m.corners.set(Square::new(r, f));
        }
        if !n.is_multiple_of(2) && o.throne {
            let c = Square::new(n / 2, n / 2);
            m.throne = c.bb();
            m.throne_sq = Some(c);
        }
        m.escape = match o.escape {
            Escape::Edge => m.edge,
            Escape::Corner => m.corners,
        };
        let restricted_corners = match o.corners {
            Corners::Plain => Bitboard::EMPTY,
            Corners::Restricted => m.corners,
        };
        m.soldier_forbidden = m.throne | restricted_corners;
        m.escape_approach =
            (m.escape & m.soldier_forbidden).neighbours(m.board) & !m.escape & !m.soldier_forbidden;
        m.soldier_walls = match o.throne_passage {
            ThronePassage::Pass => Bitboard::EMPTY,
            ThronePassage::Wall | ThronePassage::Closed => m.throne,
        };
        for g in &o.camps {
            m.camps |= *g;
        }
        m.extra_hostile = o.hostile_to[0] | o.hostile_to[1];
        for side in [Side::Attackers, Side::Defenders] {
            let s = side.index();
            let empty = if o.empty_throne_hostile.includes(side) {
                m.throne
            } else {
                Bitboard::EMPTY
            };
            let occupied = if o.occupied_throne_hostile.includes(side) {
                m.throne
            } else {
                Bitboard::EMPTY
            };
            m.hostile_throne_empty[s] = restricted_corners | empty | o.hostile_to[s];
            m.hostile_throne_occupied[s] = restricted_corners | occupied | o.hostile_to[s];
        }
        let d = Side::Defenders.index();
        m.king_anvils =
            m.throne | m.corners | m.hostile_throne_empty[d] | m.hostile_throne_occupied[d];
        let sentinel = if n < MAX_SIZE { 1u16 << n } else { 0 };
        let blockers = m.soldier_walls | restricted_corners;
        let pass_only = m.throne & !m.soldier_walls;
        let king_walls = match o.throne_passage {
            ThronePassage::Closed => m.throne | m.camps,
            _ => m.camps,
        };
        let king_pass_only = if o.king_returns {
            Bitboard::EMPTY
        } else {
            m.throne & !king_walls
        };
        // A sentinel just past the board's end stops every slide there.
        let with_sentinels = |mut lines: [u16; 2 * MAX_SIZE]| {
            for i in 0..n {
                lines[i] |= sentinel;
                lines[MAX_SIZE + i] |= sentinel;
            }
            lines
        };
        m.king_blocks = with_sentinels(line_bits(king_walls, n));
        m.soldier_blocks = with_sentinels(line_bits(blockers, n));
        m.king_pass_only = line_bits(king_pass_only, n);
        m.escape_lines = line_bits(m.escape, n);
        m.soldier_pass_only = line_bits(pass_only, n);
        m.camp_lines = line_bits(m.camps, n);
        // A soldier is blocked by every camp but the one it starts in.
        for own in &o.camps {
            let blocking = line_bits(m.camps & !*own, n);
            for sq in own.squares() {
                let (r, f) = (sq.rank(), sq.file());
                m.origin_blocks[r][f] = blocking[r];
                m.origin_blocks[MAX_SIZE + f][r] = blocking[MAX_SIZE + f];
            }
        }
        if m.camps.any() {
            let blocking = line_bits(m.camps, n);
            for sq in (m.board & !m.camps).squares() {
                let (r, f) = (sq.rank(), sq.file());
                m.origin_blocks[r][f] = blocking[r];
                m.origin_blocks[MAX_SIZE + f][r] = blocking[MAX_SIZE + f];
            }
        }
        debug_assert!(STRIDE * n <= 128);
        m
    }
}
