//! OpenTafl notation for rules (`dim:11 esc:c … start:/…/`) and moves with
//! captures (`e1-e3xe4/e2`).
//!
//! Every key OpenTafl defines is either mapped onto our rule options or
//! refused with an error naming it; nothing is silently ignored. The
//! mapping is documented in `docs/rules.md`.

use super::notation::parse_record;
use super::options::{
    Corners, Encirclement, Escape, ExitFort, Hostility, KingArmed, KingCapture, Preset, Repetition,
    RuleOptions, Rules, Shieldwall, ThronePassage,
};
use super::position::Position;
use super::types::{Move, Side, Square};

/// Piece letters OpenTafl uses: taflman, commander, knight, king,
/// mercenary, guard; lowercase attackers, uppercase defenders.
const PIECE_LETTERS: &str = "tcnkmgTCNKMG";

/// Which sides a piece-type list names: (attackers, defenders, king).
fn sides_in(list: &str, key: &str) -> Result<(bool, bool, bool), String> {
    if let Some(c) = list.chars().find(|c| !PIECE_LETTERS.contains(*c)) {
        return Err(format!(
            "OpenTafl rules: '{key}:' has an unknown piece letter '{c}'"
        ));
    }
    let attackers = list.chars().any(|c| c.is_ascii_lowercase());
    let defenders = list.chars().any(|c| c.is_ascii_uppercase() && c != 'K');
    Ok((attackers, defenders, list.contains('K')))
}

fn hostility(list: &str, key: &str) -> Result<Hostility, String> {
    let (a, d, _) = sides_in(list, key)?;
    Ok(match (a, d) {
        (true, true) => Hostility::Both,
        (true, false) => Hostility::Attackers,
        (false, true) => Hostility::Defenders,
        (false, false) => Hostility::None,
    })
}

fn yes_no(v: &str, key: &str) -> Result<bool, String> {
    match v {
        "y" => Ok(true),
        "n" => Ok(false),
        _ => Err(format!("OpenTafl rules: '{key}:{v}' must be y or n")),
    }
}

fn squares_list(v: &str, size: usize) -> Result<Vec<Square>, String> {
    v.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| Square::parse(s, size))
        .collect()
}

