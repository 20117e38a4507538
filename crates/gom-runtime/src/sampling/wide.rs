//! Interpolating every group of a pose, eight bones at a time where the CPU has AVX.
//!
//! [`Group::eval`] is the definition: four bones per 128-bit vector. With AVX, two
//! groups go through the same operations as one 256-bit vector (group `2i` in the low
//! half, `2i + 1` in the high half); the odd group left over, and every group on a CPU
//! without AVX, take [`Group::eval`]. A prepared clip's blocks of eight
//! ([`Paired`]) are unpaired into the same eight-lane fields, or on a CPU without AVX
//! into two [`Group`]s.
//!
//! Both paths perform the same IEEE operations on the same operands in the same
//! order (no fused multiply-add: Rust never contracts `a * b + c`, and the AVX path
//! has none), so they give the same bits; the test below checks it.
//!
//! Hand-written with `std::arch` because the compiler does not merge two 128-bit
//! groups into 256-bit operations. The only `unsafe` is the call into the
//! `#[target_feature]` function after the CPU was checked.
#![allow(unsafe_code)]

use super::{Group, Paired};
use crate::transform::SoaTransform;

/// Whether this CPU takes the eight-bone AVX path.
pub(crate) fn has_avx() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Interpolates `groups` at time `t` into `out`, group `i` into `out[i]`.
pub(crate) fn eval_all(groups: &[Group], t: f32, out: &mut [SoaTransform]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx() {
        // SAFETY: `avx::eval_all` only requires the `avx` target feature, and the CPU
        // has it (checked just above).
        unsafe { avx::eval_all(groups, t, out) };
        return;
    }
    eval_all_baseline(groups, t, out);
}

/// [`Group::eval`] on every group.
fn eval_all_baseline(groups: &[Group], t: f32, out: &mut [SoaTransform]) {
    for (g, o) in groups.iter().zip(out.iter_mut()) {
        *o = g.eval(t);
    }
}

/// Interpolates `blocks` at time `t` into `out`, block `i` into `out[2i]` and
/// `out[2i + 1]` (as far as `out` goes).
pub(crate) fn eval_paired(blocks: &[Paired], t: f32, out: &mut [SoaTransform]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx() {
        // SAFETY: `avx::eval_paired` only requires the `avx` target feature, and the
        // CPU has it (checked just above).
        unsafe { avx::eval_paired(blocks, t, out) };
        return;
    }
    eval_paired_baseline(blocks, t, out);
}

