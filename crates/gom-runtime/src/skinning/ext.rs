//! Skinning with the `SKNX` extension (`docs/extensions.md` §3): up to eight
//! influences, dual-quaternion and blended skinning. Per vertex, with slots
//! `(bₖ, wₖ)`, `k < 8`, and dual-quaternion share `α` (0 for linear, 1 for dual
//! quaternion, the vertex's own for blended):
//!
//! ```text
//! linear:   M = Σ wₖ · palette[bₖ];  p' = p·M,  n' = n·(Σ wₖ · normal[bₖ]),  t' = t·M
//! DQ:       q = gom::skinning::blend(dq, b, w);  p' = q.point(p),  n' = q.normal(n),  t' = q.vector(t)
//! blended:  p' = (1 − α) p'_lin + α p'_dq;  n', t' alike from the unit directions
//! ```
//!
//! Directions are made unit at the end; tangents keep w. The dual-quaternion palette
//! comes from the same palette matrices ([`gom::skinning::dual_quat`]: scale taken
//! out per bone, blended linearly and applied first; shear dropped).
//!
//! Three forms compute it: [`scalar`] (plain `f32`, gom's own dual-quaternion maths:
//! the reference), [`wide4`] (glam's four-lane `Vec3A`/`Vec4`, one vertex at a time)
//! and [`lanes`] (eight or sixteen vertices a block as a structure of arrays, by bone
//! where the linear paths are), which the AVX2 and AVX-512 paths compile for their
//! instruction sets.

use glam::{Affine3A, Mat3A, Vec3A, Vec4};
use gom::skinning::{unit, DualQuat};
use gom::SkinningMethod;

use super::scalar::{affine_cols, apply, blend, mat3_cols};
use super::{Job, SkinTargets};
use crate::mesh::{skin_of, vec3a_at};

pub(super) mod lanes;

/// What the extension paths read besides the [`Job`].
#[derive(Clone, Copy)]
pub(crate) struct Ext<'a> {
    pub method: SkinningMethod,
    /// Influences five to eight, six words a vertex, from the first vertex skinned
    /// (empty with four influences).
    pub extra: &'a [f32],
    /// Per vertex, the dual-quaternion share (blended only), from the first vertex.
    pub alpha: &'a [f32],
    /// The dual-quaternion palette (empty for linear).
    pub dq: &'a [DualQuat],
}

/// The slots of vertex `i` (words `v`): bones clamped to the palette, weights, and how
/// many slots there are (4 or 8).
#[inline(always)]
fn slots(job: &Job<'_>, ext: &Ext<'_>, v: &[f32], i: usize) -> ([u16; 8], [f32; 8], usize) {
    let (b, w) = skin_of(v, job.so);
    let mut bones = [0u16; 8];
    let mut weights = [0.0f32; 8];
    bones[..4].copy_from_slice(&b);
    weights[..4].copy_from_slice(&w);
    let n = match ext.extra.get(6 * i..6 * i + 6) {
        Some(e) => {
            let (b, w) = skin_of(e, 0);
            bones[4..].copy_from_slice(&b);
            weights[4..].copy_from_slice(&w);
            8
        }
        None => 4,
    };
    let last = job.last.min(usize::from(u16::MAX)) as u16;
    (bones.map(|x| x.min(last)), weights, n)
}

/// The vertex's dual-quaternion share.
#[inline(always)]
fn alpha(ext: &Ext<'_>, i: usize) -> f32 {
    match ext.method {
        SkinningMethod::Linear => 0.0,
        SkinningMethod::DualQuaternion => 1.0,
        SkinningMethod::Blended => ext.alpha.get(i).copied().unwrap_or(0.0),
    }
}

/// `(1 − α)·lin + α·dq`, or either alone at α = 0 or 1.
#[inline(always)]
fn mixed<T>(
    alpha: f32,
    lin: impl FnOnce() -> T,
    dq: impl FnOnce() -> T,
    mix: fn(T, T, f32) -> T,
) -> T {
    if alpha <= 0.0 {
        lin()
    } else if alpha >= 1.0 {
        dq()
    } else {
        mix(lin(), dq(), alpha)
    }
}

