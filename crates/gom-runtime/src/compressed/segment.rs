//! One segment of a compressed clip made ready for decoding. The decoder works on
//! *lanes*: each lane is one float of a frame's structure-of-arrays groups (see
//! [`Lanes`]), in the order of the frame, so that eight lanes decoded together are
//! stored with two four-float writes instead of eight scattered ones. Per lane the
//! segment keeps its bit position in a frame, mask, offset and step; per rotation lane
//! the component the segment drops. Built once when sampling enters the segment;
//! decoding a frame of it is then one pass over flat arrays, scalar here or eight
//! lanes at a time ([`super::avx2`]). Both give the bits of
//! `gom::compressed::decode::Decoder` (same integer extraction, same `f32` operations in
//! the same order; the tests check it).

use std::collections::BTreeMap;

use glam::{BVec4A, Vec4};
use gom::compressed::decode::{coefficients, component_widths, inv_qmax};
use gom::compressed::SEGMENT_CHANNEL_BYTES;

use super::CompressedClip;

/// Floats of one group of four bones in a frame: translation x, y, z, rotation x, y,
/// z, w, scale x, y, z, four lanes each (the fields of
/// [`crate::transform::SoaTransform`]).
pub(crate) const GROUP_FLOATS: usize = 40;

/// Lanes decoded together on the eight-lane path; the lane arrays are padded to it.
pub(crate) const LANES: usize = 8;

/// The float of a group where its rotation's x field starts.
const ROTATION_AT: u32 = 12;

/// What decoding needs of one animated channel, fixed for the clip.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChannelInfo {
    /// Skeleton bone.
    pub bone: u32,
    /// Clip minimum per component.
    pub min: [f32; 3],
    /// Clip extent per component.
    pub ext: [f32; 3],
    /// The field (0–9 of a group, see [`GROUP_FLOATS`]) of its first component; the
    /// other two follow.
    pub field: u32,
    /// Whether the channel is a rotation.
    pub rotation: bool,
}

/// The decoding plan of a clip, fixed for it: the frame's four-float fields that hold
/// an animated component (*quads*, in frame order, an even number of them), one lane
/// per float of each. A rotation's stored components go to its x, y and z fields
/// whichever it drops; [`Segment::restore`] puts them in place. Lanes of a quad whose
/// bone has no animated channel there are *holes*: they name channel 0, decode to
/// nothing and are never written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lanes {
    /// Per lane: its channel.
    pub channel: Vec<u32>,
    /// Its component in the channel (0–2).
    pub k: Vec<u32>,
    /// The clip minimum.
    pub min: Vec<f32>,
    /// The clip extent.
    pub ext: Vec<f32>,
    /// All ones for a lane with a component, 0 for a hole.
    pub valid: Vec<u32>,
    /// Per quad (four lanes): the float of a frame its first lane goes to.
    pub quad_at: Vec<u32>,
    /// The groups with an animated rotation (an even number of them; padding names
    /// the scratch group): the float where each one's rotation starts.
    pub rot_at: Vec<u32>,
    /// Per lane of those groups: the rotation's channel (0 for a lane without one).
    pub rot_channel: Vec<u32>,
    /// Per lane of those groups: all ones for an animated rotation, else 0.
    pub rot_valid: Vec<u32>,
    /// The floats a frame must hold for every write above.
    pub end: u32,
}

