//! Cross-fading two local poses.

use glam::Vec4;

use crate::pose::LocalPose;
use crate::Error;

/// Blends `a` and `b` into `out`: bone `i` gets weight `w = weight * mask[i]` (or
/// `weight` without a mask) toward `b`. Translation and scale are interpolated
/// linearly; rotation by normalised lerp along the shorter arc. Where `w` is 0 the
/// result is `a` exactly; where it is 1, `b` exactly. Missing mask entries count as 0.
pub fn blend(
    a: &LocalPose,
    b: &LocalPose,
    weight: f32,
    mask: Option<&[f32]>,
    out: &mut LocalPose,
) -> Result<(), Error> {
    let n = a.bone_count();
    if b.bone_count() != n {
        return Err(Error::BoneCount {
            what: "blend",
            expected: n,
            found: b.bone_count(),
        });
    }
    out.resize(n);
    let weight = if weight.is_nan() { 0.0 } else { weight };
    for (gi, ((ga, gb), go)) in a
        .groups()
        .iter()
        .zip(b.groups())
        .zip(out.groups_mut())
        .enumerate()
    {
        let w = lane_weights(weight, mask, gi);
        let is_a = w.cmpeq(Vec4::ZERO);
        let is_b = w.cmpeq(Vec4::ONE);
        let lerp = |x: Vec4, y: Vec4| Vec4::select(is_a, x, Vec4::select(is_b, y, x + (y - x) * w));
        for c in 0..3 {
            go.translation[c] = lerp(ga.translation[c], gb.translation[c]);
            go.scale[c] = lerp(ga.scale[c], gb.scale[c]);
        }
        let (qa, qb) = (&ga.rotation, &gb.rotation);
        let dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        let sign = Vec4::select(dot.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
        let wa = Vec4::ONE - w;
        let wb = w * sign;
        let q: [Vec4; 4] = std::array::from_fn(|c| qa[c] * wa + qb[c] * wb);
        let len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        let inv = Vec4::select(
            len2.cmpgt(Vec4::ZERO),
            crate::sampling::sqrt4(len2).recip(),
            Vec4::ONE,
        );
        for c in 0..4 {
            go.rotation[c] = Vec4::select(is_a, qa[c], Vec4::select(is_b, qb[c], q[c] * inv));
        }
    }
    Ok(())
}

/// The weights of group `gi`'s four bones: `weight` times their mask entries
/// (missing entries and NaN count as 0), or `weight` without a mask.
pub(crate) fn lane_weights(weight: f32, mask: Option<&[f32]>, gi: usize) -> Vec4 {
    match mask {
        None => Vec4::splat(weight),
        Some(m) => {
            let at = |l: usize| {
                let v = m.get(gi * 4 + l).copied().unwrap_or(0.0);
                if v.is_nan() {
                    0.0
                } else {
                    v * weight
                }
            };
            Vec4::new(at(0), at(1), at(2), at(3))
        }
    }
}
