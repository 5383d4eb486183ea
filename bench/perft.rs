//! Perft from each preset's start position, single-threaded: counting the
//! last two plies at once (`replies`, what `konakis perft` does) and making
//! every move down to the last ply (`plain`, the search's make path).
//! Run with `cargo bench --bench perft`; the README records the figures.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use konakis::rules::perft::{perft_with, Counting};
use konakis::rules::{Position, Preset, Rules};

fn perft_starts(c: &mut Criterion) {
    for (name, counting) in [("replies", Counting::Replies), ("plain", Counting::LastPly)] {
        let mut group = c.benchmark_group(format!("perft-{name}"));
        group.sample_size(10);
        for (preset, depth) in [
            (Preset::Tablut, 4),
            (Preset::TablutCorner, 4),
            (Preset::Brandubh, 5),
            (Preset::Copenhagen, 4),
            (Preset::Fetlar, 4),
        ] {
            let rules = Rules::preset(preset);
            let pos = Position::start(&rules);
            let leaves = perft_with(&pos, &rules, depth, counting);
            group.throughput(Throughput::Elements(leaves));
            group.bench_function(format!("{preset}/{depth}"), |b| {
                b.iter(|| perft_with(&pos, &rules, depth, counting))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, perft_starts);
criterion_main!(benches);