impl Lanes {
    /// The plan of `channels`, padding to the scratch group at float `scratch`.
    pub(crate) fn new(channels: &[ChannelInfo], scratch: u32) -> Self {
        let mut quads: BTreeMap<u32, [Option<(u32, u32)>; 4]> = BTreeMap::new();
        let mut rotations: BTreeMap<u32, [Option<u32>; 4]> = BTreeMap::new();
        for (c, ch) in channels.iter().enumerate() {
            let c = c as u32;
            for k in 0..3 {
                let at = slot(ch.bone, ch.field + k) - ch.bone % 4;
                quads.entry(at).or_default()[(ch.bone % 4) as usize] = Some((c, k));
            }
            if ch.rotation {
                let at = slot(ch.bone, 3) - ch.bone % 4;
                rotations.entry(at).or_default()[(ch.bone % 4) as usize] = Some(c);
            }
        }
        let mut l = Lanes::default();
        let mut quads: Vec<_> = quads.into_iter().collect();
        if quads.len() % 2 == 1 {
            quads.push((scratch, [None; 4]));
        }
        for (at, lanes) in quads {
            l.quad_at.push(at);
            for lane in lanes {
                let (c, k) = lane.unwrap_or((0, 0));
                let ch = channels.get(c as usize);
                l.channel.push(c);
                l.k.push(k);
                l.min.push(ch.map_or(0.0, |ch| ch.min[k as usize]));
                l.ext.push(ch.map_or(0.0, |ch| ch.ext[k as usize]));
                l.valid.push(if lane.is_some() { u32::MAX } else { 0 });
            }
        }
        let mut rotations: Vec<_> = rotations.into_iter().collect();
        if rotations.len() % 2 == 1 {
            rotations.push((scratch + ROTATION_AT, [None; 4]));
        }
        for (at, lanes) in rotations {
            l.rot_at.push(at);
            for lane in lanes {
                l.rot_channel.push(lane.unwrap_or(0));
                l.rot_valid.push(if lane.is_some() { u32::MAX } else { 0 });
            }
        }
        let quad_end = l.quad_at.iter().map(|&a| a + 4).max().unwrap_or(0);
        let rot_end = l.rot_at.iter().map(|&a| a + 16).max().unwrap_or(0);
        l.end = quad_end.max(rot_end);
        l
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
/// padding writes to.
pub(crate) type Frame = Vec<[f32; GROUP_FLOATS]>;

/// The float index of field `field` (0–9) of bone `bone` in a [`Frame`].
pub(crate) fn slot(bone: u32, field: u32) -> u32 {
    (bone / 4) * GROUP_FLOATS as u32 + field * 4 + bone % 4
}

/// Two frames of a segment to decode (their indices within it) and their outputs.
pub(crate) type FramePair<'o> = ((u32, u32), &'o mut [f32], &'o mut [f32]);

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
    /// Per lane (see [`Lanes`]): its first bit in a frame.
    pub pos: Vec<u32>,
    /// Per lane: `2^bits − 1` (0 for a hole).
    pub mask: Vec<u32>,
    /// Per lane: the segment's offset.
    pub off: Vec<f32>,
    /// Per lane: the segment's step.
    pub step: Vec<f32>,
    /// Per rotation lane ([`Lanes::rot_channel`]): the component the segment drops,
    /// −1 for a lane without an animated rotation.
    pub drop: Vec<i32>,
    /// Whether every four-byte load of a frame of this segment lies inside the
    /// payload, so the eight-lane path may gather without checks.
    pub loads_inside: bool,
}

impl Segment {
    /// Prepares segment `s` of `clip` (the clip's layout was checked, so the record
    /// is whole; a record that is not leaves the segment decoding nothing). The
    /// arrays are sized once per clip and rewritten in place.
    pub(crate) fn load(&mut self, clip: &CompressedClip<'_>, s: u32) {
        self.load_with(clip, s, None);
    }

    /// [`Segment::load`], then frames `w.0` and `w.1` of it (indices within it)
    /// decoded into `out0` and `out1` as [`Segment::decode_pair`] does: on the
    /// eight-lane path in the same pass over the lanes as the setup, when the
    /// segment's record size gives the bits of a frame up front (a segment of a
    /// multiple of eight frames).
    pub(crate) fn load_decoding(
        &mut self,
        clip: &CompressedClip<'_>,
        s: u32,
        w: (u32, u32),
        out0: &mut [f32],
        out1: &mut [f32],
    ) {
        if self.load_with(clip, s, Some((w, &mut *out0, &mut *out1))) {
            return;
        }
        self.decode_pair(&clip.lanes, clip.payload(), w, out0, out1);
    }

