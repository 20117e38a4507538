//! A node's local transform from its property values (`ufbxi_get_transform`).

use super::rotation::{euler_to_quat, mul_quat, rotate_vec3, IDENTITY_Q};
use super::{
    POST_ROTATION, PRE_ROTATION, ROTATION, ROTATION_OFFSET, ROTATION_PIVOT, SCALING,
    SCALING_OFFSET, SCALING_PIVOT, TRANSLATION,
};
use super::{Q, V3};
/// Translation, rotation, scale (`ufbx_transform`).
#[derive(Clone, Copy)]
pub(crate) struct Xf {
    pub(crate) t: V3,
    pub(crate) r: Q,
    pub(crate) s: V3,
}

pub(crate) fn is_zero(v: V3) -> bool {
    v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0
}

impl Xf {
    const IDENTITY: Xf = Xf {
        t: [0.0; 3],
        r: IDENTITY_Q,
        s: [1.0; 3],
    };

    pub(crate) fn add_translate(&mut self, v: V3) {
        for (t, v) in self.t.iter_mut().zip(v) {
            *t += v;
        }
    }

    pub(crate) fn sub_translate(&mut self, v: V3) {
        for (t, v) in self.t.iter_mut().zip(v) {
            *t -= v;
        }
    }

    pub(crate) fn mul_scale(&mut self, v: V3) {
        for ((t, s), v) in self.t.iter_mut().zip(&mut self.s).zip(v) {
            *t *= v;
            *s *= v;
        }
    }

    pub(crate) fn mul_scale_real(&mut self, v: f64) {
        for k in 0..3 {
            self.t[k] *= v;
            self.s[k] *= v;
        }
    }

    /// Rotates by `q` after what the transform does (`ufbxi_mul_rotate_quat` without
    /// its identity test).
    fn rotate_by(&mut self, q: Q) {
        self.r = if self.r[3] != 1.0 {
            mul_quat(q, self.r)
        } else {
            q
        };
        if !is_zero(self.t) {
            self.t = rotate_vec3(q, self.t);
        }
    }

    pub(crate) fn mul_rotate_quat(&mut self, q: Q) {
        if q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 1.0 {
            return;
        }
        self.rotate_by(q);
    }

    /// Rotates by Euler angles `v` (degrees) in `order`.
    pub(crate) fn mul_rotate(&mut self, v: V3, order: ufbx::RotationOrder) {
        if !is_zero(v) {
            self.rotate_by(euler_to_quat(v, order));
        }
    }

    /// Rotates by the inverse of Euler angles `v` (degrees) in `order`.
    pub(crate) fn mul_inv_rotate(&mut self, v: V3, order: ufbx::RotationOrder) {
        if !is_zero(v) {
            let q = euler_to_quat(v, order);
            self.rotate_by([-q[0], -q[1], -q[2], q[3]]);
        }
    }

    pub(crate) fn to_ufbx(self) -> ufbx::Transform {
        super::super::mat::transform_of(self.t, self.r, self.s)
    }
}

pub(crate) fn quat(q: &ufbx::Quat) -> Q {
    [q.x, q.y, q.z, q.w]
}

/// What `ufbxi_get_transform` reads of a node besides its properties.
#[derive(Clone, Copy)]
pub(crate) struct NodeConsts {
    pub(crate) order: ufbx::RotationOrder,
    use_rotation_space: bool,
    has_adjust: bool,
    adjust_pre_translation: V3,
    adjust_pre_rotation: Q,
    adjust_pre_scale: f64,
    adjust_post_rotation: Q,
    adjust_post_scale: f64,
    adjust_translation_scale: f64,
    /// 0 for none, else the mirrored axis 1..=3.
    mirror_axis: usize,
}

