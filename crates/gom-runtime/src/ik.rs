//! Inverse kinematics on model-space poses: a two-bone chain reaching for a target
//! ([`two_bone_ik`]: legs, arms) and one joint aiming at a target ([`aim_ik`]: heads,
//! weapons). Both take model-space matrices and return rotations to multiply onto
//! the joints' local rotations (`local.rotation * correction`); [`apply_two_bone_ik`]
//! and [`apply_aim_ik`] do that on a [`LocalPose`] and bring the [`ModelPose`] up to
//! date below the first corrected joint with
//! [`crate::pose::local_to_model_from`]. The parameters mean what ozz-animation's
//! `IKTwoBoneJob` and `IKAimJob` parameters mean.
//!
//! Joint orientations are taken from the model matrices with their scale removed;
//! directions given in a joint's frame (`mid_axis`, `forward`, `up`, `offset`) are in
//! that unscaled frame. The solves use no inverse trigonometry: turns between two
//! directions are built from their half-angle quaternions, and the middle joint's
//! turn from the cosines of its angles (half-angle formulas); only `soften` (an
//! exponential) and a non-zero `twist` (a sine and a cosine) cost a transcendental. No input gives NaN: a zero-length bone, a target on a joint
//! or a non-finite parameter leaves the part of the correction it would define at the
//! identity.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A, Vec4};

use crate::pose::{local_to_model_from, LocalPose, ModelPose};
use crate::skeleton::Skeleton;
use crate::Error;

/// Below this length (model units) a vector has no direction.
const EPSILON: f32 = 1e-6;
/// Two directions whose `1 + cos` is below this are taken as opposite (glam's
/// `from_rotation_arc` threshold).
const OPPOSITE: f32 = 2.0 * f32::EPSILON;

/// The parameters of [`two_bone_ik`], in model space unless said otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneIk {
    /// Where the end joint should be.
    pub target: Vec3,
    /// The direction the middle joint (knee, elbow) bends towards: the chain ends in
    /// the plane of the start→target line and this vector, on its side.
    pub pole: Vec3,
    /// The middle joint's hinge axis, in the middle joint's frame: it bends the chain
    /// by turning about this axis (positive turns open the joint when the axis is
    /// `(start − mid) × (end − mid)`).
    pub mid_axis: Vec3,
    /// How much of the correction to apply, 0 (none) to 1 (all).
    pub weight: f32,
    /// From 0 to 1: the fraction of the chain's length beyond which the reach is
    /// softened, the chain falling gradually behind a target near or past its full
    /// length instead of snapping straight; 1 does not soften.
    pub soften: f32,
    /// A turn of the whole chain about the start→target line, radians.
    pub twist: f32,
}

impl Default for TwoBoneIk {
    fn default() -> Self {
        TwoBoneIk {
            target: Vec3::ZERO,
            pole: Vec3::Y,
            mid_axis: Vec3::Z,
            weight: 1.0,
            soften: 1.0,
            twist: 0.0,
        }
    }
}

/// What [`two_bone_ik`] gives: local corrections of the start and middle joints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneCorrection {
    /// Multiply onto the start joint's local rotation.
    pub start: Quat,
    /// Multiply onto the middle joint's local rotation.
    pub mid: Quat,
    /// Whether the end joint reaches the target (within 1e-3 of the chain's length)
    /// with the full weight.
    pub reached: bool,
}

impl TwoBoneCorrection {
    const NONE: TwoBoneCorrection = TwoBoneCorrection {
        start: Quat::IDENTITY,
        mid: Quat::IDENTITY,
        reached: false,
    };
}

/// A joint's orientation: the columns of its model matrix with their lengths divided
/// out, the first negated when the matrix mirrors (glam's
/// `to_scale_rotation_translation` convention); the identity when a column has no
/// length. Turning vectors with it stands in for extracting a quaternion: the matrix,
/// its transpose and the columns' reciprocal lengths.
struct Frame {
    m: Mat3A,
    t: Mat3A,
    inv: Vec3A,
}

