//! The extension's AVX2 and AVX-512 paths: `L` vertices a block (8 or 16) as a
//! structure of arrays, one lane a vertex.
//!
//! Per block:
//! 1. The linear blend `M = Σ wₖ · palette[bₖ]` (and the normal matrices' blend), one
//!    matrix element of every vertex per [`F`]. A block of a four-influence mesh that
//!    [`crate::skin_blocks`] keeps by bone gets it bone by bone, `M[e] = Σ_b W_b ·
//!    P[b][e]`, as the linear paths do; any other block blends each vertex's packed
//!    columns (sixteen floats, one vector operation an influence) and spreads them
//!    into the lanes.
//! 2. The dual-quaternion blend likewise: by bone, each bone's weights negated in the
//!    lanes whose slot-0 bone's rotation lies in the other hemisphere (antipodality
//!    per vertex, as [`gom::skinning::blend`]); any other block blends vertex by vertex
//!    with [`gom::skinning::blend`] itself.
//! 3. Points, normals and tangents transformed both ways in the lanes, and per lane
//!    the linear result (α ≤ 0), the dual-quaternion one (α ≥ 1) or their mix kept:
//!    the scalar reference's formulas in its order of operations, so that only the
//!    blend's sums (by bone) are ordered differently.
//!
//! A part no vertex of the block needs is skipped (the linear blend of a
//! dual-quaternion mesh, the dual-quaternion blend of a linear one). The vertices past
//! the last whole block go through the four-lane extension path.
//!
//! Written once over plain arrays: every function is `#[inline(always)]` and the AVX2
//! and AVX-512 modules call [`skin`] from a function compiled for their instruction
//! set, where the compiler turns each loop over the lanes into 256- or 512-bit
//! instructions. A hand-written `std::arch` copy per instruction set would say the
//! same arithmetic twice, and this needs no `unsafe`; the crates that wrap SIMD types
//! (`wide`, `glam`) choose their instructions when the crate is compiled, not per
//! function, so inside a runtime-dispatched function they would stay at SSE2.

use std::ops::{Add, Mul, Neg, Sub};

use gom::skinning::DualQuat;

use super::{alpha, slots, Ext};
use crate::palette::PackedBone;
use crate::skin_blocks::{Weights16, SKIN_BLOCK};
use crate::skinning::{split_targets, Job, SkinTargets};

/// One `f32` per vertex of the block.
#[derive(Clone, Copy)]
struct F<const L: usize>([f32; L]);

impl<const L: usize> F<L> {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        F([x; L])
    }

    /// `f` of every lane (a plain loop: `std::array::from_fn` calls its closure out of
    /// line, one call a lane).
    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f32) -> Self {
        let mut r = [0.0; L];
        #[allow(clippy::needless_range_loop)]
        // An index loop vectorises; an iterator over an array by value did not.
        for l in 0..L {
            r[l] = f(l);
        }
        F(r)
    }

    /// `self + a·b`, as the scalar code writes it (a multiply, then an add).
    #[inline(always)]
    fn add_mul(self, a: F<L>, b: f32) -> Self {
        F::from_fn(|l| self.0[l] + a.0[l] * b)
    }
}

macro_rules! lane_op {
    ($trait:ident, $f:ident, $op:tt) => {
        impl<const L: usize> $trait for F<L> {
            type Output = F<L>;
            #[inline(always)]
            fn $f(self, o: F<L>) -> F<L> {
                F::from_fn(|l| self.0[l] $op o.0[l])
            }
        }
    };
}
lane_op!(Add, add, +);
lane_op!(Sub, sub, -);
lane_op!(Mul, mul, *);

impl<const L: usize> Neg for F<L> {
    type Output = F<L>;
    #[inline(always)]
    fn neg(self) -> F<L> {
        F::from_fn(|l| -self.0[l])
    }
}

/// A vector of three lanes' worth.
type V3<const L: usize> = [F<L>; 3];

// Three components are written out, each an `#[inline(always)]` call, rather than
// built by a closure called three times: such a closure, sixteen lanes of arithmetic,
// is left out of line, and every call then passes its lanes through memory.

