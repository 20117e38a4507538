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

use glam::Vec4;
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
    /// Per animated rotation: its channel index, and its group in `rotation_groups`
    /// times four plus its lane.
    rotations: Vec<(u32, u32)>,
    /// The groups of four bones with an animated rotation.
    rotation_groups: Vec<segment::RotationGroup>,
    /// The channels' components as flat arrays.
    lanes: segment::ComponentLanes,
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
        let (channels, rot_slots) = channel_infos(layout, &payload, &animated);
        let rotation_groups = segment::RotationGroup::of(rot_slots.iter().map(|r| r.1));
        let rotations = rot_slots
            .iter()
            .map(|&(c, x)| {
                let gi = rotation_groups
                    .iter()
                    .position(|g| g.group == x / GROUP_FLOATS as u32)
                    .unwrap_or(0);
                (c, 4 * gi as u32 + x % 4)
            })
            .collect();
        let scratch = (layout.bone_count.div_ceil(4) as usize * GROUP_FLOATS) as u32;
        let lanes = segment::ComponentLanes::new(&channels, scratch);
        CompressedClip {
            payload,
            decoder,
            animated,
            constants,
            channels,
            rotations,
            rotation_groups,
            lanes,
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

    /// The float of the scratch group that padding components write to.
    pub(crate) fn scratch_slot(&self) -> u32 {
        (self.layout().bone_count.div_ceil(4) as usize * GROUP_FLOATS) as u32
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

/// What decoding needs of each animated channel (`animated`: their bones and kinds),
/// and the rotations among them.
fn channel_infos(
    layout: &Layout,
    payload: &[u8],
    animated: &[(u32, Kind)],
) -> (Vec<segment::ChannelInfo>, Vec<(u32, u32)>) {
    let mut rotations = Vec::new();
    let infos = animated
        .iter()
        .enumerate()
        .map(|(c, &(bone, kind))| {
            let (min, ext) = layout.range(payload, c as u32);
            let field = match kind {
                Kind::Translation => 0,
                Kind::Rotation => 3,
                Kind::Scale => 7,
            };
            if kind == Kind::Rotation {
                rotations.push((c as u32, slot(bone, 3)));
            }
            segment::ChannelInfo {
                min,
                ext,
                dst: [0, 1, 2].map(|k| slot(bone, field + k)),
                rotation: kind == Kind::Rotation,
            }
        })
        .collect();
    (infos, rotations)
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

/// Four bones of frame `x` blended towards frame `y` by `a` (see [`blend`], which
/// does the same per lane). `a = 0` gives `x` bit for bit.
#[inline(always)]
fn blend_group(x: &[f32; GROUP_FLOATS], y: &[f32; GROUP_FLOATS], a: f32) -> SoaTransform {
    let ld = |g: &[f32; GROUP_FLOATS], f: usize| Vec4::from_slice(&g[4 * f..4 * f + 4]);
    let fx: [Vec4; 10] = std::array::from_fn(|f| ld(x, f));
    if a == 0.0 {
        return soa(fx);
    }
    let fy: [Vec4; 10] = std::array::from_fn(|f| ld(y, f));
    let av = Vec4::splat(a);
    let dot = fx[3] * fy[3] + fx[4] * fy[4] + fx[5] * fy[5] + fx[6] * fy[6];
    let flip = dot.cmplt(Vec4::ZERO);
    let mut v: [Vec4; 10] = std::array::from_fn(|f| {
        let y = if (3..7).contains(&f) {
            Vec4::select(flip, -fy[f], fy[f])
        } else {
            fy[f]
        };
        fx[f] + (y - fx[f]) * av
    });
    let len2 = v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6];
    let inv = Vec4::ONE / segment::sqrt4(len2);
    for q in &mut v[3..7] {
        *q *= inv;
    }
    soa(v)
}

/// The ten field vectors of a group as a [`SoaTransform`].
#[inline(always)]
fn soa(f: [Vec4; 10]) -> SoaTransform {
    SoaTransform {
        translation: [f[0], f[1], f[2]],
        rotation: [f[3], f[4], f[5], f[6]],
        scale: [f[7], f[8], f[9]],
    }
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

    /// Decodes frame `f` into `out`, first entering its segment when it is another.
    fn decode(segment: &mut Segment, clip: &CompressedClip<'_>, f: u32, out: &mut Frame) {
        let sf = clip.layout().segment_frames;
        let s = f / sf;
        if segment.index != Some(s) {
            segment.load(clip, s);
        }
        segment.decode(clip.payload(), f % sf, out.as_flattened_mut());
    }

    /// Makes `frame_a` hold frame `f0` and, when `f1` is given, `frame_b` frame `f1`,
    /// decoding only what they lack.
    fn load(&mut self, clip: &CompressedClip<'_>, f0: u32, f1: Option<u32>) {
        if self.fa != Some(f0) {
            if self.fb == Some(f0) {
                std::mem::swap(&mut self.frame_a, &mut self.frame_b);
                self.fb = None;
            } else {
                Self::decode(&mut self.segment, clip, f0, &mut self.frame_a);
            }
            self.fa = Some(f0);
        }
        if let Some(f1) = f1.filter(|&f| self.fb != Some(f)) {
            Self::decode(&mut self.segment, clip, f1, &mut self.frame_b);
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
    for ((g, x), y) in out
        .groups_mut()
        .iter_mut()
        .zip(&cache.frame_a)
        .zip(&cache.frame_b)
    {
        *g = blend_group(x, y, a);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
