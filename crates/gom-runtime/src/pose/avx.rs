//! Local → model eight bones at a time, for CPUs with AVX.
//!
//! ```text
//! two SoA groups ──8-wide quaternion → matrix──► rows: element e of column c, 8 bones
//! row pairs  [x.e of bones 0–3 | y.e of bones 0–3], [z.e | t.e]   (and bones 4–7)
//! bone j     s_e = [x.e of j ×4 | y.e of j ×4]: one in-lane permute each, no transpose
//! world = parent * local, two columns per 256-bit operation:
//!   plain  [x | y] = ((P.x · s_x) + (P.y · s_y)) + P.z · s_z;  [z | t] likewise,
//!          then + P.translation in the translation half only
//!   fused  [x | y] = fma(P.z, s_z, fma(P.y, s_y, P.x · s_x))
//!          [z | t] = fma(P.z, s_z, fma(P.y, s_y, fma(P.x, s_x, [0 | P.translation])))
//! each matrix stored as two 32-byte halves, [x | y] and [z | t]
//! ```
//!
//! The plain form does the operations of [`super::soa_to_affines`] and glam's
//! `Affine3A * Affine3A` in the same order, so its matrices are bit for bit those of
//! the four-bone path (tested). On CPUs with FMA the fused form rounds once per
//! multiply-add instead of twice (fewer operations, and as close or closer to the
//! exact product): its matrices differ from the four-bone path's in the last bits,
//! and [`compose`] gives them bone by bone for [`super::local_to_model_from`].
//!
//! Hand-written with `std::arch`: the compiler neither merges two groups nor pairs
//! matrix columns in one register. The `unsafe` is the calls into the
//! `#[target_feature]` functions after the CPU was checked, and the two 32-byte
//! stores of a matrix ([`store`]).
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use glam::{Affine3A, Vec3A};

use crate::transform::SoaTransform;

/// The local → model paths of this module, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Width {
    /// AVX-512F with AVX-512VL, and FMA: the fused form.
    Avx512,
    /// AVX and FMA: the fused form.
    AvxFma,
    /// AVX without FMA: the plain form.
    Avx,
    /// No AVX: the four-bone path.
    FourLane,
}

/// The widest path this CPU has (what [`local_to_model`] takes).
pub(super) fn width() -> Width {
    let fma = is_x86_feature_detected!("fma");
    if fma && is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
        Width::Avx512
    } else if fma && is_x86_feature_detected!("avx") {
        Width::AvxFma
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
        // SAFETY: `with_avx512_fma::pairs` only requires the `avx`, `avx512f`,
        // `avx512vl` and `fma` target features, and the CPU has them (`width` checked
        // them; `avx512f` implies `avx`).
        Width::Avx512 => unsafe { with_avx512_fma::pairs(parents, groups, world) },
        // SAFETY: `with_avx_fma::pairs` only requires the `avx` and `fma` target
        // features, and the CPU has them (`width` checked them).
        Width::AvxFma => unsafe { with_avx_fma::pairs(parents, groups, world) },
        // SAFETY: `with_avx::pairs` only requires the `avx` target feature, and the
        // CPU has it (`width` checked it).
        Width::Avx => unsafe { with_avx::pairs(parents, groups, world) },
        Width::FourLane => super::all_groups_to_model(parents, groups, world),
    }
}

/// `parent * local` as [`local_to_model`] makes it on this CPU: glam's product on the
/// plain paths, the fused form with FMA.
pub(super) fn compose(parent: &Affine3A, local: &Affine3A) -> Affine3A {
    match width() {
        // SAFETY: `compose_fused` only requires the `fma` target feature, and the
        // CPU has it (`width` checked it for these two paths).
        Width::Avx512 | Width::AvxFma => unsafe { compose_fused(parent, local) },
        Width::Avx | Width::FourLane => *parent * *local,
    }
}

/// The fused form for one bone, four lanes wide: the operations of
/// [`with_avx_fma::pairs`] on the same operands in the same order (`[0 | P.t]`'s
/// zero included), so the same bits.
#[target_feature(enable = "fma")]
fn compose_fused(p: &Affine3A, m: &Affine3A) -> Affine3A {
    let (px, py, pz): (__m128, __m128, __m128) =
        (p.x_axis.into(), p.y_axis.into(), p.z_axis.into());
    let splat = |v: f32| _mm_set1_ps(v);
    let column = |c: Vec3A, start: __m128| -> Vec3A {
        _mm_fmadd_ps(
            pz,
            splat(c.z),
            _mm_fmadd_ps(py, splat(c.y), _mm_fmadd_ps(px, splat(c.x), start)),
        )
        .into()
    };
    let first = |c: Vec3A| -> Vec3A {
        _mm_fmadd_ps(
            pz,
            splat(c.z),
            _mm_fmadd_ps(py, splat(c.y), _mm_mul_ps(px, splat(c.x))),
        )
        .into()
    };
    Affine3A::from_cols(
        first(m.x_axis),
        first(m.y_axis),
        column(m.z_axis, _mm_setzero_ps()),
        column(m.translation, p.translation.into()),
    )
}

