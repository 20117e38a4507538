//! One segment of a compressed clip made ready for decoding: per stored component its
//! bit position in a frame, mask, the segment's offset and step, and where the value
//! goes in a frame's structure-of-arrays floats. Built once when sampling enters the
//! segment; decoding a frame of it is then one pass over flat arrays, scalar here or
//! eight components at a time ([`super::avx2`]). Both give the bits of
//! `gom::compressed::decode::Decoder` (same integer extraction, same `f32` operations in
//! the same order; the tests check it).

use glam::{BVec4A, Vec4};
use gom::compressed::decode::{coefficients, inv_qmax, WIDTH_MASK};
use gom::compressed::SEGMENT_CHANNEL_BYTES;

use super::CompressedClip;

/// Floats of one group of four bones in a frame: translation x, y, z, rotation x, y,
/// z, w, scale x, y, z, four lanes each (the fields of
/// [`crate::transform::SoaTransform`]).
pub(crate) const GROUP_FLOATS: usize = 40;

/// Components decoded together on the eight-lane path; the arrays are padded to it.
pub(crate) const LANES: usize = 8;

/// What decoding needs of one animated channel, fixed for the clip.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChannelInfo {
    /// Clip minimum per component.
    pub min: [f32; 3],
    /// Clip extent per component.
    pub ext: [f32; 3],
    /// Per stored component, its float in a [`Frame`] when nothing is dropped before
    /// it (a rotation's stored components after the dropped one go one field on).
    pub dst: [u32; 3],
    /// Whether the channel is a rotation.
    pub rotation: bool,
}

/// The fixed per-component facts of [`ChannelInfo`] as flat arrays padded to
/// [`LANES`], for the eight-lane path of [`Segment::load`]. Padding components name
/// channel 0, decode to 0 and go to the scratch group.
#[derive(Debug, Clone, Default)]
pub(crate) struct ComponentLanes {
    /// The component's channel.
    pub channel: Vec<u32>,
    /// Its index in the channel (0–2).
    pub k: Vec<u32>,
    /// The clip minimum.
    pub min: Vec<f32>,
    /// The clip extent.
    pub ext: Vec<f32>,
    /// [`ChannelInfo::dst`].
    pub dst: Vec<u32>,
    /// 4 for a rotation's component (a field's floats), else 0.
    pub rotation: Vec<u32>,
    /// All ones for a component, 0 for padding.
    pub valid: Vec<u32>,
}

impl ComponentLanes {
    /// The lanes of `channels`, padding to the scratch float `scratch`.
    pub(crate) fn new(channels: &[ChannelInfo], scratch: u32) -> Self {
        let mut l = ComponentLanes::default();
        for (c, ch) in channels.iter().enumerate() {
            for k in 0..3 {
                l.channel.push(c as u32);
                l.k.push(k as u32);
                l.min.push(ch.min[k]);
                l.ext.push(ch.ext[k]);
                l.dst.push(ch.dst[k]);
                l.rotation.push(if ch.rotation { 4 } else { 0 });
                l.valid.push(u32::MAX);
            }
        }
        while l.channel.len() % LANES != 0 {
            l.channel.push(0);
            l.k.push(0);
            l.min.push(0.0);
            l.ext.push(0.0);
            l.dst.push(scratch);
            l.rotation.push(0);
            l.valid.push(0);
        }
        l
    }
}

/// A group of four bones of which some have an animated rotation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RotationGroup {
    /// The group's index.
    pub group: u32,
    /// Per lane, the rotation component it drops in this segment (as a float, for a
    /// lane-wise comparison).
    pub drop: [f32; 4],
    /// The lanes with an animated rotation.
    pub animated: BVec4A,
}

impl RotationGroup {
    /// The groups of the animated rotations whose x floats are `xs` (ascending).
    pub(crate) fn of(xs: impl Iterator<Item = u32>) -> Vec<RotationGroup> {
        let mut out: Vec<(u32, [bool; 4])> = Vec::new();
        for x in xs {
            let group = x / GROUP_FLOATS as u32;
            if out.last().map(|g| g.0) != Some(group) {
                out.push((group, [false; 4]));
            }
            if let Some(g) = out.last_mut() {
                g.1[(x % 4) as usize] = true;
            }
        }
        out.into_iter()
            .map(|(group, lanes)| RotationGroup {
                group,
                drop: [0.0; 4],
                animated: BVec4A::from_array(lanes),
            })
            .collect()
    }
}