impl Frame {
    const IDENTITY: Frame = Frame {
        m: Mat3A::IDENTITY,
        t: Mat3A::IDENTITY,
        inv: Vec3A::ONE,
    };

    fn of(a: &Affine3A) -> Frame {
        let (m, t) = (a.matrix3, a.matrix3.transpose());
        // The columns' squared lengths, lane by lane: the rows' squares summed.
        let l2 = t.x_axis * t.x_axis + t.y_axis * t.y_axis + t.z_axis * t.z_axis;
        if !(l2.is_finite() && l2.cmpgt(Vec3A::ZERO).all()) {
            return Frame::IDENTITY;
        }
        let mirror = if m.determinant() < 0.0 { -1.0 } else { 1.0 };
        let inv =
            Vec3A::from_array(l2.to_array().map(f32::sqrt)).recip() * Vec3A::new(mirror, 1.0, 1.0);
        if !inv.is_finite() {
            return Frame::IDENTITY;
        }
        Frame { m, t, inv }
    }

    /// `v`, given in the joint's frame, in model space.
    fn to_model(&self, v: Vec3A) -> Vec3A {
        self.m * (v * self.inv)
    }

    /// `v`, given in model space, in the joint's frame.
    fn to_joint(&self, v: Vec3A) -> Vec3A {
        (self.t * v) * self.inv
    }

    /// A model-space turn about the joint as a local correction, `q⁻¹ · turn · q`
    /// for the joint's rotation `q`: the same angle about the axis in the joint's
    /// frame.
    fn local_turn(&self, turn: Quat) -> Quat {
        let v = self.to_joint(Vec3A::new(turn.x, turn.y, turn.z));
        let q = Quat::from_xyzw(v.x, v.y, v.z, turn.w);
        let l2 = q.length_squared();
        if l2.is_finite() && l2 > EPSILON * EPSILON {
            q * l2.sqrt().recip()
        } else {
            Quat::IDENTITY
        }
    }
}

/// The shortest rotation taking direction `from` onto unit `to`; identity when
/// `from` has no direction. The half-angle quaternion `(from × to, |from| + from·to)`
/// normalised, so `from` need not be; opposite directions turn half a turn about a
/// direction perpendicular to both.
fn arc_to(from: Vec3A, to: Vec3A) -> Quat {
    let length = from.length();
    if !(length.is_finite() && length > EPSILON) {
        return Quat::IDENTITY;
    }
    arc_between(from, to, length, to)
}

/// The shortest rotation taking `from` onto the direction of `to`, both with
/// direction, given the product of their lengths `lengths` and `to`'s direction
/// `axis` (used only for opposite directions): `(from × to, lengths + from·to)`
/// normalised, which needs neither length itself.
fn arc_between(from: Vec3A, to: Vec3A, lengths: f32, axis: Vec3A) -> Quat {
    let w = lengths + from.dot(to);
    if w <= OPPOSITE * lengths {
        let axis = axis.any_orthonormal_vector();
        return Quat::from_xyzw(axis.x, axis.y, axis.z, 0.0);
    }
    let v = from.cross(to);
    Quat::from_xyzw(v.x, v.y, v.z, w).normalize()
}

fn direction(v: Vec3A) -> Option<Vec3A> {
    unit(v, v.length())
}

/// `v` of length `length` divided by it, when that is a direction.
fn unit(v: Vec3A, length: f32) -> Option<Vec3A> {
    (length.is_finite() && length > EPSILON).then(|| v * length.recip())
}

/// The turn about unit `axis` taking `a` onto `b`, both taken perpendicular to the
/// axis; `None` when either has no perpendicular part. For `a`, `b` at angle θ the
/// half-angle quaternion is `(a × b, |a||b| + a·b)` normalised, `a × b` along the
/// axis; opposite directions turn half a turn.
fn turn_about(axis: Vec3A, a: Vec3A, b: Vec3A) -> Option<Quat> {
    let (a, b) = (a - axis * a.dot(axis), b - axis * b.dot(axis));
    let (a2, b2) = (a.length_squared(), b.length_squared());
    let usable = |l2: f32| l2.is_finite() && l2 > EPSILON * EPSILON;
    if !(usable(a2) && usable(b2)) {
        return None;
    }
    let ab = (a2 * b2).sqrt();
    let (sin, cos) = (a.cross(b).dot(axis), a.dot(b));
    if ab + cos <= OPPOSITE * ab {
        return Some(Quat::from_xyzw(axis.x, axis.y, axis.z, 0.0));
    }
    let v = axis * sin;
    Some(Quat::from_xyzw(v.x, v.y, v.z, ab + cos).normalize())
}

