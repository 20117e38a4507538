//! Skinning beyond GOM v1: the `SKNX` extension (`docs/extensions.md` §3) — a mesh's
//! skinning method (linear, dual quaternion, blended) and influences five to eight —
//! and the dual-quaternion maths every reader, converter and runtime shares.
//!
//! **Layout** of the `SKNX` payload (version 1, a child of `MSH0`, which then sets
//! flags bit 2, [`MESH_FLAG_SKINNING`]):
//!
//! ```text
//! 0   u32 method          0 linear, 1 dual quaternion, 2 blended
//! 4   u32 influenceCount  4 or 8 (not 4 with method 0: that is v1)
//! 8   u32 vertexCount     MSH0's
//! 12  u32 reserved        0
//! 16  influenceCount 8:   vertexCount × (u16 bones[4], f32 weights[4]), slots 4..8
//!     method 2:           vertexCount × f32 dqWeight, each in [0, 1]
//! ```
//!
//! **Maths.** A palette matrix `M = inverseBind · boneWorld` (row vectors, D1) is
//! split as `M = S · R · T`: the scale `s` is the length of each of the first three
//! rows (negated on all three axes when the 3×3 mirrors), `R` the rows divided by
//! it, `T` the last row. Shear, which `S · R` cannot hold, is dropped (a rigid or
//! scaled-but-unsheared bone is exact). A vertex with weights `wₖ` then takes
//!
//! ```text
//! σₖ = sign(rₖ · r₀)                      per-vertex antipodality, against slot 0
//! b = Σ σₖ wₖ (rₖ, dₖ);  r = b.r / |b.r|,  d = b.d / |b.r|
//! s = Σ wₖ sₖ                             scale blended linearly, applied first
//! p' = rotate(r, s ⊙ p) + 2 (r_w d_v − d_w r_v + r_v × d_v)
//! n' = unit(rotate(r, n ⊙ cof(s)))        cof(s) = (s_y s_z, s_x s_z, s_x s_y) · sign(s_x s_y s_z)
//! t' = unit(rotate(r, t ⊙ s)), w kept
//! ```
//!
//! as Maya and ufbx do (scale linearly before the dual quaternion). A blended vertex
//! with dual-quaternion share `α` takes `(1 − α) · linear + α · dual quaternion`
//! (positions; directions are mixed the same way, then renormalised).

use crate::model::{Mat4, MeshPart, SkinningMethod};

/// MSH0 `flags` bit 2: the mesh has a `SKNX` child. GOM v1 makes the bit a reserved
/// one, so a reader that does not know the extension refuses the mesh (D13).
pub const MESH_FLAG_SKINNING: u32 = 1 << 2;
/// Bytes of `SKNX`'s fixed fields.
pub const HEADER_BYTES: usize = 16;
/// Bytes of one vertex's influences five to eight: `u16 bones[4]`, `f32 weights[4]`.
pub const EXTRA_BYTES: usize = 24;

impl SkinningMethod {
    /// Every method, by code.
    pub const ALL: [SkinningMethod; 3] = [
        SkinningMethod::Linear,
        SkinningMethod::DualQuaternion,
        SkinningMethod::Blended,
    ];

    /// The `method` field of `SKNX`.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The method of a `method` field, `None` for an unknown one.
    pub fn from_code(code: u32) -> Option<SkinningMethod> {
        Self::ALL.into_iter().find(|m| m.code() == code)
    }

    /// The method's name in GOMT and messages: `linear`, `dualQuaternion`, `blended`.
    pub const fn name(self) -> &'static str {
        match self {
            SkinningMethod::Linear => "linear",
            SkinningMethod::DualQuaternion => "dualQuaternion",
            SkinningMethod::Blended => "blended",
        }
    }

    /// The method named `name` ([`SkinningMethod::name`]).
    pub fn from_name(name: &str) -> Option<SkinningMethod> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the method uses dual quaternions at all.
    pub const fn uses_dual_quaternions(self) -> bool {
        !matches!(self, SkinningMethod::Linear)
    }
}

