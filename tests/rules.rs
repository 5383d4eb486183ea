//! Hand-made tests for every rule option. Positions are given as lists of
//! (square, piece) with `t` attacker, `T` defender, `K` king.

mod common;
use common::{build, mv, rules};
use konakis::rules::{Game, Move, Outcome, Position, Preset, Reason, Rules, Side, Square};

fn play(r: &Rules, p: &Position, text: &str) -> Position {
    let m = mv(r, text);
    assert!(p.is_legal(r, m), "{text} should be legal");
    p.make(r, m)
}

/// Whether the piece on `square` is gone after `mv` from the position.
fn taken(r: &Rules, pieces: &[(&str, char)], side: Side, mv_text: &str, square: &str) -> bool {
    let p = build(r, pieces, side);
    !at(r, &play(r, &p, mv_text), square)
}

fn at(r: &Rules, p: &Position, name: &str) -> bool {
    p.piece_at(Square::parse(name, r.size()).unwrap()).is_some()
}

// ---------- movement ----------

#[test]
fn throne_pass_versus_wall() {
    let pieces = [("c5", 't'), ("g7", 'K')];
    let pass = rules(Preset::Tablut, &[]);
    let p = build(&pass, &pieces, Side::Attackers);
    assert!(
        p.is_legal(&pass, mv(&pass, "c5-g5")),
        "a soldier may cross the empty throne"
    );
    assert!(
        !p.is_legal(&pass, mv(&pass, "c5-e5")),
        "only the king may stop on the throne"
    );
    let wall = rules(Preset::TablutLatin, &[]);
    let p = build(&wall, &pieces, Side::Attackers);
    assert!(
        !p.is_legal(&wall, mv(&wall, "c5-g5")),
        "a walled throne blocks soldiers"
    );
    assert!(p.is_legal(&wall, mv(&wall, "c5-d5")));
    // The king may cross and stop on the throne, in both readings.
    for r in [&pass, &wall] {
        let p = build(r, &[("c5", 'K'), ("a1", 't')], Side::Defenders);
        assert!(p.is_legal(r, mv(r, "c5-e5")));
        assert!(p.is_legal(r, mv(r, "c5-g5")));
    }
}

#[test]
fn restricted_corners_only_for_the_king() {
    let r = rules(Preset::Brandubh, &[]);
    let p = build(&r, &[("a3", 't'), ("c3", 'K')], Side::Attackers);
    assert!(!p.is_legal(&r, mv(&r, "a3-a1")));
    assert!(p.is_legal(&r, mv(&r, "a3-a2")));
    let plain = rules(Preset::Tablut, &[]);
    let p = build(&plain, &[("a3", 't'), ("c3", 'K')], Side::Attackers);
    assert!(
        p.is_legal(&plain, mv(&plain, "a3-a1")),
        "tablut corners are plain"
    );
    // Counting agrees with listing.
    let mut list = konakis::rules::MoveList::new();
    p.generate_moves(&plain, &mut list);
    assert_eq!(list.len() as u32, p.count_moves(&plain));
}

// ---------- captures ----------

#[test]
fn custodial_capture_is_active_only() {
    let r = rules(Preset::Tablut, &[]);
    let p = build(
        &r,
        &[("c3", 't'), ("d3", 'T'), ("e1", 't'), ("g7", 'K')],
        Side::Attackers,
    );
    let after = play(&r, &p, "e1-e3");
    assert!(!at(&r, &after, "d3"));
    assert_eq!(after.captured, 1);
    assert_eq!(after.plies_since_capture, 0);
    let p = build(
        &r,
        &[("c3", 't'), ("e3", 't'), ("d1", 'T'), ("g7", 'K')],
        Side::Defenders,
    );
    let after = play(&r, &p, "d1-d3");
    assert!(at(&r, &after, "d3"), "stepping between two enemies is safe");
}

#[test]
fn one_move_captures_on_several_sides() {
    let r = rules(Preset::Tablut, &[]);
    let p = build(
        &r,
        &[
            ("c4", 'T'),
            ("b4", 't'),
            ("e4", 'T'),
            ("f4", 't'),
            ("d5", 'T'),
            ("d6", 't'),
            ("d1", 't'),
            ("g7", 'K'),
        ],
        Side::Attackers,
    );
    let after = play(&r, &p, "d1-d4");
    assert_eq!(after.captured, 3);
    assert!(!at(&r, &after, "c4") && !at(&r, &after, "e4") && !at(&r, &after, "d5"));
}

#[test]
fn empty_throne_hostility() {
    // A defender beside the empty throne, an attacker arriving opposite.
    let def_victim = [("e4", 'T'), ("a3", 't'), ("g7", 'K')];
    // An attacker beside the empty throne, a defender arriving opposite.
    let att_victim = [("d5", 't'), ("c1", 'T'), ("g7", 'K')];
    for (value, def_taken, att_taken) in [
        ("both", true, true),
        ("defenders", true, false),
        ("attackers", false, true),
        ("none", false, false),
    ] {
        let r = rules(Preset::Tablut, &[("EmptyThroneHostile", value)]);
        assert_eq!(
            taken(&r, &def_victim, Side::Attackers, "a3-e3", "e4"),
            def_taken,
            "{value}: defender"
        );
        assert_eq!(
            taken(&r, &att_victim, Side::Defenders, "c1-c5", "d5"),
            att_taken,
            "{value}: attacker"
        );
    }
}

