//! Search tests: win-finding puzzles for every preset, defences, the
//! greedy-capture trap, determinism, threads, and self-play to a result.

mod common;
use common::{build, rules, safe_moves, wins_within};
use konakis::rules::{Game, Move, Position, Preset, Rules, Side, Square};
use konakis::search::params::REPETITION_WIN;
use konakis::search::{Engine, Limits, Score, SearchId, WIN_BOUND};

fn score_text(score: i32) -> String {
    Score::from_search(score).to_string()
}
use std::sync::mpsc;
use std::time::Duration;

const EDGE_PRESETS: [Preset; 4] = [
    Preset::Tablut,
    Preset::TablutLatin,
    Preset::Tablut1811,
    Preset::TablutEnglish,
];
const CORNER_PRESETS: [Preset; 4] = [
    Preset::TablutCorner,
    Preset::Brandubh,
    Preset::Copenhagen,
    Preset::Fetlar,
];

fn engine() -> Engine {
    let mut e = Engine::new();
    e.set_hash(8).unwrap();
    e
}

fn solve(rules: &Rules, pos: Position, depth: i32) -> (String, String) {
    solve_on(rules, pos, depth, 1)
}

fn solve_on(rules: &Rules, pos: Position, depth: i32, threads: usize) -> (String, String) {
    let game = Game::from_position(rules.clone(), pos);
    assert!(game.outcome().is_none());
    let mut e = engine();
    e.set_threads(threads).unwrap();
    e.set_game(game);
    let r = e.search(Limits::depth(depth));
    (
        r.best.map(|m| m.to_string()).unwrap_or_default(),
        score_text(r.score),
    )
}

#[test]
fn escape_in_one_every_preset() {
    for p in EDGE_PRESETS {
        let r = rules(p, &[]);
        let pos = build(
            &r,
            &[("c3", 'K'), ("g7", 't'), ("h8", 't')],
            Side::Defenders,
        );
        let (best, score) = solve(&r, pos, 3);
        assert_eq!(score, "mate 1", "{p}");
        assert!(
            pos.make(&r, common::mv(&r, &best)).outcome().is_some(),
            "{p}: {best}"
        );
    }
    for p in CORNER_PRESETS {
        let r = rules(p, &[]);
        let pos = build(
            &r,
            &[("a3", 'K'), ("e2", 't'), ("f2", 't')],
            Side::Defenders,
        );
        let (best, score) = solve(&r, pos, 3);
        assert_eq!((best.as_str(), score.as_str()), ("a3-a1", "mate 1"), "{p}");
    }
}

#[test]
fn king_capture_in_one_every_preset() {
    for p in [Preset::Tablut, Preset::TablutLatin, Preset::Tablut1811] {
        let r = rules(p, &[]);
        let pos = build(
            &r,
            &[("c3", 'K'), ("b3", 't'), ("d1", 't'), ("g7", 'T')],
            Side::Attackers,
        );
        assert_eq!(solve(&r, pos, 3), ("d1-d3".into(), "mate 1".into()), "{p}");
    }
    let r = rules(Preset::Brandubh, &[]);
    let pos = build(
        &r,
        &[("c6", 'K'), ("b6", 't'), ("d7", 't'), ("f2", 'T')],
        Side::Attackers,
    );
    assert_eq!(solve(&r, pos, 3), ("d7-d6".into(), "mate 1".into()));
    for p in [
        Preset::TablutEnglish,
        Preset::TablutCorner,
        Preset::Copenhagen,
        Preset::Fetlar,
    ] {
        let r = rules(p, &[]);
        let pos = build(
            &r,
            &[
                ("c3", 'K'),
                ("b3", 't'),
                ("c2", 't'),
                ("c4", 't'),
                ("d1", 't'),
                ("g7", 'T'),
            ],
            Side::Attackers,
        );
        assert_eq!(solve(&r, pos, 3), ("d1-d3".into(), "mate 1".into()), "{p}");
    }
}