/// The scalar reference.
pub(super) mod scalar {
    use super::*;

    fn mix_unit(a: [f32; 3], b: [f32; 3], alpha: f32) -> [f32; 3] {
        gom::skinning::mix(unit(a), unit(b), alpha)
    }

    /// Skins whole vertices `words` into `out`.
    pub(in crate::skinning) fn skin(
        job: &Job<'_>,
        ext: &Ext<'_>,
        words: &[f32],
        out: SkinTargets<'_>,
    ) {
        let SkinTargets {
            mut positions,
            mut normals,
            mut tangents,
        } = out;
        for (i, v) in words.chunks_exact(job.stride).enumerate() {
            let (b16, w, n) = slots(job, ext, v, i);
            let (b16, w) = (&b16[..n], &w[..n]);
            let b: Vec8 = std::array::from_fn(|k| b16.get(k).map_or(0, |&x| usize::from(x)));
            let b = &b[..n];
            let a = alpha(ext, i);
            let m = blend(b, w, |k| affine_cols(&job.pal[k]));
            let q = (a > 0.0).then(|| gom::skinning::blend(ext.dq, b16, w));
            let q = q.unwrap_or_default();
            if let Some(p) = positions.as_deref_mut().and_then(|o| o.get_mut(i)) {
                let x = [v[0], v[1], v[2]];
                *p = mixed(a, || apply(&m, &x, 1.0), || q.point(x), gom::skinning::mix);
            }
            if let Some(o) = normals.as_deref_mut().and_then(|o| o.get_mut(i)) {
                let x = [v[job.no], v[job.no + 1], v[job.no + 2]];
                let lin = || {
                    let nm = if job.rigid {
                        m
                    } else {
                        blend(b, w, |k| mat3_cols(&job.nrm[k]))
                    };
                    apply(&nm, &x, 0.0)
                };
                *o = unit(mixed(a, lin, || q.normal(x), mix_unit));
            }
            if let Some(t) = tangents.as_deref_mut().and_then(|o| o.get_mut(i)) {
                let x = [v[job.to], v[job.to + 1], v[job.to + 2]];
                let [x0, y0, z0] = unit(mixed(a, || apply(&m, &x, 0.0), || q.vector(x), mix_unit));
                *t = [x0, y0, z0, v[job.to + 3]];
            }
        }
    }

    type Vec8 = [usize; 8];
}

/// The four-lane path.
pub(super) mod wide4 {
    use super::*;

    /// A blended dual quaternion in registers: rotation, dual part, scale.
    struct Dq4 {
        r: Vec4,
        d: Vec4,
        s: Vec3A,
    }

    impl Dq4 {
        fn rotate(&self, v: Vec3A) -> Vec3A {
            let rv = Vec3A::from_vec4(self.r);
            let c = 2.0 * rv.cross(v);
            v + self.r.w * c + rv.cross(c)
        }

        fn point(&self, p: Vec3A) -> Vec3A {
            let rv = Vec3A::from_vec4(self.r);
            let dv = Vec3A::from_vec4(self.d);
            let t = 2.0 * (self.r.w * dv - self.d.w * rv + rv.cross(dv));
            self.rotate(p * self.s) + t
        }

        fn normal(&self, n: Vec3A) -> Vec3A {
            let s = self.s;
            let sign = if s.x * s.y * s.z < 0.0 { -1.0 } else { 1.0 };
            let cof = Vec3A::new(s.y * s.z, s.x * s.z, s.x * s.y) * sign;
            self.rotate(n * cof)
        }
    }

    /// `Σ σₖ wₖ (rₖ, dₖ)` normalised, `Σ wₖ sₖ` (as [`gom::skinning::blend`]).
    fn blend_dq(dq: &[DualQuat], b: &[u16], w: &[f32]) -> Dq4 {
        let at = |k: u16| dq.get(usize::from(k)).copied().unwrap_or_default();
        let first = Vec4::from_array(b.first().map_or(DualQuat::default(), |&k| at(k)).real);
        let (mut r, mut d, mut s) = (Vec4::ZERO, Vec4::ZERO, Vec3A::ZERO);
        for (&bk, &wk) in b.iter().zip(w).filter(|(_, &wk)| wk != 0.0) {
            let q = at(bk);
            let qr = Vec4::from_array(q.real);
            let sw = if qr.dot(first) < 0.0 { -wk } else { wk };
            r += qr * sw;
            d += Vec4::from_array(q.dual) * sw;
            s += Vec3A::from_array(q.scale) * wk;
        }
        let len = r.length();
        let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
        Dq4 {
            r: r * inv,
            d: d * inv,
            s,
        }
    }