#[test]
fn occupied_throne_hostility() {
    // King unarmed, so only the throne's hostility can act as the anvil.
    for (value, def_taken, att_taken) in [
        ("both", true, true),
        ("defenders", true, false),
        ("attackers", false, true),
        ("none", false, false),
    ] {
        let r = rules(
            Preset::Tablut,
            &[("OccupiedThroneHostile", value), ("KingArmed", "false")],
        );
        let p = build(
            &r,
            &[("e5", 'K'), ("e4", 'T'), ("a3", 't')],
            Side::Attackers,
        );
        assert_eq!(
            !at(&r, &play(&r, &p, "a3-e3"), "e4"),
            def_taken,
            "{value}: defender"
        );
        let p = build(
            &r,
            &[("e5", 'K'), ("d5", 't'), ("c1", 'T')],
            Side::Defenders,
        );
        assert_eq!(
            !at(&r, &play(&r, &p, "c1-c5"), "d5"),
            att_taken,
            "{value}: attacker"
        );
    }
}

#[test]
fn hostile_corners() {
    let r = rules(Preset::Brandubh, &[]);
    let p = build(
        &r,
        &[("b1", 'T'), ("c3", 't'), ("e5", 'K')],
        Side::Attackers,
    );
    assert!(
        !at(&r, &play(&r, &p, "c3-c1"), "b1"),
        "restricted corners are hostile"
    );
    let r = rules(Preset::Tablut, &[]);
    let p = build(
        &r,
        &[("b1", 'T'), ("c3", 't'), ("e7", 'K')],
        Side::Attackers,
    );
    assert!(
        at(&r, &play(&r, &p, "c3-c1"), "b1"),
        "plain corners are not"
    );
}

#[test]
fn armed_and_unarmed_king() {
    let armed = rules(Preset::Tablut, &[]);
    let unarmed = rules(Preset::Tablut, &[("KingArmed", "false")]);
    let pieces = [("c3", 'T'), ("d3", 't'), ("e7", 'K'), ("a9", 't')];
    // The king as hammer.
    let p = build(&armed, &pieces, Side::Defenders);
    assert!(!at(&armed, &play(&armed, &p, "e7-e3"), "d3"));
    let p = build(&unarmed, &pieces, Side::Defenders);
    assert!(at(&unarmed, &play(&unarmed, &p, "e7-e3"), "d3"));
    // The king as anvil.
    let pieces = [("e3", 'K'), ("d3", 't'), ("c7", 'T'), ("a9", 't')];
    let p = build(&armed, &pieces, Side::Defenders);
    assert!(!at(&armed, &play(&armed, &p, "c7-c3"), "d3"));
    let p = build(&unarmed, &pieces, Side::Defenders);
    assert!(at(&unarmed, &play(&unarmed, &p, "c7-c3"), "d3"));
}

#[test]
fn law_ten() {
    let pieces = [
        ("e5", 'K'),
        ("d5", 't'),
        ("f5", 't'),
        ("e6", 't'),
        ("e4", 'T'),
        ("a3", 't'),
    ];
    let r = rules(Preset::Tablut1811, &[]);
    let p = build(&r, &pieces, Side::Attackers);
    assert!(
        !at(&r, &play(&r, &p, "a3-e3"), "e4"),
        "law 10 takes the fourth defender"
    );
    let off = rules(Preset::Tablut1811, &[("Law10", "false")]);
    let p = build(&off, &pieces, Side::Attackers);
    assert!(at(&off, &play(&off, &p, "a3-e3"), "e4"));
    // Only two attackers beside the king: no capture.
    let p = build(
        &r,
        &[
            ("e5", 'K'),
            ("d5", 't'),
            ("f5", 't'),
            ("e4", 'T'),
            ("a3", 't'),
        ],
        Side::Attackers,
    );
    assert!(at(&r, &play(&r, &p, "a3-e3"), "e4"));
}

// ---------- king capture ----------

fn king_taken(r: &Rules, pieces: &[(&str, char)], mv_text: &str) -> bool {
    let p = build(r, pieces, Side::Attackers);
    play(r, &p, mv_text).outcome() == Some(Outcome::win(Side::Attackers, Reason::KingCaptured))
}

#[test]
fn king_capture_weak() {
    let r = rules(Preset::Tablut, &[("KingCapture", "weak")]);
    assert!(king_taken(
        &r,
        &[("c3", 'K'), ("b3", 't'), ("d1", 't')],
        "d1-d3"
    ));
    assert!(!king_taken(
        &r,
        &[("c3", 'K'), ("b4", 't'), ("d1", 't')],
        "d1-d3"
    ));
    // On the throne, weak is still custodial.
    assert!(king_taken(
        &r,
        &[("e5", 'K'), ("d5", 't'), ("f1", 't')],
        "f1-f5"
    ));
    // Against the empty throne (hostile to defenders in tablut).
    assert!(king_taken(&r, &[("e4", 'K'), ("a3", 't')], "a3-e3"));
}

#[test]
fn king_capture_linnaeus() {
    let r = rules(Preset::Tablut, &[]);
    // On the throne: four attackers.
    let three = [
        ("e5", 'K'),
        ("d5", 't'),
        ("f5", 't'),
        ("e6", 't'),
        ("a4", 't'),
    ];
    assert!(king_taken(&r, &three, "a4-e4"));
    assert!(!king_taken(
        &r,
        &[("e5", 'K'), ("d5", 't'), ("f5", 't'), ("a4", 't')],
        "a4-e4"
    ));
    // Beside the throne: three attackers, the throne the fourth.
    assert!(king_taken(
        &r,
        &[("e4", 'K'), ("d4", 't'), ("f4", 't'), ("a3", 't')],
        "a3-e3"
    ));
    assert!(!king_taken(
        &r,
        &[("e4", 'K'), ("d4", 't'), ("a3", 't')],
        "a3-e3"
    ));
    // Elsewhere: custodial.
    assert!(king_taken(
        &r,
        &[("c3", 'K'), ("b3", 't'), ("d1", 't')],
        "d1-d3"
    ));
    // The arriving attacker must be one of the captors.
    assert!(!king_taken(
        &r,
        &[("c3", 'K'), ("b3", 't'), ("d3", 't'), ("h1", 't')],
        "h1-h2"
    ));
}

