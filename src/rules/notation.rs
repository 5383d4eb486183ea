//! OpenTafl position records: `/row/row/…/`, rank 1 first, `t` attacker,
//! `T` defender, `K` king, digits counting empty squares.

use super::types::{Bitboard, Square, MAX_SIZE, MIN_SIZE};

/// The pieces of a position without side to move or counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub size: usize,
    pub attackers: Bitboard,
    pub defenders: Bitboard,
    pub king: Bitboard,
}

impl Setup {
    /// The OpenTafl position record of these pieces.
    pub fn record(&self) -> String {
        let mut out = String::from("/");
        for r in 0..self.size {
            let mut empty = 0;
            for f in 0..self.size {
                let sq = Square::new(r, f);
                let letter = if self.attackers.has(sq) {
                    Some('t')
                } else if self.defenders.has(sq) {
                    Some('T')
                } else if self.king.has(sq) {
                    Some('K')
                } else {
                    None
                };
                match letter {
                    Some(c) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        out.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out.push('/');
        }
        out
    }
}

/// Parses an OpenTafl position record. Boards must be square, of odd side
/// from 5 to 11, with exactly one king.
pub fn parse_record(record: &str) -> Result<Setup, String> {
    let record = record.trim();
    if !record.starts_with('/') || !record.ends_with('/') || record.len() < 2 {
        return Err(format!(
            "bad position record '{record}': it must start and end with '/'"
        ));
    }
    let rows: Vec<&str> = record[1..record.len() - 1].split('/').collect();
    let size = rows.len();
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) || size.is_multiple_of(2) {
        return Err(format!(
            "bad position record '{record}': {size} rows; boards must have an odd side from {MIN_SIZE} to {MAX_SIZE}"
        ));
    }
    let mut setup = Setup {
        size,
        attackers: Bitboard::EMPTY,
        defenders: Bitboard::EMPTY,
        king: Bitboard::EMPTY,
    };
    for (r, row) in rows.iter().enumerate() {
        let mut f = 0usize;
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                let mut count = d as usize;
                while let Some(next) = chars.peek().and_then(|c| c.to_digit(10)) {
                    count = count.saturating_mul(10).saturating_add(next as usize);
                    chars.next();
                }
                if count == 0 {
                    return Err(format!("bad row '{row}' in position record: empty count 0"));
                }
                f = f.saturating_add(count);
            } else {
                if f >= size {
                    return Err(format!(
                        "bad row '{row}' in position record: more than {size} squares"
                    ));
                }
                let sq = Square::new(r, f);
                match c {
                    't' => setup.attackers.set(sq),
                    'T' => setup.defenders.set(sq),
                    'K' => setup.king.set(sq),
                    _ => {
                        return Err(format!(
                            "bad row '{row}' in position record: unknown piece '{c}' (expected t, T or K)"
                        ))
                    }
                }
                f += 1;
            }
            if f > size {
                return Err(format!(
                    "bad row '{row}' in position record: more than {size} squares"
                ));
            }
        }
        if f != size {
            return Err(format!(
                "bad row '{row}' in position record: {f} squares, expected {size}"
            ));
        }
    }
    if setup.king.count() != 1 {
        return Err(format!(
            "bad position record '{record}': it must have exactly one king, it has {}",
            setup.king.count()
        ));
    }
    Ok(setup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::options::{START_11, START_7, START_9};

    #[test]
    fn records_round_trip() {
        for rec in [
            START_7,
            START_9,
            START_11,
            "/9/9/2t1tt3/T3t1Tt1/2T1KT3/tt1tt3t/2t6/1t7/9/",
        ] {
            let setup = parse_record(rec).unwrap();
            assert_eq!(setup.record(), rec);
        }
    }

    #[test]
    fn bad_records_are_errors() {
        for rec in [
            "",
            "/",
            "3ttt3/",
            "/3ttt3/4t4/",
            "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t4/",
            "/3t3/3t3/3T3/ttTTTtt/3T3/3t3/3t3/",
            "/3t3/3t3/3T3/ttTKTtx/3T3/3t3/3t3/",
            "/3t3/3t3/3T3/ttTKTttt/3T3/3t3/3t3/",
            "/0t6/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "/99999999999999999999/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        ] {
            assert!(parse_record(rec).is_err(), "{rec}");
        }
    }
}