/// The turn of `sign` times (`θ₁ − θ₀`) about unit `axis`, for the angles θ₀, θ₁ in
/// [0, π] whose cosines are `cos0`, `cos1`: `cos(θ/2)` and `sin(θ/2)` of each by the
/// half-angle formulas, then those of the difference.
fn turn_from_cosines(axis: Vec3A, sign: f32, cos0: f32, cos1: f32) -> Quat {
    let (c0, c1) = (cos0.clamp(-1.0, 1.0), cos1.clamp(-1.0, 1.0));
    let halves = (0.5 * Vec4::new(1.0 + c0, 1.0 - c0, 1.0 + c1, 1.0 - c1)).max(Vec4::ZERO);
    let [c0, s0, c1, s1] = halves.to_array().map(f32::sqrt);
    // cos² + sin² = (c0² + s0²)(c1² + s1²) = 1: a unit quaternion as it is.
    let (cos, sin) = (c1 * c0 + s1 * s0, s1 * c0 - c1 * s0);
    let v = axis * (sign * sin);
    Quat::from_xyzw(v.x, v.y, v.z, cos)
}

/// The turn of `angle` radians about unit `axis`, skipping the sine and cosine of 0.
fn twisted(axis: Vec3A, angle: f32, q: Quat) -> Quat {
    if angle == 0.0 {
        q
    } else {
        Quat::from_axis_angle(axis.into(), angle) * q
    }
}

/// `q` scaled by `weight` along the shorter arc from the identity (slerp).
fn weighted(q: Quat, weight: f32) -> Quat {
    let w = if weight.is_finite() {
        weight.clamp(0.0, 1.0)
    } else {
        0.0
    };
    if w == 0.0 {
        return Quat::IDENTITY;
    }
    if w == 1.0 {
        return q;
    }
    Quat::IDENTITY.slerp(q, w).normalize()
}