/// Escapes in three plies (tuichu and the like), found by random play and
/// checked here by brute force first.
const ESCAPES_IN_3: &[(Preset, &str)] = &[
    (
        Preset::Tablut,
        "/4ttTt1/T2t5/7tT/t3T3t/t2TKT1t1/tt6t/1T4T2/9/3tt2t1/",
    ),
    (
        Preset::TablutLatin,
        "/1T1t3tt/9/2t1t4/t2t4t/t1TT5/tK5t1/4t1T2/TT2t2T1/3t4t/",
    ),
    (
        Preset::Tablut1811,
        "/9/1t1t2ttt/3T4t/tT1T1t1T1/t1T2KT2/8t/5T2t/T5t1t/t2t1t3/",
    ),
    (
        Preset::TablutEnglish,
        "/t2ttt1t1/6T2/t2TT4/t1t3T1t/8t/3TTK2t/tT7/9/3ttt1t1/",
    ),
    (
        Preset::TablutCorner,
        "/3ttt1t1/4T3t/4T4/t7t/2T3KTt/t2T2T2/1T5t1/t5t1t/1t2tt3/",
    ),
    (Preset::Brandubh, "/2t4/5T1/t6/t2KT2/5tt/3t2t/1T5/"),
    (
        Preset::Copenhagen,
        "/5tt4/3t2tT3/1tt2t3t1/tT4T1t2/t2tTT3Tt/tT2T1T1TKt/t3T5t/2t8/t10/5T4t/2t2ttt3/",
    ),
    (
        Preset::Fetlar,
        "/3t1t2T2/t6t3/6t4/t3TT1t1tt/tT3t5/t6Tt2/tT4T1Ttt/5t1T3/4K2t3/5Tt2t1/2T1tt2t2/",
    ),
];

/// Each position is a win for `side` in three plies and not in one (checked
/// by brute force), and the engine reports it as a win in two moves, on
/// one thread and on four (which put off the moves others are searching:
/// a put-off move is still searched).
fn wins_in_three(cases: &[(Preset, &str)], side: Side, what: &str) {
    for &(p, record) in cases {
        let r = rules(p, &[]);
        let game = Game::from_record(r.clone(), record, side, 0, 0).unwrap();
        let pos = *game.position();
        assert!(
            !wins_within(&pos, &r, 1) && wins_within(&pos, &r, 3),
            "{p}: not {what} in 3"
        );
        for threads in [1, 4] {
            let (_, score) = solve_on(&r, pos, 5, threads);
            assert_eq!(score, "mate 2", "{p}, {threads} threads");
        }
    }
}

#[test]
fn escape_in_three_every_preset() {
    wins_in_three(ESCAPES_IN_3, Side::Defenders, "an escape");
}

const CAPTURES_IN_3: &[(Preset, &str)] = &[
    (
        Preset::Tablut,
        "/t2ttt3/T3t4/3t1K1t1/Tt7/2T2Tt1t/2T5T/1t7/t2t5/1t2t4/",
    ),
    (
        Preset::TablutLatin,
        "/1T7/8t/5T1tt/2t5t/1t1t1TTT1/1ttKTt2t/9/t4t3/2T1tt1t1/",
    ),
    (
        Preset::Tablut1811,
        "/4TTTtt/7t1/tt5t1/t3T1K1t/1t7/t4tt2/2TTt4/t8/1T1t1t3/",
    ),
    (Preset::Brandubh, "/3t1T1/4T2/1t5/7/3T1tK/1tT3t/1t5/"),
];

#[test]
fn king_capture_in_three() {
    wins_in_three(CAPTURES_IN_3, Side::Attackers, "a capture");
}

