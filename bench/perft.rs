//! Perft from each preset's start position, single-threaded, bulk-counted.
//! Run with `cargo bench --bench perft`; the README records the figures.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use konakis::rules::perft::perft;
use konakis::rules::{Position, Preset, Rules};

fn perft_starts(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
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
        let leaves = perft(&pos, &rules, depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("{preset}/{depth}"), |b| {
            b.iter(|| perft(&pos, &rules, depth))
        });
    }
    group.finish();
}

criterion_group!(benches, perft_starts);
criterion_main!(benches);