/// Three arrays of lanes as a [`V3`].
#[inline(always)]
fn lanes3<const L: usize>([x, y, z]: [[f32; L]; 3]) -> V3<L> {
    [F(x), F(y), F(z)]
}

/// A [`V3`] as three arrays of lanes.
#[inline(always)]
fn raw3<const L: usize>([x, y, z]: V3<L>) -> [[f32; L]; 3] {
    [x.0, y.0, z.0]
}

/// `a·b` per component.
#[inline(always)]
fn mul3<const L: usize>(a: &V3<L>, b: &V3<L>) -> V3<L> {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}

/// A blend's matrix elements, `3·column + row` (columns x, y, z, translation).
type M12<const L: usize> = [F<L>; 12];

/// Where element `3·column + row` sits in a packed bone's sixteen floats.
const fn packed_at(e: usize) -> usize {
    4 * (e / 3) + e % 3
}

/// The blended dual quaternions of the lanes: rotation, dual part, scale.
struct Dq<const L: usize> {
    r: [F<L>; 4],
    d: [F<L>; 4],
    s: V3<L>,
}

/// What the block's vertices name: slots, their count and the dual-quaternion share.
struct Slots<const L: usize> {
    bones: [[u16; 8]; L],
    weights: [[f32; 8]; L],
    count: [usize; L],
    alpha: [f32; L],
}

/// What a path does with its own hand-written code: `load(v, stride, o)`, words
/// `o..o + 3` of the block's vertices `v` as lanes (word `o + 3` exists: the skin
/// comes last); `store(out, k, lanes)`, the lanes into block `k` of `out`;
/// `blend(v, extra, normal)`, the linear blend of a block not kept by bone, from its
/// vertices `v` and their influences five to eight `extra` (empty with four), or
/// `None` to blend here.
pub(in crate::skinning) struct Io<Load, Store, Blend> {
    pub load: Load,
    pub store: Store,
    pub blend: Blend,
}

/// [`Io`]'s three parts, called.
pub(in crate::skinning) trait PathIo<const L: usize> {
    fn load(&self, v: &[f32], stride: usize, o: usize) -> [[f32; L]; 3];
    fn store(&self, out: &mut [f32], k: usize, lanes: [[f32; L]; 3]);
    fn blend(&self, v: &[f32], extra: &[f32], normal: bool) -> Option<[[f32; L]; 12]>;
}

impl<const L: usize, Load, Store, Blend> PathIo<L> for Io<Load, Store, Blend>
where
    Load: Fn(&[f32], usize, usize) -> [[f32; L]; 3],
    Store: Fn(&mut [f32], usize, [[f32; L]; 3]),
    Blend: Fn(&[f32], &[f32], bool) -> Option<[[f32; L]; 12]>,
{
    #[inline(always)]
    fn load(&self, v: &[f32], stride: usize, o: usize) -> [[f32; L]; 3] {
        (self.load)(v, stride, o)
    }

    #[inline(always)]
    fn store(&self, out: &mut [f32], k: usize, lanes: [[f32; L]; 3]) {
        (self.store)(out, k, lanes)
    }

    #[inline(always)]
    fn blend(&self, v: &[f32], extra: &[f32], normal: bool) -> Option<[[f32; L]; 12]> {
        (self.blend)(v, extra, normal)
    }
}

