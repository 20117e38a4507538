//! `sin`, `cos` and `atan2` on the first quadrant in plain IEEE arithmetic (range-limited
//! series), so that which keys survive is the same on every platform (D11).
//!
//! Kept beside `libm` (which would be as deterministic) because they are cheaper where
//! key reduction spends its time: the segment loops evaluate `sin_cos_fixed` with a
//! term count fixed per segment, which the compiler unrolls and vectorises. With
//! `libm::sin`, `libm::cos`, `libm::sincos` and `libm::atan2` in their place, the
//! output bytes of the shared FBX files stay the same (golden hashes), but a
//! conversion costs more instructions (`valgrind --tool=callgrind` over
//! `examples/fbx_repeat.rs`, docs/performance.md): +2.0 % for max_transformed_skin
//! (2,248,296 → 2,293,396 a call, the most keys per byte), +0.7 % for
//! blender_279_sausage, +0.5 % for maya_game_sausage (ASCII), none for the unanimated
//! blender_suzanne.

/// `sin(x)` for `0 <= x <= pi/2`, by its Taylor series (error below 1e-15).
pub(super) fn sin_small(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    for n in 1..12 {
        let k = (2 * n) as f64;
        term *= -x2 / (k * (k + 1.0));
        sum += term;
    }
    sum
}

/// Coefficients of the arctangent series after `z`: `(-1)^k / (2k + 1)`, `k >= 1`.
const A: [f64; 12] = [
    -1.0 / 3.0,
    1.0 / 5.0,
    -1.0 / 7.0,
    1.0 / 9.0,
    -1.0 / 11.0,
    1.0 / 13.0,
    -1.0 / 15.0,
    1.0 / 17.0,
    -1.0 / 19.0,
    1.0 / 21.0,
    -1.0 / 23.0,
    1.0 / 25.0,
];

/// `atan2(y, x)` for `y >= 0`, `x >= 0` (the angle lies in `[0, pi/2]`).
pub(super) fn atan2_first_quadrant(y: f64, x: f64) -> f64 {
    if y == 0.0 {
        return 0.0;
    }
    if x == 0.0 {
        return core::f64::consts::FRAC_PI_2;
    }
    let (z, swap) = if y > x { (x / y, true) } else { (y / x, false) };
    if z <= 0.1 {
        // Small angles (keys close together): the series directly, to z^15 / 15; the
        // first omitted term, z^17 / 17, is below 1e-18.
        let z2 = z * z;
        let mut poly = 0.0;
        for c in A[..7].iter().rev() {
            poly = (poly + c) * z2;
        }
        return with_swap(z + z * poly, swap);
    }
    // Halve the argument twice: atan(z) = 2 atan(z / (1 + sqrt(1 + z^2))).
    let z1 = z / (1.0 + (1.0 + z * z).sqrt());
    let z2 = z1 / (1.0 + (1.0 + z1 * z1).sqrt());
    // |z2| <= tan(pi/16) ~ 0.199: the series converges fast (the first omitted term,
    // z2^27 / 27, is below 1e-20).
    let z2sq = z2 * z2;
    let mut poly = 0.0;
    for c in A.iter().rev() {
        poly = (poly + c) * z2sq;
    }
    with_swap(4.0 * (z2 + z2 * poly), swap)
}

/// `a`, or `pi/2 - a` when the arguments of the arctangent were swapped.
fn with_swap(a: f64, swap: bool) -> f64 {
    if swap {
        core::f64::consts::FRAC_PI_2 - a
    } else {
        a
    }
}

/// Taylor coefficients of `sin(x) / x` and `cos(x)` in powers of `x²`.
const SIN_TERMS: [f64; 9] = [
    1.0,
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5_040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
];
const COS_TERMS: [f64; 10] = [
    1.0,
    -1.0 / 2.0,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
    -1.0 / 6_402_373_705_728_000.0,
];

