//! Typed commands of the tei protocol (`protocol.md`), parsed with `FromStr`.
//! Moves and positions stay text here: they are checked against the rules
//! when applied, so a bad one can be named in the error.

use crate::rules::perft::MAX_DEPTH as PERFT_MAX;
use crate::rules::StartPoint;
use crate::search::bench::MAX_DEPTH as BENCH_MAX;
use std::str::FromStr;

/// The `go` parameters, still unchecked against the position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoSpec {
    /// Attackers' and defenders' remaining time in ms.
    pub time: [Option<u64>; 2],
    pub inc: [Option<u64>; 2],
    pub moves_to_go: Option<u32>,
    pub move_time: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub search_moves: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `tei`, or `uci` (answered `uciok`, so that a UCI tool that sends it
    /// gets the answer it waits for).
    Tei {
        uci: bool,
    },
    IsReady,
    /// `help`: the commands, one line each.
    Help,
    SetOption {
        name: String,
        value: Option<String>,
    },
    NewGame,
    Position {
        start: StartPoint,
        moves: Vec<String>,
    },
    Go(GoSpec),
    /// A `go` line with a malformed or unknown parameter: the error is
    /// reported and a `bestmove` still answers it.
    BadGo(String),
    Stop,
    PonderHit,
    Quit,
    Display,
    Result,
    Moves,
    Perft(u32),
    Eval,
    Roads,
    Bench(Option<i32>),
    /// A blank line: ignored.
    Empty,
}

fn number<T: FromStr>(key: &str, value: Option<&str>) -> Result<T, String> {
    let v = value.ok_or_else(|| format!("'{key}' needs a value"))?;
    v.parse()
        .map_err(|_| format!("'{key}' takes a non-negative number, not '{v}'"))
}

/// A time in ms; negative clocks (a flagged GUI) count as zero.
fn millis(key: &str, value: Option<&str>) -> Result<u64, String> {
    let v = value.ok_or_else(|| format!("'{key}' needs a value"))?;
    match v.parse::<i64>() {
        Ok(ms) => Ok(ms.max(0) as u64),
        Err(_) => Err(format!("'{key}' takes a time in milliseconds, not '{v}'")),
    }
}

fn parse_go(tokens: &[&str]) -> Result<GoSpec, String> {
    let mut go = GoSpec::default();
    let mut i = 0;
    while i < tokens.len() {
        let key = tokens[i];
        let value = tokens.get(i + 1).copied();
        let mut used = 2;
        match key {
            "atime" | "btime" => go.time[0] = Some(millis(key, value)?),
            "dtime" | "wtime" => go.time[1] = Some(millis(key, value)?),
            "ainc" | "binc" => go.inc[0] = Some(millis(key, value)?),
            "dinc" | "winc" => go.inc[1] = Some(millis(key, value)?),
            "movestogo" => go.moves_to_go = Some(number(key, value)?),
            "movetime" => go.move_time = Some(millis(key, value)?),
            "depth" => {
                let d: u32 = number(key, value)?;
                go.depth = Some(d.min(1000) as i32);
            }
            "nodes" => go.nodes = Some(number(key, value)?),
            "mate" => go.mate = Some(number(key, value)?),
            "infinite" => {
                go.infinite = true;
                used = 1;
            }
            "ponder" => {
                go.ponder = true;
                used = 1;
            }
            "searchmoves" => {
                let rest = &tokens[i + 1..];
                let n = rest.iter().take_while(|t| !GO_KEYWORDS.contains(t)).count();
                go.search_moves = rest[..n].iter().map(|s| s.to_string()).collect();
                used = 1 + n;
            }
            _ => return Err(format!("unknown go parameter '{key}'")),
        }
        i += used;
    }
    Ok(go)
}

