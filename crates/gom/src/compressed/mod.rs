//! Compressed clips, the `CLPZ` extension (`docs/extensions.md`): a clip sampled at a
//! uniform rate, cut into segments of frames, each channel range-reduced per clip and
//! per segment and quantised to a bit width chosen per segment against an error bound
//! measured on the skeleton as a whole.
//!
//! This module holds the one definition of the layout ([`Layout`], parsed strictly by
//! the GOMB reader), of the decoding arithmetic ([`decode`]) and the encoder
//! ([`encode()`]). The runtime and the tools decode through it; the encoder measures
//! its error through the same functions, so what it promises is what a reader gets.

pub mod decode;
pub mod encode;
mod layout;
pub mod metric;

pub use encode::{encode, EncodeInput, Settings};
pub use tracks::{bind_trs, check_clip, decoded_tracks, first_difference};

mod tracks;

/// The time of frame `frame` of a compressed clip sampled at `sample_rate` Hz:
/// `frame / sample_rate` in `f64`, rounded once to `f32` (0 when the rate is not
/// positive). The encoder samples its source there and the decoded keys stand there.
pub fn frame_time(frame: u32, sample_rate: f32) -> f32 {
    if sample_rate > 0.0 {
        (f64::from(frame) / f64::from(sample_rate)) as f32
    } else {
        0.0
    }
}
pub use layout::{Channel, ChannelClass, Layout};

use crate::model::ClipFlags;

/// The version of the `CLPZ` chunk this module reads and writes.
pub const VERSION: u32 = 1;
/// Bytes of the fixed fields at the start of a `CLPZ` payload.
pub const FIXED_SIZE: usize = 48;
/// Zero bytes that end the packed data, so that every read of a packed value may load
/// eight bytes.
pub const DATA_TAIL: usize = 8;
/// Frames per segment the encoder writes.
pub const SEGMENT_FRAMES: u32 = 16;
/// Bytes of one segment's per-channel header: the width byte, the reduction byte and
/// six range bytes.
pub const SEGMENT_CHANNEL_BYTES: usize = 8;

/// `CLP0.flags` bit 1, reserved in GOM v1 (so v1 readers refuse the clip): the clip's
/// samples are in the `CLPZ` chunk that follows it inside `ANIM`, and the `CLP0` itself
/// holds no track. Outside [`ClipFlags::all`], which keeps the v1 bits.
pub const CLIP_FLAG_COMPRESSED: ClipFlags = ClipFlags::from_bits_retain(1 << 1);

/// Which part of a bone's transform a channel holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Translation (x, y, z).
    Translation,
    /// Rotation, stored as (x, y, z) of the unit quaternion with `w ≥ 0`.
    Rotation,
    /// Scale (x, y, z).
    Scale,
}

impl Kind {
    /// The three kinds in file order.
    pub const ALL: [Kind; 3] = [Kind::Translation, Kind::Rotation, Kind::Scale];

    /// The shift of this kind's two bits in a bone's class byte.
    pub fn shift(self) -> u32 {
        match self {
            Kind::Translation => 0,
            Kind::Rotation => 2,
            Kind::Scale => 4,
        }
    }
}

/// A bone's local transform as the codec sees it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Trs {
    /// Translation.
    pub t: [f32; 3],
    /// Rotation quaternion (x, y, z, w), unit length.
    pub r: [f32; 4],
    /// Scale.
    pub s: [f32; 3],
}

impl Trs {
    /// The four floats of the channel of kind `k`: translation and scale (x, y, z, 0),
    /// rotation the quaternion turned to `w ≥ 0`.
    pub fn values(&self, k: Kind) -> [f32; 4] {
        match k {
            Kind::Translation => [self.t[0], self.t[1], self.t[2], 0.0],
            Kind::Scale => [self.s[0], self.s[1], self.s[2], 0.0],
            Kind::Rotation if self.r[3] < 0.0 => self.r.map(|v| -v),
            Kind::Rotation => self.r,
        }
    }

    /// Sets the channel of kind `k` from its four floats (see [`Trs::values`]).
    pub fn set_values(&mut self, k: Kind, v: [f32; 4]) {
        match k {
            Kind::Translation => self.t = [v[0], v[1], v[2]],
            Kind::Scale => self.s = [v[0], v[1], v[2]],
            Kind::Rotation => self.r = v,
        }
    }
}