/// The distance the chain reaches for, `distance` from the start, with a chain of
/// `length` softened past `soften · length`: `ds + (length − ds)(1 − e^{−(d − ds)/(length − ds)})`,
/// which meets the line `d` with the same slope at `ds` and tends to `length`.
fn softened(distance: f32, length: f32, soften: f32) -> f32 {
    let soften = if soften.is_finite() {
        soften.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let ds = soften * length;
    let range = length - ds;
    if distance <= ds || range <= EPSILON {
        return distance;
    }
    ds + range * (1.0 - (-(distance - ds) / range).exp())
}

/// Corrections that bring the end of the chain `start` → `mid` → `end` (model
/// matrices) to `p.target` (see [`TwoBoneIk`]). The middle joint turns about its
/// hinge so that the start–end distance is the target's (clamped to what the chain
/// can span: an unreachable target leaves the limb straight, pointing at it); then
/// the start joint turns the chain onto the target and about the start→target line
/// so that the middle joint lies towards the pole, plus `twist`.
pub fn two_bone_ik(
    start: &Affine3A,
    mid: &Affine3A,
    end: &Affine3A,
    p: &TwoBoneIk,
) -> TwoBoneCorrection {
    let finite =
        p.target.is_finite() && p.pole.is_finite() && p.mid_axis.is_finite() && p.twist.is_finite();
    if !finite {
        return TwoBoneCorrection::NONE;
    }
    let (s, m, e) = (start.translation, mid.translation, end.translation);
    let target = Vec3A::from(p.target);
    let (u, v) = (s - m, e - m);
    let (upper, lower) = (u.length(), v.length());
    let mid_frame = Frame::of(mid);
    let to_target = target - s;
    let distance = to_target.length();
    // 1. The middle joint: the interior angle that spans the wanted distance.
    let mut mid_turn = Quat::IDENTITY;
    if let Some(axis) = direction(mid_frame.to_model(p.mid_axis.into())) {
        if upper > EPSILON && lower > EPSILON {
            let wanted = softened(distance, upper + lower, p.soften)
                .clamp((upper - lower).abs(), upper + lower);
            let cos_now = u.dot(v) / (upper * lower);
            let cos_wanted =
                (upper * upper + lower * lower - wanted * wanted) / (2.0 * upper * lower);
            let side = if u.cross(v).dot(axis) < 0.0 {
                -1.0
            } else {
                1.0
            };
            mid_turn = turn_from_cosines(axis, side, cos_now, cos_wanted);
        }
    }
    let e_bent = m + mid_turn * v;
    // 2. The start joint: onto the target, then the middle joint towards the pole.
    let mut start_turn = Quat::IDENTITY;
    if let Some(axis) = unit(to_target, distance) {
        let aim = arc_to(e_bent - s, axis);
        start_turn = aim;
        if let Some(turn) = turn_about(axis, aim * (m - s), p.pole.into()) {
            start_turn = turn * start_turn;
        }
        start_turn = twisted(axis, p.twist, start_turn);
    }
    // Model-space turns about each joint → local corrections.
    let c_start = Frame::of(start).local_turn(start_turn);
    let c_mid = mid_frame.local_turn(mid_turn);
    let end_final = s + start_turn * (e_bent - s);
    let tolerance = 1e-3 * (upper + lower).max(EPSILON);
    let reached = p.weight >= 1.0 && (end_final - target).length_squared() <= tolerance * tolerance;
    TwoBoneCorrection {
        start: weighted(c_start, p.weight),
        mid: weighted(c_mid, p.weight),
        reached,
    }
}

/// The parameters of [`aim_ik`]: directions and the offset in the joint's frame,
/// target and pole in model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimIk {
    /// The model-space point to aim at.
    pub target: Vec3,
    /// The joint's aiming direction, in its frame.
    pub forward: Vec3,
    /// The joint's up direction, in its frame: after aiming it is turned about the
    /// aiming line towards `pole`.
    pub up: Vec3,
    /// Where the aiming ray starts, in the joint's frame (eyes of a head, a
    /// weapon's muzzle): the ray `offset + λ·forward` is made to pass through the
    /// target.
    pub offset: Vec3,
    /// The model-space direction the up direction should lean towards.
    pub pole: Vec3,
    /// A turn about the aiming line, radians.
    pub twist: f32,
    /// How much of the correction to apply, 0 to 1.
    pub weight: f32,
}

impl Default for AimIk {
    fn default() -> Self {
        AimIk {
            target: Vec3::ZERO,
            forward: Vec3::X,
            up: Vec3::Y,
            offset: Vec3::ZERO,
            pole: Vec3::Y,
            twist: 0.0,
            weight: 1.0,
        }
    }
}

