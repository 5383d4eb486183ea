//! Properties along random games in every preset: the incremental Zobrist
//! hash equals the hash from scratch, listing agrees with counting, every
//! generated move is legal, copy-make leaves the parent untouched, and
//! position records and moves round-trip through text.

use konakis::rules::{parse_record, Move, MoveList, Position, Preset, Rules};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn walk(preset: Preset, seed: u64, plies: usize) {
    let rules = Rules::preset(preset);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::start(&rules);
    for _ in 0..plies {
        assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash");
        let mut moves = MoveList::new();
        pos.generate_moves(&rules, &mut moves);
        assert_eq!(moves.len() as u32, pos.count_moves(&rules), "count = list");
        assert_eq!(
            !moves.is_empty(),
            pos.outcome().is_none() && pos.has_moves(&rules)
        );
        for &m in &moves {
            assert!(pos.is_legal(&rules, m));
            let text = m.to_string();
            assert_eq!(
                Move::parse(&text, rules.size()).unwrap(),
                m,
                "move text round-trip"
            );
        }
        // Records round-trip.
        let setup = parse_record(&pos.setup(rules.size()).record()).unwrap();
        let again = Position::from_setup(&setup, pos.side_to_move(), &rules, 0, 0).unwrap();
        assert_eq!(again.hash(), pos.hash());
        if moves.is_empty() {
            break;
        }
        let before = pos;
        let next = pos.make(&rules, moves[rng.gen_range(0..moves.len())]);
        assert_eq!(before, pos, "copy-make leaves the parent untouched");
        pos = next;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_games_keep_invariants(seed in any::<u64>(), preset in 0usize..8) {
        walk(Preset::ALL[preset], seed, 200);
    }

    #[test]
    fn move_parsing_never_panics(s in "\\PC{0,12}") {
        let _ = Move::parse(&s, 11);
        let _ = parse_record(&s);
    }

    #[test]
    fn record_parsing_never_panics(s in "[/0-9tTKx]{0,40}") {
        let _ = parse_record(&s);
    }
}
