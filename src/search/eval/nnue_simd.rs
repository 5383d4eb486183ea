//! The net's two inner loops, written once in plain Rust and again with
//! x86-64 vector instructions chosen at run time, so that one binary runs
//! on any x86-64 and uses what its CPU has:
//!
//! - [`accumulate`]: `out = base - Σ subs + Σ adds`, one pass over the
//!   accumulator (a child's from its parent's, or a refresh from the
//!   biases), each output lane loaded and stored once;
//! - [`dot_crelu`]: `Σ clamp(acc, 0, QA) · w`, the output layer.
//!
//! Every path gives the same integers: i16 lanes wrap alike, and the i32
//! sums cannot overflow for weights the trainer writes (a test checks the
//! paths against each other on random accumulators).

use super::nnue::QA;

/// The instruction set the kernels use. A value names a set this CPU
/// runs: it is made only by detection ([`Simd::available`],
/// [`Simd::best`]) or as [`Simd::scalar`], never named from outside, so
/// safe code cannot hand the kernels a set the CPU lacks:
///
/// ```compile_fail
/// // There is no way to name AVX-512 without detecting it.
/// let forged = konakis::search::eval::nnue::Simd::Avx512;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd(Kind);

/// The sets, private to this module: only detection makes a `Simd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Plain loops (what the compiler makes of them for the baseline
    /// x86-64, SSE2).
    Scalar,
    /// 256-bit AVX2.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
    /// 512-bit AVX-512 (F and BW).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx512,
}

impl Simd {
    /// The plain loops, which every CPU runs.
    pub const fn scalar() -> Simd {
        Simd(Kind::Scalar)
    }

    /// The widest set this CPU has.
    pub fn best() -> Simd {
        Simd::available()
            .into_iter()
            .last()
            .unwrap_or(Simd::scalar())
    }

    /// Every set this CPU runs, narrowest first.
    pub fn available() -> Vec<Simd> {
        let mut out = vec![Simd::scalar()];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                out.push(Simd(Kind::Avx2));
            }
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
            {
                out.push(Simd(Kind::Avx512));
            }
        }
        out
    }

    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Scalar => "scalar",
            Kind::Avx2 => "avx2",
            Kind::Avx512 => "avx512",
        }
    }
}

