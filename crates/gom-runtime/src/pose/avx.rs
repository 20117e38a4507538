//! Local → model eight bones at a time, for CPUs with AVX.
//!
//! The same operations as [`super::soa_to_affines`] and glam's `Affine3A * Affine3A`
//! on the same operands in the same order, so the matrices are bit for bit those of
//! the four-bone path (tested); only the data movement differs:
//!
//! ```text
//! two SoA groups ──8-wide quaternion → matrix──► rows: element e of column c, 8 bones
//! row pairs  [x.e of bones 0–3 | y.e of bones 0–3], [z.e | t.e]   (and bones 4–7)
//! bone j     s_e = [x.e of j ×4 | y.e of j ×4]: one in-lane permute each, no transpose
//! world = parent * local, two columns per 256-bit operation:
//!   [x | y] = ((P.x · s_x) + (P.y · s_y)) + P.z · s_z;  [z | t] likewise,
//!   then + P.translation in the translation half only
//! ```
//!
//! Hand-written with `std::arch`: the compiler neither merges two groups nor pairs
//! matrix columns in one register. The only `unsafe` is the call into the
//! `#[target_feature]` function after the CPU was checked.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use glam::{Affine3A, Vec3A};

use crate::lanes::halves;
use crate::transform::SoaTransform;

/// The local → model paths of this module, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Width {
    /// AVX-512F with AVX-512VL.
    Avx512,
    /// AVX.
    Avx,
    /// Neither: the four-bone path.
    FourLane,
}

/// The widest path this CPU has (what [`local_to_model`] takes).
pub(super) fn width() -> Width {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
        Width::Avx512
    } else if is_x86_feature_detected!("avx") {
        Width::Avx
    } else {
        Width::FourLane
    }
}

/// `world[i] = world[parent[i]] * local[i]` for every bone of `groups` below
/// `world.len()`: eight at a time with AVX, else four at a time.
pub(super) fn local_to_model(parents: &[i32], groups: &[SoaTransform], world: &mut [Affine3A]) {
    match width() {
        // SAFETY: `with_avx512::pairs` only requires the `avx`, `avx512f` and
        // `avx512vl` target features, and the CPU has them (`width` checked them;
        // `avx512f` implies `avx`).
        Width::Avx512 => unsafe { with_avx512::pairs(parents, groups, world) },
        // SAFETY: `with_avx::pairs` only requires the `avx` target feature, and the
        // CPU has it (`width` checked it).
        Width::Avx => unsafe { with_avx::pairs(parents, groups, world) },
        Width::FourLane => super::all_groups_to_model(parents, groups, world),
    }
}

