//! The byte layout of a `CLPZ` payload, read strictly: every count checked against the
//! limits and the bytes present before anything is allocated, every stored float and
//! every segment record checked, so that decoding afterwards cannot read out of
//! bounds or produce a non-finite value.

use super::decode::{component_widths, REDUCE_MASK, WIDTH_MASK};
use super::{Kind, DATA_TAIL, FIXED_SIZE, SEGMENT_CHANNEL_BYTES};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::limits::{
    MAX_COMPRESSED_BITS, MAX_COMPRESSED_FRAMES, MAX_COMPRESSED_VALUE, MAX_KEYS_PER_CLIP,
    MAX_SEGMENT_FRAMES, QUAT_LENGTH_TOLERANCE,
};

/// What a bone's channel holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelClass {
    /// The bone's bind-local value: nothing stored.
    Default,
    /// One value for the whole clip, in the constants table.
    Constant,
    /// Quantised per frame, in the segments.
    Animated,
}

/// One channel that is not [`ChannelClass::Default`], in file order (bone ascending,
/// then translation, rotation, scale).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channel {
    /// Skeleton bone index.
    pub bone: u32,
    /// Which part of the transform.
    pub kind: Kind,
    /// Constant or animated.
    pub class: ChannelClass,
    /// Index among the constants or among the animated channels.
    pub index: u32,
}

/// The checked structure of a `CLPZ` payload: counts and where each table starts
/// (offsets from the start of the payload).
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Frames stored, at the clip's sample rate; frame `f` is at time `f / rate`.
    pub frame_count: u32,
    /// Frames per segment (the last segment may hold fewer).
    pub segment_frames: u32,
    /// Bones covered, equal to the skeleton's.
    pub bone_count: u32,
    /// Channels quantised per frame.
    pub animated_count: u32,
    /// Channels stored once.
    pub constant_count: u32,
    /// Segments, `ceil(frame_count / segment_frames)`.
    pub segment_count: u32,
    /// The error bound the encoder honoured, in metres.
    pub tolerance: f32,
    /// The distance from each joint it was measured at, in metres.
    pub distance: f32,
    pub(crate) classes_at: usize,
    pub(crate) constants_at: usize,
    pub(crate) ranges_at: usize,
    pub(crate) offsets_at: usize,
    pub(crate) data_at: usize,
    pub(crate) data_len: usize,
}

/// Reads fields in order from a payload whose first byte is at file offset `base`.
struct Reader<'a> {
    payload: &'a [u8],
    pos: usize,
    base: u64,
}

fn err(offset: u64, field: &'static str, kind: ReadErrorKind) -> ReadError {
    ReadError {
        offset,
        place: Place::Chunk(FourCc::CLPZ),
        field,
        kind,
    }
}

fn rule(offset: u64, field: &'static str, reason: String) -> ReadError {
    err(offset, field, ReadErrorKind::Rule { reason })
}

/// The little-endian u32 at `at` of `b` (the caller checked the length).
#[inline(always)]
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(s) => u32::from_le_bytes([s[0], s[1], s[2], s[3]]),
        None => 0,
    }
}

/// The little-endian f32 at `at` of `b` (the caller checked the length).
#[inline(always)]
pub(crate) fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