#[test]
fn king_capture_strong() {
    let r = rules(Preset::TablutEnglish, &[]);
    assert!(!king_taken(
        &r,
        &[("c3", 'K'), ("b3", 't'), ("d1", 't')],
        "d1-d3"
    ));
    // (Corner escape, so that a king on the edge is still in play.)
    let corner = rules(Preset::TablutCorner, &[]);
    assert!(king_taken(
        &r,
        &[
            ("c3", 'K'),
            ("b3", 't'),
            ("c2", 't'),
            ("c4", 't'),
            ("d1", 't')
        ],
        "d1-d3"
    ));
    // The empty throne counts as the fourth attacker.
    assert!(king_taken(
        &r,
        &[("e4", 'K'), ("d4", 't'), ("f4", 't'), ("a3", 't')],
        "a3-e3"
    ));
    // Never on the edge.
    assert!(!king_taken(
        &corner,
        &[("c1", 'K'), ("b1", 't'), ("c2", 't'), ("e1", 't')],
        "e1-d1"
    ));
}

// ---------- escape ----------

#[test]
fn escape_edge_versus_corner() {
    let edge = rules(Preset::Tablut, &[]);
    let p = build(&edge, &[("c3", 'K'), ("h8", 't')], Side::Defenders);
    assert_eq!(
        play(&edge, &p, "c3-c1").outcome(),
        Some(Outcome::win(Side::Defenders, Reason::KingEscaped))
    );
    let corner = rules(Preset::TablutCorner, &[]);
    let p = build(&corner, &[("a3", 'K'), ("h8", 't')], Side::Defenders);
    assert_eq!(play(&corner, &p, "a3-a2").outcome(), None);
    assert_eq!(
        play(&corner, &p, "a3-a1").outcome(),
        Some(Outcome::win(Side::Defenders, Reason::KingEscaped))
    );
}

// ---------- shieldwall ----------

/// Three defenders on the edge c1 d1 e1, fronted by attackers, bracketed at
/// b1; the attacker on f5 closes the wall with f5-f1.
const CLASSIC_WALL: [(&str, char); 9] = [
    ("c1", 'T'),
    ("d1", 'T'),
    ("e1", 'T'),
    ("c2", 't'),
    ("d2", 't'),
    ("e2", 't'),
    ("b1", 't'),
    ("f5", 't'),
    ("f6", 'K'),
];

#[test]
fn shieldwall_with_piece_bracket() {
    let r = rules(Preset::Copenhagen, &[]);
    let p = build(&r, &CLASSIC_WALL, Side::Attackers);
    let after = play(&r, &p, "f5-f1");
    assert_eq!(after.captured, 3);
    assert!(!at(&r, &after, "c1") && !at(&r, &after, "d1") && !at(&r, &after, "e1"));
}

#[test]
fn shieldwall_with_corner_bracket_and_king_spared() {
    let r = rules(Preset::Copenhagen, &[]);
    let p = build(
        &r,
        &[
            ("b1", 'T'),
            ("c1", 'K'),
            ("b2", 't'),
            ("c2", 't'),
            ("d5", 't'),
            ("g7", 'T'),
        ],
        Side::Attackers,
    );
    let after = play(&r, &p, "d5-d1");
    assert!(!at(&r, &after, "b1"), "the corner closes the wall");
    assert!(at(&r, &after, "c1"), "the king in the wall is not captured");
}

#[test]
fn shieldwall_around_the_king_frees_him() {
    // The king inside the row is spared, and the squares of the captured
    // members open for him (the one case where a shieldwall changes the
    // victims' move count).
    let r = rules(Preset::Copenhagen, &[]);
    let p = build(
        &r,
        &[
            ("c1", 'T'),
            ("d1", 'K'),
            ("e1", 'T'),
            ("b1", 't'),
            ("c2", 't'),
            ("d2", 't'),
            ("e2", 't'),
            ("f5", 't'),
            ("h7", 'T'),
        ],
        Side::Attackers,
    );
    let after = play(&r, &p, "f5-f1");
    assert_eq!(after.captured, 2);
    assert!(at(&r, &after, "d1") && !at(&r, &after, "c1") && !at(&r, &after, "e1"));
    let d1 = Square::parse("d1", 11).unwrap();
    assert_eq!(after.destinations(&r, d1).count(), 2);
}

/// OpenTafl's relaxed shieldwall (`swf:n`, `ShieldwallFlank=false`): a
/// closed wall falls to any move of the other side, here the last front
/// piece arriving from inside the board.
#[test]
fn relaxed_shieldwall_falls_to_any_move() {
    let pieces = [
        ("c1", 'T'),
        ("d1", 'T'),
        ("e1", 'T'),
        ("b1", 't'),
        ("f1", 't'),
        ("c2", 't'),
        ("e2", 't'),
        ("d5", 't'),
        ("f6", 'K'),
    ];
    let flank = rules(Preset::Copenhagen, &[]);
    let relaxed = rules(Preset::Copenhagen, &[("ShieldwallFlank", "false")]);
    // The front closes with d5-d2: only the relaxed rule takes the wall.
    let p = build(&flank, &pieces, Side::Attackers);
    let after = play(&flank, &p, "d5-d2");
    assert_eq!(after.captured, 0);
    let p = build(&relaxed, &pieces, Side::Attackers);
    let after = play(&relaxed, &p, "d5-d2");
    assert_eq!(after.captured, 3);
    assert!(!at(&relaxed, &after, "c1") && !at(&relaxed, &after, "e1"));
    // The classic flanking move still takes a wall under the relaxed rule.
    let p = build(&relaxed, &CLASSIC_WALL, Side::Attackers);
    assert_eq!(play(&relaxed, &p, "f5-f1").captured, 3);
}