/// How many Taylor terms (3, 5, 7 or 9) keep `sin` and `cos` within about 1e-14 on
/// `[0, max]` (`max <= pi/2`). The first omitted term bounds the error of these
/// alternating series: with `n` terms it is `max^(2n+1) / (2n+1)!`, below 1e-14 for
/// `max` under the bounds here (9 terms: 4.4e-14 at `pi/2`).
pub(super) fn terms_for(max: f64) -> usize {
    // max^7 / 7! < 1e-14, max^11 / 11! < 1e-14, max^15 / 15! < 1e-14.
    if max < 0.0339 {
        3
    } else if max < 0.262 {
        5
    } else if max < 0.749 {
        7
    } else {
        9
    }
}

/// `(sin x, cos x)` for `0 <= x <= pi/2` from the first `terms` Taylor terms, one of
/// the counts [`terms_for`] gives (others round up to the next): plain IEEE arithmetic,
/// no divisions, the same on every platform.
pub(super) fn sin_cos_small(x: f64, terms: usize) -> (f64, f64) {
    match terms {
        0..=3 => sin_cos_fixed::<3>(x),
        4..=5 => sin_cos_fixed::<5>(x),
        6..=7 => sin_cos_fixed::<7>(x),
        _ => sin_cos_fixed::<9>(x),
    }
}

/// `(sin x, cos x)` from `N` Taylor terms, for loops the compiler can unroll and
/// vectorise.
#[inline(always)]
pub(super) fn sin_cos_fixed<const N: usize>(x: f64) -> (f64, f64) {
    let x2 = x * x;
    let mut s = 0.0;
    for c in SIN_TERMS[..N].iter().rev() {
        s = s * x2 + c;
    }
    let mut c = 0.0;
    for k in COS_TERMS[..=N].iter().rev() {
        c = c * x2 + k;
    }
    (x * s, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_small_matches_the_library_functions() {
        for i in 0..=1000 {
            let x = core::f64::consts::FRAC_PI_2 * f64::from(i) / 1000.0;
            let (s, c) = sin_cos_small(x, terms_for(core::f64::consts::FRAC_PI_2));
            assert!((s - x.sin()).abs() < 1e-13, "sin {x}: {s} vs {}", x.sin());
            assert!((c - x.cos()).abs() < 1e-13, "cos {x}: {c} vs {}", x.cos());
            // Fewer terms for a smaller range, as accurate on it.
            let (s, c) = sin_cos_small(x * 0.1, terms_for(0.1 * core::f64::consts::FRAC_PI_2));
            assert!((s - (x * 0.1).sin()).abs() < 2e-14 && (c - (x * 0.1).cos()).abs() < 2e-14);
            let (y, x) = (x.sin() * 3.0, x.cos() * 3.0);
            let a = atan2_first_quadrant(y, x);
            assert!((a - y.atan2(x)).abs() < 1e-14, "atan2({y}, {x}): {a}");
            // Small angles (and their complements) to relative accuracy.
            let small = 0.1 * f64::from(i) / 1000.0 + 1e-9;
            let a = atan2_first_quadrant(small, 1.0);
            assert!(
                (a - small.atan()).abs() <= 1e-15 * small,
                "atan({small}): {a}"
            );
            let a = atan2_first_quadrant(1.0, small);
            assert!(
                (a - 1f64.atan2(small)).abs() < 1e-15,
                "atan2(1, {small}): {a}"
            );
        }
    }

    #[test]
    fn term_counts_cover_their_ranges() {
        // The term counts cover their ranges to the stated accuracy.
        for max in [0.01, 0.03, 0.2, 0.7, 1.4, core::f64::consts::FRAC_PI_2] {
            let n = terms_for(max);
            for i in 0..=100 {
                let x = max * f64::from(i) / 100.0;
                let (s, c) = sin_cos_small(x, n);
                assert!(
                    (s - x.sin()).abs() < 1e-13 && (c - x.cos()).abs() < 1e-13,
                    "{max} {n} {x}"
                );
            }
        }
    }
}
