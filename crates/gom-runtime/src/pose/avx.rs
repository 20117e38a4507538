//! Local → model eight bones at a time, for CPUs with AVX.
//!
//! The same operations as [`super::soa_to_affines`] and glam's `Affine3A * Affine3A`
//! on the same operands in the same order, so the matrices are bit for bit those of
//! the four-bone path (tested); only the data movement differs:
//!
//! ```text
//! two SoA groups ──8-wide quaternion → matrix──► 12 rows × 8 bones
//!   rows [x₀ x₁ x₂ 0 y₀ y₁ y₂ 0] ──8×8 transpose──► per bone [x axis | y axis]
//!   rows [z₀ z₁ z₂ 0 t₀ t₁ t₂ 0] ──8×8 transpose──► per bone [z axis | translation]
//! world = parent * local, two columns per 256-bit operation:
//!   [c | d] ↦ ((P.x · [c.x | d.x] + P.y · [c.y | d.y]) + P.z · [c.z | d.z]),
//!   then + P.translation in the translation half only
//! ```
//!
//! Hand-written with `std::arch`: the compiler neither merges two groups nor pairs
//! matrix columns in one register. The only `unsafe` is the call into the
//! `#[target_feature]` function after the CPU was checked.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use glam::{Affine3A, Vec3A};

use crate::transform::SoaTransform;

/// `world[i] = world[parent[i]] * local[i]` for every bone of `groups` below
/// `world.len()`: eight at a time with AVX, else four at a time.
pub(super) fn local_to_model(parents: &[i32], groups: &[SoaTransform], world: &mut [Affine3A]) {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
        // SAFETY: `with_avx512::pairs` only requires the `avx`, `avx512f` and
        // `avx512vl` target features, and the CPU has them (checked just above;
        // `avx512f` implies `avx`).
        unsafe { with_avx512::pairs(parents, groups, world) }
    } else if is_x86_feature_detected!("avx") {
        // SAFETY: `with_avx::pairs` only requires the `avx` target feature, and the
        // CPU has it (checked just above).
        unsafe { with_avx::pairs(parents, groups, world) }
    } else {
        super::all_groups_to_model(parents, groups, world);
    }
}

/// The eight-bone code, compiled for the target features `$features`.
macro_rules! eight_wide {
    ($module:ident, $features:literal) => {
        mod $module {
            use std::arch::x86_64::*;

            use glam::{Affine3A, Vec4};

            use crate::transform::SoaTransform;

            /// Two groups at a time, then the group left over four at a time.
            #[target_feature(enable = $features)]
            pub(super) fn pairs(parents: &[i32], groups: &[SoaTransform], world: &mut [Affine3A]) {
                let mut chunks = groups.chunks_exact(2);
                for (pi, pair) in (&mut chunks).enumerate() {
                    if let [g0, g1] = pair {
                        let [xy, zt] = local_columns(g0, g1);
                        for (j, (xy, zt)) in xy.into_iter().zip(zt).enumerate() {
                            super::place(parents, world, pi * 8 + j, xy, zt);
                        }
                    }
                }
                let last = groups.len() - chunks.remainder().len();
                for (k, g) in chunks.remainder().iter().enumerate() {
                    super::super::groups_to_model(parents, last + k, g, world);
                }
            }

            /// Lanes 0–3 from `lo`, 4–7 from `hi`.
            #[target_feature(enable = $features)]
            #[inline]
            fn join(lo: Vec4, hi: Vec4) -> __m256 {
                _mm256_set_m128(hi.into(), lo.into())
            }

            /// Per bone `j` of the two groups (`g0`'s four, then `g1`'s), its local matrix as
            /// `[x axis | y axis]` and `[z axis | translation]`, each column with w = 0.
            #[target_feature(enable = $features)]
            #[inline]
            fn local_columns(g0: &SoaTransform, g1: &SoaTransform) -> [[__m256; 8]; 2] {
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
                let zero = _mm256_setzero_ps();
                // As `soa_to_affines`: `(1 − 2(b + c)) · s` and `2(b ± c) · s`.
                let diag = |b, c, s| mul(sub(one, mul(two, add(b, c))), s);
                let plus = |b, c, s| mul(mul(two, add(b, c)), s);
                let minus = |b, c, s| mul(mul(two, sub(b, c)), s);
                let xy_rows = [
                    diag(yy, zz, sx),
                    plus(xy, wz, sx),
                    minus(xz, wy, sx),
                    zero,
                    minus(xy, wz, sy),
                    diag(xx, zz, sy),
                    plus(yz, wx, sy),
                    zero,
                ];
                let zt_rows = [
                    plus(xz, wy, sz),
                    minus(yz, wx, sz),
                    diag(xx, yy, sz),
                    zero,
                    tx,
                    ty,
                    tz,
                    zero,
                ];
                [transpose(xy_rows), transpose(zt_rows)]
            }

            /// 8×8 transpose with the halves paired: output `j` holds column `j` of rows 0–3 in
            /// its low half and column `j` of rows 4–7 in its high half.
            #[target_feature(enable = $features)]
            #[inline]
            fn transpose(r: [__m256; 8]) -> [__m256; 8] {
                let lo = |a, b| _mm256_unpacklo_ps(a, b);
                let hi = |a, b| _mm256_unpackhi_ps(a, b);
                let t = [
                    lo(r[0], r[1]),
                    hi(r[0], r[1]),
                    lo(r[2], r[3]),
                    hi(r[2], r[3]),
                    lo(r[4], r[5]),
                    hi(r[4], r[5]),
                    lo(r[6], r[7]),
                    hi(r[6], r[7]),
                ];
                // s[k]: columns k and k + 4 of rows 0–3 (k < 4), of rows 4–7 (k ≥ 4).
                let s = [
                    _mm256_shuffle_ps::<0x44>(t[0], t[2]),
                    _mm256_shuffle_ps::<0xEE>(t[0], t[2]),
                    _mm256_shuffle_ps::<0x44>(t[1], t[3]),
                    _mm256_shuffle_ps::<0xEE>(t[1], t[3]),
                    _mm256_shuffle_ps::<0x44>(t[4], t[6]),
                    _mm256_shuffle_ps::<0xEE>(t[4], t[6]),
                    _mm256_shuffle_ps::<0x44>(t[5], t[7]),
                    _mm256_shuffle_ps::<0xEE>(t[5], t[7]),
                ];
                std::array::from_fn(|j| {
                    if j < 4 {
                        _mm256_permute2f128_ps::<0x20>(s[j], s[j + 4])
                    } else {
                        _mm256_permute2f128_ps::<0x31>(s[j - 4], s[j])
                    }
                })
            }
        }
    };
}