impl<'a> Reader<'a> {
    fn at(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn take(&mut self, n: u64, field: &'static str) -> Result<usize, ReadError> {
        let avail = self.payload.len() - self.pos;
        match usize::try_from(n).ok().filter(|&n| n <= avail) {
            Some(n) => {
                let start = self.pos;
                self.pos += n;
                Ok(start)
            }
            None => Err(err(
                self.at(),
                field,
                ReadErrorKind::Truncated {
                    needed: n,
                    available: avail as u64,
                },
            )),
        }
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, ReadError> {
        let at = self.take(4, field)?;
        Ok(u32_at(self.payload, at))
    }

    fn count(&mut self, field: &'static str, lo: u32, hi: u32) -> Result<u32, ReadError> {
        let at = self.at();
        let v = self.u32(field)?;
        if v > hi {
            return Err(err(
                at,
                field,
                ReadErrorKind::Limit {
                    value: u64::from(v),
                    limit: u64::from(hi),
                },
            ));
        }
        if v < lo {
            return Err(rule(at, field, format!("{v} is below {lo}")));
        }
        Ok(v)
    }

    fn float(&mut self, field: &'static str) -> Result<f32, ReadError> {
        let at = self.at();
        let v = f32::from_bits(self.u32(field)?);
        if !v.is_finite() {
            return Err(err(at, field, ReadErrorKind::NotFinite));
        }
        Ok(v)
    }

    fn zeros(&mut self, n: u64, field: &'static str, kind: ReadErrorKind) -> Result<(), ReadError> {
        let start = self.take(n, field)?;
        let s = &self.payload[start..self.pos];
        match s.iter().position(|&b| b != 0) {
            Some(k) => Err(err(self.base + (start + k) as u64, field, kind)),
            None => Ok(()),
        }
    }
}

impl Layout {
    /// Checks a `CLPZ` payload for a skeleton of `bone_count` bones. `base` is the file
    /// offset of the payload's first byte, for the errors.
    pub fn parse(payload: &[u8], base: u64, bone_count: u32) -> Result<Layout, ReadError> {
        let mut r = Reader {
            payload,
            pos: 0,
            base,
        };
        let frame_count = r.count("frameCount", 1, MAX_COMPRESSED_FRAMES)?;
        let segment_frames = r.count("segmentFrames", 1, MAX_SEGMENT_FRAMES)?;
        let bones_at = r.at();
        let bones = r.u32("boneCount")?;
        if bones != bone_count {
            return Err(rule(
                bones_at,
                "boneCount",
                format!("{bones} differs from the skeleton's {bone_count} bones"),
            ));
        }
        let animated_at = r.at();
        let animated_count = r.count("animatedCount", 0, bone_count.saturating_mul(3))?;
        let constant_at = r.at();
        let constant_count = r.count("constantCount", 0, bone_count.saturating_mul(3))?;
        let seg_at = r.at();
        let segment_count = r.u32("segmentCount")?;
        let expected_segments = frame_count.div_ceil(segment_frames);
        if segment_count != expected_segments {
            return Err(rule(
                seg_at,
                "segmentCount",
                format!(
                    "{segment_count} is not ceil(frameCount / segmentFrames) = {expected_segments}"
                ),
            ));
        }
        let tol_at = r.at();
        let tolerance = r.float("tolerance")?;
        let distance = r.float("distance")?;
        if tolerance < 0.0 || distance < 0.0 {
            return Err(rule(
                tol_at,
                "tolerance",
                "a negative bound or distance".into(),
            ));
        }
        let data_size_at = r.at();
        let data_size = r.u32("dataSize")?;
        r.zeros(12, "reserved", ReadErrorKind::Reserved)?;
        debug_assert_eq!(r.pos, FIXED_SIZE);

        let classes_at = r.take(u64::from(bone_count), "channelClasses")?;
        let (mut animated, mut constants, mut animated_bones) = (0u32, 0u32, 0u32);
        for b in 0..bone_count as usize {
            let byte = payload[classes_at + b];
            let at = base + (classes_at + b) as u64;
            if byte & 0xC0 != 0 {
                return Err(err(at, "channelClasses", ReadErrorKind::Reserved));
            }
            let mut any = false;
            for k in Kind::ALL {
                match (byte >> k.shift()) & 3 {
                    0 => {}
                    1 => constants += 1,
                    2 => {
                        animated += 1;
                        any = true;
                    }
                    _ => return Err(err(
                        at,
                        "channelClasses",
                        ReadErrorKind::Value {
                            value: u64::from(byte),
                            expected:
                                "two bits per channel of 0 (default), 1 (constant) or 2 (animated)",
                        },
                    )),
                }
            }
            animated_bones += u32::from(any);
        }
        if animated != animated_count {
            return Err(rule(
                animated_at,
                "animatedCount",
                format!("{animated_count} differs from the {animated} animated channels of channelClasses"),
            ));
        }
        if constants != constant_count {
            return Err(rule(
                constant_at,
                "constantCount",
                format!("{constant_count} differs from the {constants} constant channels of channelClasses"),
            ));
        }
        if u64::from(animated_bones) * u64::from(frame_count) > u64::from(MAX_KEYS_PER_CLIP) {
            return Err(err(
                base,
                "frameCount",
                ReadErrorKind::Limit {
                    value: u64::from(animated_bones) * u64::from(frame_count),
                    limit: u64::from(MAX_KEYS_PER_CLIP),
                },
            ));
        }
        let pad = (4 - bone_count as usize % 4) % 4;
        r.zeros(pad as u64, "channelClasses padding", ReadErrorKind::Padding)?;

        let layout_partial = Layout {
            frame_count,
            segment_frames,
            bone_count,
            animated_count,
            constant_count,
            segment_count,
            tolerance,
            distance,
            classes_at,
            constants_at: 0,
            ranges_at: 0,
            offsets_at: 0,
            data_at: 0,
            data_len: 0,
        };
        let channels = layout_partial.channels(payload);

        let constants_at = r.take(u64::from(constant_count) * 16, "constants")?;
        for c in channels
            .iter()
            .filter(|c| c.class == ChannelClass::Constant)
        {
            let at = constants_at + c.index as usize * 16;
            let v = [0, 4, 8, 12].map(|o| f32_at(payload, at + o));
            check_values(v, c.kind, base + at as u64, "constants")?;
        }
        let ranges_at = r.take(u64::from(animated_count) * 24, "ranges")?;
        for c in channels
            .iter()
            .filter(|c| c.class == ChannelClass::Animated)
        {
            let at = ranges_at + c.index as usize * 24;
            let min = [0, 4, 8].map(|o| f32_at(payload, at + o));
            let ext = [12, 16, 20].map(|o| f32_at(payload, at + o));
            check_range(min, ext, c.kind, base + at as u64)?;
        }
        let offsets_at = r.take(u64::from(segment_count) * 4, "segmentOffsets")?;
        let data_at = r.take(u64::from(data_size), "data")?;
        if r.pos != payload.len() {
            return Err(err(
                r.at(),
                "data",
                ReadErrorKind::Trailing {
                    count: (payload.len() - r.pos) as u64,
                },
            ));
        }
        let layout = Layout {
            constants_at,
            ranges_at,
            offsets_at,
            data_at,
            data_len: data_size as usize,
            ..layout_partial
        };
        let rotations: Vec<bool> = channels
            .iter()
            .filter(|c| c.class == ChannelClass::Animated)
            .map(|c| c.kind == Kind::Rotation)
            .collect();
        layout.check_segments(payload, base, data_size_at, &rotations)?;
        Ok(layout)
    }

    /// Every segment record sits where the one before it ends, holds bit widths of at
    /// most [`MAX_COMPRESSED_BITS`], reduction bytes with bits 6–7 clear and ranges
    /// with `lo ≤ hi`, and the data end with
    /// [`DATA_TAIL`] zero bytes.
    fn check_segments(
        &self,
        payload: &[u8],
        base: u64,
        data_size_at: u64,
        rotations: &[bool],
    ) -> Result<(), ReadError> {
        let a = self.animated_count as usize;
        let mut expected = 0usize;
        for s in 0..self.segment_count as usize {
            let off_at = self.offsets_at + 4 * s;
            let off = u32_at(payload, off_at) as usize;
            if off != expected {
                return Err(rule(
                    base + off_at as u64,
                    "segmentOffsets",
                    format!(
                        "segment {s} starts at {off}, expected {expected} (where segment {} ends)",
                        s.max(1) - 1
                    ),
                ));
            }
            let header = a * SEGMENT_CHANNEL_BYTES;
            if off + header > self.data_len {
                return Err(err(
                    base + (self.data_at + off) as u64,
                    "segment header",
                    ReadErrorKind::Overrun {
                        size: header as u64,
                        available: self.data_len.saturating_sub(off) as u64,
                    },
                ));
            }
            let rec = self.data_at + off;
            let mut frame_bits = 0u64;
            for c in 0..a {
                let byte = payload[rec + c];
                let bits = byte & WIDTH_MASK;
                let drop_bits = byte >> 5;
                if byte & 0x80 != 0
                    || (drop_bits != 0 && !rotations.get(c).copied().unwrap_or(false))
                {
                    return Err(err(
                        base + (rec + c) as u64,
                        "bits",
                        ReadErrorKind::Reserved,
                    ));
                }
                if u32::from(bits) > MAX_COMPRESSED_BITS {
                    return Err(err(
                        base + (rec + c) as u64,
                        "bits",
                        ReadErrorKind::Limit {
                            value: u64::from(bits),
                            limit: u64::from(MAX_COMPRESSED_BITS),
                        },
                    ));
                }
                let reduce = payload[rec + a + c];
                if reduce & !REDUCE_MASK != 0 {
                    return Err(err(
                        base + (rec + a + c) as u64,
                        "reduce",
                        ReadErrorKind::Reserved,
                    ));
                }
                frame_bits += component_widths(byte, reduce)
                    .iter()
                    .map(|&w| u64::from(w))
                    .sum::<u64>();
                let rg = rec + 2 * a + 6 * c;
                for k in 0..3 {
                    if payload[rg + k] > payload[rg + 3 + k] {
                        return Err(rule(
                            base + (rg + k) as u64,
                            "segment range",
                            format!(
                                "channel {c}: lo {} above hi {}",
                                payload[rg + k],
                                payload[rg + 3 + k]
                            ),
                        ));
                    }
                }
            }
            let frames = self.frames_in_segment(s as u32) as u64;
            expected = off + header + (frames * frame_bits).div_ceil(8) as usize;
        }
        if expected + DATA_TAIL != self.data_len {
            return Err(rule(
                data_size_at,
                "dataSize",
                format!(
                    "{} differs from the segments' {expected} bytes and {DATA_TAIL} tail bytes",
                    self.data_len
                ),
            ));
        }
        let tail = self.data_at + expected;
        if let Some(k) = payload[tail..tail + DATA_TAIL].iter().position(|&b| b != 0) {
            return Err(err(
                base + (tail + k) as u64,
                "data tail",
                ReadErrorKind::Padding,
            ));
        }
        Ok(())
    }

    /// The fixed fields alone, unchecked, for display (`None` when the payload is
    /// shorter than them).
    pub fn header(payload: &[u8]) -> Option<Layout> {
        if payload.len() < FIXED_SIZE {
            return None;
        }
        Some(Layout {
            frame_count: u32_at(payload, 0),
            segment_frames: u32_at(payload, 4),
            bone_count: u32_at(payload, 8),
            animated_count: u32_at(payload, 12),
            constant_count: u32_at(payload, 16),
            segment_count: u32_at(payload, 20),
            tolerance: f32_at(payload, 24),
            distance: f32_at(payload, 28),
            classes_at: FIXED_SIZE,
            constants_at: 0,
            ranges_at: 0,
            offsets_at: 0,
            data_at: 0,
            data_len: 0,
        })
    }

    /// Frames held by segment `s`.
    pub fn frames_in_segment(&self, s: u32) -> u32 {
        let start = s * self.segment_frames;
        self.segment_frames
            .min(self.frame_count - start.min(self.frame_count))
    }

    /// The channels that are not default, in file order.
    pub fn channels(&self, payload: &[u8]) -> Vec<Channel> {
        let mut out = Vec::new();
        let (mut a, mut c) = (0, 0);
        for b in 0..self.bone_count {
            let byte = payload
                .get(self.classes_at + b as usize)
                .copied()
                .unwrap_or(0);
            for kind in Kind::ALL {
                let class = match (byte >> kind.shift()) & 3 {
                    1 => ChannelClass::Constant,
                    2 => ChannelClass::Animated,
                    _ => continue,
                };
                let index = if class == ChannelClass::Animated {
                    &mut a
                } else {
                    &mut c
                };
                out.push(Channel {
                    bone: b,
                    kind,
                    class,
                    index: *index,
                });
                *index += 1;
            }
        }
        out
    }

    /// The value of constant channel `i`.
    pub fn constant(&self, payload: &[u8], i: u32) -> [f32; 4] {
        let at = self.constants_at + 16 * i as usize;
        [0, 4, 8, 12].map(|o| f32_at(payload, at + o))
    }

    /// The clip range of animated channel `i`: minimum and extent per component.
    pub fn range(&self, payload: &[u8], i: u32) -> ([f32; 3], [f32; 3]) {
        let at = self.ranges_at + 24 * i as usize;
        (
            [0, 4, 8].map(|o| f32_at(payload, at + o)),
            [12, 16, 20].map(|o| f32_at(payload, at + o)),
        )
    }

    /// The bytes of segment `s`'s record and everything after it in the data (so that
    /// eight-byte loads near its end stay inside).
    pub fn segment<'p>(&self, payload: &'p [u8], s: u32) -> &'p [u8] {
        let off = u32_at(payload, self.offsets_at + 4 * s as usize) as usize;
        payload
            .get(self.data_at + off..self.data_at + self.data_len)
            .unwrap_or(&[])
    }