#[test]
fn shieldwall_broken_by_gap_or_missing_front() {
    let r = rules(Preset::Copenhagen, &[]);
    // A gap at d1.
    let p = build(
        &r,
        &[
            ("c1", 'T'),
            ("e1", 'T'),
            ("c2", 't'),
            ("e2", 't'),
            ("b1", 't'),
            ("f5", 't'),
            ("f6", 'K'),
        ],
        Side::Attackers,
    );
    let after = play(&r, &p, "f5-f1");
    assert!(at(&r, &after, "c1"));
    // One member with no attacker in front.
    let p = build(
        &r,
        &[
            ("c1", 'T'),
            ("d1", 'T'),
            ("e1", 'T'),
            ("c2", 't'),
            ("e2", 't'),
            ("b1", 't'),
            ("f5", 't'),
            ("f6", 'K'),
        ],
        Side::Attackers,
    );
    let after = play(&r, &p, "f5-f1");
    assert!(at(&r, &after, "c1") && at(&r, &after, "d1"));
    // Shieldwall off: only custodial captures (none here).
    let off = rules(Preset::Copenhagen, &[("Shieldwall", "false")]);
    let p = build(&off, &CLASSIC_WALL, Side::Attackers);
    assert_eq!(play(&off, &p, "f5-f1").captured, 0);
}

// ---------- encirclement ----------

fn ring(gap: &str) -> Vec<(String, char)> {
    let mut v = Vec::new();
    for f in ['d', 'e', 'f', 'g', 'h'] {
        v.push((format!("{f}3"), 't'));
        v.push((format!("{f}9"), 't'));
    }
    for rk in 4..=8 {
        v.push((format!("c{rk}"), 't'));
        v.push((format!("i{rk}"), 't'));
    }
    v.retain(|(s, _)| s != gap);
    v
}

/// The ring with its gap on i6, the king on `king` and a defender on e6
/// inside it, and an attacker on k6 that closes the gap with k6-i6.
fn ringed_king(king: &str) -> Vec<(String, char)> {
    let mut pieces = ring("i6");
    pieces.push((king.into(), 'K'));
    pieces.push(("e6".into(), 'T'));
    pieces.push(("k6".into(), 't'));
    pieces
}

#[test]
fn encirclement() {
    let r = rules(Preset::Copenhagen, &[]);
    let pieces = ringed_king("f6");
    let refs: Vec<(&str, char)> = pieces.iter().map(|(s, c)| (s.as_str(), *c)).collect();
    let p = build(&r, &refs, Side::Attackers);
    assert!(!p.is_encircled(&r));
    let after = play(&r, &p, "k6-i6");
    assert_eq!(
        after.outcome(),
        Some(Outcome::win(Side::Attackers, Reason::Encircled))
    );
    // A defender outside the ring: no encirclement.
    let mut refs2 = refs.clone();
    refs2.push(("b2", 'T'));
    let p = build(&r, &refs2, Side::Attackers);
    assert_eq!(play(&r, &p, "k6-i6").outcome(), None);
    // Switched off.
    let off = rules(Preset::Copenhagen, &[("Encirclement", "false")]);
    let p = build(&off, &refs, Side::Attackers);
    assert_eq!(play(&off, &p, "k6-i6").outcome(), None);
}

/// The search reads a win beside the king off the board: a move there that
/// encircles is announced by `attacker_may_win_otherwise`, and its `no`
/// holds when a defender stays outside the ring.
#[test]
fn encirclement_beside_the_king_is_announced() {
    let r = rules(Preset::Copenhagen, &[]);
    let pieces = ringed_king("h6");
    let refs: Vec<(&str, char)> = pieces.iter().map(|(s, c)| (s.as_str(), *c)).collect();
    let p = build(&r, &refs, Side::Attackers);
    let around = |p: &Position| {
        let k = p.king_square().unwrap();
        k.bb().neighbours(r.masks().board) & !p.occupied()
    };
    let i6 = Square::parse("i6", r.size()).unwrap();
    assert!(around(&p).has(i6));
    assert!(!p.captures_king_on_arrival(&r, i6));
    assert!(p.attacker_may_win_otherwise(&r, around(&p)));
    assert_eq!(
        play(&r, &p, "k6-i6").outcome(),
        Some(Outcome::win(Side::Attackers, Reason::Encircled))
    );
    let mut outside = refs.clone();
    outside.push(("b2", 'T'));
    let p = build(&r, &outside, Side::Attackers);
    assert!(!p.attacker_may_win_otherwise(&r, around(&p)));
    assert_eq!(play(&r, &p, "k6-i6").outcome(), None);
}

// ---------- exit fort ----------

/// King on f1 with f2 to move in; e3 and (after f5-f3) f3 guard each other.
const FORT: [(&str, char); 9] = [
    ("f1", 'K'),
    ("e1", 'T'),
    ("g1", 'T'),
    ("e2", 'T'),
    ("g2", 'T'),
    ("e3", 'T'),
    ("f5", 'T'),
    ("a6", 't'),
    ("k6", 't'),
];