/// [`Group::eval`] on the two groups of every block.
fn eval_paired_baseline(blocks: &[Paired], t: f32, out: &mut [SoaTransform]) {
    for (b, o) in blocks.iter().zip(out.chunks_mut(2)) {
        for (g, o) in b.groups().iter().zip(o) {
            *o = g.eval(t);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;

    use super::{Group, Paired, SoaTransform};
    use crate::lanes::{halves, join};
    use crate::sampling::{LANE_FLOATS, SINC};

    #[target_feature(enable = "avx")]
    pub(super) fn eval_all(groups: &[Group], t: f32, out: &mut [SoaTransform]) {
        let n = groups.len().min(out.len());
        let (groups, out) = (&groups[..n], &mut out[..n]);
        let mut gs = groups.chunks_exact(2);
        let mut os = out.chunks_exact_mut(2);
        for (g, o) in (&mut gs).zip(&mut os) {
            if let ([g0, g1], [o0, o1]) = (g, o) {
                [*o0, *o1] = eval_pair(g0, g1, t);
            }
        }
        super::eval_all_baseline(gs.remainder(), t, os.into_remainder());
    }

    #[target_feature(enable = "avx")]
    pub(super) fn eval_paired(blocks: &[Paired], t: f32, out: &mut [SoaTransform]) {
        let mut os = out.chunks_exact_mut(2);
        let mut bs = blocks.iter();
        // `os` first: when it runs out, `zip` takes no block from `bs`.
        for (o, b) in (&mut os).zip(&mut bs) {
            if let [o0, o1] = o {
                [*o0, *o1] = eval8(&unpair(b), t);
            }
        }
        // An odd number of groups: the last block's first half.
        if let (Some(b), [o0, ..]) = (bs.next(), os.into_remainder()) {
            [*o0, _] = eval8(&unpair(b), t);
        }
    }

    /// The 24 fields of a block's eight lanes: row `k` as two halves of four slots,
    /// the even and the odd floats of each slot pair picked by one in-lane shuffle
    /// each (the slots put the lanes back in order, see [`Paired::SLOT`]).
    #[target_feature(enable = "avx")]
    #[inline]
    fn unpair(b: &Paired) -> [__m256; LANE_FLOATS] {
        let mut f = [_mm256_setzero_ps(); LANE_FLOATS];
        for (k, row) in b.pairs.iter().enumerate() {
            let [lo, hi]: [[f32; 8]; 2] = bytemuck::cast(*row);
            let (lo, hi): (__m256, __m256) = (bytemuck::cast(lo), bytemuck::cast(hi));
            f[2 * k] = _mm256_shuffle_ps::<0x88>(lo, hi);
            f[2 * k + 1] = _mm256_shuffle_ps::<0xDD>(lo, hi);
        }
        f
    }

    #[target_feature(enable = "avx")]
    #[inline]
    fn add(a: __m256, b: __m256) -> __m256 {
        _mm256_add_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    fn sub(a: __m256, b: __m256) -> __m256 {
        _mm256_sub_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    fn mul(a: __m256, b: __m256) -> __m256 {
        _mm256_mul_ps(a, b)
    }

    /// [`crate::sampling`]'s `sinc_sq`, eight lanes.
    #[target_feature(enable = "avx")]
    #[inline]
    fn sinc_sq(u: __m256) -> __m256 {
        let c = SINC.map(|c| _mm256_set1_ps(c));
        let u2 = mul(u, u);
        let a = add(c[0], mul(u, c[1]));
        let b = add(c[2], mul(u, c[3]));
        let c = add(c[4], mul(u, c[5]));
        add(a, mul(u2, add(b, mul(u2, c))))
    }

    /// The fields of `g0` (lanes 0–3) and `g1` (lanes 4–7), in [`LaneData`] order.
    ///
    /// [`LaneData`]: crate::sampling::LaneData
    #[target_feature(enable = "avx")]
    #[inline]
    fn join_groups(g0: &Group, g1: &Group) -> [__m256; LANE_FLOATS] {
        let (a, b) = (g0.fields(), g1.fields());
        std::array::from_fn(|k| join(a[k], b[k]))
    }

    /// [`Group::eval`] of `g0` and `g1`, eight lanes.
    #[target_feature(enable = "avx")]
    #[inline]
    fn eval_pair(g0: &Group, g1: &Group, t: f32) -> [SoaTransform; 2] {
        eval8(&join_groups(g0, g1), t)
    }

    /// [`Group::eval`] on eight lanes whose fields, in [`LaneData`] order, are `f`:
    /// lanes 0–3 give the first transform, 4–7 the second.
    ///
    /// [`LaneData`]: crate::sampling::LaneData
    #[target_feature(enable = "avx")]
    #[inline]
    fn eval8(f: &[__m256; LANE_FLOATS], t: f32) -> [SoaTransform; 2] {
        let [t0, dt, tr @ .., theta, inv_sinc] = *f;
        let [tr0x, tr0y, tr0z, dtrx, dtry, dtrz, sc0x, sc0y, sc0z, dscx, dscy, dscz, q0 @ ..] = tr;
        let [q0x, q0y, q0z, q0w, q1x, q1y, q1z, q1w] = q0;
        let a = _mm256_div_ps(sub(_mm256_set1_ps(t), t0), dt);
        let b = sub(_mm256_set1_ps(1.0), a);
        let lerp = |x0, d| halves(add(x0, mul(d, a)));
        let tr = [lerp(tr0x, dtrx), lerp(tr0y, dtry), lerp(tr0z, dtrz)];
        let sc = [lerp(sc0x, dscx), lerp(sc0y, dscy), lerp(sc0z, dscz)];
        let (x1, x0) = (mul(a, theta), mul(b, theta));
        let w1 = mul(mul(a, sinc_sq(mul(x1, x1))), inv_sinc);
        let w0 = mul(mul(b, sinc_sq(mul(x0, x0))), inv_sinc);
        let exact = _mm256_cmp_ps::<_CMP_EQ_OQ>(a, _mm256_setzero_ps());
        let slerp = |q0, q1| halves(_mm256_blendv_ps(add(mul(q0, w0), mul(q1, w1)), q0, exact));
        let q = [
            slerp(q0x, q1x),
            slerp(q0y, q1y),
            slerp(q0z, q1z),
            slerp(q0w, q1w),
        ];
        let half = |h: usize| SoaTransform {
            translation: tr.map(|v| v[h]),
            rotation: q.map(|v| v[h]),
            scale: sc.map(|v| v[h]),
        };
        [half(0), half(1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::Key;

    fn bits(v: &[SoaTransform]) -> Vec<u32> {
        v.iter()
            .flat_map(|s| {
                let vs = s.translation.iter().chain(&s.rotation).chain(&s.scale);
                vs.flat_map(|v| v.to_array())
                    .map(f32::to_bits)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// `n` blocks of eight lanes, each from a random key pair (some held), set through
    /// [`Paired::set_lane`], with the lane data each lane was given.
    fn blocks(n: usize) -> (Vec<Paired>, Vec<crate::sampling::LaneData>) {
        let mut rng = gom_test_support::rng::Rng::new(0x1234_5678_9abc_def0);
        let mut f = move || rng.signed();
        let key = |time: f32, f: &mut dyn FnMut() -> f32| {
            let q = [f(), f(), f(), f()];
            let l = q.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-3);
            Key {
                time,
                translation: [f(), f(), f()],
                rotation: q.map(|x| x / l),
                scale: [f() + 2.0, f() + 2.0, f() + 2.0],
            }
        };
        let mut data = Vec::new();
        let blocks = (0..n)
            .map(|i| {
                let mut b = Paired::ZERO;
                for l in 0..8 {
                    let (k0, k1) = (key(0.1, &mut f), key(0.6, &mut f));
                    let theta = f().abs() * 1.5;
                    let angle = [theta, theta / theta.sin().max(1e-6)];
                    let d = Group::pair(&k0, &k1, angle, (i + l) % 7 == 0);
                    b.set_lane(l, &d);
                    data.push(d);
                }
                b
            })
            .collect();
        (blocks, data)
    }

    #[test]
    fn a_paired_block_keeps_each_lanes_data() {
        let (blocks, data) = blocks(3);
        for (i, d) in data.iter().enumerate() {
            let groups = blocks[i / 8].groups();
            assert_eq!(groups[i % 8 / 4].lane(i % 4), *d, "lane {i}");
        }
    }

    /// Every path this CPU has, against [`Group::eval`] four lanes at a time, on nine
    /// groups (the AVX paths take two at a time and leave one).
    #[test]
    fn every_path_gives_the_four_lane_bits() {
        let avx = has_avx();
        eprintln!(
            "sampling paths run: four lanes, {}",
            if avx {
                "AVX"
            } else {
                "no AVX on this CPU (the dispatching calls take four lanes)"
            }
        );
        let (blocks, _) = blocks(5);
        let groups: Vec<Group> = blocks.iter().flat_map(|b| b.groups()).take(9).collect();
        for t in [0.0, 0.1, 0.25, 0.5999, 0.6, 1.0] {
            let mut expected = vec![SoaTransform::IDENTITY; groups.len()];
            eval_all_baseline(&groups, t, &mut expected);
            let run = |f: &dyn Fn(&mut [SoaTransform])| {
                let mut out = vec![SoaTransform::IDENTITY; groups.len()];
                f(&mut out);
                bits(&out)
            };
            let want = bits(&expected);
            assert_eq!(run(&|o| eval_all(&groups, t, o)), want, "groups, t = {t}");
            let got = run(&|o| eval_paired(&blocks, t, o));
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            assert_eq!(got, want, "blocks, t = {t}, first difference at {first:?}");
            let baseline = run(&|o| eval_paired_baseline(&blocks, t, o));
            assert_eq!(baseline, want, "blocks, four lanes, t = {t}");
        }
    }
}