/// Attackers to move with exactly one move that stops an escape.
const ONLY_DEFENCES: &[(Preset, &str)] = &[
    (
        Preset::Tablut,
        "/5t2t/3tKt3/2T4t1/1t1T2t2/3T2Tt1/t7T/t7T/3t4t/T1ttt3t/",
    ),
    (
        Preset::TablutLatin,
        "/9/9/t4t2T/4tT3/t1t3K1T/ttT2T1t1/1T1t5/3tt1Tt1/1t3tt1t/",
    ),
    (
        Preset::TablutCorner,
        "/2T1tt3/4t4/9/tT2T2Tt/t2T3tt/2t1T2tT/t8/4t2tt/3t1K3/",
    ),
    (Preset::Brandubh, "/7/t2t1tT/1t2T2/6t/6t/2T4/1t2K2/"),
    (
        Preset::Copenhagen,
        "/3K1tttt2/1T2t6/2t4t3/2t1t1t4/1T3TT4/t5T2tt/T1T2t3Tt/1T3t2T2/t9t/2t4T3/2t1t1tt3/",
    ),
];

#[test]
fn finds_the_only_defence() {
    for &(p, record) in ONLY_DEFENCES {
        let r = rules(p, &[]);
        let game = Game::from_record(r.clone(), record, Side::Attackers, 0, 0).unwrap();
        let pos = *game.position();
        let safe = safe_moves(&pos, &r);
        assert_eq!(safe.len(), 1, "{p}: expected one defence, found {safe:?}");
        let (best, _) = solve(&r, pos, 4);
        assert_eq!(best, safe[0].to_string(), "{p}");
    }
}

/// Attackers to move with a capture on offer that loses to an escape;
/// only quiet moves hold (found by random play, checked by brute force).
const GREEDY_TRAPS: &[(Preset, &str)] = &[
    (
        Preset::Tablut,
        "/3tt1t2/6t2/4T4/t3T3t/tt1T3tt/t2T3t1/4KTT2/T1T6/3tt1tt1/",
    ),
    (Preset::Brandubh, "/3t3/2t4/5TT/t1T2t1/1Tt4/5t1/3K1t1/"),
    (
        Preset::Copenhagen,
        "/3K1tttt2/1T2t6/2t4t3/2t1t1t4/1T3TT4/t5T2tt/T1T2t3Tt/1T3t2T2/t9t/2t4T3/2t1t1tt3/",
    ),
];

#[test]
fn greedy_capture_loses_to_escape() {
    for &(p, record) in GREEDY_TRAPS {
        let r = rules(p, &[]);
        let game = Game::from_record(r.clone(), record, Side::Attackers, 0, 0).unwrap();
        let pos = *game.position();
        let safe = safe_moves(&pos, &r);
        assert!(safe.iter().all(|&m| pos.make(&r, m).captured == 0), "{p}");
        let mut all = konakis::rules::MoveList::new();
        pos.generate_moves(&r, &mut all);
        assert!(
            all.iter().any(|&m| pos.make(&r, m).captured > 0),
            "{p}: a capture is on offer"
        );
        let (best, _) = solve(&r, pos, 4);
        assert!(
            safe.iter().any(|m| m.to_string() == best),
            "{p}: {best} not in {safe:?}"
        );
    }
}

/// A king move beside a restricted corner wins next move (no soldier may
/// block the last step), so quiescence searches it like a capture: even a
/// depth-1 search sees that the attackers must shut the way to a10.
#[test]
fn quiescence_sees_the_king_reach_a_corners_neighbour() {
    let r = rules(Preset::Copenhagen, &[]);
    let pos = build(
        &r,
        &[
            ("c10", 'K'),
            ("c11", 't'),
            ("e10", 't'),
            ("a7", 't'),
            ("c2", 't'),
        ],
        Side::Attackers,
    );
    assert!(r
        .masks()
        .escape_approach
        .has(Square::parse("a10", 11).unwrap()));
    let (best, _) = solve(&r, pos, 1);
    assert_eq!(best, "a7-a10");
    // Edge-escape boards have no such squares: the edge can be blocked.
    assert!(rules(Preset::Tablut, &[])
        .masks()
        .escape_approach
        .is_empty());
}