eight_wide!(with_avx, "avx");
// The same instructions with AVX-512's 32 vector registers: fewer values spilled to
// the stack, the same results.
eight_wide!(with_avx512, "avx,avx512f,avx512vl");

/// Stores bone `i`'s model matrix: its local columns `xy` = `[x | y]`, `zt` =
/// `[z | t]`, times its parent's model matrix (bit for bit glam's `parent * local`).
#[target_feature(enable = "avx")]
#[inline]
fn place(parents: &[i32], world: &mut [Affine3A], i: usize, xy: __m256, zt: __m256) {
    let local = |v: __m256| -> [Vec3A; 2] {
        [
            _mm256_castps256_ps128(v).into(),
            _mm256_extractf128_ps::<1>(v).into(),
        ]
    };
    let w = match super::parent_of(parents, i, world) {
        Some(p) => {
            let both = |v: Vec3A| _mm256_set_m128(v.into(), v.into());
            let (px, py, pz) = (both(p.x_axis), both(p.y_axis), both(p.z_axis));
            let pt = both(p.translation);
            // glam's `Mat3A * Vec3A`: ((x · c.x) + (y · c.y)) + (z · c.z).
            let m3 = |c| {
                let cx = _mm256_permute_ps::<0x00>(c);
                let cy = _mm256_permute_ps::<0x55>(c);
                let cz = _mm256_permute_ps::<0xAA>(c);
                _mm256_add_ps(
                    _mm256_add_ps(_mm256_mul_ps(px, cx), _mm256_mul_ps(py, cy)),
                    _mm256_mul_ps(pz, cz),
                )
            };
            let xy = m3(xy);
            let zt = m3(zt);
            // `+ translation` in the high half only (the low half stays bit for bit).
            let zt = _mm256_blend_ps::<0xF0>(zt, _mm256_add_ps(zt, pt));
            let ([x, y], [z, t]) = (local(xy), local(zt));
            Affine3A::from_cols(x, y, z, t)
        }
        None => {
            let ([x, y], [z, t]) = (local(xy), local(zt));
            Affine3A::from_cols(x, y, z, t)
        }
    };
    if let Some(slot) = world.get_mut(i) {
        *slot = w;
    }
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
        let mut f = crate::test_rng::signed_unit(0x9e37_79b9_7f4a_7c15u64);
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