/// Per-lane IEEE square root (the scalar `f32::sqrt` of each lane, bit for bit).
#[inline(always)]
pub(crate) fn sqrt4(v: Vec4) -> Vec4 {
    #[cfg(target_arch = "x86_64")]
    return super::avx2::sqrt4(v);
    #[cfg(not(target_arch = "x86_64"))]
    Vec4::from_array(v.to_array().map(f32::sqrt))
}

/// A frame's channels as structure-of-arrays groups, plus one scratch group that the
/// padding components write to.
pub(crate) type Frame = Vec<[f32; GROUP_FLOATS]>;

/// The float index of field `field` (0–9) of bone `bone` in a [`Frame`].
pub(crate) fn slot(bone: u32, field: u32) -> u32 {
    (bone / 4) * GROUP_FLOATS as u32 + field * 4 + bone % 4
}

/// A segment ready to decode.
#[derive(Debug, Clone, Default)]
pub(crate) struct Segment {
    /// The segment's index, `None` before the first.
    pub index: Option<u32>,
    /// The payload offset of the segment's packed frames.
    pub packed_at: usize,
    /// Bits of one frame.
    pub frame_bits: u32,
    /// Frames in the segment.
    pub frames: u32,
    /// Per component (padded to [`LANES`]): its first bit in a frame.
    pub pos: Vec<u32>,
    /// Per component: `2^bits − 1`.
    pub mask: Vec<u32>,
    /// Per component: the segment's offset.
    pub off: Vec<f32>,
    /// Per component: the segment's step.
    pub step: Vec<f32>,
    /// Per component: its float index in a [`Frame`], below `dst_end`.
    pub dst: Vec<u32>,
    /// The floats of the clip's [`Frame`]s: every `dst` is below it.
    pub dst_end: u32,
    /// Per animated channel: its first bit in a frame.
    pub first_bit: Vec<u32>,
    /// The groups of four bones with an animated rotation, and per group which
    /// lanes drop which component.
    pub rot_groups: Vec<RotationGroup>,
    /// Whether every four-byte load of a frame of this segment lies inside the
    /// payload, so the eight-lane path may gather without checks.
    pub loads_inside: bool,
}

impl Segment {
    /// Prepares segment `s` of `clip` (the clip's layout was checked, so the record
    /// is whole; a record that is not leaves the segment decoding nothing). The
    /// arrays are sized once per clip and rewritten in place.
    pub(crate) fn load(&mut self, clip: &CompressedClip<'_>, s: u32) {
        let payload = clip.payload();
        let layout = clip.layout();
        let rec = layout.segment(payload, s);
        let a = clip.channels.len();
        self.index = Some(s);
        self.frame_bits = 0;
        self.frames = 0;
        self.loads_inside = false;
        let (Some(widths), Some(ranges)) = (rec.get(..a), rec.get(a..a * SEGMENT_CHANNEL_BYTES))
        else {
            self.pos.clear();
            self.rot_groups.clear();
            return;
        };
        let n = (3 * a).div_ceil(LANES) * LANES;
        if self.pos.len() != n {
            self.pos = vec![0; n];
            self.mask = vec![0; n];
            self.off = vec![0.0; n];
            self.step = vec![0.0; n];
            self.dst = vec![clip.scratch_slot(); n];
        }
        self.dst_end = clip.frame_floats() as u32;
        // Where the record starts in the payload (it is a subslice of it).
        self.packed_at =
            rec.as_ptr() as usize - payload.as_ptr() as usize + a * SEGMENT_CHANNEL_BYTES;
        let mut p = 0u32;
        self.first_bit.clear();
        self.first_bit.extend(widths.iter().map(|&w| {
            let at = p;
            p += 3 * u32::from(w & WIDTH_MASK);
            at
        }));
        #[cfg(target_arch = "x86_64")]
        let done = super::avx2::components(self, clip, rec);
        #[cfg(not(target_arch = "x86_64"))]
        let done = false;
        if !done {
            self.components(clip, widths, ranges);
        }
        self.rotation_groups(clip, widths);
        self.frame_bits = p;
        self.frames = layout.frames_in_segment(s);
        let frames = u64::from(self.frames);
        let bytes = (frames * u64::from(p)).div_ceil(8) + 4;
        self.loads_inside = frames * u64::from(p) < i32::MAX as u64
            && (self.packed_at as u64).saturating_add(bytes) <= payload.len() as u64;
    }