/// The eight-bone code, compiled for the target features `$features`.
macro_rules! eight_wide {
    ($module:ident, $features:literal) => {
        mod $module {
            use std::arch::x86_64::*;

            use glam::Affine3A;

            use crate::lanes::join;
            use crate::transform::SoaTransform;

            /// Two groups at a time, then the group left over four at a time.
            #[target_feature(enable = $features)]
            pub(super) fn pairs(parents: &[i32], groups: &[SoaTransform], world: &mut [Affine3A]) {
                let mut chunks = groups.chunks_exact(2);
                for (pi, pair) in (&mut chunks).enumerate() {
                    if let [g0, g1] = pair {
                        let rows = local_rows(g0, g1);
                        let base = pi * 8;
                        let lo = row_pairs::<0x20>(&rows);
                        super::place(parents, world, base, splats::<0x00>(&lo));
                        super::place(parents, world, base + 1, splats::<0x55>(&lo));
                        super::place(parents, world, base + 2, splats::<0xAA>(&lo));
                        super::place(parents, world, base + 3, splats::<0xFF>(&lo));
                        let hi = row_pairs::<0x31>(&rows);
                        super::place(parents, world, base + 4, splats::<0x00>(&hi));
                        super::place(parents, world, base + 5, splats::<0x55>(&hi));
                        super::place(parents, world, base + 6, splats::<0xAA>(&hi));
                        super::place(parents, world, base + 7, splats::<0xFF>(&hi));
                    }
                }
                let last = groups.len() - chunks.remainder().len();
                for (k, g) in chunks.remainder().iter().enumerate() {
                    super::super::groups_to_model(parents, last + k, g, world);
                }
            }

            /// The local matrices of the two groups' eight bones (`g0`'s four, then
            /// `g1`'s): row `3c + e` holds element `e` of column `c` (x, y, z axis,
            /// translation) of every bone.
            #[target_feature(enable = $features)]
            #[inline]
            fn local_rows(g0: &SoaTransform, g1: &SoaTransform) -> [__m256; 12] {
                let (add, sub, mul) = (
                    |a, b| _mm256_add_ps(a, b),
                    |a, b| _mm256_sub_ps(a, b),
                    |a, b| _mm256_mul_ps(a, b),
                );
                let [x, y, z, w] = std::array::from_fn(|c| join(g0.rotation[c], g1.rotation[c]));
                let [sx, sy, sz] = std::array::from_fn(|c| join(g0.scale[c], g1.scale[c]));
                let [tx, ty, tz] =
                    std::array::from_fn(|c| join(g0.translation[c], g1.translation[c]));
                let (xx, yy, zz) = (mul(x, x), mul(y, y), mul(z, z));
                let (xy, xz, yz) = (mul(x, y), mul(x, z), mul(y, z));
                let (wx, wy, wz) = (mul(w, x), mul(w, y), mul(w, z));
                let one = _mm256_set1_ps(1.0);
                let two = _mm256_set1_ps(2.0);
                // As `soa_to_affines`: `(1 − 2(b + c)) · s` and `2(b ± c) · s`.
                let diag = |b, c, s| mul(sub(one, mul(two, add(b, c))), s);
                let plus = |b, c, s| mul(mul(two, add(b, c)), s);
                let minus = |b, c, s| mul(mul(two, sub(b, c)), s);
                [
                    diag(yy, zz, sx),
                    plus(xy, wz, sx),
                    minus(xz, wy, sx),
                    minus(xy, wz, sy),
                    diag(xx, zz, sy),
                    plus(yz, wx, sy),
                    plus(xz, wy, sz),
                    minus(yz, wx, sz),
                    diag(xx, yy, sz),
                    tx,
                    ty,
                    tz,
                ]
            }

            /// For four of the bones (`HALF` = 0x20: bones 0–3, 0x31: bones 4–7), element
            /// e = x, y, z of the x axis beside that of the y axis, `[x.e | y.e]`, then of
            /// the z axis beside the translation, `[z.e | t.e]`: each half holds the four
            /// bones' element.
            #[target_feature(enable = $features)]
            #[inline]
            fn row_pairs<const HALF: i32>(rows: &[__m256; 12]) -> [__m256; 6] {
                let pair = |a: usize, b: usize| _mm256_permute2f128_ps::<HALF>(rows[a], rows[b]);
                [
                    pair(0, 3),
                    pair(1, 4),
                    pair(2, 5),
                    pair(6, 9),
                    pair(7, 10),
                    pair(8, 11),
                ]
            }

            /// One bone's elements splatted over each half (`LANE` = 0x00, 0x55, 0xAA,
            /// 0xFF: the first to the fourth of the four bones in `pairs`).
            #[target_feature(enable = $features)]
            #[inline]
            fn splats<const LANE: i32>(pairs: &[__m256; 6]) -> [__m256; 6] {
                pairs.map(|v| _mm256_permute_ps::<LANE>(v))
            }
        }
    };
}

eight_wide!(with_avx, "avx");
// The same instructions with AVX-512's 32 vector registers: fewer values spilled to
// the stack, the same results.
eight_wide!(with_avx512, "avx,avx512f,avx512vl");

/// Stores bone `i`'s model matrix: its parent's times its local one (bit for bit
/// glam's `parent * local`), whose elements come splatted, `s = [x.x | y.x]`,
/// `[x.y | y.y]`, `[x.z | y.z]`, `[z.x | t.x]`, `[z.y | t.y]`, `[z.z | t.z]`.
#[target_feature(enable = "avx")]
#[inline]
fn place(parents: &[i32], world: &mut [Affine3A], i: usize, s: [__m256; 6]) {
    let Some(p) = super::parent_of(parents, i, world) else {
        if let Some(slot) = world.get_mut(i) {
            *slot = root(s);
        }
        return;
    };
    let both = |v: Vec3A| _mm256_set_m128(v.into(), v.into());
    let (px, py, pz) = (both(p.x_axis), both(p.y_axis), both(p.z_axis));
    let pt = both(p.translation);
    // glam's `Mat3A * Vec3A`: ((x · c.x) + (y · c.y)) + (z · c.z).
    let m3 = |cx, cy, cz| {
        _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(px, cx), _mm256_mul_ps(py, cy)),
            _mm256_mul_ps(pz, cz),
        )
    };
    let xy = m3(s[0], s[1], s[2]);
    let zt = m3(s[3], s[4], s[5]);
    // `+ translation` in the high half only (the low half stays bit for bit).
    let zt = _mm256_blend_ps::<0xF0>(zt, _mm256_add_ps(zt, pt));
    let half = |v| halves(v).map(Vec3A::from_vec4);
    let ([x, y], [z, t]) = (half(xy), half(zt));
    if let Some(slot) = world.get_mut(i) {
        *slot = Affine3A::from_cols(x, y, z, t);
    }
}

