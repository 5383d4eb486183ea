//! Ending games the rules have not ended, as fastchess and cutechess-cli
//! do: by length, by agreed near-zero scores (a draw), or by a hopeless
//! score (a resignation). The engines' own `info … score` lines are the
//! evidence; each move's score is kept in the game record.

use super::{key_values, number};
use crate::records::game::{EndReason, RecordedMove};
use crate::rules::Side;

/// `--draw movenumber=N movecount=M score=S`: after ply N, when both
/// engines' scores stayed within ±S for their last M moves each, a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub after_ply: u32,
    pub moves: u32,
    pub score: i32,
}

/// `--resign movecount=M score=S [twosided=true]`: when an engine's score
/// stayed at or below −S for its last M moves (and, two-sided, its
/// opponent's at or above +S for its last M), it loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub moves: u32,
    pub score: i32,
    pub two_sided: bool,
}

/// When the runner ends a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// A game still going after this many plies is a draw (0: never).
    pub max_plies: u32,
    pub draw: Option<DrawRule>,
    pub resign: Option<ResignRule>,
}

/// The defaults: a first match stays short and sane (no game past 600
/// plies; a game both engines call lost by 15 soldiers for 4 moves each is
/// given up), and nothing is called a draw that the rules did not.
impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            max_plies: 600,
            draw: None,
            resign: Some(ResignRule {
                moves: 4,
                score: 1500,
                two_sided: true,
            }),
        }
    }
}

/// The last `n` scores of one side's moves, if it reported all of them.
fn last_scores(moves: &[RecordedMove], first: Side, side: Side, n: u32) -> Option<Vec<i32>> {
    let n = n as usize;
    let mine: Vec<Option<i32>> = moves
        .iter()
        .enumerate()
        .filter(|(i, _)| (if i % 2 == 0 { first } else { first.other() }) == side)
        .map(|(_, m)| m.score)
        .collect();
    if n == 0 || mine.len() < n {
        return None;
    }
    mine[mine.len() - n..].iter().copied().collect()
}

impl Adjudication {
    /// The verdict on a game still going after `moves` (the first played
    /// by `first`): the winner (`None`: a draw) and why, if the game is to
    /// end here.
    pub fn verdict(
        &self,
        moves: &[RecordedMove],
        first: Side,
    ) -> Option<(Option<Side>, EndReason)> {
        if let Some(r) = self.resign {
            for side in [Side::Attackers, Side::Defenders] {
                let lost = last_scores(moves, first, side, r.moves)
                    .is_some_and(|s| s.iter().all(|&v| v <= -r.score));
                let agreed = !r.two_sided
                    || last_scores(moves, first, side.other(), r.moves)
                        .is_some_and(|s| s.iter().all(|&v| v >= r.score));
                if lost && agreed {
                    return Some((Some(side.other()), EndReason::AdjudicatedResign));
                }
            }
        }
        if let Some(d) = self.draw {
            let quiet = |side| {
                last_scores(moves, first, side, d.moves)
                    .is_some_and(|s| s.iter().all(|v| v.abs() <= d.score))
            };
            if moves.len() as u32 >= d.after_ply && quiet(Side::Attackers) && quiet(Side::Defenders)
            {
                return Some((None, EndReason::AdjudicatedDraw));
            }
        }
        if self.max_plies > 0 && moves.len() as u32 >= self.max_plies {
            return Some((None, EndReason::AdjudicatedLength));
        }
        None
    }
}

/// Parses the words after `--draw` (or `off`).
pub fn parse_draw(words: &[String]) -> Result<Option<DrawRule>, String> {
    if words == ["off"] {
        return Ok(None);
    }
    let v = key_values("--draw", words, &["movenumber", "movecount", "score"])?;
    Ok(Some(DrawRule {
        after_ply: number("--draw", "movenumber", v[0])?,
        moves: number("--draw", "movecount", v[1])?,
        score: number("--draw", "score", v[2])?,
    }))
}

/// Parses the words after `--resign` (or `off`).
pub fn parse_resign(words: &[String]) -> Result<Option<ResignRule>, String> {
    if words == ["off"] {
        return Ok(None);
    }
    let v = key_values("--resign", words, &["movecount", "score", "twosided"])?;
    Ok(Some(ResignRule {
        moves: number("--resign", "movecount", v[0])?,
        score: number("--resign", "score", v[1])?,
        two_sided: match v[2] {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(format!(
                    "--resign: twosided must be true or false, not '{other}'"
                ))
            }
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(scores: &[Option<i32>]) -> Vec<RecordedMove> {
        scores
            .iter()
            .map(|&score| RecordedMove {
                text: "a1-a2".into(),
                ms: 0,
                score,
            })
            .collect()
    }

    #[test]
    fn resign_draw_and_length() {
        let a = Adjudication {
            max_plies: 0,
            draw: Some(DrawRule {
                after_ply: 6,
                moves: 2,
                score: 10,
            }),
            resign: Some(ResignRule {
                moves: 2,
                score: 500,
                two_sided: true,
            }),
        };
        // Attackers (first) hopeless twice, defenders sure twice: resign.
        let m = game(&[Some(-600), Some(700), Some(-900), Some(800)]);
        assert_eq!(
            a.verdict(&m, Side::Attackers),
            Some((Some(Side::Defenders), EndReason::AdjudicatedResign))
        );
        // Two-sided: the defenders must agree.
        let m = game(&[Some(-600), Some(100), Some(-900), Some(800)]);
        assert_eq!(a.verdict(&m, Side::Attackers), None);
        // Quiet scores, but only from ply 6 on.
        let quiet = [Some(3), Some(-5), Some(0), Some(8)];
        assert_eq!(a.verdict(&game(&quiet), Side::Attackers), None);
        let m = game(&[None, None, Some(3), Some(-5), Some(0), Some(8)]);
        assert_eq!(
            a.verdict(&m, Side::Attackers),
            Some((None, EndReason::AdjudicatedDraw))
        );
        // A missing score never counts as evidence.
        let m = game(&[None, None, Some(3), None, Some(0), Some(8)]);
        assert_eq!(a.verdict(&m, Side::Attackers), None);
        let long = Adjudication { max_plies: 4, ..a };
        assert_eq!(
            long.verdict(&game(&[None; 4]), Side::Attackers),
            Some((None, EndReason::AdjudicatedLength))
        );
    }

    #[test]
    fn options_parse() {
        let w = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(parse_draw(&w("off")).unwrap(), None);
        assert_eq!(
            parse_resign(&w("movecount=3 score=600 twosided=true")).unwrap(),
            Some(ResignRule {
                moves: 3,
                score: 600,
                two_sided: true
            })
        );
        assert!(parse_draw(&w("movenumber=x movecount=2 score=5")).is_err());
        assert!(parse_resign(&w("movecount=3")).is_err());
        assert!(parse_resign(&w("moves=3 score=2")).is_err());
    }
}