    /// The reference path of [`Segment::load`]'s per-component arrays, from the
    /// segment's width bytes and range bytes: one channel at a time.
    pub(crate) fn components(&mut self, clip: &CompressedClip<'_>, widths: &[u8], ranges: &[u8]) {
        let outputs = self
            .pos
            .chunks_exact_mut(3)
            .zip(self.mask.chunks_exact_mut(3))
            .zip(self.off.chunks_exact_mut(3))
            .zip(self.step.chunks_exact_mut(3))
            .zip(self.dst.chunks_exact_mut(3));
        let inputs = widths
            .iter()
            .zip(ranges.chunks_exact(6))
            .zip(&clip.channels)
            .zip(&self.first_bit);
        for (((((pos, mask), off), step), dst), (((&byte, r), ch), &p)) in outputs.zip(inputs) {
            let b = u32::from(byte & WIDTH_MASK);
            let drop = usize::from(byte >> 5);
            let inv_q = inv_qmax(b);
            let m = ((1u64 << b) - 1) as u32;
            for k in 0..3 {
                (off[k], step[k]) = coefficients(ch.min[k], ch.ext[k], r[k], r[3 + k], inv_q);
                pos[k] = p + k as u32 * b;
                mask[k] = m;
                // A rotation's stored components skip the dropped one.
                let d = ch.dst[k] + if ch.rotation && k >= drop { 4 } else { 0 };
                dst[k] = d.min(self.dst_end.saturating_sub(1));
            }
        }
    }

    /// Decodes frame `f` of the segment (its index within it) into `out`, then gives
    /// each rotation its dropped component back.
    /// `f` past the segment's frames decodes nothing.
    pub(crate) fn decode(&self, payload: &[u8], f: u32, out: &mut [f32]) {
        if f >= self.frames {
            return;
        }
        let base = f * self.frame_bits;
        #[cfg(target_arch = "x86_64")]
        super::avx2::decode(self, payload, base, out);
        #[cfg(not(target_arch = "x86_64"))]
        self.decode_scalar(payload, base, out);
        self.restore(out);
    }

    /// The reference path: one component at a time.
    pub(crate) fn decode_scalar(&self, payload: &[u8], base: u32, out: &mut [f32]) {
        let packed = payload.get(self.packed_at..).unwrap_or(&[]);
        for j in 0..self.pos.len() {
            let p = base + self.pos[j];
            let at = (p >> 3) as usize;
            let word = match packed.get(at..at + 4) {
                Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
                None => 0,
            };
            let q = (word >> (p & 7)) & self.mask[j];
            if let Some(o) = out.get_mut(self.dst[j] as usize) {
                *o = self.off[j] + self.step[j] * q as f32;
            }
        }
    }

    /// Which lanes of which groups drop which rotation component in this segment.
    fn rotation_groups(&mut self, clip: &CompressedClip<'_>, widths: &[u8]) {
        self.rot_groups.clone_from(&clip.rotation_groups);
        for &(c, x) in &clip.rotations {
            let drop = widths.get(c as usize).map_or(0, |w| w >> 5);
            let (gi, lane) = ((x >> 2) as usize, (x & 3) as usize);
            if let Some(g) = self.rot_groups.get_mut(gi) {
                g.drop[lane] = f32::from(drop);
            }
        }
    }

    /// Each rotation's dropped component from the other three, four bones at a time:
    /// the operations of `gom::compressed::decode::restore` in its order (the dropped
    /// component counts as +0 in the sum of squares, which leaves the sum's bits as
    /// they are), so the same bits.
    pub(crate) fn restore(&self, out: &mut [f32]) {
        for g in &self.rot_groups {
            let at = g.group as usize * GROUP_FLOATS + 12;
            let Some(q) = out.get_mut(at..at + 16) else {
                continue;
            };
            let v: [Vec4; 4] = std::array::from_fn(|m| Vec4::from_slice(&q[4 * m..4 * m + 4]));
            let d = Vec4::from_array(g.drop);
            let dropped: [BVec4A; 4] = std::array::from_fn(|m| d.cmpeq(Vec4::splat(m as f32)));
            let z: [Vec4; 4] = std::array::from_fn(|m| Vec4::select(dropped[m], Vec4::ZERO, v[m]));
            let n = z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + z[3] * z[3];
            let inside = n.cmplt(Vec4::ONE);
            let c = Vec4::select(inside, sqrt4(Vec4::ONE - n), Vec4::ZERO);
            let s = Vec4::ONE / sqrt4(n);
            for (m, x) in v.iter().enumerate() {
                let kept = Vec4::select(inside, *x, *x * s);
                let r = Vec4::select(dropped[m], c, kept);
                Vec4::select(g.animated, r, *x).write_to_slice(&mut q[4 * m..4 * m + 4]);
            }
        }
    }
}