/// A king move that opens a road to a corner's neighbour threatens like an
/// open road a move later, so the search extends it: a depth-1 search
/// already sees the fork on the b-file (roads to b1 and b11, one move
/// blocks one) win. Without the extension it takes depth 2.
#[test]
fn a_road_to_a_corners_neighbour_is_searched_as_a_threat() {
    let r = rules(Preset::Copenhagen, &[]);
    let pos = build(
        &r,
        &[
            ("e7", 'K'),
            ("g5", 'T'),
            ("a7", 't'),
            ("f7", 't'),
            ("e6", 't'),
            ("e8", 't'),
            ("g2", 't'),
            ("h3", 't'),
            ("i9", 't'),
        ],
        Side::Defenders,
    );
    let (best, score) = solve(&r, pos, 1);
    assert_eq!(best, "e7-b7");
    assert!(score.starts_with("mate "), "{score}");
}

/// Facing two open roads, the attackers are lost unless a move ends the
/// game first: here one repeats a position, which loses the game for the
/// defenders under Copenhagen's rules, so the king's fork loses. (Moves that
/// block no road are not searched there, but a repeating one must be.)
/// The king forks both corners from f1. The attackers' only answer would
/// be the repetition their move back makes, but it is that position's
/// second occurrence (the first before the root) and Copenhagen ends a
/// game on the third: the fork wins. Once the same shuttle has been played
/// before, the move back is the third occurrence, the defenders lose by
/// the rules, and the fork is answered, with a score below `WIN_BOUND`
/// (the loss depends on the path).
#[test]
fn a_repetition_answers_a_fork_only_at_the_rules_count() {
    let r = rules(Preset::Copenhagen, &[]);
    let before = build(
        &r,
        &[("f1", 'K'), ("d8", 'T'), ("h5", 't'), ("a6", 't')],
        Side::Defenders,
    );
    let fork = common::mv(&r, "f3-f1");
    let search = |moves: &[&str]| {
        let mut game = Game::from_position(r.clone(), before);
        for m in moves {
            game.play_str(m).unwrap();
        }
        let mut e = engine();
        e.set_game(game);
        e.search(Limits {
            search_moves: vec![fork],
            ..Limits::depth(3)
        })
        .score
    };
    let once = search(&["f1-f3", "h5-h7"]);
    assert!(
        score_text(once).starts_with("mate "),
        "{}",
        score_text(once)
    );
    let twice = search(&["f1-f3", "h5-h7", "f3-f1", "h7-h5", "f1-f3", "h5-h7"]);
    assert_eq!(twice, -(REPETITION_WIN - 2));
}

/// Tablut (the mover loses a repetition on the third occurrence): going
/// back to the start position, seen once before the root, is no loss.
#[test]
fn a_position_seen_once_before_the_root_is_no_repetition() {
    let r = Rules::preset(Preset::Tablut);
    let game = Game::from_start_and_moves(
        r.clone(),
        &konakis::rules::StartPoint::Initial,
        &["e2-d2", "e3-d3", "d2-e2"],
    )
    .unwrap();
    let back = common::mv(&r, "d3-e3");
    for depth in [1, 4] {
        let mut e = engine();
        e.set_game(game.clone());
        let result = e.search(Limits {
            search_moves: vec![back],
            ..Limits::depth(depth)
        });
        assert!(
            result.score.abs() < REPETITION_WIN / 2,
            "depth {depth}: {}",
            score_text(result.score)
        );
    }
}

