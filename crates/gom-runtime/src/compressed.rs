//! Sampling compressed clips (`CLPZ`, `docs/extensions.md`). The decoding arithmetic
//! is `gom::compressed::decode`'s; this module keeps, per sampling context, the segment
//! last entered made ready for decoding (`segment::Segment`) and the two frames
//! around the last time sampled, as structure-of-arrays groups of four bones, so that
//! forward playback decodes one new frame per frame step and a seek decodes two,
//! without any scan; the pose is then blended four bones at a time.

use std::borrow::Cow;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod segment;

use segment::{slot, Frame, Segment, GROUP_FLOATS};

use glam::{BVec4A, Vec4};
use gom::compressed::decode::Decoder;
use gom::compressed::{ChannelClass, Kind, Layout};

use crate::pose::LocalPose;
use crate::skeleton::Skeleton;
use crate::transform::{SoaTransform, Transform};
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
    /// Per animated channel: what decoding needs of it.
    channels: Vec<segment::ChannelInfo>,
    /// The decoding plan: which frame float each decoded lane goes to.
    lanes: segment::Lanes,
    /// Per group of four bones, which of its channels move.
    motion: Vec<GroupMotion>,
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
        let animated: Vec<(u32, Kind)> = channels
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
        let channels = channel_infos(layout, &payload, &animated);
        let lanes = segment::Lanes::new(&channels, scratch_slot(layout));
        let motion = GroupMotion::of(&animated, layout.bone_count);
        CompressedClip {
            payload,
            decoder,
            animated,
            constants,
            channels,
            lanes,
            motion,
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

    /// Floats in a decoded [`Frame`]: the bones' groups and one scratch group.
    fn frame_floats(&self) -> usize {
        (self.layout().bone_count as usize).div_ceil(4) * GROUP_FLOATS + GROUP_FLOATS
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
        let (f0, f1, a) = self.frames_at(time, rate);
        let n = self.animated.len();
        let (mut va, mut vb) = (vec![[0.0f32; 4]; n], vec![[0.0f32; 4]; n]);
        self.decoder
            .decode_pair(&self.payload, f0, f1, &mut va, &mut vb);
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
                let v = blend(*kind, va[i], vb[i], a);
                set_channel(&mut out, *kind, v);
            }
        }
        out
    }
}

/// The first float of a frame's scratch group, after the bones' groups.
fn scratch_slot(layout: &Layout) -> u32 {
    (layout.bone_count.div_ceil(4) as usize * GROUP_FLOATS) as u32
}

/// What decoding needs of each animated channel (`animated`: their bones and kinds).
fn channel_infos(
    layout: &Layout,
    payload: &[u8],
    animated: &[(u32, Kind)],
) -> Vec<segment::ChannelInfo> {
    animated
        .iter()
        .enumerate()
        .map(|(c, &(bone, kind))| {
            let (min, ext) = layout.range(payload, c as u32);
            segment::ChannelInfo {
                bone,
                min,
                ext,
                field: match kind {
                    Kind::Translation => 0,
                    Kind::Rotation => 3,
                    Kind::Scale => 7,
                },
                rotation: kind == Kind::Rotation,
            }
        })
        .collect()
}

fn set_channel(t: &mut Transform, kind: Kind, v: [f32; 4]) {
    match kind {
        Kind::Translation => t.translation = glam::Vec3::new(v[0], v[1], v[2]),
        Kind::Scale => t.scale = glam::Vec3::new(v[0], v[1], v[2]),
        Kind::Rotation => t.rotation = glam::Quat::from_array(v),
    }
}

/// Linear blend of translation and scale; normalised lerp along the shorter arc for
/// rotations. `a = 0` gives `x` bit for bit. The same operations in the same order
/// as [`blend_group`] on one lane, so both give the same bits.
#[inline(always)]
fn blend(kind: Kind, x: [f32; 4], y: [f32; 4], a: f32) -> [f32; 4] {
    if a == 0.0 {
        return x;
    }
    let lerp = |x: f32, y: f32| x + (y - x) * a;
    if kind == Kind::Rotation {
        let dot = x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
        let y = if dot < 0.0 { y.map(|v| -v) } else { y };
        let v = [0, 1, 2, 3].map(|k| lerp(x[k], y[k]));
        // Both are unit and on one side: |v| ≥ √½.
        let inv = 1.0 / (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]).sqrt();
        return v.map(|c| c * inv);
    }
    [0, 1, 2, 3].map(|k| lerp(x[k], y[k]))
}