/// `[x | y]` of a bone's model matrix from its parent's columns (each over both
/// halves) and its splatted local elements, plain: as glam's `Mat3A * Vec3A`,
/// `((x · c.x) + (y · c.y)) + (z · c.z)`, then `[z | t]`, with `+ translation` in
/// the high half only (the low half stays bit for bit).
macro_rules! compose_plain {
    ($px:expr, $py:expr, $pz:expr, $pt:expr, $s:expr) => {{
        let m3 = |cx, cy, cz| {
            _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps($px, cx), _mm256_mul_ps($py, cy)),
                _mm256_mul_ps($pz, cz),
            )
        };
        let zt = m3($s[3], $s[4], $s[5]);
        (
            m3($s[0], $s[1], $s[2]),
            _mm256_blend_ps::<0xF0>(zt, _mm256_add_ps(zt, $pt)),
        )
    }};
}

/// The fused form of [`compose_plain`] (module docs).
macro_rules! compose_fused {
    ($px:expr, $py:expr, $pz:expr, $pt:expr, $s:expr) => {{
        let t_high = _mm256_blend_ps::<0xF0>(_mm256_setzero_ps(), $pt);
        (
            _mm256_fmadd_ps(
                $pz,
                $s[2],
                _mm256_fmadd_ps($py, $s[1], _mm256_mul_ps($px, $s[0])),
            ),
            _mm256_fmadd_ps(
                $pz,
                $s[5],
                _mm256_fmadd_ps($py, $s[4], _mm256_fmadd_ps($px, $s[3], t_high)),
            ),
        )
    }};
}