/// The FORT position without some squares and with some extra pieces.
fn fort_variant(without: &[&str], with: &[(&'static str, char)]) -> Vec<(&'static str, char)> {
    let mut pieces: Vec<(&'static str, char)> = FORT
        .iter()
        .copied()
        .filter(|(sq, _)| !without.contains(sq))
        .collect();
    pieces.extend_from_slice(with);
    pieces
}

#[test]
fn exit_fort_counts() {
    let r = rules(Preset::Copenhagen, &[]);
    // King on f1 with f2 to move in; e3 and f3 guard each other.
    let p = build(&r, &FORT, Side::Defenders);
    let after = play(&r, &p, "f5-f3");
    assert_eq!(
        after.outcome(),
        Some(Outcome::win(Side::Defenders, Reason::ExitFort))
    );
    let off = rules(Preset::Copenhagen, &[("ExitFort", "false")]);
    let p2 = build(&off, &FORT, Side::Defenders);
    assert_eq!(play(&off, &p2, "f5-f3").outcome(), None);
}

#[test]
fn near_forts_do_not_count() {
    let r = rules(Preset::Copenhagen, &[]);
    let after = |pieces: &[(&str, char)], mv_text: &str| {
        play(&r, &build(&r, pieces, Side::Defenders), mv_text).outcome()
    };
    // f3 alone can be taken between e3 and g3.
    assert_eq!(after(&fort_variant(&["e3"], &[]), "f5-f3"), None);
    // The king cannot move.
    assert_eq!(
        after(&fort_variant(&["e2", "g2", "e3"], &[("f2", 'T')]), "f5-f4"),
        None
    );
    // An attacker outside the wall (h1 is not next to the region) does not matter.
    assert!(after(&fort_variant(&[], &[("h1", 't')]), "f5-f3").is_some());
    // g2 is open: the region reaches out to h2's attacker.
    assert_eq!(after(&fort_variant(&["g2"], &[("h2", 't')]), "f5-f3"), None);
    // The king not on the edge.
    let off_edge = [
        ("f2", 'K'),
        ("e2", 'T'),
        ("g2", 'T'),
        ("e3", 'T'),
        ("g3", 'T'),
        ("f1", 'T'),
        ("f5", 'T'),
        ("a6", 't'),
        ("k6", 't'),
    ];
    assert_eq!(after(&off_edge, "f5-f4"), None);
}

/// The textbook fort: king on f1, d1 e2 f2 g2 h1, closed by the
/// defenders' h2-h1. Shieldwalls must not hide it.
#[test]
fn textbook_exit_fort_with_and_without_shieldwalls() {
    for shieldwall in ["strong", "weak", "none"] {
        let r = rules(Preset::Copenhagen, &[("Shieldwall", shieldwall)]);
        let mut g = Game::from_record(
            r,
            "/3T1K5/4TTTT3/2t5t2/11/11/t9t/11/11/11/11/5t5/",
            Side::Defenders,
            0,
            0,
        )
        .unwrap();
        g.play_str("h2-h1").unwrap();
        assert_eq!(
            g.outcome(),
            Some(Outcome::win(Side::Defenders, Reason::ExitFort)),
            "Shieldwall={shieldwall}"
        );
    }
}

/// Forts on which people's games ended (`../shared/cases/real/`): the
/// position before the defenders' last move, and that move.
#[test]
fn exit_forts_from_real_games() {
    let r = rules(Preset::Copenhagen, &[]);
    for (record, last) in [
        // line 155: king g1 behind e1 f2 g2 h1.
        (
            "/3tT1K1t2/2t2TT4/1t5Tt2/tT1t7/1TT7t/t9t/t3T5t/t9t/9t1/1t6t2/4tttt3/",
            "h3-h1",
        ),
        // line 63: king a8 behind a7 b8 b9 a10, closed by a capture.
        (
            "/4tttt3/3t7/3t7/1t3T4t/t4TT3t/tT5T2t/Tt9/K2T7/1T1t3t3/Ttt1T1t4/3t7/",
            "d8-b8",
        ),
        // line 300: king h11 behind f11 g10 h10 i11.
        (
            "/3ttt1t3/1t9/9t1/t9t/t3T6/11/4T6/11/t5TT1T1/1t2t1T1t1t/2t2T1KTt1/",
            "h9-h10",
        ),
        // line 231: king h1 behind f1 g2 h2 i1, an attacker beside i1.
        (
            "/5T1KT2/4t1T1tt1/2t5t1T/1t9/t6TT1t/t9t/6T3t/5T4t/tT7t1/1t9/2t2t2t2/",
            "h5-h2",
        ),
    ] {
        let mut g = Game::from_record(r.clone(), record, Side::Defenders, 0, 0).unwrap();
        g.play_str(last).unwrap();
        assert_eq!(
            g.outcome(),
            Some(Outcome::win(Side::Defenders, Reason::ExitFort)),
            "{record} {last}"
        );
    }
}

/// A fort whose wall piece f3 leans on d3 and e4 sealing the pocket e3:
/// with d4 guarding both it holds; without d4 the attackers take d3 or e4,
/// reach e3 and then take f3: two steps, but breakable. With one attacker
/// nothing can be taken at all.
#[test]
fn a_fort_that_breaks_only_in_two_steps() {
    let r = rules(Preset::Copenhagen, &[]);
    let wall = [
        ("f1", 'K'),
        ("e1", 'T'),
        ("g1", 'T'),
        ("e2", 'T'),
        ("g2", 'T'),
        ("f3", 'T'),
        ("d3", 'T'),
        ("e4", 'T'),
    ];
    let attackers = [("a6", 't'), ("k6", 't'), ("f11", 't')];
    let with = |extra: &[(&'static str, char)]| {
        let mut pieces: Vec<(&str, char)> = wall.to_vec();
        pieces.extend_from_slice(extra);
        build(&r, &pieces, Side::Attackers)
    };
    let guarded: Vec<_> = attackers.iter().copied().chain([("d4", 'T')]).collect();
    assert!(with(&guarded).is_exit_fort(&r), "d4 guards the pocket");
    assert!(
        !with(&attackers).is_exit_fort(&r),
        "d3 or e4 falls, then f3"
    );
    assert!(
        with(&[("a6", 't')]).is_exit_fort(&r),
        "one attacker cannot take anything"
    );
    // The smallest fort: four defenders guarding each other.
    let smallest = [
        ("f1", 'K'),
        ("e1", 'T'),
        ("f2", 'T'),
        ("g2", 'T'),
        ("h1", 'T'),
        ("a6", 't'),
        ("k6", 't'),
    ];
    assert!(build(&r, &smallest, Side::Attackers).is_exit_fort(&r));
    // Without g2 the region opens to the whole board.
    let open: Vec<_> = smallest.iter().copied().filter(|p| p.0 != "g2").collect();
    assert!(!build(&r, &open, Side::Attackers).is_exit_fort(&r));
}

// ---------- whole-game rules: no moves, repetition, ply limits ----------

#[test]
fn side_without_moves_loses() {
    let r = rules(Preset::Tablut, &[]);
    // The lone attacker on a1 is boxed in by defenders after the move.
    let p = build(
        &r,
        &[("a1", 't'), ("b1", 'T'), ("a3", 'T'), ("e7", 'K')],
        Side::Defenders,
    );
    let mut g = Game::from_position(r, p);
    g.play_str("a3-a2").unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Side::Defenders, Reason::NoMoves))
    );
}

fn shuffle_game(rep: &str) -> Game {
    let r = rules(Preset::Tablut, &[("Repetition", rep)]);
    let p = build(
        &r,
        &[("a3", 't'), ("g7", 'K'), ("c7", 'T')],
        Side::Attackers,
    );
    let mut g = Game::from_position(r, p);
    for m in [
        "a3-a2", "c7-c6", "a2-a3", "c6-c7", "a3-a2", "c7-c6", "a2-a3", "c6-c7",
    ] {
        if g.outcome().is_some() {
            break;
        }
        g.play_str(m).unwrap();
    }
    g
}

#[test]
fn repetition_kinds() {
    // The setup position recurs for the third time after the 8th ply, made by the defenders.
    assert_eq!(shuffle_game("none").outcome(), None);
    assert_eq!(
        shuffle_game("draw").outcome(),
        Some(Outcome::draw(Reason::Repetition))
    );
    assert_eq!(
        shuffle_game("mover-loses").outcome(),
        Some(Outcome::win(Side::Attackers, Reason::Repetition))
    );
    assert_eq!(
        shuffle_game("defenders-lose").outcome(),
        Some(Outcome::win(Side::Attackers, Reason::Repetition))
    );
    assert_eq!(shuffle_game("draw").moves().len(), 8);
}

#[test]
fn ply_limits() {
    let r = rules(
        Preset::Tablut,
        &[("Repetition", "none"), ("NoCaptureLimit", "5")],
    );
    let p = build(
        &r,
        &[("a3", 't'), ("g7", 'K'), ("c7", 'T')],
        Side::Attackers,
    );
    let mut g = Game::from_position(r, p);
    for m in ["a3-a2", "c7-c6", "a2-a3", "c6-c7"] {
        g.play_str(m).unwrap();
        assert_eq!(g.outcome(), None);
    }
    g.play_str("a3-a2").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::draw(Reason::NoCaptureLimit)));

    let r = rules(
        Preset::Tablut,
        &[
            ("Repetition", "none"),
            ("NoCaptureLimit", "0"),
            ("PlyLimit", "3"),
        ],
    );
    let p = build(
        &r,
        &[("a3", 't'), ("g7", 'K'), ("c7", 'T')],
        Side::Attackers,
    );
    let mut g = Game::from_position(r, p);
    for m in ["a3-a2", "c7-c6"] {
        g.play_str(m).unwrap();
    }
    assert_eq!(g.outcome(), None);
    g.play_str("a2-a3").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::draw(Reason::MoveLimit)));
    assert!(g.play_str("c6-c7").is_err(), "no move after the end");
}