/// A repetition the rules make decisive leaves no proof in the table: the
/// position before it, searched afresh from the same table with another
/// history, is not a proven result.
#[test]
fn a_repetition_line_leaves_no_proof_in_the_table() {
    let r = rules(Preset::Copenhagen, &[]);
    let before = build(
        &r,
        &[("f1", 'K'), ("d8", 'T'), ("h5", 't'), ("a6", 't')],
        Side::Defenders,
    );
    let mut game = Game::from_position(r.clone(), before);
    for m in ["f1-f3", "h5-h7", "f3-f1", "h7-h5", "f1-f3", "h5-h7"] {
        game.play_str(m).unwrap();
    }
    let mut e = engine();
    e.set_game(game.clone());
    let result = e.search(Limits {
        search_moves: vec![common::mv(&r, "f3-f1")],
        ..Limits::depth(5)
    });
    assert!(
        result.score.abs() < WIN_BOUND,
        "{}",
        score_text(result.score)
    );
    // The position after the fork, now with no history: the king forks
    // both corners, and nothing in the table says otherwise.
    let mut after_fork = game;
    after_fork.play_str("f3-f1").unwrap();
    let fresh = Game::from_position(r.clone(), *after_fork.position());
    e.set_game(fresh);
    // The attackers to move cannot stop both escapes: they lose in one,
    // whatever the repetition line stored.
    let score = e.search(Limits::depth(2)).score;
    assert_eq!(score_text(score), "mate -1");
}

#[test]
fn go_nodes_is_deterministic_with_one_thread() {
    let mut a = engine();
    let ra = a.search(Limits::nodes(200_000));
    let mut b = engine();
    let rb = b.search(Limits::nodes(200_000));
    assert_eq!((ra.best, ra.nodes, ra.score), (rb.best, rb.nodes, rb.score));
    // A new game (an empty table, no histories) makes the same engine
    // repeat itself too.
    a.new_game();
    let rc = a.search(Limits::nodes(200_000));
    assert_eq!((ra.best, ra.nodes), (rc.best, rc.nodes));
}

/// The quiet-move histories outlive a `go` within a game: with the table
/// emptied, the second search of a position still orders moves by what
/// the first learnt, so it walks another tree; a new game forgets them.
#[test]
fn histories_are_kept_across_searches_and_cleared_by_a_new_game() {
    let mut e = engine();
    e.set_rules(Rules::preset(Preset::Copenhagen));
    let first = e.search(Limits::depth(7));
    e.clear_hash();
    let again = e.search(Limits::depth(7));
    assert_ne!(first.nodes, again.nodes, "the histories were thrown away");
    e.new_game();
    let fresh = e.search(Limits::depth(7));
    assert_eq!(first.nodes, fresh.nodes, "a new game kept some history");
}

/// A search stopped by its node limit answers with the line it reported
/// last: the deepest completed iteration, or a root move the stopped
/// iteration searched in full and found better (a GUI shows that line as
/// the engine's choice, so they must agree).
#[test]
fn the_best_move_is_the_last_reported_line() {
    for preset in [Preset::Tablut, Preset::Brandubh, Preset::Copenhagen] {
        for nodes in [3_000, 7_000, 20_000, 45_000] {
            let mut e = engine();
            e.set_rules(Rules::preset(preset));
            let mut lines: Vec<(i32, Move)> = Vec::new();
            let r = e.search_with(Limits::nodes(nodes), |info| {
                if info.bound.is_none() {
                    if let Some(&mv) = info.pv.first() {
                        lines.push((info.depth, mv));
                    }
                }
            });
            let &(depth, mv) = lines.last().expect("a reported line");
            assert_eq!(r.best, Some(mv), "{preset}, {nodes} nodes");
            assert_eq!(r.depth, depth, "{preset}, {nodes} nodes");
            assert!(e.game().position().is_legal(e.rules(), mv));
        }
    }
}

/// Starts `go infinite`; the receiver gets the search's id and best move
/// when it answers.
fn go_infinite(e: &mut Engine) -> (SearchId, mpsc::Receiver<(SearchId, Option<Move>)>) {
    let (tx, rx) = mpsc::channel();
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let id = e
        .go(
            limits,
            Box::new(|_| {}),
            Box::new(move |r| {
                let _ = tx.send((r.id, r.best));
            }),
        )
        .expect("the search starts");
    (id, rx)
}