impl NodeConsts {
    pub(crate) fn of(node: &ufbx::Node) -> NodeConsts {
        let v = |v: &ufbx::Vec3| [v.x, v.y, v.z];
        NodeConsts {
            order: node.rotation_order,
            use_rotation_space: node.use_rotation_space,
            has_adjust: node.has_adjust_transform,
            adjust_pre_translation: v(&node.adjust_pre_translation),
            adjust_pre_rotation: quat(&node.adjust_pre_rotation),
            adjust_pre_scale: node.adjust_pre_scale,
            adjust_post_rotation: quat(&node.adjust_post_rotation),
            adjust_post_scale: node.adjust_post_scale,
            adjust_translation_scale: node.adjust_translation_scale,
            mirror_axis: node.adjust_mirror_axis as usize,
        }
    }
}

impl NodeConsts {
    /// Whether [`get_transform`] of this node reduces to [`plain_transform`]: no
    /// rotation space and (in `p`, which must hold at every time) no pivot and no
    /// offset.
    pub(crate) fn is_plain(&self, p: &[V3; 9]) -> bool {
        !self.use_rotation_space
            && [
                SCALING_PIVOT,
                ROTATION_PIVOT,
                SCALING_OFFSET,
                ROTATION_OFFSET,
            ]
            .iter()
            .all(|&k| p[k].iter().all(|v| v.to_bits() == 0))
    }
}

/// [`get_transform`] of a node for which [`NodeConsts::is_plain`] holds, with the
/// same result bit for bit: there the pivots and offsets only add and subtract `+0.0`
/// to a translation that is zero until `T` is added (which turns a `-0.0` into `+0.0`,
/// done here once), and the rotation is `R` in XYZ order.
pub(crate) fn plain_transform(p: &[V3; 9], n: &NodeConsts) -> Xf {
    let mut t = Xf::IDENTITY;
    if n.has_adjust {
        t.mul_rotate_quat(n.adjust_post_rotation);
        t.mul_scale_real(n.adjust_post_scale);
    }
    t.mul_scale(p[SCALING]);
    t.t = t.t.map(|v| v + 0.0);
    t.mul_rotate(p[ROTATION], ufbx::RotationOrder::Xyz);
    t.add_translate(p[TRANSLATION]);
    if n.has_adjust {
        adjust_pre(&mut t, n);
    }
    mirror(&mut t, n);
    t
}

/// The adjustments applied after the node's own transform.
fn adjust_pre(t: &mut Xf, n: &NodeConsts) {
    t.add_translate(n.adjust_pre_translation);
    t.mul_rotate_quat(n.adjust_pre_rotation);
    t.mul_scale_real(n.adjust_pre_scale);
    for k in 0..3 {
        t.t[k] *= n.adjust_translation_scale;
    }
}

/// The mirror of the handedness change (`adjust_mirror_axis`).
fn mirror(t: &mut Xf, n: &NodeConsts) {
    if (1..=3).contains(&n.mirror_axis) {
        let a = n.mirror_axis;
        t.t[a - 1] = -t.t[a - 1];
        t.r[a % 3] = -t.r[a % 3];
        t.r[(a + 1) % 3] = -t.r[(a + 1) % 3];
    }
}