#[test]
fn options_read_back_and_reject_bad_values() {
    let mut r = Rules::preset(Preset::Tablut);
    for name in konakis::rules::options::RULE_OPTION_NAMES {
        let v = r.get(name).unwrap();
        r.set(name, &v).unwrap();
        assert_eq!(r.get(name).unwrap(), v);
    }
    let before = r.summary();
    assert!(r.set("KingCapture", "sideways").is_err());
    assert!(r.set("NoSuchOption", "1").is_err());
    assert!(r.set("Start", "/9/").is_err());
    assert_eq!(r.summary(), before, "a rejected value changes nothing");
}

// ---------- options from OpenTafl: no throne, king not returning, half-armed king, weak shieldwall ----------

#[test]
fn no_throne_is_an_ordinary_square() {
    let r = rules(Preset::Tablut, &[("Throne", "false")]);
    let p = build(&r, &[("c5", 't'), ("g7", 'K')], Side::Attackers);
    assert!(
        p.is_legal(&r, mv(&r, "c5-e5")),
        "soldiers may stop on the centre"
    );
    let p = build(
        &r,
        &[("e4", 'T'), ("a3", 't'), ("g7", 'K')],
        Side::Attackers,
    );
    assert!(
        at(&r, &play(&r, &p, "a3-e3"), "e4"),
        "the empty centre is not hostile"
    );
}