/// The local correction that turns `joint` (a model matrix) so that its aiming ray
/// passes through `p.target`, its up direction towards `p.pole` about that line,
/// plus `twist`; and whether the ray reaches the target (it cannot when the target
/// is closer to the joint than the ray ever comes: then the offset is ignored).
pub fn aim_ik(joint: &Affine3A, p: &AimIk) -> (Quat, bool) {
    let forward = Vec3A::from(p.forward);
    let f2 = forward.length_squared();
    if !(all_finite(p) && f2.is_finite() && f2 > EPSILON * EPSILON) {
        return (Quat::IDENTITY, false);
    }
    let frame = Frame::of(joint);
    // The target and the pole in the joint's (unscaled) frame.
    let target = frame.to_joint(Vec3A::from(p.target) - joint.translation);
    let pole = frame.to_joint(p.pole.into());
    let offset = Vec3A::from(p.offset);
    let d2 = target.length_squared();
    let d = d2.sqrt();
    // The point of the ray `offset + λ·forward` at the target's distance from the
    // joint (so at that length): the larger root of |offset + λ·forward|² = d², with
    // `forward` as given (its reciprocal squared length off the dependent chain);
    // or the forward direction when the ray never comes that close.
    let of = offset.dot(forward);
    let disc = of * of - f2 * (offset.length_squared() - d2);
    // With it, the product of its length and the target's: d² or |forward|·d.
    let (from, lengths, reached) = if disc >= 0.0 {
        let lambda = (disc.sqrt() - of) * f2.recip();
        (offset + forward * lambda, d2, true)
    } else {
        (forward, (f2 * d2).sqrt(), false)
    };
    let mut turn = Quat::IDENTITY;
    if let Some(axis) = unit(target, d) {
        turn = arc_between(from, target, lengths, axis);
        if let Some(about) = turn_about(axis, turn * Vec3A::from(p.up), pole) {
            turn = about * turn;
        }
        turn = twisted(axis, p.twist, turn);
    }
    let reached = reached && d > EPSILON && p.weight >= 1.0;
    (weighted(turn, p.weight), reached)
}

/// Whether every parameter of `p` the turn depends on is finite: `0·x` is 0 for a
/// finite `x` and NaN otherwise, so one packed comparison of the sum checks them all.
fn all_finite(p: &AimIk) -> bool {
    let zero = |v: Vec3| Vec3A::from(v) * 0.0;
    let sum = zero(p.target)
        + zero(p.forward)
        + zero(p.up)
        + zero(p.offset)
        + zero(p.pole)
        + Vec3A::splat(p.twist * 0.0);
    sum.cmpeq(Vec3A::ZERO).all()
}

/// Every bone of `bones` on the skeleton, and `model` a pose of it.
fn check_bones(
    what: &'static str,
    skeleton: &Skeleton,
    bones: &[usize],
    model: &ModelPose,
) -> Result<(), Error> {
    let bone_count = skeleton.bone_count();
    if let Some(&bone) = bones.iter().find(|&&b| b >= bone_count) {
        return Err(Error::BoneIndex {
            what,
            bone,
            bone_count,
        });
    }
    if model.bone_count() != bone_count {
        return Err(Error::BoneCount {
            what,
            expected: bone_count,
            found: model.bone_count(),
        });
    }
    Ok(())
}

/// Multiplies `correction` onto bone `bone`'s local rotation in `local`.
fn correct(local: &mut LocalPose, bone: usize, correction: Quat) {
    if correction == Quat::IDENTITY {
        return;
    }
    if let Some(mut t) = local.get(bone) {
        t.rotation = (t.rotation * correction).normalize();
        local.set(bone, &t);
    }
}

/// [`two_bone_ik`] on the bones `[start, mid, end]` of `model` (the model pose of
/// `local`): the corrections are multiplied onto `local`'s rotations and `model` is
/// updated below `start`. Returns whether the target was reached.
pub fn apply_two_bone_ik(
    skeleton: &Skeleton,
    [start, mid, end]: [usize; 3],
    p: &TwoBoneIk,
    local: &mut LocalPose,
    model: &mut ModelPose,
) -> Result<bool, Error> {
    check_bones("two_bone_ik", skeleton, &[start, mid, end], model)?;
    let w = model.matrices();
    let c = two_bone_ik(&w[start], &w[mid], &w[end], p);
    correct(local, start, c.start);
    correct(local, mid, c.mid);
    local_to_model_from(skeleton, start, local, model)?;
    Ok(c.reached)
}