const GO_KEYWORDS: &[&str] = &[
    "atime",
    "btime",
    "dtime",
    "wtime",
    "ainc",
    "binc",
    "dinc",
    "winc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

fn parse_position(tokens: &[&str]) -> Result<Command, String> {
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (
            &tokens[..i],
            tokens[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (tokens, Vec::new()),
    };
    let start = StartPoint::from_words(head).map_err(|e| format!("position: {e}"))?;
    Ok(Command::Position { start, moves })
}

fn parse_setoption(tokens: &[&str]) -> Result<Command, String> {
    if tokens.first() != Some(&"name") {
        return Err("setoption: expected 'setoption name <Name> [value <V>]'".into());
    }
    let value_at = tokens.iter().position(|t| *t == "value");
    let name_end = value_at.unwrap_or(tokens.len());
    let name = tokens[1..name_end].join(" ");
    if name.is_empty() {
        return Err("setoption: the option name is missing".into());
    }
    let value = value_at.map(|i| tokens[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

impl FromStr for Command {
    type Err = String;

    fn from_str(line: &str) -> Result<Command, String> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&word, rest)) = tokens.split_first() else {
            return Ok(Command::Empty);
        };
        let no_args = |c: Command| {
            if rest.is_empty() {
                Ok(c)
            } else {
                Err(format!("'{word}' takes no arguments"))
            }
        };
        match word {
            "tei" => no_args(Command::Tei { uci: false }),
            "uci" => no_args(Command::Tei { uci: true }),
            "isready" => no_args(Command::IsReady),
            "help" => no_args(Command::Help),
            "setoption" => parse_setoption(rest),
            "newgame" | "teinewgame" | "ucinewgame" => no_args(Command::NewGame),
            "position" => parse_position(rest),
            "go" => Ok(parse_go(rest).map_or_else(Command::BadGo, Command::Go)),
            "stop" => no_args(Command::Stop),
            "ponderhit" => no_args(Command::PonderHit),
            "quit" => no_args(Command::Quit),
            "d" => no_args(Command::Display),
            "result" => no_args(Command::Result),
            "moves" => no_args(Command::Moves),
            "eval" => no_args(Command::Eval),
            "roads" => no_args(Command::Roads),
            "perft" => match rest {
                [d] => d
                    .parse::<u32>()
                    .ok()
                    .filter(|d| (1..=PERFT_MAX).contains(d))
                    .map(Command::Perft)
                    .ok_or_else(|| format!("perft: depth must be 1 to {PERFT_MAX}, not '{d}'")),
                _ => Err("perft: expected 'perft <depth>'".into()),
            },
            "bench" => match rest {
                [] => Ok(Command::Bench(None)),
                [d] => d
                    .parse::<i32>()
                    .ok()
                    .filter(|d| (1..=BENCH_MAX).contains(d))
                    .map(|d| Command::Bench(Some(d)))
                    .ok_or_else(|| format!("bench: depth must be 1 to {BENCH_MAX}, not '{d}'")),
                _ => Err("bench: expected 'bench [depth]'".into()),
            },
            _ => Err(format!(
                "unknown command '{word}' (help lists the commands)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go() {
        let c: Command = "go wtime 1000 btime -5 winc 10 binc 20 movestogo 5"
            .parse()
            .unwrap();
        let Command::Go(g) = c else { panic!() };
        assert_eq!(g.time, [Some(0), Some(1000)]);
        assert_eq!(g.inc, [Some(20), Some(10)]);
        assert_eq!(g.moves_to_go, Some(5));
        let Command::Go(g) = "go searchmoves e1-e3 d1d2 depth 3".parse().unwrap() else {
            panic!()
        };
        assert_eq!(g.search_moves, vec!["e1-e3", "d1d2"]);
        assert_eq!(g.depth, Some(3));
        for bad in ["go depth", "go depth x", "go sideways", "go nodes -1"] {
            assert!(
                matches!(bad.parse::<Command>(), Ok(Command::BadGo(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn parses_position_and_setoption() {
        let c: Command = "position startpos moves d1-d2 e3-f3".parse().unwrap();
        assert_eq!(
            c,
            Command::Position {
                start: StartPoint::Initial,
                moves: vec!["d1-d2".into(), "e3-f3".into()]
            }
        );
        assert!("position".parse::<Command>().is_err());
        assert!("position a b c".parse::<Command>().is_err());
        let c: Command = "setoption name Clear Hash".parse().unwrap();
        assert_eq!(
            c,
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        let c: Command = "setoption name Hash value 32".parse().unwrap();
        assert_eq!(
            c,
            Command::SetOption {
                name: "Hash".into(),
                value: Some("32".into())
            }
        );
        assert!("setoption Hash 3".parse::<Command>().is_err());
        assert_eq!("   ".parse::<Command>(), Ok(Command::Empty));
        assert!("isready now".parse::<Command>().is_err());
    }
}