/// The `SKNX` payload of `mesh` (empty when it needs no extension), −0.0 written as
/// +0.0 like every float (D13).
pub fn encode(mesh: &MeshPart) -> Vec<u8> {
    if !mesh.uses_skin_extension() {
        return Vec::new();
    }
    let v = &mesh.vertices;
    let n = v.len();
    let extra = v.skin_extra.as_deref();
    let dq = v.dq_weights.as_deref();
    let mut out = Vec::with_capacity(
        HEADER_BYTES + extra.map_or(0, |_| n * EXTRA_BYTES) + dq.map_or(0, |_| 4 * n),
    );
    let influences = if extra.is_some() { 8u32 } else { 4 };
    for x in [mesh.skinning.code(), influences, n as u32, 0] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for s in extra.unwrap_or_default() {
        for b in s.bones {
            out.extend_from_slice(&b.to_le_bytes());
        }
        for w in s.weights {
            out.extend_from_slice(&(w + 0.0).to_le_bytes());
        }
    }
    for &a in dq.unwrap_or_default() {
        out.extend_from_slice(&(a + 0.0).to_le_bytes());
    }
    out
}

/// Whether `a` is a valid dual-quaternion share: finite, within [0, 1].
pub fn dq_weight_ok(a: f32) -> bool {
    (0.0..=crate::limits::MAX_DQ_WEIGHT).contains(&a)
}

/// One bone's dual quaternion with its scale: an entry of the dual-quaternion
/// palette, made from the same palette matrix as linear skinning ([`dual_quat`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualQuat {
    /// Unit rotation quaternion (x, y, z, w).
    pub real: [f32; 4],
    /// Dual part, `½ · (t, 0) ⊗ real`.
    pub dual: [f32; 4],
    /// Per-axis scale, applied before the rotation.
    pub scale: [f32; 3],
}

impl Default for DualQuat {
    fn default() -> Self {
        DualQuat {
            real: [0.0, 0.0, 0.0, 1.0],
            dual: [0.0; 4],
            scale: [1.0; 3],
        }
    }
}

fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `v / |v|`, or zero for a zero vector.
pub fn unit(v: [f32; 3]) -> [f32; 3] {
    let l2 = dot3(v, v);
    if l2 > 0.0 {
        let inv = 1.0 / l2.sqrt();
        v.map(|x| x * inv)
    } else {
        [0.0; 3]
    }
}