/// Which lanes of a group of four bones have an animated translation, rotation and
/// scale; [`blend_group`] blends only those (the others hold the same value in both
/// frames, which it keeps as it is, as [`CompressedClip::sample_bone`] does).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GroupMotion {
    lanes: [BVec4A; 3],
    any: [bool; 3],
}

impl GroupMotion {
    /// Per group of four bones of a skeleton of `bones` bones, its motion under the
    /// animated channels `animated` (bone and kind).
    fn of(animated: &[(u32, Kind)], bones: u32) -> Vec<GroupMotion> {
        let mut lanes = vec![[[false; 4]; 3]; bones.div_ceil(4) as usize];
        for &(bone, kind) in animated {
            let k = match kind {
                Kind::Translation => 0,
                Kind::Rotation => 1,
                Kind::Scale => 2,
            };
            if let Some(g) = lanes.get_mut(bone as usize / 4) {
                g[k][bone as usize % 4] = true;
            }
        }
        lanes
            .into_iter()
            .map(|g| GroupMotion {
                lanes: g.map(BVec4A::from_array),
                any: g.map(|l| l.contains(&true)),
            })
            .collect()
    }
}

/// Four bones of frame `x` blended towards frame `y` by `a` into `g`, where `motion`
/// says they move (see [`blend`], which does the same per lane); elsewhere, and for
/// `a = 0`, `x` bit for bit.
#[inline(always)]
fn blend_group(
    x: &[f32; GROUP_FLOATS],
    y: &[f32; GROUP_FLOATS],
    a: f32,
    motion: &GroupMotion,
    g: &mut SoaTransform,
) {
    blend_linear(x, y, a, motion, g);
    let fx: [Vec4; 4] = std::array::from_fn(|m| field(x, 3 + m));
    if a == 0.0 || !motion.any[1] {
        g.rotation = fx;
        return;
    }
    let fy: [Vec4; 4] = std::array::from_fn(|m| field(y, 3 + m));
    let dot = fx[0] * fy[0] + fx[1] * fy[1] + fx[2] * fy[2] + fx[3] * fy[3];
    let flip = dot.cmplt(Vec4::ZERO);
    let av = Vec4::splat(a);
    let q: [Vec4; 4] =
        std::array::from_fn(|m| fx[m] + (Vec4::select(flip, -fy[m], fy[m]) - fx[m]) * av);
    let len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    let inv = Vec4::ONE / segment::sqrt4(len2);
    for m in 0..4 {
        g.rotation[m] = Vec4::select(motion.lanes[1], q[m] * inv, fx[m]);
    }
}

/// Field `f` (0–9, see [`GROUP_FLOATS`]) of a frame's group: four lanes.
#[inline(always)]
fn field(g: &[f32; GROUP_FLOATS], f: usize) -> Vec4 {
    Vec4::from_slice(&g[4 * f..4 * f + 4])
}

/// The translation and scale part of [`blend_group`]: a lerp where `motion` says
/// they move and `a ≠ 0`, else `x`.
#[inline(always)]
fn blend_linear(
    x: &[f32; GROUP_FLOATS],
    y: &[f32; GROUP_FLOATS],
    a: f32,
    motion: &GroupMotion,
    g: &mut SoaTransform,
) {
    let av = Vec4::splat(a);
    let still = a == 0.0;
    let lerp = |out: &mut [Vec4], at: usize, k: usize| {
        for (i, o) in out.iter_mut().enumerate() {
            let x = field(x, at + i);
            *o = if still || !motion.any[k] {
                x
            } else {
                Vec4::select(motion.lanes[k], x + (field(y, at + i) - x) * av, x)
            };
        }
    };
    lerp(&mut g.translation, 0, 0);
    lerp(&mut g.scale, 7, 2);
}

/// What a sampling context keeps of a compressed clip: the segment last entered,
/// ready to decode, and the frames around the last time sampled, every bone of each
/// (bind-local values, the clip's constants, then the decoded channels).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cache {
    key: (u64, u64),
    segment: Segment,
    fa: Option<u32>,
    fb: Option<u32>,
    frame_a: Frame,
    frame_b: Frame,
}

impl Cache {
    /// Sets up for clip and skeleton `key`: both frames hold the bind-local values and
    /// the clip's constants, and nothing is decoded.
    fn rebind(&mut self, clip: &CompressedClip<'_>, key: (u64, u64), skeleton: &Skeleton) {
        let groups = clip.frame_floats() / GROUP_FLOATS;
        let mut base = vec![[0.0f32; GROUP_FLOATS]; groups];
        let flat = base.as_flattened_mut();
        let identity = Transform::IDENTITY;
        for bone in 0..(groups as u32 - 1) * 4 {
            let t = skeleton
                .bind_local()
                .get(bone as usize)
                .unwrap_or(&identity);
            put(
                flat,
                bone,
                Kind::Translation,
                t.translation.extend(0.0).to_array(),
            );
            put(flat, bone, Kind::Rotation, t.rotation.to_array());
            put(flat, bone, Kind::Scale, t.scale.extend(0.0).to_array());
        }
        for &(bone, kind, v) in &clip.constants {
            put(flat, bone, kind, v);
        }
        *self = Cache {
            key,
            frame_a: base.clone(),
            frame_b: base,
            ..Cache::default()
        };
    }