/// The eight-bone code, compiled for the target features `$features`, composing
/// with `$compose` ([`compose_plain`] or [`compose_fused`]).
macro_rules! eight_wide {
    ($module:ident, $features:literal, $compose:ident) => {
        pub(super) mod $module {
            use std::arch::x86_64::*;

            use glam::{Affine3A, Vec3A};

            use crate::lanes::join;
            use crate::transform::SoaTransform;

            /// Two groups at a time, then the group left over (beside identities).
            #[target_feature(enable = $features)]
            pub(crate) fn pairs(parents: &[i32], groups: &[SoaTransform], world: &mut [Affine3A]) {
                let mut chunks = groups.chunks_exact(2);
                for (pi, pair) in (&mut chunks).enumerate() {
                    if let [g0, g1] = pair {
                        block(parents, world, pi * 8, &local_rows(g0, g1));
                    }
                }
                let last = groups.len() - chunks.remainder().len();
                for g in chunks.remainder() {
                    let rows = local_rows(g, &SoaTransform::IDENTITY);
                    block(parents, world, last * 4, &rows);
                }
            }

            /// Bones `base..base + 8` (those below `world.len()`) from their local
            /// rows: when every one of them has a parent before it, without a root's
            /// branch or a parent's index checked twice.
            #[target_feature(enable = $features)]
            #[inline]
            fn block(parents: &[i32], world: &mut [Affine3A], base: usize, rows: &[__m256; 12]) {
                let lo = row_pairs::<0x20>(rows);
                let hi = row_pairs::<0x31>(rows);
                let s = [
                    splats::<0x00>(&lo),
                    splats::<0x55>(&lo),
                    splats::<0xAA>(&lo),
                    splats::<0xFF>(&lo),
                    splats::<0x00>(&hi),
                    splats::<0x55>(&hi),
                    splats::<0xAA>(&hi),
                    splats::<0xFF>(&hi),
                ];
                if let Some(ps) = super::inner_parents(parents, base, world.len()) {
                    for (j, (p, s)) in ps.into_iter().zip(s).enumerate() {
                        inner(world, base + j, p, s);
                    }
                } else {
                    for (j, s) in s.into_iter().enumerate() {
                        place(parents, world, base + j, s);
                    }
                }
            }

            /// Bone `i`'s model matrix, its parent `parent < i`.
            #[target_feature(enable = $features)]
            #[inline]
            fn inner(world: &mut [Affine3A], i: usize, parent: usize, s: [__m256; 6]) {
                let (done, rest) = world.split_at_mut(i);
                let (xy, zt) = of_parent(&done[parent], s);
                if let Some(slot) = rest.first_mut() {
                    super::store(slot, xy, zt);
                }
            }

            /// Bone `i`'s model matrix: its parent's times its local one, or its local
            /// one for a root; nothing past `world.len()`.
            #[target_feature(enable = $features)]
            #[inline]
            fn place(parents: &[i32], world: &mut [Affine3A], i: usize, s: [__m256; 6]) {
                let m = match crate::pose::parent_of(parents, i, world) {
                    Some(p) => {
                        let (xy, zt) = of_parent(p, s);
                        if let Some(slot) = world.get_mut(i) {
                            super::store(slot, xy, zt);
                        }
                        return;
                    }
                    None => super::root(s),
                };
                if let Some(slot) = world.get_mut(i) {
                    *slot = m;
                }
            }

            /// `[x | y]` and `[z | t]` of `parent * local`, the local elements
            /// splatted (`s = [x.x | y.x]`, `[x.y | y.y]`, `[x.z | y.z]`, `[z.x | t.x]`,
            /// `[z.y | t.y]`, `[z.z | t.z]`).
            #[target_feature(enable = $features)]
            #[inline]
            fn of_parent(p: &Affine3A, s: [__m256; 6]) -> (__m256, __m256) {
                let both = |v: Vec3A| _mm256_set_m128(v.into(), v.into());
                let (px, py, pz) = (both(p.x_axis), both(p.y_axis), both(p.z_axis));
                let pt = both(p.translation);
                $compose!(px, py, pz, pt, s)
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

eight_wide!(with_avx, "avx", compose_plain);
eight_wide!(with_avx_fma, "avx,fma", compose_fused);
// The same instructions with AVX-512's 32 vector registers: fewer values spilled to
// the stack, the same results.
eight_wide!(with_avx512_fma, "avx,avx512f,avx512vl,fma", compose_fused);

/// The parents of bones `base..base + 8` when they all exist and each has a parent
/// before it (so that none is a root).
#[inline(always)]
fn inner_parents(parents: &[i32], base: usize, bone_count: usize) -> Option<[usize; 8]> {
    if base + 8 > bone_count {
        return None;
    }
    let ps = parents.get(base..base + 8)?;
    let mut out = [0usize; 8];
    for ((o, &p), i) in out.iter_mut().zip(ps).zip(base..) {
        *o = usize::try_from(p).ok().filter(|&p| p < i)?;
    }
    Some(out)
}

/// `[x | y]` and `[z | t]` into `slot` as two 32-byte stores, no half moved out of
/// its register.
#[target_feature(enable = "avx")]
#[inline]
fn store(slot: &mut Affine3A, xy: __m256, zt: __m256) {
    let at = std::ptr::from_mut(slot).cast::<f32>();
    // SAFETY: `slot` is a valid, exclusive `Affine3A`: 64 bytes (asserted below),
    // the columns x, y, z and translation, 16 bytes each, in that order (glam's
    // `#[repr(C)] Affine3A { matrix3: Mat3A { x_axis, y_axis, z_axis }, translation }`
    // of `Vec3A`, a 16-byte SIMD vector; the order is tested by
    // `two_stores_write_the_columns_in_order`). Both stores are unaligned, so its
    // 16-byte alignment suffices, and any bits are a valid `f32`.
    unsafe {
        _mm256_storeu_ps(at, xy);
        _mm256_storeu_ps(at.add(8), zt);
    }
}
const _: () = assert!(std::mem::size_of::<Affine3A>() == 64);

/// A root's model matrix: its local matrix, read back from its splatted elements
/// (see `of_parent`; columns with w = 0).
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
    use crate::pose::soa_to_affines;
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
    /// inside and outside the block of eight, blocks with and without a root; counts
    /// that leave partial blocks.
    fn cases() -> Vec<(Vec<i32>, Vec<SoaTransform>)> {
        let mut rng = gom_test_support::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut f = move || rng.signed();
        [1usize, 3, 4, 7, 8, 9, 12, 16, 17, 33, 64, 67]
            .into_iter()
            .map(|n| {
                let parents: Vec<i32> = (0..n as i32)
                    .map(|i| match i % 7 {
                        _ if i == 0 => -1,
                        3 if i < 24 => -1,
                        0..=3 => i - 1,
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
                (parents, groups)
            })
            .collect()
    }

    /// Bone by bone, each composed by `compose` (the reference of a path).
    fn bone_by_bone(
        parents: &[i32],
        groups: &[SoaTransform],
        compose: impl Fn(&Affine3A, &Affine3A) -> Affine3A,
    ) -> Vec<Affine3A> {
        let mut world = vec![Affine3A::IDENTITY; parents.len()];
        for i in 0..parents.len() {
            let m = soa_to_affines(&groups[i / 4])[i % 4];
            world[i] = match usize::try_from(parents[i]) {
                Ok(p) => compose(&world[p], &m),
                Err(_) => m,
            };
        }
        world
    }

    #[test]
    fn the_plain_eight_bone_path_gives_the_four_bone_bits() {
        for (parents, groups) in cases() {
            let n = parents.len();
            let mut plain = vec![Affine3A::IDENTITY; n];
            super::super::all_groups_to_model(&parents, &groups, &mut plain);
            assert_eq!(
                bits(&plain),
                bits(&bone_by_bone(&parents, &groups, |p, m| *p * *m)),
                "{n} bones, four at a time"
            );
            if is_x86_feature_detected!("avx") {
                let mut fast = vec![Affine3A::IDENTITY; n];
                // SAFETY: the CPU has AVX (checked just above).
                unsafe { with_avx::pairs(&parents, &groups, &mut fast) };
                assert_eq!(bits(&fast), bits(&plain), "{n} bones, AVX");
            } else {
                eprintln!("no AVX on this CPU: the AVX path is not run");
            }
        }
    }

    /// The fused paths give, bit for bit, the fused form composed bone by bone
    /// ([`compose_fused`], what `local_to_model_from` uses), and that is within a
    /// few units in the last place of glam's product.
    #[test]
    fn the_fused_paths_give_the_bits_of_the_fused_form_bone_by_bone() {
        if !is_x86_feature_detected!("fma") || !is_x86_feature_detected!("avx") {
            eprintln!("no AVX and FMA on this CPU: the fused paths are not run");
            return;
        }
        for (parents, groups) in cases() {
            let n = parents.len();
            // SAFETY: the CPU has FMA (checked above).
            let fused = bone_by_bone(&parents, &groups, |p, m| unsafe { compose_fused(p, m) });
            let plain = bone_by_bone(&parents, &groups, |p, m| *p * *m);
            for (a, b) in fused.iter().zip(&plain) {
                assert!(
                    a.abs_diff_eq(*b, 1e-4),
                    "{n} bones: fused {a:?}, plain {b:?}"
                );
            }
            let mut fast = vec![Affine3A::IDENTITY; n];
            // SAFETY: the CPU has AVX and FMA (checked above).
            unsafe { with_avx_fma::pairs(&parents, &groups, &mut fast) };
            assert_eq!(bits(&fast), bits(&fused), "{n} bones, AVX with FMA");
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
                let mut fast = vec![Affine3A::IDENTITY; n];
                // SAFETY: the CPU has AVX-512F and VL, and FMA (checked above).
                unsafe { with_avx512_fma::pairs(&parents, &groups, &mut fast) };
                assert_eq!(bits(&fast), bits(&fused), "{n} bones, AVX-512 with FMA");
            } else {
                eprintln!("no AVX-512 on this CPU: that path is not run");
            }
            let mut dispatched = vec![Affine3A::IDENTITY; n];
            local_to_model(&parents, &groups, &mut dispatched);
            let expected = match width() {
                Width::Avx512 | Width::AvxFma => &fused,
                Width::Avx | Width::FourLane => &plain,
            };
            assert_eq!(
                bits(&dispatched),
                bits(expected),
                "{n} bones, {:?}",
                width()
            );
        }
    }

    #[test]
    fn two_stores_write_the_columns_in_order() {
        if !is_x86_feature_detected!("avx") {
            eprintln!("no AVX on this CPU: the stores are not run");
            return;
        }
        let mut slot = Affine3A::IDENTITY;
        let v = |a: f32| [a, a + 1.0, a + 2.0, 0.0];
        // SAFETY: the CPU has AVX (checked above).
        unsafe {
            let (x, y, z, t) = (v(1.0), v(5.0), v(9.0), v(13.0));
            let pair = |a: [f32; 4], b: [f32; 4]| {
                _mm256_setr_ps(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
            };
            store(&mut slot, pair(x, y), pair(z, t));
        }
        let expected = Affine3A::from_cols(
            Vec3A::new(1.0, 2.0, 3.0),
            Vec3A::new(5.0, 6.0, 7.0),
            Vec3A::new(9.0, 10.0, 11.0),
            Vec3A::new(13.0, 14.0, 15.0),
        );
        assert_eq!(slot.to_cols_array(), expected.to_cols_array());
    }
}
