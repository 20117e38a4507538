//! Sampling compressed clips (`CLPZ`, `docs/extensions.md`): the decoding itself is
//! `gom::compressed::decode`; this module keeps, per sampling context, the two frames
//! around the last time sampled, so that forward playback decodes one new frame per
//! frame step and a seek decodes two, without any scan.

use std::borrow::Cow;

use glam::Vec4;
use gom::compressed::decode::Decoder;
use gom::compressed::{ChannelClass, Kind, Layout};

use crate::pose::LocalPose;
use crate::skeleton::Skeleton;
use crate::transform::Transform;
use crate::Error;

/// A compressed clip's samples: the payload (in place or owned) and what decoding
/// needs from it, read once.
#[derive(Debug, Clone)]
pub struct CompressedClip<'a> {
    payload: Cow<'a, [u8]>,
    decoder: Decoder,
    /// Per animated channel: its bone and kind.
    animated: Vec<(u32, Kind)>,
    /// Per constant channel: its bone, kind and value.
    constants: Vec<(u32, Kind, [f32; 4])>,
    /// The skeleton's bind-local transforms, which default channels decode to, when
    /// the clip was built with its skeleton ([`CompressedClip::with_bind`]).
    bind: Vec<Transform>,
}

impl<'a> CompressedClip<'a> {
    /// Checks a `CLPZ` payload for a skeleton of `bone_count` bones (every rule of
    /// `docs/extensions.md` §2, bounds of the decoded values included).
    pub fn new(payload: Cow<'a, [u8]>, bone_count: u32) -> Result<Self, gom::error::ReadError> {
        let layout = Layout::parse(&payload, 0, bone_count)?;
        Ok(Self::trusted(payload, &layout))
    }

    /// Builds from a payload whose layout the reader already checked.
    pub(crate) fn trusted(payload: Cow<'a, [u8]>, layout: &Layout) -> Self {
        let channels = layout.channels(&payload);
        let animated = channels
            .iter()
            .filter(|c| c.class == ChannelClass::Animated)
            .map(|c| (c.bone, c.kind))
            .collect();
        let constants = channels
            .iter()
            .filter(|c| c.class == ChannelClass::Constant)
            .map(|c| (c.bone, c.kind, layout.constant(&payload, c.index)))
            .collect();
        let decoder = Decoder::new(layout, &payload);
        CompressedClip {
            payload,
            decoder,
            animated,
            constants,
            bind: Vec::new(),
        }
    }

    /// Records the skeleton's bind-local transforms, which [`crate::Clip::sample_bone`]
    /// uses for default channels (the sampler takes them from the skeleton it is
    /// given).
    pub(crate) fn with_bind(mut self, skeleton: &Skeleton) -> Self {
        self.bind = skeleton.bind_local().to_vec();
        self
    }

    /// Whether bone `bone` has a stored channel.
    pub(crate) fn stores(&self, bone: u32) -> bool {
        self.animated.iter().any(|c| c.0 == bone) || self.constants.iter().any(|c| c.0 == bone)
    }

    /// The checked layout: frame count, settings, channel counts.
    pub fn layout(&self) -> &Layout {
        self.decoder.layout()
    }

    /// The payload bytes.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// Whether the payload is read in place from the file's bytes.
    pub fn is_in_place(&self) -> bool {
        matches!(self.payload, Cow::Borrowed(_))
    }

    /// The frame pair and blend factor for a local time: `x = time × rate`, clamped
    /// to the frames.
    fn frames_at(&self, time: f32, rate: f32) -> (u32, u32, f32) {
        let last = self.layout().frame_count - 1;
        let x = time * rate;
        if x.is_nan() || x <= 0.0 {
            return (0, 0, 0.0);
        }
        if x >= last as f32 {
            return (last, last, 0.0);
        }
        let f0 = x as u32;
        (f0, (f0 + 1).min(last), x - f0 as f32)
    }

    /// Bone `bone` at local time `time`, without a cache (tools, root motion).
    /// Default channels are the bind-local values recorded by
    /// [`CompressedClip::with_bind`], or the identity's without them.
    pub(crate) fn sample_bone(&self, bone: u32, time: f32, rate: f32) -> Transform {
        let mut cache = Cache::default();
        let (f0, f1, a) = self.frames_at(time, rate);
        cache.load(self, f0, f1);
        let mut out = self
            .bind
            .get(bone as usize)
            .copied()
            .unwrap_or(Transform::IDENTITY);
        for (bn, kind, v) in &self.constants {
            if *bn == bone {
                set_channel(&mut out, *kind, *v);
            }
        }
        for (i, (bn, kind)) in self.animated.iter().enumerate() {
            if *bn == bone {
                let v = blend(*kind, cache.a[i], cache.b[i], a);
                set_channel(&mut out, *kind, v);
            }
        }
        out
    }
}

fn set_channel(t: &mut Transform, kind: Kind, v: [f32; 4]) {
    match kind {
        Kind::Translation => t.translation = glam::Vec3::new(v[0], v[1], v[2]),
        Kind::Scale => t.scale = glam::Vec3::new(v[0], v[1], v[2]),
        Kind::Rotation => t.rotation = glam::Quat::from_array(v),
    }
}