/// Skins whole vertices `words` into `out`, `L` at a time.
#[inline(always)]
pub(in crate::skinning) fn skin<const L: usize>(
    job: &Job<'_>,
    ext: &Ext<'_>,
    (words, out): (&[f32], SkinTargets<'_>),
    io: &impl PathIo<L>,
) {
    const { assert!(SKIN_BLOCK.is_multiple_of(L)) };
    let whole = if job.packed.is_empty() {
        0
    } else {
        words.len() / job.stride / L * L
    };
    let (head, tail) = split_targets(out, whole);
    let (head_words, tail_words) = words.split_at(whole * job.stride);
    blocks::<L>(job, ext, (head_words, head), io);
    let rest = Ext {
        extra: ext.extra.get(6 * whole..).unwrap_or(&[]),
        alpha: ext.alpha.get(whole..).unwrap_or(&[]),
        ..*ext
    };
    super::wide4::skin(job, &rest, tail_words, tail);
}

/// Whole blocks of `L` vertices.
#[inline(always)]
fn blocks<const L: usize>(
    job: &Job<'_>,
    ext: &Ext<'_>,
    (words, out): (&[f32], SkinTargets<'_>),
    io: &impl PathIo<L>,
) {
    let Some(top) = job.packed.len().checked_sub(1) else {
        return;
    };
    let packed = &job.packed[..=job.last.min(top)];
    let SkinTargets {
        mut positions,
        mut normals,
        mut tangents,
    } = out;
    let normal_matrices = !job.rigid && normals.is_some();
    let zero = [F::splat(0.0); 12];
    for (k, v) in words.chunks_exact(L * job.stride).enumerate() {
        let first = k * L;
        let s = read_slots::<L>(job, ext, v, first);
        let any_linear = s.alpha.iter().any(|&a| a < 1.0);
        let any_dq = s.alpha.iter().any(|&a| a > 0.0);
        // By bone only for four influences: the blocks describe slots 0–3.
        let by_bone = match ext.extra.is_empty() {
            true => job
                .blocks
                .get(first / SKIN_BLOCK)
                .and_then(|&b| job.by_bone_of(b))
                .map(|(bones, weights)| (bones, weights, first % SKIN_BLOCK)),
            false => None,
        };
        let extra = ext.extra.get(6 * first..6 * (first + L)).unwrap_or(&[]);
        // A macro, not a closure called twice: see `avx512::blocks`.
        macro_rules! linear {
            ($normal:expr) => {
                match (any_linear, by_bone) {
                    (false, _) => zero,
                    (true, Some(b)) => linear_by_bone::<L>(packed, b, $normal),
                    (true, None) => match io.blend(v, extra, $normal) {
                        Some(m) => m.map(F),
                        None => linear_by_vertex::<L>(packed, &s, $normal),
                    },
                }
            };
        }
        let m = linear!(false);
        let nm = if normal_matrices { linear!(true) } else { m };
        let q = match (any_dq, by_bone) {
            (false, _) => Dq {
                r: [F::splat(0.0); 4],
                d: [F::splat(0.0); 4],
                s: [F::splat(0.0); 3],
            },
            (true, Some(b)) => dq_by_bone::<L>(ext.dq, &s, b),
            (true, None) => dq_by_vertex::<L>(ext.dq, &s),
        };
        let a = F(s.alpha);
        if let Some(o) = positions.as_deref_mut() {
            let x = lanes3(io.load(v, job.stride, 0));
            let lin = apply(&m, &x, true);
            let r = choose(a, lin, || q.point(&x), mix);
            io.store(o.as_flattened_mut(), k, raw3(r));
        }
        if let Some(o) = normals.as_deref_mut() {
            let x = lanes3(io.load(v, job.stride, job.no));
            let lin = apply(&nm, &x, false);
            let r = choose(a, lin, || q.normal(&x), mix_unit);
            io.store(o.as_flattened_mut(), k, raw3(unit(&r)));
        }
        if let Some(o) = tangents.as_deref_mut() {
            let x = load3::<L>(v, job.stride, job.to);
            let lin = apply(&m, &x, false);
            let r = unit(&choose(a, lin, || q.vector(&x), mix_unit));
            let w = F::<L>::from_fn(|l| v.get(l * job.stride + job.to + 3).copied().unwrap_or(0.0));
            if let Some(dst) = o.get_mut(first..first + L) {
                for (l, d) in dst.iter_mut().enumerate() {
                    *d = [r[0].0[l], r[1].0[l], r[2].0[l], w.0[l]];
                }
            }
        }
    }
}

/// The slots of the block's vertices (`first`: the block's first vertex).
#[inline(always)]
fn read_slots<const L: usize>(job: &Job<'_>, ext: &Ext<'_>, v: &[f32], first: usize) -> Slots<L> {
    let mut s = Slots {
        bones: [[0; 8]; L],
        weights: [[0.0; 8]; L],
        count: [4; L],
        alpha: [0.0; L],
    };
    for (l, vertex) in v.chunks_exact(job.stride).take(L).enumerate() {
        let (b, w, n) = slots(job, ext, vertex, first + l);
        s.bones[l] = b;
        s.weights[l] = w;
        s.count[l] = n;
        s.alpha[l] = alpha(ext, first + l);
    }
    s
}

/// The block's blended matrices (`normal`: the normal matrices), bone by bone from
/// the block's distinct bones, its weights starting at lane `offset` of each
/// [`Weights16`]. Bones past the palette are clamped to its last.
#[inline(always)]
fn linear_by_bone<const L: usize>(
    packed: &[PackedBone],
    (bones, weights, offset): (&[u16], &[Weights16], usize),
    normal: bool,
) -> M12<L> {
    let last = packed.len() - 1;
    let mut m = [F::splat(0.0); 12];
    for (&bone, w) in bones.iter().zip(weights) {
        let w = lanes_of::<L>(w, offset);
        let p = &packed[usize::from(bone).min(last)];
        let p = if normal { &p.n } else { &p.m };
        for (e, m) in m.iter_mut().enumerate() {
            *m = m.add_mul(w, p[packed_at(e)]);
        }
    }
    m
}

/// `W_b` of lanes `offset..offset + L`.
#[inline(always)]
fn lanes_of<const L: usize>(w: &Weights16, offset: usize) -> F<L> {
    F::from_fn(|l| w.0.get(offset + l).copied().unwrap_or(0.0))
}

/// The block's blended matrices vertex by vertex: `Σ wₖ · P[bₖ]` over the packed
/// sixteen floats in slot order (the scalar path's order), then spread into lanes.
#[inline(always)]
fn linear_by_vertex<const L: usize>(packed: &[PackedBone], s: &Slots<L>, normal: bool) -> M12<L> {
    let mut m = [F::splat(0.0); 12];
    for l in 0..L {
        let mut acc = [0.0f32; 16];
        let n = s.count[l].min(8);
        for (&b, &w) in s.bones[l][..n].iter().zip(&s.weights[l][..n]) {
            let p = &packed[usize::from(b).min(packed.len() - 1)];
            let p = if normal { &p.n } else { &p.m };
            for (a, &x) in acc.iter_mut().zip(p) {
                *a += w * x;
            }
        }
        for (e, m) in m.iter_mut().enumerate() {
            m.0[l] = acc[packed_at(e)];
        }
    }
    m
}

/// The palette's entry for bone `b`, clamped to its last (as [`gom::skinning::blend`]).
#[inline(always)]
fn dq_at(dq: &[DualQuat], b: u16) -> DualQuat {
    dq.get(usize::from(b).min(dq.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

/// The block's blended dual quaternions, vertex by vertex with
/// [`gom::skinning::blend`].
#[inline(always)]
fn dq_by_vertex<const L: usize>(dq: &[DualQuat], s: &Slots<L>) -> Dq<L> {
    let mut q = Dq {
        r: [F::splat(0.0); 4],
        d: [F::splat(0.0); 4],
        s: [F::splat(0.0); 3],
    };
    for l in 0..L {
        let n = s.count[l].min(8);
        let b = gom::skinning::blend(dq, &s.bones[l][..n], &s.weights[l][..n]);
        for c in 0..4 {
            q.r[c].0[l] = b.real[c];
            q.d[c].0[l] = b.dual[c];
        }
        for c in 0..3 {
            q.s[c].0[l] = b.scale[c];
        }
    }
    q
}

/// The block's blended dual quaternions bone by bone: each bone's weights of the
/// lanes, negated where its rotation and the lane's slot-0 bone's have a negative
/// dot product; then normalised by the rotation's length as
/// [`gom::skinning::blend`] does.
#[inline(always)]
fn dq_by_bone<const L: usize>(
    dq: &[DualQuat],
    s: &Slots<L>,
    (bones, weights, offset): (&[u16], &[Weights16], usize),
) -> Dq<L> {
    let mut f = [F::<L>::splat(0.0); 4];
    for l in 0..L {
        let first = dq_at(dq, s.bones[l][0]).real;
        for c in 0..4 {
            f[c].0[l] = first[c];
        }
    }
    let mut q = Dq {
        r: [F::splat(0.0); 4],
        d: [F::splat(0.0); 4],
        s: [F::splat(0.0); 3],
    };
    for (&bone, w) in bones.iter().zip(weights) {
        let w = lanes_of::<L>(w, offset);
        let b = dq_at(dq, bone);
        let dot = (0..4).fold(F::splat(0.0), |d, c| d.add_mul(f[c], b.real[c]));
        let sw = F::from_fn(|l| if dot.0[l] < 0.0 { -w.0[l] } else { w.0[l] });
        for c in 0..4 {
            q.r[c] = q.r[c].add_mul(sw, b.real[c]);
            q.d[c] = q.d[c].add_mul(sw, b.dual[c]);
        }
        for c in 0..3 {
            q.s[c] = q.s[c].add_mul(w, b.scale[c]);
        }
    }
    let len2 = q.r[0] * q.r[0] + q.r[1] * q.r[1] + q.r[2] * q.r[2] + q.r[3] * q.r[3];
    let inv = F::<L>::from_fn(|l| {
        let len = len2.0[l].sqrt();
        if len > 0.0 {
            1.0 / len
        } else {
            0.0
        }
    });
    for c in 0..4 {
        q.r[c] = q.r[c] * inv;
        q.d[c] = q.d[c] * inv;
    }
    q
}

/// `a × b`.
#[inline(always)]
fn cross<const L: usize>(a: &V3<L>, b: &V3<L>) -> V3<L> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl<const L: usize> Dq<L> {
    /// As [`DualQuat::rotate`].
    #[inline(always)]
    fn rotate(&self, v: &V3<L>) -> V3<L> {
        let [x, y, z, w] = self.r;
        let q = [x, y, z];
        let c = cross(&q, v);
        let two = F::splat(2.0);
        let c = [two * c[0], two * c[1], two * c[2]];
        let cc = cross(&q, &c);
        [
            v[0] + w * c[0] + cc[0],
            v[1] + w * c[1] + cc[1],
            v[2] + w * c[2] + cc[2],
        ]
    }

    /// As [`DualQuat::point`].
    #[inline(always)]
    fn point(&self, p: &V3<L>) -> V3<L> {
        let r = self.rotate(&mul3(p, &self.s));
        let [rx, ry, rz, rw] = self.r;
        let [dx, dy, dz, dw] = self.d;
        let c = cross(&[rx, ry, rz], &[dx, dy, dz]);
        let t = [
            (rw * dx - dw * rx),
            (rw * dy - dw * ry),
            (rw * dz - dw * rz),
        ];
        let two = F::splat(2.0);
        [
            r[0] + two * (t[0] + c[0]),
            r[1] + two * (t[1] + c[1]),
            r[2] + two * (t[2] + c[2]),
        ]
    }

    /// As [`DualQuat::normal`].
    #[inline(always)]
    fn normal(&self, n: &V3<L>) -> V3<L> {
        let [a, b, c] = self.s;
        let sign = F::from_fn(|l| {
            if a.0[l] * b.0[l] * c.0[l] < 0.0 {
                -1.0
            } else {
                1.0
            }
        });
        self.rotate(&[
            n[0] * b * c * sign,
            n[1] * a * c * sign,
            n[2] * a * b * sign,
        ])
    }

    /// As [`DualQuat::vector`].
    #[inline(always)]
    fn vector(&self, t: &V3<L>) -> V3<L> {
        self.rotate(&mul3(t, &self.s))
    }
}

/// `x·c0 + y·c1 + z·c2 (+ c3 for a point)` of the lanes' matrices `m`.
#[inline(always)]
fn apply<const L: usize>(m: &M12<L>, v: &V3<L>, point: bool) -> V3<L> {
    [
        apply_row(m, v, point, 0),
        apply_row(m, v, point, 1),
        apply_row(m, v, point, 2),
    ]
}

/// Row `r` of [`apply`].
#[inline(always)]
fn apply_row<const L: usize>(m: &M12<L>, v: &V3<L>, point: bool, r: usize) -> F<L> {
    let d = v[0] * m[r] + v[1] * m[3 + r] + v[2] * m[6 + r];
    if point {
        d + m[9 + r]
    } else {
        d
    }
}

/// `(1 − α)·a + α·b`.
#[inline(always)]
fn mix<const L: usize>(a: V3<L>, b: V3<L>, alpha: F<L>) -> V3<L> {
    let k = F::splat(1.0) - alpha;
    [
        k * a[0] + alpha * b[0],
        k * a[1] + alpha * b[1],
        k * a[2] + alpha * b[2],
    ]
}

/// `mix` of the unit directions.
#[inline(always)]
fn mix_unit<const L: usize>(a: V3<L>, b: V3<L>, alpha: F<L>) -> V3<L> {
    mix(unit(&a), unit(&b), alpha)
}

/// `v / |v|` per lane, zero for a zero vector.
#[inline(always)]
fn unit<const L: usize>(v: &V3<L>) -> V3<L> {
    let l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let inv = F::<L>::from_fn(|l| {
        if l2.0[l] > 0.0 {
            1.0 / l2.0[l].sqrt()
        } else {
            0.0
        }
    });
    [
        scaled_or_zero(v[0], inv, l2),
        scaled_or_zero(v[1], inv, l2),
        scaled_or_zero(v[2], inv, l2),
    ]
}

/// `x·inv` where `l2 > 0`, else 0.
#[inline(always)]
fn scaled_or_zero<const L: usize>(x: F<L>, inv: F<L>, l2: F<L>) -> F<L> {
    F::from_fn(|l| {
        if l2.0[l] > 0.0 {
            x.0[l] * inv.0[l]
        } else {
            0.0
        }
    })
}

/// Per lane, `lin` (α ≤ 0), `dq()` (α ≥ 1) or `mix(lin, dq(), α)`; `dq` is evaluated
/// only when some lane has α > 0.
#[inline(always)]
fn choose<const L: usize>(
    alpha: F<L>,
    lin: V3<L>,
    dq: impl FnOnce() -> V3<L>,
    mix: fn(V3<L>, V3<L>, F<L>) -> V3<L>,
) -> V3<L> {
    let a = alpha.0;
    if a.iter().all(|&a| a <= 0.0) {
        return lin;
    }
    let dq = dq();
    if a.iter().all(|&a| a >= 1.0) {
        return dq;
    }
    let m = mix(lin, dq, alpha);
    [
        pick(alpha, lin[0], dq[0], m[0]),
        pick(alpha, lin[1], dq[1], m[1]),
        pick(alpha, lin[2], dq[2], m[2]),
    ]
}

/// Per lane, `lin` (α ≤ 0), `dq` (α ≥ 1) or `mixed`.
#[inline(always)]
fn pick<const L: usize>(alpha: F<L>, lin: F<L>, dq: F<L>, mixed: F<L>) -> F<L> {
    // Two selects, each one instruction a register (a match with guards is left as
    // branches).
    let low = F::<L>::from_fn(|l| {
        if alpha.0[l] <= 0.0 {
            lin.0[l]
        } else {
            mixed.0[l]
        }
    });
    F::from_fn(|l| if alpha.0[l] >= 1.0 { dq.0[l] } else { low.0[l] })
}

/// Words `o..o + 3` of the block's vertices as three lanes.
#[inline(always)]
fn load3<const L: usize>(v: &[f32], stride: usize, o: usize) -> V3<L> {
    [
        load(v, stride, o),
        load(v, stride, o + 1),
        load(v, stride, o + 2),
    ]
}

/// Word `o` of the block's vertices as lanes.
#[inline(always)]
fn load<const L: usize>(v: &[f32], stride: usize, o: usize) -> F<L> {
    F::from_fn(|l| v.get(l * stride + o).copied().unwrap_or(0.0))
}