/// A root's model matrix: its local matrix, read back from its splatted elements
/// (see [`place`]; columns with w = 0).
#[target_feature(enable = "avx")]
#[inline]
fn root(s: [__m256; 6]) -> Affine3A {
    // [x, y, z, 0] from three splats: two unpacks and a move, no arithmetic.
    let column = |x, y, z| -> Vec3A {
        _mm_movelh_ps(_mm_unpacklo_ps(x, y), _mm_unpacklo_ps(z, _mm_setzero_ps())).into()
    };
    let lo = |v| _mm256_castps256_ps128(v);
    let hi = |v| _mm256_extractf128_ps::<1>(v);
    Affine3A::from_cols(
        column(lo(s[0]), lo(s[1]), lo(s[2])),
        column(hi(s[0]), hi(s[1]), hi(s[2])),
        column(lo(s[3]), lo(s[4]), lo(s[5])),
        column(hi(s[3]), hi(s[4]), hi(s[5])),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::Transform;
    use glam::{Quat, Vec3};

    /// The twelve numbers of each matrix (a column's fourth lane is not part of an
    /// `Affine3A`: glam leaves it unspecified).
    fn bits(world: &[Affine3A]) -> Vec<[u32; 12]> {
        world
            .iter()
            .map(|a| a.to_cols_array().map(f32::to_bits))
            .collect()
    }

    /// Chains (parent `i − 1`), fans and roots in the middle, so that parents fall
    /// inside and outside the block of eight; counts that leave partial blocks.
    #[test]
    fn eight_at_a_time_gives_the_four_at_a_time_bits() {
        let mut rng = gom_test_support::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut f = move || rng.signed();
        for n in [1usize, 3, 4, 7, 8, 9, 12, 16, 17, 33, 64, 67] {
            let parents: Vec<i32> = (0..n as i32)
                .map(|i| match i % 7 {
                    _ if i == 0 => -1,
                    3 => -1,
                    0..=2 => i - 1,
                    _ => (i - 1) / 3,
                })
                .collect();
            let mut groups = vec![SoaTransform::IDENTITY; n.div_ceil(4)];
            for i in 0..n {
                let axis = Vec3::new(f(), f(), f() + 2.0).normalize();
                let t = Transform {
                    translation: Vec3::new(f(), f(), f()) * 3.0,
                    rotation: Quat::from_axis_angle(axis, f() * 3.0),
                    scale: Vec3::new(f() + 1.5, f() + 1.5, -(f() + 1.5)),
                };
                groups[i / 4].set(i % 4, &t);
            }
            let mut plain = vec![Affine3A::IDENTITY; n];
            super::super::all_groups_to_model(&parents, &groups, &mut plain);
            let mut fast = vec![Affine3A::IDENTITY; n];
            local_to_model(&parents, &groups, &mut fast);
            assert_eq!(
                bits(&fast),
                bits(&plain),
                "{n} bones, the path this CPU takes"
            );
            eprintln!(
                "{n} bones: local → model paths run: plain, this CPU's{}{}",
                if is_x86_feature_detected!("avx") {
                    ", AVX"
                } else {
                    ""
                },
                if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
                    ", AVX-512"
                } else {
                    " (no AVX-512 on this CPU)"
                }
            );
            if is_x86_feature_detected!("avx") {
                let mut fast = vec![Affine3A::IDENTITY; n];
                // SAFETY: the CPU has AVX (checked just above).
                unsafe { with_avx::pairs(&parents, &groups, &mut fast) };
                assert_eq!(bits(&fast), bits(&plain), "{n} bones, AVX");
            }
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
                let mut fast = vec![Affine3A::IDENTITY; n];
                // SAFETY: the CPU has AVX-512F and VL (checked just above).
                unsafe { with_avx512::pairs(&parents, &groups, &mut fast) };
                assert_eq!(bits(&fast), bits(&plain), "{n} bones, AVX-512");
            }
        }
    }
}