    /// [`Segment::load`], decoding `frames` in the same pass where it can; whether it
    /// did (decoded and restored them).
    pub(crate) fn load_with(
        &mut self,
        clip: &CompressedClip<'_>,
        s: u32,
        frames: Option<FramePair<'_>>,
    ) -> bool {
        let payload = clip.payload();
        let layout = clip.layout();
        let rec = layout.segment(payload, s);
        let a = clip.channels.len();
        self.index = Some(s);
        self.frame_bits = 0;
        self.frames = 0;
        self.loads_inside = false;
        let (Some(widths), Some(reduce), Some(ranges)) = (
            rec.get(..a),
            rec.get(a..2 * a),
            rec.get(2 * a..a * SEGMENT_CHANNEL_BYTES),
        ) else {
            return false;
        };
        let n = clip.lanes.channel.len();
        if self.pos.len() != n {
            self.pos = vec![0; n];
            self.mask = vec![0; n];
            self.off = vec![0.0; n];
            self.step = vec![0.0; n];
        }
        self.drop.resize(clip.lanes.rot_channel.len(), -1);
        // Where the record starts in the payload (it is a subslice of it).
        self.packed_at =
            rec.as_ptr() as usize - payload.as_ptr() as usize + a * SEGMENT_CHANNEL_BYTES;
        let count = layout.frames_in_segment(s);
        // The bits of a frame from the record's size, where that size says it
        // exactly: `count · bits / 8` bytes when `count` is a multiple of eight.
        let packed = layout
            .segment_len(payload, s)
            .saturating_sub(a * SEGMENT_CHANNEL_BYTES);
        let known =
            (count.is_multiple_of(8) && count > 0).then(|| (packed * 8 / count as usize) as u32);
        #[cfg(target_arch = "x86_64")]
        let (eight, decoded) = {
            let job = match (&frames, known) {
                (Some((w, ..)), Some(fb)) if w.0.max(w.1) < count => Some([w.0 * fb, w.1 * fb]),
                _ => None,
            };
            let outs = frames.map(|(_, o0, o1)| [o0, o1]);
            match (job, outs) {
                (Some(base), Some(outs)) => super::avx2::setup(self, clip, rec, Some((base, outs))),
                _ => (super::avx2::setup(self, clip, rec, None).0, false),
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let (eight, decoded) = {
            let _ = (frames, known);
            (None, false)
        };
        let p = match eight {
            Some(p) => p,
            None => self.setup(&clip.lanes, widths, reduce, ranges),
        };
        self.frame_bits = p;
        self.frames = count;
        let frames = u64::from(self.frames);
        let bytes = (frames * u64::from(p)).div_ceil(8) + 4;
        self.loads_inside = frames * u64::from(p) < i32::MAX as u64
            && (self.packed_at as u64).saturating_add(bytes) <= payload.len() as u64;
        // The pass decoded with `known` bits a frame and without the scalar path's
        // bounds; both hold for a checked layout, else the caller decodes again.
        decoded && known == Some(p) && self.loads_inside
    }

    /// The reference path of [`Segment::load`]'s per-lane arrays, from the segment's
    /// width, reduction and range bytes: one lane at a time. The lanes are in the
    /// frame's bit order (`gom::compressed::decode::frame_order`), so each lane's
    /// first bit is the sum of the widths before it (holes are 0 wide). Gives the
    /// bits of a frame.
    pub(crate) fn setup(&mut self, l: &Lanes, widths: &[u8], reduce: &[u8], ranges: &[u8]) -> u32 {
        let mut p = 0u32;
        for j in 0..self.pos.len().min(l.channel.len()) {
            let c = l.channel[j] as usize;
            let k = (l.k[j] as usize).min(2);
            self.pos[j] = p;
            let (Some(&byte), Some(&red), Some(r)) =
                (widths.get(c), reduce.get(c), ranges.get(6 * c..6 * c + 6))
            else {
                (self.off[j], self.step[j], self.mask[j]) = (0.0, 0.0, 0);
                continue;
            };
            let w = component_widths(byte, red)[k] & l.valid[j];
            (self.off[j], self.step[j]) =
                coefficients(l.min[j], l.ext[j], r[k], r[3 + k], inv_qmax(w));
            self.mask[j] = ((1u64 << w) - 1) as u32;
            p += w;
        }
        for (d, (&c, &valid)) in self
            .drop
            .iter_mut()
            .zip(l.rot_channel.iter().zip(&l.rot_valid))
        {
            let byte = widths.get(c as usize).copied().unwrap_or(0);
            *d = if valid != 0 { i32::from(byte >> 5) } else { -1 };
        }
        p
    }

    /// Decodes frame `f` of the segment (its index within it) into `out`, then gives
    /// each rotation its components in place. `f` past the segment's frames decodes
    /// nothing.
    pub(crate) fn decode(&self, l: &Lanes, payload: &[u8], f: u32, out: &mut [f32]) {
        if f >= self.frames {
            return;
        }
        let base = f * self.frame_bits;
        #[cfg(target_arch = "x86_64")]
        if super::avx2::decode(self, l, payload, [base], [out]) {
            return;
        }
        self.decode_scalar(l, payload, base, out);
        self.restore(l, out);
    }

    /// Decodes frames `f0` and `f1` of the segment into `out0` and `out1`, in one pass
    /// over its arrays on the eight-lane path. The bits of two [`Segment::decode`]s.
    pub(crate) fn decode_pair(
        &self,
        l: &Lanes,
        payload: &[u8],
        (f0, f1): (u32, u32),
        out0: &mut [f32],
        out1: &mut [f32],
    ) {
        #[cfg(target_arch = "x86_64")]
        if f0.max(f1) < self.frames
            && super::avx2::decode(
                self,
                l,
                payload,
                [f0 * self.frame_bits, f1 * self.frame_bits],
                [out0, out1],
            )
        {
            return;
        }
        self.decode(l, payload, f0, out0);
        self.decode(l, payload, f1, out1);
    }

    /// The reference path of the components: one lane at a time.
    pub(crate) fn decode_scalar(&self, l: &Lanes, payload: &[u8], base: u32, out: &mut [f32]) {
        let packed = payload.get(self.packed_at..).unwrap_or(&[]);
        for j in 0..self.pos.len().min(l.valid.len()) {
            if l.valid[j] == 0 {
                continue;
            }
            let p = base + self.pos[j];
            let at = (p >> 3) as usize;
            let word = match packed.get(at..at + 4) {
                Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
                None => 0,
            };
            let q = (word >> (p & 7)) & self.mask[j];
            let dst = l
                .quad_at
                .get(j / 4)
                .map_or(usize::MAX, |&a| a as usize + j % 4);
            if let Some(o) = out.get_mut(dst) {
                *o = self.off[j] + self.step[j] * q as f32;
            }
        }
    }

    /// The reference path of the rotations, four bones at a time: the three stored
    /// components (in the x, y and z fields) become the quaternion, the dropped one
    /// restored by the operations of `gom::compressed::decode::restore` in its order,
    /// so the same bits. Lanes without an animated rotation keep their floats.
    pub(crate) fn restore(&self, l: &Lanes, out: &mut [f32]) {
        for (g, &at) in l.rot_at.iter().enumerate() {
            let at = at as usize;
            let (Some(q), Some(d)) = (out.get_mut(at..at + 16), self.drop.get(4 * g..4 * g + 4))
            else {
                continue;
            };
            let v: [Vec4; 4] = std::array::from_fn(|m| Vec4::from_slice(&q[4 * m..4 * m + 4]));
            let is = |m: i32| BVec4A::from_array([0, 1, 2, 3].map(|i| d[i] == m));
            let r = restore_lanes(
                v,
                [is(0), is(1), is(2), is(3)],
                [0, 1, 2, 3].map(|i| d[i] >= 0),
            );
            for (m, x) in r.iter().enumerate() {
                x.write_to_slice(&mut q[4 * m..4 * m + 4]);
            }
        }
    }
}

/// Four lanes of [`Segment::restore`]: `v` the four fields as stored (x, y, z the
/// stored components), `dropped[m]` the lanes dropping component `m`, `animated` the
/// lanes to change.
#[inline(always)]
fn restore_lanes(v: [Vec4; 4], dropped: [BVec4A; 4], animated: [bool; 4]) -> [Vec4; 4] {
    let [s0, s1, s2, _] = v;
    let n = s0 * s0 + s1 * s1 + s2 * s2;
    let inside = n.cmplt(Vec4::ONE);
    let c = Vec4::select(inside, sqrt4(Vec4::ONE - n), Vec4::ZERO);
    let s = Vec4::ONE / sqrt4(n);
    let k = [s0, s1, s2].map(|x| Vec4::select(inside, x, x * s));
    let d01 = dropped[0] | dropped[1];
    let r = [
        Vec4::select(dropped[0], c, k[0]),
        Vec4::select(dropped[1], c, Vec4::select(dropped[0], k[0], k[1])),
        Vec4::select(dropped[2], c, Vec4::select(d01, k[1], k[2])),
        Vec4::select(dropped[3], c, k[2]),
    ];
    let animated = BVec4A::from_array(animated);
    std::array::from_fn(|m| Vec4::select(animated, r[m], v[m]))
}