/// `out = base - Σ subs + Σ adds`, lane by lane, wrapping.
///
/// Every slice must be as long as `out` (a row of the net's feature
/// weights and an accumulator have the same width); a mismatch panics
/// rather than reading out of bounds.
#[inline]
pub fn accumulate(simd: Simd, out: &mut [i16], base: &[i16], subs: &[&[i16]], adds: &[&[i16]]) {
    let n = out.len();
    assert!(
        base.len() == n && subs.iter().chain(adds).all(|r| r.len() == n),
        "accumulator and rows differ in width"
    );
    match simd.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Simd` of AVX2 is made only by `Simd::available` when
        // the CPU has AVX2 (its field is private to this module), and
        // every slice was checked to be `n` long.
        Kind::Avx2 => unsafe { x86::accumulate_avx2(out, base, subs, adds) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX-512 F and BW.
        Kind::Avx512 => unsafe { x86::accumulate_avx512(out, base, subs, adds) },
        _ => accumulate_scalar(out, base, subs, adds, 0),
    }
}

/// `Σ clamp(acc[i], 0, QA) · weights[i]` in i32.
///
/// Both slices must have the same length (panics otherwise).
#[inline]
pub fn dot_crelu(simd: Simd, acc: &[i16], weights: &[i16]) -> i32 {
    assert_eq!(acc.len(), weights.len(), "accumulator and weights differ");
    match simd.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 was detected (see `accumulate`); lengths checked.
        Kind::Avx2 => unsafe { x86::dot_crelu_avx2(acc, weights) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512 F and BW were detected; lengths checked.
        Kind::Avx512 => unsafe { x86::dot_crelu_avx512(acc, weights) },
        _ => dot_crelu_scalar(acc, weights, 0),
    }
}

/// The plain loops, from lane `from` on (the vector kernels' tails).
#[inline]
fn accumulate_scalar(out: &mut [i16], base: &[i16], subs: &[&[i16]], adds: &[&[i16]], from: usize) {
    out[from..].copy_from_slice(&base[from..]);
    for row in subs {
        for (a, w) in out[from..].iter_mut().zip(&row[from..]) {
            *a = a.wrapping_sub(*w);
        }
    }
    for row in adds {
        for (a, w) in out[from..].iter_mut().zip(&row[from..]) {
            *a = a.wrapping_add(*w);
        }
    }
}

#[inline]
fn dot_crelu_scalar(acc: &[i16], weights: &[i16], from: usize) -> i32 {
    acc[from..]
        .iter()
        .zip(&weights[from..])
        .map(|(a, w)| (*a).clamp(0, QA as i16) as i32 * *w as i32)
        .fold(0i32, |s, p| s.wrapping_add(p))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{accumulate_scalar, dot_crelu_scalar, QA};
    use std::arch::x86_64::*;

    /// The accumulate kernels of one instruction set: `$name` (the entry,
    /// `out = base - Σ subs + Σ adds`), and behind it a kernel for the row
    /// counts of an update (a move, a move with one or two captures, a null
    /// move), generic in the number of rows so that its loops over them
    /// unroll and their pointers stay in registers, and one for any other
    /// count (a refresh, a slot several moves away).
    macro_rules! accumulate_kernels {
        ($feature:literal, $lanes:literal, $name:ident, $rows:ident, $list:ident,
         $load:ident, $store:ident, $add:ident, $sub:ident) => {
            /// # Safety
            /// The CPU has the instruction set, and `base` and every row are
            /// at least `out.len()` long.
            #[target_feature(enable = $feature)]
            pub unsafe fn $name(out: &mut [i16], base: &[i16], subs: &[&[i16]], adds: &[&[i16]]) {
                // SAFETY: the caller's promise, passed on.
                unsafe {
                    match (subs, adds) {
                        ([], []) => $rows(out, base, [], []),
                        ([s], [a]) => $rows(out, base, [*s], [*a]),
                        ([s, t], [a]) => $rows(out, base, [*s, *t], [*a]),
                        ([s, t, u], [a]) => $rows(out, base, [*s, *t, *u], [*a]),
                        (subs, adds) => $list(out, base, subs, adds),
                    }
                }
            }

            /// # Safety
            /// As the entry.
            #[target_feature(enable = $feature)]
            unsafe fn $rows<const S: usize, const A: usize>(
                out: &mut [i16],
                base: &[i16],
                subs: [&[i16]; S],
                adds: [&[i16]; A],
            ) {
                // SAFETY: as the caller promised.
                unsafe { $list(out, base, &subs, &adds) }
            }

            /// # Safety
            /// As the entry.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn $list(out: &mut [i16], base: &[i16], subs: &[&[i16]], adds: &[&[i16]]) {
                const LANES: usize = $lanes;
                let n = out.len();
                let mut i = 0;
                while i + LANES <= n {
                    // SAFETY: i + LANES <= n, and every slice holds n lanes;
                    // unaligned loads and stores need no alignment.
                    unsafe {
                        let mut v = $load(base.as_ptr().add(i).cast());
                        for row in subs {
                            v = $sub(v, $load(row.as_ptr().add(i).cast()));
                        }
                        for row in adds {
                            v = $add(v, $load(row.as_ptr().add(i).cast()));
                        }
                        $store(out.as_mut_ptr().add(i).cast(), v);
                    }
                    i += LANES;
                }
                accumulate_scalar(out, base, subs, adds, i);
            }
        };
    }

    accumulate_kernels!(
        "avx2",
        16,
        accumulate_avx2,
        accumulate_avx2_rows,
        accumulate_avx2_list,
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_add_epi16,
        _mm256_sub_epi16
    );
    accumulate_kernels!(
        "avx512f,avx512bw",
        32,
        accumulate_avx512,
        accumulate_avx512_rows,
        accumulate_avx512_list,
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_add_epi16,
        _mm512_sub_epi16
    );

    /// # Safety
    /// The CPU has AVX2, and `weights` is at least `acc.len()` long.
    #[target_feature(enable = "avx2")]
    pub unsafe fn dot_crelu_avx2(acc: &[i16], weights: &[i16]) -> i32 {
        const LANES: usize = 16;
        let n = acc.len();
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        let mut i = 0;
        while i + LANES <= n {
            // SAFETY: i + 16 <= n for both slices.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let a = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
                let w = _mm256_loadu_si256(weights.as_ptr().add(i).cast());
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(a, w));
            }
            i += LANES;
        }
        let half = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256::<1>(sum),
        );
        let half = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
        let half = _mm_add_epi32(half, _mm_shuffle_epi32::<0b10_11_00_01>(half));
        _mm_cvtsi128_si32(half).wrapping_add(dot_crelu_scalar(acc, weights, i))
    }

    /// # Safety
    /// The CPU has AVX-512 F and BW, and `weights` is at least `acc.len()`
    /// long.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn dot_crelu_avx512(acc: &[i16], weights: &[i16]) -> i32 {
        const LANES: usize = 32;
        let n = acc.len();
        let zero = _mm512_setzero_si512();
        let top = _mm512_set1_epi16(QA as i16);
        let mut sum = _mm512_setzero_si512();
        let mut i = 0;
        while i + LANES <= n {
            // SAFETY: i + 32 <= n for both slices.
            unsafe {
                let a = _mm512_loadu_si512(acc.as_ptr().add(i).cast());
                let a = _mm512_min_epi16(_mm512_max_epi16(a, zero), top);
                let w = _mm512_loadu_si512(weights.as_ptr().add(i).cast());
                sum = _mm512_add_epi32(sum, _mm512_madd_epi16(a, w));
            }
            i += LANES;
        }
        _mm512_reduce_add_epi32(sum).wrapping_add(dot_crelu_scalar(acc, weights, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every vector path gives the scalar path's integers, for widths that
    /// are and are not a multiple of the vector, wrapping lanes included.
    #[test]
    fn every_path_agrees_with_the_scalar_one_on_random_accumulators() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for width in [1, 15, 16, 17, 31, 32, 64, 100, 512, 2048] {
            for _ in 0..20 {
                let mut random = |lo: i16, hi: i16| -> Vec<i16> {
                    (0..width).map(|_| rng.gen_range(lo..=hi)).collect()
                };
                let base = random(i16::MIN, i16::MAX);
                let rows: Vec<Vec<i16>> = (0..6).map(|_| random(-2000, 2000)).collect();
                let weights = random(-127, 127);
                // Rows out and in: a null move, a refresh, a quiet move, captures,
                // a distant slot.
                for (out_rows, in_rows) in [(0, 0), (0, 3), (1, 1), (2, 1), (3, 1), (2, 4)] {
                    let subs: Vec<&[i16]> = rows[..out_rows].iter().map(|r| &r[..]).collect();
                    let adds: Vec<&[i16]> = rows[2..2 + in_rows].iter().map(|r| &r[..]).collect();
                    let mut want = vec![0; width];
                    accumulate(Simd::scalar(), &mut want, &base, &subs, &adds);
                    let dot = dot_crelu(Simd::scalar(), &want, &weights);
                    for simd in Simd::available() {
                        let mut got = vec![0; width];
                        accumulate(simd, &mut got, &base, &subs, &adds);
                        assert_eq!(got, want, "{} accumulate, width {width}", simd.name());
                        assert_eq!(
                            dot_crelu(simd, &got, &weights),
                            dot,
                            "{} dot, width {width}",
                            simd.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn mismatched_widths_panic_instead_of_reading_past_the_end() {
        let result = std::panic::catch_unwind(|| {
            let mut out = vec![0i16; 32];
            accumulate(Simd::best(), &mut out, &[0; 32], &[&[0; 16]], &[]);
        });
        assert!(result.is_err());
    }
}