/// The unit quaternion of the rotation whose row-vector matrix has rows `u`
/// (Shepperd's method on the largest diagonal term, then normalised).
fn quat_of_rows(u: [[f32; 3]; 3]) -> [f32; 4] {
    // The column-vector matrix is the transpose: c(i, j) = u[j][i].
    let c = |i: usize, j: usize| u[j][i];
    let tr = c(0, 0) + c(1, 1) + c(2, 2);
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            (c(2, 1) - c(1, 2)) / s,
            (c(0, 2) - c(2, 0)) / s,
            (c(1, 0) - c(0, 1)) / s,
            0.25 * s,
        ]
    } else if c(0, 0) > c(1, 1) && c(0, 0) > c(2, 2) {
        let s = (1.0 + c(0, 0) - c(1, 1) - c(2, 2)).max(0.0).sqrt() * 2.0;
        [
            0.25 * s,
            (c(0, 1) + c(1, 0)) / s,
            (c(0, 2) + c(2, 0)) / s,
            (c(2, 1) - c(1, 2)) / s,
        ]
    } else if c(1, 1) > c(2, 2) {
        let s = (1.0 + c(1, 1) - c(0, 0) - c(2, 2)).max(0.0).sqrt() * 2.0;
        [
            (c(0, 1) + c(1, 0)) / s,
            0.25 * s,
            (c(1, 2) + c(2, 1)) / s,
            (c(0, 2) - c(2, 0)) / s,
        ]
    } else {
        let s = (1.0 + c(2, 2) - c(0, 0) - c(1, 1)).max(0.0).sqrt() * 2.0;
        [
            (c(0, 2) + c(2, 0)) / s,
            (c(1, 2) + c(2, 1)) / s,
            0.25 * s,
            (c(1, 0) - c(0, 1)) / s,
        ]
    };
    let l2 = q.iter().map(|x| x * x).sum::<f32>();
    if l2 > 0.0 && l2.is_finite() {
        let inv = 1.0 / l2.sqrt();
        q.map(|x| x * inv)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// The dual quaternion and scale of palette matrix `m` (`p' = p · m`, D1), split as
/// the module says: `m = S · R · T`, shear dropped.
pub fn dual_quat(m: &Mat4) -> DualQuat {
    let row = |i: usize| [m[4 * i], m[4 * i + 1], m[4 * i + 2]];
    let rows = [row(0), row(1), row(2)];
    let mirror = dot3(rows[0], cross(rows[1], rows[2])) < 0.0;
    let sign = if mirror { -1.0 } else { 1.0 };
    let scale = rows.map(|r| sign * dot3(r, r).sqrt());
    let mut u = [[0.0f32; 3]; 3];
    for i in 0..3 {
        u[i] = if scale[i] != 0.0 {
            rows[i].map(|x| x / scale[i])
        } else {
            let mut e = [0.0; 3];
            e[i] = 1.0;
            e
        };
    }
    let r = quat_of_rows(u);
    let t = [m[12], m[13], m[14]];
    let dual = [
        0.5 * (t[0] * r[3] + t[1] * r[2] - t[2] * r[1]),
        0.5 * (-t[0] * r[2] + t[1] * r[3] + t[2] * r[0]),
        0.5 * (t[0] * r[1] - t[1] * r[0] + t[2] * r[3]),
        0.5 * (-t[0] * r[0] - t[1] * r[1] - t[2] * r[2]),
    ];
    DualQuat {
        real: r,
        dual,
        scale,
    }
}

/// The blended, normalised dual quaternion and blended scale of one vertex's
/// influences (`bones` index `palette`; a bone past it counts as the last entry, a
/// slot of weight 0 adds nothing). Slot 0 sets the hemisphere (antipodality per
/// vertex).
pub fn blend(palette: &[DualQuat], bones: &[u16], weights: &[f32]) -> DualQuat {
    let last = palette.len().saturating_sub(1);
    let at = |b: u16| palette.get(usize::from(b).min(last)).copied();
    let first = bones.first().and_then(|&b| at(b)).unwrap_or_default();
    let mut real = [0.0f32; 4];
    let mut dual = [0.0f32; 4];
    let mut scale = [0.0f32; 3];
    for (&b, &w) in bones.iter().zip(weights) {
        let q = at(b).unwrap_or_default();
        let d: f32 = (0..4).map(|k| q.real[k] * first.real[k]).sum();
        let sw = if d < 0.0 { -w } else { w };
        for k in 0..4 {
            real[k] += sw * q.real[k];
            dual[k] += sw * q.dual[k];
        }
        for (s, qs) in scale.iter_mut().zip(q.scale) {
            *s += w * qs;
        }
    }
    let len = real.iter().map(|x| x * x).sum::<f32>().sqrt();
    let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
    DualQuat {
        real: real.map(|x| x * inv),
        dual: dual.map(|x| x * inv),
        scale,
    }
}

impl DualQuat {
    /// `v` rotated by the unit quaternion `real`.
    pub fn rotate(&self, v: [f32; 3]) -> [f32; 3] {
        let [x, y, z, w] = self.real;
        let q = [x, y, z];
        let c = cross(q, v).map(|e| 2.0 * e);
        let cc = cross(q, c);
        [
            v[0] + w * c[0] + cc[0],
            v[1] + w * c[1] + cc[1],
            v[2] + w * c[2] + cc[2],
        ]
    }

    /// The translation `2 (r_w d_v − d_w r_v + r_v × d_v)`.
    pub fn translation(&self) -> [f32; 3] {
        let [rx, ry, rz, rw] = self.real;
        let [dx, dy, dz, dw] = self.dual;
        let c = cross([rx, ry, rz], [dx, dy, dz]);
        [
            2.0 * (rw * dx - dw * rx + c[0]),
            2.0 * (rw * dy - dw * ry + c[1]),
            2.0 * (rw * dz - dw * rz + c[2]),
        ]
    }

    /// A point: scaled, rotated, translated.
    pub fn point(&self, p: [f32; 3]) -> [f32; 3] {
        let s = self.scale;
        let r = self.rotate([p[0] * s[0], p[1] * s[1], p[2] * s[2]]);
        let t = self.translation();
        [r[0] + t[0], r[1] + t[1], r[2] + t[2]]
    }

    /// A normal: by the scale's cofactor, rotated, not renormalised.
    pub fn normal(&self, n: [f32; 3]) -> [f32; 3] {
        let [a, b, c] = self.scale;
        let sign = if a * b * c < 0.0 { -1.0 } else { 1.0 };
        self.rotate([
            n[0] * b * c * sign,
            n[1] * a * c * sign,
            n[2] * a * b * sign,
        ])
    }

    /// A tangent direction: scaled, rotated, not renormalised.
    pub fn vector(&self, t: [f32; 3]) -> [f32; 3] {
        let s = self.scale;
        self.rotate([t[0] * s[0], t[1] * s[1], t[2] * s[2]])
    }
}

/// `(1 − α) · a + α · b`.
pub fn mix(a: [f32; 3], b: [f32; 3], alpha: f32) -> [f32; 3] {
    let k = 1.0 - alpha;
    [
        k * a[0] + alpha * b[0],
        k * a[1] + alpha * b[1],
        k * a[2] + alpha * b[2],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row-vector matrix of scale `s`, then rotation `q`, then translation `t`.
    fn srt(s: [f32; 3], q: [f32; 4], t: [f32; 3]) -> Mat4 {
        crate::math::from_trs(t, q, s)
    }

    fn apply(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|j| p[0] * m[j] + p[1] * m[4 + j] + p[2] * m[8 + j] + m[12 + j])
    }

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter()
            .zip(&b)
            .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
    }

    #[test]
    fn one_bone_moves_a_point_as_its_matrix_does() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        for (s, q) in [
            ([1.0, 1.0, 1.0], [0.0, h, 0.0, h]),
            ([2.0, 0.5, 3.0], [0.6, 0.0, 0.0, 0.8]),
            ([-1.0, -1.0, -1.0], [0.0, 0.0, 1.0, 0.0]),
            ([1.0, 1.0, 1.0], [0.5, 0.5, 0.5, -0.5]),
        ] {
            let m = srt(s, q, [1.0, -2.0, 3.0]);
            let dq = dual_quat(&m);
            let p = [0.3, -0.7, 1.1];
            let got = blend(&[dq], &[0], &[1.0]).point(p);
            assert!(
                close(got, apply(&m, p)),
                "{s:?} {q:?}: {got:?} vs {:?}",
                apply(&m, p)
            );
        }
    }

    #[test]
    fn half_way_between_two_turns_keeps_the_radius() {
        // Bone 0 still, bone 1 turned 90° about +Y: a point at radius 1 from the
        // axis, half on each, stays at radius 1 under DQ (LBS would pull it in to
        // √½) and lies at 45°.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let pal = [
            dual_quat(&srt([1.0; 3], [0.0, 0.0, 0.0, 1.0], [0.0; 3])),
            dual_quat(&srt([1.0; 3], [0.0, h, 0.0, h], [0.0; 3])),
        ];
        let p = blend(&pal, &[0, 1], &[0.5, 0.5]).point([1.0, 0.0, 0.0]);
        assert!(close(p, [h, 0.0, -h]), "{p:?}");
    }

    #[test]
    fn antipodal_quaternions_blend_as_the_same_rotation() {
        // The same turn stored as q and −q: a blend of the two is that turn, not a
        // collapse to zero.
        let q = [0.0, 0.6, 0.0, 0.8];
        let mut a = dual_quat(&srt([1.0; 3], q, [1.0, 0.0, 0.0]));
        let b = DualQuat {
            real: a.real.map(|x| -x),
            dual: a.dual.map(|x| -x),
            ..a
        };
        let p = [0.0, 0.0, 1.0];
        let want = a.point(p);
        a = blend(&[a, b], &[0, 1], &[0.5, 0.5]);
        assert!(close(a.point(p), want));
    }

    #[test]
    fn methods_round_trip_their_codes_and_names() {
        for m in SkinningMethod::ALL {
            assert_eq!(SkinningMethod::from_code(m.code()), Some(m));
            assert_eq!(SkinningMethod::from_name(m.name()), Some(m));
        }
        assert_eq!(SkinningMethod::from_code(3), None);
        assert!(dq_weight_ok(0.0) && dq_weight_ok(1.0));
        assert!(!dq_weight_ok(f32::NAN) && !dq_weight_ok(-0.1) && !dq_weight_ok(1.5));
    }
}