/// Parses an OpenTafl rules string into our rules. Refuses, with an error
/// naming the key, whatever our rules cannot express.
pub fn parse_otn_rules(text: &str) -> Result<Rules, String> {
    let mut entries: Vec<(&str, &str)> = Vec::new();
    for token in text.split_whitespace() {
        let (k, v) = token
            .split_once(':')
            .ok_or_else(|| format!("OpenTafl rules: '{token}' is not key:value"))?;
        entries.push((k, v));
    }
    let get = |key: &str| {
        entries
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    };
    let dim: usize = get("dim")
        .ok_or("OpenTafl rules: 'dim:' is missing")?
        .parse()
        .map_err(|_| "OpenTafl rules: 'dim:' is not a number".to_string())?;
    if !(5..=11).contains(&dim) {
        return Err(format!(
            "OpenTafl rules: a {dim}x{dim} board is larger than Konakis supports (5 to 11)"
        ));
    }
    let record = match (get("start"), get("starti")) {
        (Some(s), _) => s.to_string(),
        (None, Some(si)) => {
            let rows: Vec<&str> = si.trim_matches('/').split('/').collect();
            format!("/{}/", rows.into_iter().rev().collect::<Vec<_>>().join("/"))
        }
        (None, None) => return Err("OpenTafl rules: 'start:' is missing".into()),
    };
    if let Some(c) = record.chars().find(|c| "cnmgCNMG".contains(*c)) {
        return Err(format!(
            "OpenTafl rules: the start position has a special piece '{c}' (commander, knight, mercenary or guard), which Konakis does not play"
        ));
    }
    if record.contains('k') {
        return Err("OpenTafl rules: an attacking king ('k') is not supported".into());
    }
    let setup = parse_record(&record).map_err(|e| format!("OpenTafl rules: start: {e}"))?;
    if setup.size != dim {
        return Err(format!(
            "OpenTafl rules: 'dim:{dim}' but the start position is {0}x{0}",
            setup.size
        ));
    }

    // OpenTafl's defaults (see its notation specification).
    let mut r = RuleOptions::preset(Preset::Copenhagen);
    r.setup = setup;
    r.escape = Escape::Corner;
    r.encirclement = Encirclement::Every;
    r.first = Side::Attackers;
    r.repetition = Repetition::Draw;
    r.king_armed = KingArmed::Yes;
    r.king_capture = KingCapture::Strong;
    r.corners = Corners::Restricted;
    r.throne = true;
    r.throne_passage = ThronePassage::Pass;
    r.king_returns = true;
    r.occupied_throne_hostile = Hostility::Attackers;
    r.empty_throne_hostile = Hostility::Both;
    r.shieldwall = Shieldwall::None;
    r.exit_fort = ExitFort::None;
    r.law10 = false;
    r.no_capture_limit = 0;
    r.ply_limit = 0;

    let mut corners_listed = true;
    let mut corner_hostile = (true, true);
    let mut corner_stop_soldiers = false;
    for &(key, v) in &entries {
        match key {
            "dim" | "start" | "starti" | "name" => {}
            "esc" => {
                r.escape = match v {
                    "c" => Escape::Corner,
                    "e" => Escape::Edge,
                    _ => return Err(format!("OpenTafl rules: 'esc:{v}' must be c or e")),
                }
            }
            "surf" => {
                r.encirclement = if yes_no(v, key)? {
                    Encirclement::Every
                } else {
                    Encirclement::None
                }
            }
            "atkf" => r.first = if yes_no(v, key)? { Side::Attackers } else { Side::Defenders },
            "tfr" => {
                r.repetition = match v {
                    "d" => Repetition::Draw,
                    "i" => Repetition::None,
                    "w" => Repetition::MoverLoses,
                    "l" => {
                        return Err("OpenTafl rules: 'tfr:l' (the side forcing the repetition wins) is not supported".into())
                    }
                    _ => return Err(format!("OpenTafl rules: 'tfr:{v}' must be d, i, w or l")),
                }
            }
            "ka" => {
                r.king_armed = match v {
                    "y" => KingArmed::Yes,
                    "n" => KingArmed::No,
                    "a" => KingArmed::Anvil,
                    "h" => KingArmed::Hammer,
                    _ => return Err(format!("OpenTafl rules: 'ka:{v}' must be y, n, a or h")),
                }
            }
            "ks" => {
                r.king_capture = match v {
                    "s" | "y" => KingCapture::Strong,
                    "w" | "n" => KingCapture::Weak,
                    "c" => KingCapture::Linnaeus,
                    "m" => return Err("OpenTafl rules: 'ks:m' (middleweight king) is not supported".into()),
                    _ => return Err(format!("OpenTafl rules: 'ks:{v}' must be s, c, m or w")),
                }
            }
            "kj" | "nj" | "cj" | "mj" | "gj" => {
                // Jumps of pieces that are not on the board do not matter.
                if key == "kj" && v != "n" {
                    return Err(format!("OpenTafl rules: '{key}:{v}' (jumping king) is not supported"));
                }
            }
            "ber" => {
                if v != "n" {
                    return Err(format!("OpenTafl rules: 'ber:{v}' (berserk moves) is not supported"));
                }
            }
            "spd" => {
                if v.split(',').any(|x| x != "-1") {
                    return Err(format!("OpenTafl rules: 'spd:{v}' (speed limits) is not supported"));
                }
            }
            "afor" | "dfor" => {
                if !v.is_empty() {
                    return Err(format!("OpenTafl rules: '{key}:' (fortress squares) is not supported"));
                }
            }
            "aforh" | "dforh" | "aforp" | "dforp" | "afors" | "dfors" | "aforre" | "dforre" | "corp" | "corre" => {
                sides_in(v, key)?;
            }
            "cor" => {
                let list = squares_list(v, dim)?;
                if list.is_empty() {
                    corners_listed = false;
                } else {
                    let n = dim - 1;
                    let mut physical = vec![
                        Square::new(0, 0),
                        Square::new(0, n),
                        Square::new(n, 0),
                        Square::new(n, n),
                    ];
                    let mut given = list.clone();
                    physical.sort();
                    given.sort();
                    given.dedup();
                    if given != physical {
                        return Err(format!("OpenTafl rules: 'cor:{v}' (corner squares other than the four corners) is not supported"));
                    }
                }
            }
            "cen" => {
                let list = squares_list(v, dim)?;
                if list.is_empty() {
                    r.throne = false;
                } else if list != [Square::new(dim / 2, dim / 2)] {
                    return Err(format!("OpenTafl rules: 'cen:{v}' (a throne off the centre) is not supported"));
                }
            }
            "corh" => {
                let (a, d, _) = sides_in(v, key)?;
                corner_hostile = (a, d);
            }
            "cors" => {
                let (a, d, _) = sides_in(v, key)?;
                corner_stop_soldiers = a || d;
                if a != d {
                    return Err(format!("OpenTafl rules: 'cors:{v}' (corners open to one side only) is not supported"));
                }
            }
            "cenh" => r.occupied_throne_hostile = hostility(v, key)?,
            "cenhe" => r.empty_throne_hostile = hostility(v, key)?,
            "cenp" => {
                let (a, d, _) = sides_in(v, key)?;
                r.throne_passage = match (a, d) {
                    (true, true) => ThronePassage::Pass,
                    (false, false) => ThronePassage::Wall,
                    _ => return Err(format!("OpenTafl rules: 'cenp:{v}' (a throne one side may cross) is not supported")),
                };
            }
            "cens" => {
                let (a, d, k) = sides_in(v, key)?;
                if a || d {
                    return Err(format!("OpenTafl rules: 'cens:{v}' (soldiers stopping on the throne) is not supported"));
                }
                if !k {
                    r.king_returns = false;
                }
            }
            "cenre" => {
                let (_, _, k) = sides_in(v, key)?;
                if !k {
                    r.king_returns = false;
                }
            }
            "sw" => {
                r.shieldwall = match v {
                    "n" => Shieldwall::None,
                    "w" => Shieldwall::Weak,
                    "s" => Shieldwall::Strong,
                    _ => return Err(format!("OpenTafl rules: 'sw:{v}' must be n, w or s")),
                }
            }
            "swf" => r.shieldwall_flank = yes_no(v, key)?,
            "efe" => {
                r.exit_fort = if yes_no(v, key)? {
                    ExitFort::Strict
                } else {
                    ExitFort::None
                }
            }
            "linc" => r.law10 = yes_no(v, key)?,
            _ => return Err(format!("OpenTafl rules: unknown key '{key}:'")),
        }
    }
    if corners_listed {
        r.corners = match (corner_stop_soldiers, corner_hostile) {
            (false, (true, true)) => Corners::Restricted,
            (true, (false, false)) => Corners::Plain,
            _ => {
                return Err(
                    "OpenTafl rules: this mix of corner rules (cors:/corh:) is not supported: corners are either restricted and hostile to all, or plain"
                        .into(),
                )
            }
        };
    } else {
        if r.escape == Escape::Corner {
            return Err(
                "OpenTafl rules: corner escape without corner squares ('cor:' empty)".into(),
            );
        }
        r.corners = Corners::Plain;
    }
    Rules::new(r).map_err(|e| format!("OpenTafl rules: {e}"))
}