#[test]
fn infinite_search_waits_for_stop_even_when_done() {
    // A tiny position: every depth is searched in no time.
    let r = rules(Preset::Brandubh, &[]);
    let mut e = engine();
    e.set_game(Game::from_position(
        r.clone(),
        build(&r, &[("d4", 'K'), ("a2", 't')], Side::Attackers),
    ));
    let (id, rx) = go_infinite(&mut e);
    std::thread::sleep(Duration::from_millis(300));
    assert!(rx.try_recv().is_err(), "no bestmove before stop");
    e.stop();
    let (done, best) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(done, id);
    assert!(best.is_some());
    e.wait();
}

#[test]
fn many_threads_neither_panic_nor_deadlock() {
    for preset in [Preset::Tablut, Preset::Copenhagen] {
        for threads in [1, 2, 4, 8] {
            let mut e = engine();
            e.set_rules(Rules::preset(preset));
            e.set_threads(threads).unwrap();
            let r = e.search(Limits::depth(5));
            assert!(r.best.is_some());
            let r = e.search(Limits::move_time(50));
            assert!(r.best.is_some());
        }
    }
}

/// With helpers the main thread may take a helper's completed iteration
/// for its own: the answer is still a whole legal line, as deep as asked
/// and no deeper (a helper a ply ahead stops at the asked depth).
#[test]
fn an_iteration_taken_from_a_helper_is_a_whole_line() {
    for preset in [Preset::Tablut, Preset::Copenhagen, Preset::Brandubh] {
        let mut e = engine();
        e.set_rules(Rules::preset(preset));
        e.set_threads(2).unwrap();
        let r = e.search(Limits::depth(7));
        assert_eq!(r.depth, 7, "{preset:?}");
        assert_eq!(r.pv.first().copied(), r.best);
        let mut pos = *e.position();
        for &mv in &r.pv {
            assert!(
                pos.is_legal(e.rules(), mv),
                "{preset:?}: {mv} in {:?}",
                r.pv
            );
            pos = pos.make(e.rules(), mv);
        }
    }
}

/// Every search has its own id: a second `go` stops the first, whose
/// result still comes (with its own id) before the second's.
#[test]
fn each_search_carries_its_own_id() {
    let mut e = engine();
    e.set_rules(Rules::preset(Preset::Copenhagen));
    e.set_threads(2).unwrap();
    let (first, rx1) = go_infinite(&mut e);
    std::thread::sleep(Duration::from_millis(100));
    assert!(rx1.try_recv().is_err(), "an infinite search waits for stop");
    let (second, rx2) = go_infinite(&mut e);
    assert_ne!(first, second);
    let (id1, best1) = rx1.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(id1, first);
    assert!(best1.is_some());
    e.stop();
    let (id2, best2) = rx2.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(id2, second);
    assert!(best2.is_some());
    assert_ne!(e.search(Limits::depth(1)).id, second);
}

/// A game over by a history rule (repetition here) has nothing to search.
#[test]
fn a_finished_game_has_no_best_move() {
    let mut e = engine();
    e.set_rules(Rules::preset(Preset::Brandubh));
    let shuffle = ["a4-a5", "c4-c5", "a5-a4", "c5-c4"];
    let moves: Vec<&str> = shuffle.iter().cycle().take(8).copied().collect();
    e.set_position(&konakis::rules::StartPoint::Initial, &moves)
        .unwrap();
    assert!(e.game().outcome().is_some(), "{:?}", e.game().outcome());
    assert_eq!(e.search(Limits::depth(3)).best, None);
}

#[test]
fn self_play_reaches_a_legal_result_in_every_preset() {
    for preset in Preset::ALL {
        let mut e = engine();
        e.set_rules(Rules::preset(preset));
        let mut plies = 0;
        while e.game().outcome().is_none() && plies < 400 {
            let r = e.search(Limits::depth(2));
            let best = r.best.expect("a move while the game goes on");
            e.play(best).expect("the engine plays legal moves");
            plies += 1;
        }
        // Every preset either ends by a rule or hits our cap only when it
        // has no ply limit and no capture limit.
        if e.game().outcome().is_none() {
            let o = e.rules().options();
            assert!(
                o.no_capture_limit == 0 && o.ply_limit == 0,
                "{preset} did not end"
            );
        }
    }
}