    fn blend_affine(pal: &[Affine3A], b: &[u16], w: &[f32]) -> Affine3A {
        let mut m = Affine3A::ZERO;
        for (&bk, &wk) in b.iter().zip(w) {
            let p = &pal[usize::from(bk)];
            let ws = Vec3A::splat(wk);
            m.matrix3.x_axis += p.matrix3.x_axis * ws;
            m.matrix3.y_axis += p.matrix3.y_axis * ws;
            m.matrix3.z_axis += p.matrix3.z_axis * ws;
            m.translation += p.translation * ws;
        }
        m
    }

    fn blend_normal(nrm: &[Mat3A], b: &[u16], w: &[f32]) -> Mat3A {
        let mut m = Mat3A::ZERO;
        for (&bk, &wk) in b.iter().zip(w) {
            let p = &nrm[usize::from(bk)];
            let ws = Vec3A::splat(wk);
            m.x_axis += p.x_axis * ws;
            m.y_axis += p.y_axis * ws;
            m.z_axis += p.z_axis * ws;
        }
        m
    }

    fn mix(a: Vec3A, b: Vec3A, alpha: f32) -> Vec3A {
        a * (1.0 - alpha) + b * alpha
    }

    fn mix_unit(a: Vec3A, b: Vec3A, alpha: f32) -> Vec3A {
        mix(unit3(a), unit3(b), alpha)
    }

    /// `v / |v|`, or zero for a zero vector.
    fn unit3(v: Vec3A) -> Vec3A {
        let l2 = v.length_squared();
        if l2 > 0.0 {
            v * (1.0 / l2.sqrt())
        } else {
            Vec3A::ZERO
        }
    }

    /// Skins whole vertices `words` into `out`.
    pub(in crate::skinning) fn skin(
        job: &Job<'_>,
        ext: &Ext<'_>,
        words: &[f32],
        out: SkinTargets<'_>,
    ) {
        let SkinTargets {
            mut positions,
            mut normals,
            mut tangents,
        } = out;
        for (i, v) in words.chunks_exact(job.stride).enumerate() {
            let (b, w, n) = slots(job, ext, v, i);
            let (b, w) = (&b[..n], &w[..n]);
            let a = alpha(ext, i);
            let m = if a < 1.0 {
                blend_affine(job.pal, b, w)
            } else {
                Affine3A::ZERO
            };
            let q = if a > 0.0 {
                blend_dq(ext.dq, b, w)
            } else {
                Dq4 {
                    r: Vec4::W,
                    d: Vec4::ZERO,
                    s: Vec3A::ONE,
                }
            };
            if let Some(p) = positions.as_deref_mut().and_then(|o| o.get_mut(i)) {
                let x = vec3a_at(v, 0);
                *p = mixed(a, || m.transform_point3a(x), || q.point(x), mix).to_array();
            }
            if let Some(o) = normals.as_deref_mut().and_then(|o| o.get_mut(i)) {
                let x = vec3a_at(v, job.no);
                let lin = || {
                    let nm = if job.rigid {
                        m.matrix3
                    } else {
                        blend_normal(job.nrm, b, w)
                    };
                    nm * x
                };
                *o = unit3(mixed(a, lin, || q.normal(x), mix_unit)).to_array();
            }
            if let Some(t) = tangents.as_deref_mut().and_then(|o| o.get_mut(i)) {
                let x = vec3a_at(v, job.to);
                let lin = || m.matrix3 * x;
                let d = unit3(mixed(a, lin, || q.rotate(x * q.s), mix_unit));
                *t = [d.x, d.y, d.z, v[job.to + 3]];
            }
        }
    }
}