/// Linear blend of translation and scale; normalised lerp along the shorter arc for
/// rotations. `a = 0` gives `x` bit for bit.
#[inline(always)]
fn blend(kind: Kind, x: [f32; 4], y: [f32; 4], a: f32) -> [f32; 4] {
    if a == 0.0 {
        return x;
    }
    let (vx, mut vy) = (Vec4::from_array(x), Vec4::from_array(y));
    if kind == Kind::Rotation {
        if vx.dot(vy) < 0.0 {
            vy = -vy;
        }
        let v = vx + (vy - vx) * a;
        // Both are unit and on one side: |v| ≥ √½.
        return (v * (1.0 / v.length())).to_array();
    }
    (vx + (vy - vx) * a).to_array()
}

/// Translation and scale blended linearly, rotation by normalised lerp along the
/// shorter arc.
#[inline(always)]
fn lerp(x: &Transform, y: &Transform, a: f32) -> Transform {
    let (qx, mut qy) = (Vec4::from(x.rotation), Vec4::from(y.rotation));
    if qx.dot(qy) < 0.0 {
        qy = -qy;
    }
    let q = qx + (qy - qx) * a;
    Transform {
        translation: x.translation.lerp(y.translation, a),
        rotation: glam::Quat::from_vec4(q * (1.0 / q.length())),
        scale: x.scale.lerp(y.scale, a),
    }
}

/// The decoded frames around the last time sampled, and the pose every sample starts
/// from (bind-local values and the clip's constants).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cache {
    key: (u64, u64),
    fa: Option<u32>,
    fb: Option<u32>,
    a: Vec<[f32; 4]>,
    b: Vec<[f32; 4]>,
    /// Every bone at frames `fa` and `fb` (bind, constants, then the decoded channels).
    pose_a: Vec<Transform>,
    pose_b: Vec<Transform>,
}

impl Cache {
    /// Makes `a` hold frame `f0` and `b` frame `f1`, decoding only what it lacks.
    fn load(&mut self, clip: &CompressedClip<'_>, f0: u32, f1: u32) {
        let n = clip.animated.len();
        if self.a.len() != n {
            self.a = vec![[0.0; 4]; n];
            self.b = vec![[0.0; 4]; n];
            self.fa = None;
            self.fb = None;
        }
        if self.fa != Some(f0) && self.fb != Some(f0) && f1 != f0 {
            clip.decoder
                .decode_pair(&clip.payload, f0, f1, &mut self.a, &mut self.b);
            scatter(clip, &self.a, &mut self.pose_a);
            scatter(clip, &self.b, &mut self.pose_b);
            self.fa = Some(f0);
            self.fb = Some(f1);
            return;
        }
        if self.fa != Some(f0) {
            if self.fb == Some(f0) {
                std::mem::swap(&mut self.a, &mut self.b);
                std::mem::swap(&mut self.pose_a, &mut self.pose_b);
                self.fb = None;
            } else {
                clip.decoder.decode_frame(&clip.payload, f0, &mut self.a);
                scatter(clip, &self.a, &mut self.pose_a);
            }
            self.fa = Some(f0);
        }
        if self.fb != Some(f1) {
            clip.decoder.decode_frame(&clip.payload, f1, &mut self.b);
            scatter(clip, &self.b, &mut self.pose_b);
            self.fb = Some(f1);
        }
    }
}

/// Writes decoded channel values into a pose.
fn scatter(clip: &CompressedClip<'_>, values: &[[f32; 4]], pose: &mut [Transform]) {
    for (&(bone, kind), v) in clip.animated.iter().zip(values) {
        if let Some(t) = pose.get_mut(bone as usize) {
            set_channel(t, kind, *v);
        }
    }
}

/// Samples a compressed clip at local time `time` into `out` (every bone).
pub(crate) fn sample(
    clip: &CompressedClip<'_>,
    ids: (u64, u64),
    rate: f32,
    skeleton: &Skeleton,
    time: f32,
    cache: &mut Cache,
    out: &mut LocalPose,
) -> Result<(), Error> {
    let n = skeleton.bone_count();
    if clip.layout().bone_count as usize != n {
        return Err(Error::BoneCount {
            what: "compressed clip",
            expected: clip.layout().bone_count as usize,
            found: n,
        });
    }
    if cache.key != ids {
        let mut base = skeleton.bind_local().to_vec();
        for (bone, kind, v) in &clip.constants {
            if let Some(t) = base.get_mut(*bone as usize) {
                set_channel(t, *kind, *v);
            }
        }
        *cache = Cache {
            key: ids,
            pose_a: base.clone(),
            pose_b: base,
            ..Cache::default()
        };
    }
    let (f0, f1, a) = clip.frames_at(time, rate);
    cache.load(clip, f0, f1);
    out.resize(n);
    let (pa, pb) = (&cache.pose_a[..n], &cache.pose_b[..n]);
    for (g, group) in out.groups_mut().iter_mut().enumerate() {
        for l in 0..4 {
            let i = 4 * g + l;
            if i >= n {
                break;
            }
            let t = if a == 0.0 {
                pa[i]
            } else {
                lerp(&pa[i], &pb[i], a)
            };
            group.set(l, &t);
        }
    }
    Ok(())
}
