//! The learned (linear) evaluation per position, from scratch, for each
//! board family that plays with it: positions of random games of a preset
//! of the family. Run with `cargo bench --bench eval`;
//! `docs/results/search.md` records the figures.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use konakis::rules::{Game, Position, Preset, Rules};
use konakis::search::eval::learned::weights_for;
use rand::{Rng, SeedableRng};

/// `count` positions of random games of `rules`, every fourth ply.
fn random_positions(rules: &Rules, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    let mut game = Game::new(rules.clone());
    let mut ply = 0;
    while positions.len() < count {
        let moves = game.legal_moves();
        if game.outcome().is_some() || moves.is_empty() {
            game = Game::new(rules.clone());
            continue;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        if game.play(mv).is_ok() {
            ply += 1;
            if ply % 4 == 0 && game.outcome().is_none() {
                positions.push(*game.position());
            }
        }
    }
    positions
}

fn learned_evaluation(c: &mut Criterion) {
    let mut group = c.benchmark_group("learned-evaluation");
    for preset in [
        Preset::Copenhagen,
        Preset::Brandubh,
        Preset::TablutCorner,
        Preset::Ashton,
    ] {
        let rules = Rules::preset(preset);
        let Some(weights) = weights_for(&rules) else {
            continue;
        };
        let positions = random_positions(&rules, 256, 3);
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(preset.name(), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|p| weights.evaluate(p, &rules) as i64)
                    .sum::<i64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, learned_evaluation);
criterion_main!(benches);