#[test]
fn king_may_not_return_to_the_throne() {
    let r = rules(Preset::Tablut, &[("KingReturns", "false")]);
    let p = build(&r, &[("c5", 'K'), ("a1", 't')], Side::Defenders);
    assert!(!p.is_legal(&r, mv(&r, "c5-e5")));
    assert!(p.is_legal(&r, mv(&r, "c5-g5")), "he may still cross it");
    let p = build(&r, &[("e5", 'K'), ("a1", 't')], Side::Defenders);
    assert!(p.is_legal(&r, mv(&r, "e5-e7")), "he may leave it");
}

#[test]
fn king_as_anvil_only_or_hammer_only() {
    let hammer = [("c3", 'T'), ("d3", 't'), ("e7", 'K'), ("a9", 't')];
    let anvil = [("e3", 'K'), ("d3", 't'), ("c7", 'T'), ("a9", 't')];
    for (value, as_hammer, as_anvil) in [("anvil", false, true), ("hammer", true, false)] {
        let r = rules(Preset::Tablut, &[("KingArmed", value)]);
        assert_eq!(
            taken(&r, &hammer, Side::Defenders, "e7-e3", "d3"),
            as_hammer,
            "{value} hammer"
        );
        assert_eq!(
            taken(&r, &anvil, Side::Defenders, "c7-c3", "d3"),
            as_anvil,
            "{value} anvil"
        );
    }
}

#[test]
fn weak_shieldwall_is_not_closed_by_a_corner() {
    let pieces = [
        ("b1", 'T'),
        ("c1", 'T'),
        ("b2", 't'),
        ("c2", 't'),
        ("d5", 't'),
        ("g7", 'K'),
    ];
    let strong = rules(Preset::Copenhagen, &[]);
    let p = build(&strong, &pieces, Side::Attackers);
    assert_eq!(play(&strong, &p, "d5-d1").captured, 2);
    let weak = rules(Preset::Copenhagen, &[("Shieldwall", "weak")]);
    let p = build(&weak, &pieces, Side::Attackers);
    assert_eq!(play(&weak, &p, "d5-d1").captured, 0);
}

/// Camps and extra hostile squares are checked with the rest of the rules:
/// on the board, in one camp each, never under a defender, the king or the
/// throne, and not combined with exit forts (whose test ignores camps).
#[test]
fn camp_options_are_checked() {
    for (name, value, says) in [
        ("Camps", "a4 j9", "off the 9x9 board"),
        ("HostileToDefenders", "a4 k11", "off the 9x9 board"),
        ("Camps", "a4 a5; a5", "two camps"),
        ("Camps", "e5", "only attackers may start in a camp"),
        ("Camps", "e3", "only attackers may start in a camp"),
        ("ExitFort", "true", "cannot be combined"),
        ("RepetitionCount", "4", "not 2 or 3"),
    ] {
        let err = Rules::build(Preset::Ashton, &[(name, value)]).unwrap_err();
        assert!(err.contains(says), "{name}={value}: {err}");
    }
    // Smaller boards than the camps: refused, the old rules kept.
    let mut r = Rules::preset(Preset::Ashton);
    assert!(r.set("Start", "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/").is_err());
    assert_eq!(r.options().preset, Preset::Ashton);
    assert_eq!(r.size(), 9);
    // No camps: an ordinary rule set again.
    assert!(Rules::build(Preset::Ashton, &[("Camps", ""), ("ExitFort", "true")]).is_ok());
}

/// The hnefatafl.org server's repetition rule: the defenders may not make
/// a board that stood before (whoever was to move then); the attackers
/// may. A search never plays the forbidden move either.
#[test]
fn defenders_may_not_recreate_a_board() {
    let r = Rules::preset(Preset::HnefataflOrg11);
    let mut g = Game::new(r.clone());
    for m in ["a4-a3", "f4-f3", "a3-a4"] {
        g.play_str(m).unwrap();
    }
    // f3-f4 would bring back the start board.
    let back = Move::parse("f3-f4", 11).unwrap();
    assert!(!g.legal_moves().contains(&back));
    let err = g.play(back).unwrap_err();
    assert!(err.contains("recreate"), "{err}");
    assert!(g.outcome().is_none());
    // Nor any board since: f3-e3, a4-a3 and then e3-f3 would recreate the
    // board after f4-f3.
    let mut h = g.clone();
    h.play_str("f3-e3").unwrap();
    h.play_str("a4-a3").unwrap();
    assert!(h.play_str("e3-f3").unwrap_err().contains("recreate"));
    // The attackers recreate boards freely: a2-a4 brings back the start.
    let mut g = Game::new(Rules::preset(Preset::HnefataflOrg11));
    for m in ["a4-a3", "f4-f3", "a3-a2", "f3-f4", "a2-a4"] {
        g.play_str(m).unwrap();
    }
    assert_eq!(g.position().board_hash(), g.positions()[0].board_hash());
    assert!(g.outcome().is_none());
    // Under the plain Copenhagen preset the same move is legal.
    let mut c = Game::new(Rules::preset(Preset::Copenhagen));
    for m in ["a4-a3", "f4-f3", "a3-a4", "f3-f4"] {
        c.play_str(m).unwrap();
    }
    // The search keeps to the rule: with only the forbidden move and one
    // other, it never picks the forbidden one.
    let mut engine = konakis::search::Engine::new();
    let mut g = Game::new(r);
    for m in ["a4-a3", "f4-f3", "a3-a4"] {
        g.play_str(m).unwrap();
    }
    engine.set_game(g);
    for depth in 1..=4 {
        let best = engine.search(konakis::search::Limits::depth(depth)).best;
        assert_ne!(best, Some(back), "depth {depth}");
    }
}