    /// Enters frame `f`'s segment when it is another, and gives the frame's index in
    /// it.
    fn enter(segment: &mut Segment, clip: &CompressedClip<'_>, f: u32) -> u32 {
        let sf = clip.layout().segment_frames;
        if segment.index != Some(f / sf) {
            segment.load(clip, f / sf);
        }
        f % sf
    }

    /// Decodes frame `f` into `out`.
    fn decode(segment: &mut Segment, clip: &CompressedClip<'_>, f: u32, out: &mut Frame) {
        let within = Self::enter(segment, clip, f);
        segment.decode(&clip.lanes, clip.payload(), within, out.as_flattened_mut());
    }

    /// Makes `frame_a` hold frame `f0` and, when `f1` is given, `frame_b` frame `f1`,
    /// decoding only what they lack; two frames of one segment in one pass, which is
    /// also the pass that enters the segment when it is another.
    fn load(&mut self, clip: &CompressedClip<'_>, f0: u32, f1: Option<u32>) {
        if self.fa != Some(f0) && self.fb == Some(f0) {
            std::mem::swap(&mut self.frame_a, &mut self.frame_b);
            (self.fa, self.fb) = (Some(f0), None);
        }
        let need_a = self.fa != Some(f0);
        let need_b = f1.filter(|&f| self.fb != Some(f));
        let sf = clip.layout().segment_frames;
        match need_b {
            Some(f1) if need_a && f0 / sf == f1 / sf && self.segment.index != Some(f0 / sf) => {
                self.segment.load_decoding(
                    clip,
                    f0 / sf,
                    (f0 % sf, f1 % sf),
                    self.frame_a.as_flattened_mut(),
                    self.frame_b.as_flattened_mut(),
                );
            }
            Some(f1) if need_a && f0 / sf == f1 / sf => {
                self.segment.decode_pair(
                    &clip.lanes,
                    clip.payload(),
                    (f0 % sf, f1 % sf),
                    self.frame_a.as_flattened_mut(),
                    self.frame_b.as_flattened_mut(),
                );
            }
            _ => {
                if need_a {
                    Self::decode(&mut self.segment, clip, f0, &mut self.frame_a);
                }
                if let Some(f1) = need_b {
                    Self::decode(&mut self.segment, clip, f1, &mut self.frame_b);
                }
            }
        }
        self.fa = Some(f0);
        if let Some(f1) = need_b {
            self.fb = Some(f1);
        }
    }
}

/// Writes channel `kind` of `bone` into a frame's floats.
fn put(flat: &mut [f32], bone: u32, kind: Kind, v: [f32; 4]) {
    let (field, n) = match kind {
        Kind::Translation => (0, 3),
        Kind::Rotation => (3, 4),
        Kind::Scale => (7, 3),
    };
    for (k, x) in v.iter().take(n).enumerate() {
        if let Some(o) = flat.get_mut(slot(bone, field + k as u32) as usize) {
            *o = *x;
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
        cache.rebind(clip, ids, skeleton);
    }
    let (f0, f1, a) = clip.frames_at(time, rate);
    cache.load(clip, f0, (a != 0.0).then_some(f1));
    out.resize(n);
    blend_pose(
        &cache.frame_a,
        &cache.frame_b,
        a,
        &clip.motion,
        out.groups_mut(),
    );
    Ok(())
}

/// Every group of frame `x` blended towards frame `y` by `a` into `out` (see
/// [`blend_group`]): eight bones at a time where the CPU can ([`avx2::blend_pairs`],
/// the same bits), the rest four at a time.
fn blend_pose(x: &Frame, y: &Frame, a: f32, motion: &[GroupMotion], out: &mut [SoaTransform]) {
    #[cfg(target_arch = "x86_64")]
    let done = avx2::blend_pairs(x, y, a, motion, out);
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    let rest = out.iter_mut().zip(x).zip(y).zip(motion).skip(done);
    for (((g, x), y), m) in rest {
        blend_group(x, y, a, m, g);
    }
}

#[cfg(test)]
mod tests;
