//! Root motion: how far the root bone moved between two times, for the game to move
//! the character by, and holding the root in place in the pose.
//!
//! Let `M(t)` be the root bone's local rotation and translation at time `t` (scale is
//! not part of root motion), written as a rigid transform in glam's column-vector
//! form. A game that holds the root in place draws the root at `M(0)` and moves the
//! character instead; to look the same as the unmodified clip the character must move
//! by `D(a, b) = M(0) · M(a)⁻¹ · M(b) · M(0)⁻¹` from time `a` to time `b`. These deltas
//! chain (`D(a, b) · D(b, c) = D(a, c)`), so across a loop boundary
//! `D = D(a, end) · D(0, end)ⁿ⁻¹ · D(0, b)` for `n` wraps. Apply a delta as
//! `character = character · D`: `position += rotation * D.translation`,
//! `rotation = rotation * D.rotation`.

use glam::{Quat, Vec3};

use crate::clip::{Clip, Playback};
use crate::pose::LocalPose;

/// A rigid motion: rotate, then translate (glam column-vector composition).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RootMotion {
    /// Translation, in the character's frame at the start of the interval.
    pub translation: Vec3,
    /// Rotation relative to the character's frame at the start.
    pub rotation: Quat,
}

impl Default for RootMotion {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl RootMotion {
    /// No motion.
    pub const IDENTITY: RootMotion = RootMotion {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// This motion followed by `next` (`self · next`).
    pub fn then(&self, next: &RootMotion) -> RootMotion {
        RootMotion {
            translation: self.translation + self.rotation * next.translation,
            rotation: (self.rotation * next.rotation).normalize(),
        }
    }

    /// The motion that undoes this one.
    pub fn inverse(&self) -> RootMotion {
        let r = self.rotation.conjugate();
        RootMotion {
            translation: -(r * self.translation),
            rotation: r,
        }
    }

    /// This motion repeated `n` times (by squaring: O(log n)).
    pub fn pow(&self, mut n: u64) -> RootMotion {
        let mut result = RootMotion::IDENTITY;
        let mut base = *self;
        while n > 0 {
            if n & 1 == 1 {
                result = result.then(&base);
            }
            base = base.then(&base);
            n >>= 1;
        }
        result
    }
}

/// The root bone's transform at `t` (held outside the keys), or `None` without a
/// root track.
fn root_at(clip: &Clip, t: f32) -> Option<RootMotion> {
    let tr = clip.sample_bone(clip.root_bone?, t)?;
    Some(RootMotion {
        translation: tr.translation,
        rotation: tr.rotation,
    })
}

/// `D(a, b)` for times inside the clip (no wrapping).
fn delta(clip: &Clip, m0: &RootMotion, a: f32, b: f32) -> RootMotion {
    let (Some(ma), Some(mb)) = (root_at(clip, a), root_at(clip, b)) else {
        return RootMotion::IDENTITY;
    };
    m0.then(&ma.inverse()).then(&mb).then(&m0.inverse())
}

/// The root motion of `clip` from time `from` to time `to`, or the identity when the
/// clip has no root motion (flag HasRootMotion clear, or no track on the root bone).
///
/// With [`Playback::Loop`], times are unwrapped: from 0.9 to 1.1 in a one-second clip
/// is the motion from 0.9 to the end, then from the start to 0.1. A `to` before `from`
/// gives the inverse motion.
pub fn root_motion(clip: &Clip, from: f32, to: f32, playback: Playback) -> RootMotion {
    if !clip.has_root_motion() || !from.is_finite() || !to.is_finite() {
        return RootMotion::IDENTITY;
    }
    if to < from {
        return root_motion(clip, to, from, playback).inverse();
    }
    let Some(m0) = root_at(clip, 0.0) else {
        return RootMotion::IDENTITY;
    };
    let d = clip.duration;
    if playback == Playback::Once || d <= 0.0 {
        return delta(clip, &m0, from, to);
    }
    let la = clip.local_time(from, Playback::Loop);
    let lb = clip.local_time(to, Playback::Loop);
    let wraps =
        ((f64::from(to) - f64::from(lb)) - (f64::from(from) - f64::from(la))) / f64::from(d);
    let wraps = wraps.round().max(0.0) as u64;
    if wraps == 0 {
        return delta(clip, &m0, la, lb);
    }
    let first = delta(clip, &m0, la, d);
    let cycle = delta(clip, &m0, 0.0, d);
    let last = delta(clip, &m0, 0.0, lb);
    first.then(&cycle.pow(wraps - 1)).then(&last)
}

/// Replaces the root bone's translation and rotation in `pose` by their values at
/// time 0, so that the character stays where [`root_motion`] expects it. Does nothing
/// for a clip without root motion.
pub fn hold_root_in_place(clip: &Clip, pose: &mut LocalPose) {
    if !clip.has_root_motion() {
        return;
    }
    let (Some(root), Some(m0)) = (clip.root_bone, root_at(clip, 0.0)) else {
        return;
    };
    if let Some(mut t) = pose.get(root as usize) {
        t.translation = m0.translation;
        t.rotation = m0.rotation;
        pose.set(root as usize, &t);
    }
}