    /// The bytes of segment `s`'s record alone: from its offset to the next record's,
    /// or to the data's zero tail for the last.
    pub fn segment_len(&self, payload: &[u8], s: u32) -> usize {
        let at = |i: u32| u32_at(payload, self.offsets_at + 4 * i as usize) as usize;
        let end = if s + 1 < self.segment_count {
            at(s + 1)
        } else {
            self.data_len.saturating_sub(DATA_TAIL)
        };
        end.saturating_sub(at(s))
    }
}

/// A stored constant: finite, a rotation of unit length within
/// [`QUAT_LENGTH_TOLERANCE`], a translation or scale within [`MAX_COMPRESSED_VALUE`]
/// with 0 as its fourth float.
fn check_values(v: [f32; 4], kind: Kind, at: u64, field: &'static str) -> Result<(), ReadError> {
    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
        return Err(err(at + 4 * k as u64, field, ReadErrorKind::NotFinite));
    }
    let ok = match kind {
        Kind::Rotation => {
            let n: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
            (n.sqrt() - 1.0).abs() <= QUAT_LENGTH_TOLERANCE
        }
        _ => {
            if v[3] != 0.0 {
                return Err(err(at + 12, field, ReadErrorKind::Reserved));
            }
            v.iter().all(|x| x.abs() <= MAX_COMPRESSED_VALUE)
        }
    };
    if !ok {
        return Err(rule(
            at,
            field,
            format!("{kind:?} value {v:?} is out of bounds"),
        ));
    }
    Ok(())
}

/// A clip range: finite, extent ≥ 0, and every value it can decode to within the
/// bounds of [`check_values`] per component (rotation components in [−1, 1]).
fn check_range(min: [f32; 3], ext: [f32; 3], kind: Kind, at: u64) -> Result<(), ReadError> {
    for k in 0..3 {
        if !min[k].is_finite() {
            return Err(err(at + 4 * k as u64, "ranges", ReadErrorKind::NotFinite));
        }
        if !ext[k].is_finite() {
            return Err(err(
                at + 12 + 4 * k as u64,
                "ranges",
                ReadErrorKind::NotFinite,
            ));
        }
        let (lo, hi) = (f64::from(min[k]), f64::from(min[k]) + f64::from(ext[k]));
        let bound = match kind {
            Kind::Rotation => 1.0,
            _ => f64::from(MAX_COMPRESSED_VALUE),
        };
        if ext[k] < 0.0 || lo < -bound || hi > bound {
            return Err(rule(
                at + 4 * k as u64,
                "ranges",
                format!("{kind:?} component {k}: range [{lo}, {hi}] outside [-{bound}, {bound}] or reversed"),
            ));
        }
    }
    Ok(())
}