/// The local transform from property values (`ufbxi_get_transform`): `T * Roff * Rp *
/// Rpre * R * Rpost⁻¹ * Rp⁻¹ * Soff * Sp * S * Sp⁻¹`, then the node's adjustments.
pub(crate) fn get_transform(p: &[V3; 9], n: &NodeConsts, translation_scale: Option<V3>) -> Xf {
    let mut translation = p[TRANSLATION];
    if let Some(s) = translation_scale {
        for k in 0..3 {
            translation[k] *= s[k];
        }
    }
    let mut t = Xf::IDENTITY;
    if n.has_adjust {
        t.mul_rotate_quat(n.adjust_post_rotation);
        t.mul_scale_real(n.adjust_post_scale);
    }
    t.sub_translate(p[SCALING_PIVOT]);
    t.mul_scale(p[SCALING]);
    t.add_translate(p[SCALING_PIVOT]);
    t.add_translate(p[SCALING_OFFSET]);
    t.sub_translate(p[ROTATION_PIVOT]);
    if n.use_rotation_space {
        t.mul_inv_rotate(p[POST_ROTATION], ufbx::RotationOrder::Xyz);
        t.mul_rotate(p[ROTATION], n.order);
        t.mul_rotate(p[PRE_ROTATION], ufbx::RotationOrder::Xyz);
    } else {
        t.mul_rotate(p[ROTATION], ufbx::RotationOrder::Xyz);
    }
    t.add_translate(p[ROTATION_PIVOT]);
    t.add_translate(p[ROTATION_OFFSET]);
    t.add_translate(translation);
    if n.has_adjust {
        adjust_pre(&mut t, n);
    }
    mirror(&mut t, n);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random value in [-2, 2) (xorshift).
    fn rng(seed: &mut u64) -> f64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 11) as f64 / (1u64 << 51) as f64 - 2.0
    }

    #[test]
    fn plain_transform_is_get_transform_bit_for_bit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let unit = |seed: &mut u64| {
            let q = [rng(seed), rng(seed), rng(seed), rng(seed)];
            let l = q.iter().map(|v| v * v).sum::<f64>().sqrt();
            q.map(|v| v / l)
        };
        for case in 0..2000 {
            let mut p = [[0.0; 3]; 9];
            for k in [TRANSLATION, ROTATION, SCALING, PRE_ROTATION, POST_ROTATION] {
                p[k] = [0, 1, 2].map(|_| rng(&mut seed) * 90.0);
            }
            // Zero and negative-zero components reach the sign-of-zero cases.
            match case % 4 {
                0 => p[TRANSLATION] = [-0.0, 0.0, -0.0],
                1 => p[ROTATION] = [0.0; 3],
                2 => p[SCALING][1] = -p[SCALING][1],
                _ => {}
            }
            let n = NodeConsts {
                order: ufbx::RotationOrder::Zyx,
                use_rotation_space: false,
                has_adjust: case % 3 != 0,
                adjust_pre_translation: [0, 1, 2].map(|_| rng(&mut seed)),
                adjust_pre_rotation: if case % 5 == 0 {
                    IDENTITY_Q
                } else {
                    unit(&mut seed)
                },
                adjust_pre_scale: rng(&mut seed),
                adjust_post_rotation: if case % 7 == 0 {
                    IDENTITY_Q
                } else {
                    unit(&mut seed)
                },
                adjust_post_scale: rng(&mut seed),
                adjust_translation_scale: rng(&mut seed),
                mirror_axis: case % 4,
            };
            assert!(n.is_plain(&p));
            let (a, b) = (plain_transform(&p, &n), get_transform(&p, &n, None));
            let bits = |x: &Xf| {
                [x.t.as_slice(), x.r.as_slice(), x.s.as_slice()]
                    .concat()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&a), bits(&b), "case {case}");
        }
        // A pivot, an offset or the rotation space is not plain.
        let mut p = [[0.0; 3]; 9];
        p[ROTATION_PIVOT] = [0.0, -0.0, 0.0];
        let n = NodeConsts {
            order: ufbx::RotationOrder::Xyz,
            use_rotation_space: false,
            has_adjust: false,
            adjust_pre_translation: [0.0; 3],
            adjust_pre_rotation: IDENTITY_Q,
            adjust_pre_scale: 1.0,
            adjust_post_rotation: IDENTITY_Q,
            adjust_post_scale: 1.0,
            adjust_translation_scale: 1.0,
            mirror_axis: 0,
        };
        assert!(!n.is_plain(&p));
        p[ROTATION_PIVOT] = [0.0; 3];
        assert!(n.is_plain(&p));
        assert!(!NodeConsts {
            use_rotation_space: true,
            ..n
        }
        .is_plain(&p));
    }
}