/// The options of the hnefatafl.org presets read back as set, and the
/// new option values parse.
#[test]
fn hnefatafl_org_options() {
    let r = Rules::preset(Preset::HnefataflOrg11);
    assert_eq!(r.get("Repetition").as_deref(), Some("defenders-forbidden"));
    assert_eq!(r.get("ExitFort").as_deref(), Some("flood"));
    assert_eq!(r.get("Encirclement").as_deref(), Some("king"));
    assert_eq!(r.get("CannotEscape").as_deref(), Some("true"));
    assert_eq!(r.get("PlyLimit").as_deref(), Some("141"));
    let b = Rules::preset(Preset::HnefataflOrg7);
    assert_eq!(b.get("KingCapture").as_deref(), Some("sandwich"));
    assert_eq!(b.get("FirstMove").as_deref(), Some("defenders"));
    assert_eq!(b.get("ExitFort").as_deref(), Some("false"));
    let c = Rules::build(
        Preset::Copenhagen,
        &[
            ("ExitFort", "flood"),
            ("Encirclement", "king"),
            ("CannotEscape", "yes"),
        ],
    )
    .unwrap();
    assert_eq!(c.get("ExitFort").as_deref(), Some("flood"));
    for (name, bad) in [
        ("ExitFort", "maybe"),
        ("Encirclement", "all"),
        ("CannotEscape", "2"),
    ] {
        assert!(
            Rules::build(Preset::Copenhagen, &[(name, bad)]).is_err(),
            "{name}={bad}"
        );
    }
}

/// A refused move is answered with the rule it breaks, in a player's words
/// (the browser board shows these).
#[test]
fn refused_moves_say_why() {
    use konakis::rules::{Game, Move};
    let why = |g: &Game, m: &str| g.why_refused(Move::parse(m, g.rules().size()).unwrap());
    let tablut = Game::new(Rules::preset(Preset::Tablut));
    assert_eq!(why(&tablut, "e2-d2"), None);
    assert_eq!(why(&tablut, "c3-c4").unwrap(), "there is no piece on c3");
    assert_eq!(
        why(&tablut, "e3-f3").unwrap(),
        "it is the attackers' turn, and e3 holds a piece of the defenders"
    );
    assert_eq!(
        why(&tablut, "d1-c2").unwrap(),
        "pieces move in a straight line along a rank or a file"
    );
    assert_eq!(
        why(&tablut, "e1-e3").unwrap(),
        "the piece on e2 is in the way"
    );
    assert_eq!(
        why(&tablut, "e9-e7").unwrap(),
        "the piece on e8 is in the way"
    );
    assert_eq!(why(&tablut, "a4-a5").unwrap(), "a5 is taken");
    // Special squares: the throne, a restricted corner, a walled throne, camps.
    let empty_throne = Game::from_record(
        Rules::preset(Preset::Tablut),
        "/9/9/2K6/9/1t7/9/9/9/9/",
        Side::Attackers,
        0,
        0,
    )
    .unwrap();
    assert_eq!(
        why(&empty_throne, "b5-e5").unwrap(),
        "only the king may stop on the throne"
    );
    assert_eq!(
        why(&empty_throne, "b5-g5"),
        None,
        "tablut soldiers cross the throne"
    );
    let latin = Game::from_record(
        Rules::preset(Preset::TablutLatin),
        "/9/9/2K6/9/1t7/9/9/9/9/",
        Side::Attackers,
        0,
        0,
    )
    .unwrap();
    assert_eq!(
        why(&latin, "b5-g5").unwrap(),
        "soldiers may not cross the throne"
    );
    let brandubh = Game::from_record(
        Rules::preset(Preset::Brandubh),
        "/7/t6/7/3K3/7/7/7/",
        Side::Attackers,
        0,
        0,
    )
    .unwrap();
    assert_eq!(
        why(&brandubh, "a2-a1").unwrap(),
        "only the king may stop on the corner a1"
    );
    let ashton = Game::from_record(
        Rules::preset(Preset::Ashton),
        "/9/2T6/9/9/4K4/9/9/9/9/",
        Side::Defenders,
        0,
        0,
    )
    .unwrap();
    assert_eq!(
        why(&ashton, "c2-g2").unwrap(),
        "e2 is a camp square: a piece may not enter or cross a camp it did not start in"
    );
    assert_eq!(why(&ashton, "c2-d2"), None);
    let left = Game::from_start_and_moves(
        Rules::preset(Preset::Ashton),
        &"/9/2T6/9/9/4K4/9/9/9/8t/ d".parse().unwrap(),
        &["e5-g5", "i9-i8"],
    )
    .unwrap();
    assert_eq!(
        why(&left, "g5-e5").unwrap(),
        "the king may not return to the throne"
    );
    let over = Game::from_start_and_moves(
        Rules::preset(Preset::Brandubh),
        &"/1K5/7/7/t6/7/7/3t3/ d".parse().unwrap(),
        &["b1-a1"],
    )
    .unwrap();
    assert!(why(&over, "a4-a5")
        .unwrap()
        .starts_with("the game is over (defenders king-escaped)"));
}

/// A rule set named as a preset and its changes comes back the same.
#[test]
fn rules_travel_as_a_preset_and_its_changes() {
    for preset in Preset::ALL {
        assert!(Rules::preset(preset).overrides().is_empty(), "{preset}");
    }
    let mut changed = Rules::preset(Preset::Brandubh);
    changed.set("KingArmed", "false").unwrap();
    changed.set("Repetition", "mover-loses").unwrap();
    let overrides = changed.overrides();
    assert_eq!(overrides.len(), 2);
    assert_eq!(Rules::build(Preset::Brandubh, &overrides).unwrap(), changed);
}