fn hostility_list(h: Hostility) -> &'static str {
    match h {
        Hostility::None => "",
        Hostility::Attackers => "tcnkm",
        Hostility::Defenders => "TCNKM",
        Hostility::Both => "tcnkmTCNKM",
    }
}

/// Our rules as an OpenTafl rules string. Rules OpenTafl cannot express
/// (ply limits, `defenders-lose` repetition) are approximated: the match
/// runner adjudicates with our rules anyway.
pub fn otn_rules_string(rules: &Rules) -> String {
    let o = rules.options();
    let yn = |b: bool| if b { "y" } else { "n" };
    let mut parts = vec![format!("dim:{}", rules.size())];
    parts.push(format!("name:{}", o.preset.name()));
    parts.push(format!(
        "esc:{}",
        if o.escape == Escape::Corner { "c" } else { "e" }
    ));
    parts.push(format!("surf:{}", yn(o.encirclement != Encirclement::None)));
    parts.push(format!("atkf:{}", yn(o.first == Side::Attackers)));
    parts.push(format!(
        "tfr:{}",
        match o.repetition {
            Repetition::None => "i",
            Repetition::Draw => "d",
            Repetition::MoverLoses | Repetition::DefendersLose => "w",
            Repetition::DefendersForbidden => "i",
        }
    ));
    parts.push(format!(
        "ka:{}",
        match o.king_armed {
            KingArmed::Yes => "y",
            KingArmed::No => "n",
            KingArmed::Anvil => "a",
            KingArmed::Hammer => "h",
        }
    ));
    parts.push(format!(
        "ks:{}",
        match o.king_capture {
            KingCapture::Strong => "s",
            KingCapture::Weak | KingCapture::Sandwich => "w",
            KingCapture::Linnaeus => "c",
        }
    ));
    match o.corners {
        Corners::Restricted => {}
        Corners::Plain if o.escape == Escape::Edge => parts.push("cor:".into()),
        Corners::Plain => {
            parts.push("cors:tcnkmTCNKM".into());
            parts.push("corh:".into());
        }
    }
    if o.throne {
        parts.push(format!(
            "cenh:{}",
            hostility_list(o.occupied_throne_hostile)
        ));
        parts.push(format!("cenhe:{}", hostility_list(o.empty_throne_hostile)));
        parts.push(format!(
            "cenp:{}",
            if o.throne_passage == ThronePassage::Pass {
                "tcnkmTCNKM"
            } else {
                "K"
            }
        ));
        parts.push(format!("cens:{}", if o.king_returns { "K" } else { "" }));
    } else {
        parts.push("cen:".into());
    }
    parts.push(format!(
        "sw:{}",
        match o.shieldwall {
            Shieldwall::None => "n",
            Shieldwall::Weak => "w",
            Shieldwall::Strong => "s",
        }
    ));
    if !o.shieldwall_flank {
        parts.push("swf:n".into());
    }
    parts.push(format!("efe:{}", yn(o.exit_fort != ExitFort::None)));
    parts.push(format!("linc:{}", yn(o.law10)));
    parts.push(format!("start:{}", o.setup.record()));
    parts.join(" ")
}