/// The bench's node count is the search's signature: it must match the
/// committed value, so that any change of search behaviour shows here.
#[test]
fn bench_signature_matches_the_committed_value() {
    let (nodes, _) = konakis::search::bench::run(konakis::search::bench::DEFAULT_DEPTH, |_| {})
        .expect("the bench runs");
    assert_eq!(
        nodes,
        konakis::search::bench::SIGNATURE,
        "the search changed: update SIGNATURE and say 'Bench: {nodes}' in the commit"
    );
    let hand = konakis::search::bench::BenchSettings {
        eval: "hand",
        ..konakis::search::bench::BenchSettings::signature(konakis::search::bench::DEFAULT_DEPTH)
    };
    let (nodes, _) = konakis::search::bench::run_with(hand, |_| {}).expect("the bench runs");
    assert_eq!(nodes, konakis::search::bench::HAND_SIGNATURE);
    let learned = konakis::search::bench::BenchSettings {
        eval: "learned",
        ..konakis::search::bench::BenchSettings::signature(konakis::search::bench::DEFAULT_DEPTH)
    };
    let (nodes, _) = konakis::search::bench::run_with(learned, |_| {}).expect("the bench runs");
    assert_eq!(nodes, konakis::search::bench::LEARNED_SIGNATURE);
}

/// The table holds static evaluations that pruning reads, and scores of
/// one rule set: another evaluation or other rules start from an empty one.
#[test]
fn the_table_is_emptied_when_the_evaluation_or_rules_change() {
    let mut e = engine();
    e.set_rules(Rules::preset(Preset::Brandubh));
    e.search(Limits::depth(6));
    assert!(e.hashfull() > 0);
    e.set_option("Eval", Some("hand")).unwrap();
    assert_eq!(e.hashfull(), 0);
    e.search(Limits::depth(6));
    assert!(e.hashfull() > 0);
    e.set_option("Eval", Some("hand")).unwrap();
    assert!(e.hashfull() > 0, "the same evaluation keeps the table");
    e.set_rules(Rules::preset(Preset::HnefataflOrg7));
    assert_eq!(e.hashfull(), 0);
}

/// The search's tunable numbers are hidden `Tune<Name>` options: checked
/// against their ranges, absent from the option list a GUI shows, and they
/// change the search (the defaults are the bench's).
#[test]
fn tune_options_are_hidden_checked_and_change_the_search() {
    use konakis::search::params::{SearchParams, Tune, TUNABLES};
    let defaults = SearchParams::default();
    assert_eq!(defaults.get(Tune::FutilityMarginPerPly), 150);
    assert_eq!(defaults.late_move_limit(2), 8 + 4 * 4);
    assert_eq!(defaults.null_move_reduction(9), 2 + 9 / 4);
    assert_eq!(
        defaults.lmr_reduction(10, 20),
        (0.5 + 10f64.ln() * 20f64.ln() / 2.2) as u8
    );
    let mut e = engine();
    assert!(e
        .option_table()
        .iter()
        .all(|o| !o.name.to_ascii_lowercase().starts_with("tune")));
    e.set_rules(Rules::preset(Preset::Brandubh));
    let before = e.search(Limits::depth(6));
    for t in &TUNABLES {
        let option = format!("Tune{}", t.name);
        e.set_option(&option, Some(&t.default.to_string())).unwrap();
        let err = e.set_option(&option, Some(&(t.max + 1).to_string()));
        assert!(err.is_err(), "{option} took {}", t.max + 1);
    }
    e.new_game();
    assert_eq!(
        e.search(Limits::depth(6)).nodes,
        before.nodes,
        "defaults changed"
    );
    e.set_option("tunelmpbase", Some("2")).unwrap();
    e.set_option("TuneFutilityMarginPerPly", Some("60"))
        .unwrap();
    e.new_game();
    assert_ne!(e.search(Limits::depth(6)).nodes, before.nodes);
}
