//! A misbehaving tei engine for the match runner's tests. It plays the
//! first legal move, and after `--after N` of its own moves it does what
//! `--mode` says: `crash` (exits), `timeout` (never answers go), `illegal`
//! (plays an illegal move), `garbage` (answers nonsense), `no-readyok`
//! (never answers isready, from the start), `normal` (behaves). `--score N`
//! sets the score it reports for each move (default 0).

use konakis::rules::{Game, Preset, Rules, Side};
use std::io::{BufRead, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mode = arg("--mode").unwrap_or_else(|| "normal".into());
    let after: usize = arg("--after").and_then(|s| s.parse().ok()).unwrap_or(0);
    // The score it reports for every move (for adjudication tests).
    let score: i32 = arg("--score").and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut rules = Rules::preset(Preset::Tablut);
    let mut game = Game::new(rules.clone());
    let mut played = 0usize;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("tei") => {
                let _ = writeln!(out, "id name fake-{mode}\nteiok");
            }
            Some("isready") if mode != "no-readyok" => {
                let _ = writeln!(out, "readyok");
            }
            Some("setoption") => {
                if let (Some(i), Some(v)) = (
                    words.iter().position(|w| *w == "name"),
                    words.iter().position(|w| *w == "value"),
                ) {
                    let name = words[i + 1..v].join(" ");
                    let value = words[v + 1..].join(" ");
                    if name == "Variant" {
                        if let Ok(p) = value.parse::<Preset>() {
                            rules = Rules::preset(p);
                        }
                    } else {
                        let _ = rules.set(&name, &value);
                    }
                }
            }
            Some("position") => {
                let moves_at = words
                    .iter()
                    .position(|w| *w == "moves")
                    .unwrap_or(words.len());
                game = if words.get(1) == Some(&"startpos") {
                    Game::new(rules.clone())
                } else {
                    let side: Side = words
                        .get(2)
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(Side::Attackers);
                    let n = |i: usize| words.get(i).and_then(|s| s.parse().ok()).unwrap_or(0);
                    Game::from_record(
                        rules.clone(),
                        words.get(1).copied().unwrap_or(""),
                        side,
                        n(3),
                        n(4),
                    )
                    .unwrap_or_else(|_| Game::new(rules.clone()))
                };
                for m in words.iter().skip(moves_at + 1) {
                    let _ = game.play_str(m);
                }
            }
            Some("go") => {
                let misbehave = played >= after;
                played += 1;
                match mode.as_str() {
                    "crash" if misbehave => std::process::exit(3),
                    "timeout" if misbehave => continue,
                    "illegal" if misbehave => {
                        let _ = writeln!(out, "bestmove a1-a1");
                    }
                    "garbage" if misbehave => {
                        let _ = writeln!(out, "hello there\nbestmove ???");
                    }
                    _ => {
                        let moves = game.legal_moves();
                        match moves.first() {
                            Some(m) => {
                                let _ = writeln!(
                                    out,
                                    "info depth 1 score cp {score} pv {m}\nbestmove {m}"
                                );
                            }
                            None => {
                                let _ = writeln!(out, "bestmove (none)");
                            }
                        }
                    }
                }
            }
            Some("quit") => break,
            _ => {}
        }
        let _ = out.flush();
    }
}