/// Whether an OpenTafl rules string can say these rules: OpenTafl has no
/// camps, extra hostile squares, closed throne or first-recurrence draws
/// (Ashton Tablut), so [`otn_rules_string`] would name other rules.
pub fn otn_expressible(rules: &Rules) -> Result<(), String> {
    let o = rules.options();
    if !o.camps.is_empty()
        || (o.hostile_to[0] | o.hostile_to[1]).any()
        || o.throne_passage == ThronePassage::Closed
        || o.repetition_count != 3
        || o.repetition == Repetition::DefendersForbidden
        || o.king_capture == KingCapture::Sandwich
        || o.exit_fort == ExitFort::Flood
        || o.encirclement == Encirclement::King
        || o.cannot_escape
    {
        return Err(format!(
            "the {} rules (camps, a closed throne, draws at the first repetition, the hnefatafl.org server's forts, encirclement, king capture or forbidden repetitions) have no OpenTafl rules string",
            o.preset
        ));
    }
    Ok(())
}

/// A move in OpenTafl notation with its captures: `e1-e3xe4/e2`.
pub fn otn_move(before: &Position, after: &Position, mv: Move) -> String {
    let captured = (before.occupied() & !after.occupied()) & !mv.from().bb();
    let mut s = mv.to_string();
    let list: Vec<String> = captured.squares().map(|q| q.to_string()).collect();
    if !list.is_empty() {
        s.push('x');
        s.push_str(&list.join("/"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Game;

    #[test]
    fn our_presets_round_trip_through_otn() {
        for preset in Preset::ALL {
            let ours = Rules::preset(preset);
            if otn_expressible(&ours).is_err() {
                assert!(
                    [
                        Preset::Ashton,
                        Preset::HnefataflOrg11,
                        Preset::HnefataflOrg7
                    ]
                    .contains(&preset),
                    "{preset}"
                );
                continue;
            }
            let text = otn_rules_string(&ours);
            let back = parse_otn_rules(&text).unwrap_or_else(|e| panic!("{preset}: {e}\n{text}"));
            for name in crate::rules::options::RULE_OPTION_NAMES {
                if ["Repetition", "NoCaptureLimit", "PlyLimit"].contains(name) {
                    continue;
                }
                assert_eq!(back.get(name), ours.get(name), "{preset} {name}: {text}");
            }
        }
    }

    #[test]
    fn refusals_name_the_key() {
        for (text, key) in [
            (
                "dim:9 ber:c start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
                "ber",
            ),
            (
                "dim:9 spd:2 start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
                "spd",
            ),
            (
                "dim:9 zz:1 start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
                "zz",
            ),
            (
                "dim:15 start:/15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/15/",
                "15x15",
            ),
        ] {
            let e = parse_otn_rules(text).unwrap_err();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn moves_with_captures() {
        let r = Rules::preset(Preset::Tablut);
        let g = Game::from_record(
            r.clone(),
            "/9/9/2t6/2T6/t8/9/4K4/9/9/",
            Side::Attackers,
            0,
            0,
        )
        .unwrap();
        let before = *g.position();
        let mv = Move::parse("a5-c5", 9).unwrap();
        let after = before.make(&r, mv);
        assert_eq!(otn_move(&before, &after, mv), "a5-c5xc4");
        let quiet = Move::parse("a5-a6", 9).unwrap();
        assert_eq!(otn_move(&before, &before.make(&r, quiet), quiet), "a5-a6");
    }
}