/// [`aim_ik`] on bone `bone` of `model` (the model pose of `local`): the correction
/// is multiplied onto `local`'s rotation and `model` is updated below `bone`.
/// Returns whether the aiming ray reaches the target.
pub fn apply_aim_ik(
    skeleton: &Skeleton,
    bone: usize,
    p: &AimIk,
    local: &mut LocalPose,
    model: &mut ModelPose,
) -> Result<bool, Error> {
    check_bones("aim_ik", skeleton, &[bone], model)?;
    let (c, reached) = aim_ik(&model.matrices()[bone], p);
    correct(local, bone, c);
    local_to_model_from(skeleton, bone, local, model)?;
    Ok(reached)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two rotations are the same turn (q and −q alike) within `tol`.
    fn same_turn(a: Quat, b: Quat, tol: f32) -> bool {
        a.dot(b).abs() >= 1.0 - tol
    }

    #[test]
    fn a_frame_turns_vectors_and_corrections_as_the_matrix_rotation_does() {
        let turn = Quat::from_axis_angle(Vec3::new(0.3, -1.0, 0.5).normalize(), 0.9);
        let v = Vec3A::new(0.2, -0.7, 1.3);
        for (scale, rotation) in [
            (Vec3::ONE, Quat::IDENTITY),
            (Vec3::new(2.0, 0.5, 3.0), Quat::from_rotation_y(1.2)),
            (
                Vec3::new(-1.5, 1.0, 0.25),
                Quat::from_euler(glam::EulerRot::XYZ, 0.4, -2.1, 0.7),
            ),
            (Vec3::new(0.01, 0.02, 0.03), Quat::from_rotation_z(-2.9)),
        ] {
            let m = Affine3A::from_scale_rotation_translation(scale, rotation, Vec3::X);
            // glam's own extraction, the way the solves took it before.
            let (_, q, _) = m.to_scale_rotation_translation();
            let frame = Frame::of(&m);
            assert!(
                (frame.to_model(v) - q * v).length() < 1e-5,
                "{scale} {rotation}"
            );
            assert!((frame.to_joint(v) - q.inverse() * v).length() < 1e-5);
            let local = (q.inverse() * turn * q).normalize();
            assert!(same_turn(frame.local_turn(turn), local, 1e-6));
        }
        // No length in a column: the identity frame.
        let flat = Affine3A::from_scale_rotation_translation(
            Vec3::new(1.0, 0.0, 1.0),
            Quat::IDENTITY,
            Vec3::ZERO,
        );
        assert_eq!(Frame::of(&flat).local_turn(turn), turn);
    }

    #[test]
    fn turns_from_cosines_and_about_an_axis_match_their_angles() {
        let axis = Vec3A::new(1.0, 2.0, -0.5).normalize();
        let cosines: [f32; 8] = [-1.0, -0.99, -0.5, 0.0, 0.3, 0.9, 0.9999, 1.0];
        for &c0 in &cosines {
            for &c1 in &cosines {
                for sign in [-1.0, 1.0] {
                    let angle = sign * (c1.acos() - c0.acos());
                    let want = Quat::from_axis_angle(axis.into(), angle);
                    let got = turn_from_cosines(axis, sign, c0, c1);
                    assert!(same_turn(got, want, 1e-6), "{c0} {c1} {sign}");
                }
            }
        }
        // About the axis: from a to b, seen perpendicular to the axis.
        let a = Vec3A::new(0.3, -0.2, 0.9);
        for angle in [-3.0f32, -1.0, 0.0, 0.5, 2.0, std::f32::consts::PI] {
            let b = Quat::from_axis_angle(axis.into(), angle) * a + axis * 0.7;
            let got = turn_about(axis, a, b).unwrap();
            assert!(
                same_turn(got, Quat::from_axis_angle(axis.into(), angle), 1e-6),
                "{angle}"
            );
        }
        assert_eq!(turn_about(axis, axis, a), None);
        // Onto a direction: glam's shortest arc, whatever the length of `from`.
        for from in [a, -axis * 3.0, axis * 0.5, Vec3A::new(-2.0, 0.1, 0.4)] {
            let got = arc_to(from, axis);
            assert!((got * from.normalize() - axis).length() < 1e-5, "{from}");
            let glam = Quat::from_rotation_arc(from.normalize().into(), axis.into());
            assert!(same_turn(got, glam, 1e-6), "{from}");
        }
        assert_eq!(arc_to(Vec3A::ZERO, axis), Quat::IDENTITY);
    }
}
