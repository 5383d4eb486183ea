//! NNUE inference per position: the incremental update of the accumulator
//! from the parent's plus the output layer, along random tablut games, with
//! each kernel set the CPU has (scalar, AVX2, AVX-512). The embedded edge9
//! net (256 per side). Run with `cargo bench --bench nnue`;
//! `docs/results/nnue.md` records the figures.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use konakis::rules::{Game, Position, Preset, Rules};
use konakis::search::eval::learned::Family;
use konakis::search::eval::nnue::{embedded_net, NnueStack, Simd};
use rand::{Rng, SeedableRng};

/// Positions of random tablut games, one after another (each a move from
/// the one before, as the search enters them).
fn random_line(plies: usize, seed: u64) -> Vec<Position> {
    let rules = Rules::preset(Preset::Tablut);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut line = Vec::with_capacity(plies);
    let mut game = Game::new(rules.clone());
    line.push(*game.position());
    while line.len() < plies {
        let moves = game.legal_moves();
        if game.outcome().is_some() || moves.is_empty() {
            game = Game::new(rules.clone());
            line.push(*game.position());
            continue;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        if game.play(mv).is_ok() {
            line.push(*game.position());
        }
    }
    line
}

fn update_and_evaluate(c: &mut Criterion) {
    let Some(net) = embedded_net(Family::Edge9) else {
        return;
    };
    let line = random_line(256, 5);
    let mut group = c.benchmark_group("nnue-update-evaluate");
    group.throughput(Throughput::Elements(line.len() as u64));
    for simd in Simd::available() {
        let mut stack = NnueStack::with_simd(net.clone(), line.len(), simd);
        group.bench_function(simd.name(), |b| {
            b.iter(|| {
                stack.clear();
                let mut sum = 0i64;
                for (ply, pos) in line.iter().enumerate() {
                    sum += stack.evaluate(pos, ply) as i64;
                }
                sum
            })
        });
    }
    group.finish();
}

criterion_group!(benches, update_and_evaluate);
criterion_main!(benches);
