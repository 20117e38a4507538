//! Adding an additive clip's pose (deltas, `docs/extensions.md` §5) on top of a pose.

use glam::Vec4;

use crate::pose::LocalPose;
use crate::Error;

/// Adds the deltas `additive` (a pose sampled from an additive clip) to `base` into
/// `out`: bone `i` with weight `w = weight * mask[i]` (or `weight` without a mask)
/// gets translation `base.t + w·d.t`, rotation `base.r ⊗ nlerp(1, d.r, w)` (along the
/// shorter arc) and scale `base.s ⊙ (1 + w·(d.s − 1))`. Where `w` is 0 the result is
/// `base` exactly; with `w = 1` and `base` the clip's reference pose, it is the
/// clip's pose. Missing mask entries and NaN count as 0; weights outside [0, 1]
/// extrapolate. Four bones at a time, as [`crate::blend()`].
pub fn blend_additive(
    base: &LocalPose,
    additive: &LocalPose,
    weight: f32,
    mask: Option<&[f32]>,
    out: &mut LocalPose,
) -> Result<(), Error> {
    let n = base.bone_count();
    if additive.bone_count() != n {
        return Err(Error::BoneCount {
            what: "additive blend",
            expected: n,
            found: additive.bone_count(),
        });
    }
    out.resize(n);
    let weight = if weight.is_nan() { 0.0 } else { weight };
    for (gi, ((gb, gd), go)) in base
        .groups()
        .iter()
        .zip(additive.groups())
        .zip(out.groups_mut())
        .enumerate()
    {
        let w = crate::blend::lane_weights(weight, mask, gi);
        let keep = w.cmpeq(Vec4::ZERO);
        for c in 0..3 {
            let t = gb.translation[c] + gd.translation[c] * w;
            go.translation[c] = Vec4::select(keep, gb.translation[c], t);
            let s = gb.scale[c] * (Vec4::ONE + (gd.scale[c] - Vec4::ONE) * w);
            go.scale[c] = Vec4::select(keep, gb.scale[c], s);
        }
        // nlerp(identity, d, w), d turned to w ≥ 0 (the shorter arc).
        let d = &gd.rotation;
        let sign = Vec4::select(d[3].cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
        let sw = sign * w;
        let q = [
            d[0] * sw,
            d[1] * sw,
            d[2] * sw,
            Vec4::ONE + (d[3] * sign - Vec4::ONE) * w,
        ];
        let len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        let inv = Vec4::select(
            len2.cmpgt(Vec4::ZERO),
            crate::sampling::sqrt4(len2).recip(),
            Vec4::ONE,
        );
        let q = q.map(|c| c * inv);
        let r = mul4(&gb.rotation, &q);
        for (o, (b, r)) in go.rotation.iter_mut().zip(gb.rotation.iter().zip(r)) {
            *o = Vec4::select(keep, *b, r);
        }
    }
    Ok(())
}

/// The Hamilton products `a ⊗ b` of four (x, y, z, w) quaternion pairs.
#[inline]
pub(crate) fn mul4(a: &[Vec4; 4], b: &[Vec4; 4]) -> [Vec4; 4] {
    let [ax, ay, az, aw] = *a;
    let [bx, by, bz, bw] = *b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}
