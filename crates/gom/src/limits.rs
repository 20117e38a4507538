//! The reader's limits (D12, `docs/format.md` §3) and the tolerances of the checks (D7, D13).

/// Most bones a skeleton may have.
pub const MAX_BONES: u32 = 4096;
/// Most vertices a mesh part may have.
pub const MAX_VERTICES: u32 = 10_000_000;
/// Most indices a mesh part may have.
pub const MAX_INDICES: u32 = 30_000_000;
/// A mesh part with at most this many vertices stores 16-bit indices (every index fits
/// in a `u16`); a larger one stores 32-bit indices (D7).
pub const MAX_U16_INDEXED_VERTICES: u32 = 65_536;
/// Most clips a file may have.
pub const MAX_CLIPS: u32 = 1024;
/// Most tracks a clip may have.
pub const MAX_TRACKS: u32 = 8192;
/// Most keys a clip may have, summed over its tracks.
pub const MAX_KEYS_PER_CLIP: u32 = 1_000_000;
/// The strings a model refers to (each use counted) may total at most this many times
/// the file's size, so that copying them into a [`crate::Model`] stays within a small
/// multiple of the input (D12).
pub const MAX_STRING_EXPANSION: u64 = 2;

/// Skin weights must sum to 1 within this (D7).
pub const WEIGHT_SUM_TOLERANCE: f64 = 1e-5;
/// `IBND[b] * bindWorld[b]` must be the identity within this per element (D13).
pub const BIND_POSE_TOLERANCE: f32 = 1e-3;
/// A quaternion's length may differ from 1 by at most this (D13).
pub const QUAT_LENGTH_TOLERANCE: f64 = 1e-3;
/// Relative tolerance of the bounds containment test (D13).
pub const BOUNDS_TOLERANCE: f64 = 1e-5;

/// Most frames a compressed clip (`CLPZ`, `docs/extensions.md`) may hold; besides,
/// frames times bones with an animated channel may not exceed [`MAX_KEYS_PER_CLIP`],
/// so that the clip's decoded keys stay within what an uncompressed clip may hold.
pub const MAX_COMPRESSED_FRAMES: u32 = 1_000_000;
/// Most frames one segment of a compressed clip may hold.
pub const MAX_SEGMENT_FRAMES: u32 = 255;
/// Widest quantised component of a compressed clip, in bits.
pub const MAX_COMPRESSED_BITS: u32 = 24;
/// Largest magnitude a compressed translation or scale may decode to (metres for
/// translations): keeps every decoded value, and what is computed from it, finite.
pub const MAX_COMPRESSED_VALUE: f32 = 1.0e6;

/// Most skin influences a vertex may have with the `SKNX` extension
/// (`docs/extensions.md` §3); GOM v1 alone allows 4.
pub const MAX_SKIN_INFLUENCES: usize = 8;
/// A blended mesh's per-vertex dual-quaternion share lies within `[0, MAX_DQ_WEIGHT]`.
pub const MAX_DQ_WEIGHT: f32 = 1.0;

/// Most morph targets a mesh may have (`MRPH`, `docs/extensions.md` §4).
pub const MAX_MORPH_TARGETS: u32 = 1024;
/// Most deltas (vertices moved, summed over targets) a mesh's morph targets may hold.
pub const MAX_MORPH_DELTAS: u32 = 16_000_000;
/// Largest magnitude of a morph delta component: with at most
/// [`MAX_MORPH_TARGETS`] targets at weights within [`MAX_MORPH_WEIGHT`], every
/// morphed attribute stays finite.
pub const MAX_MORPH_DELTA: f32 = 1.0e6;
/// Largest magnitude of a morph weight (a default weight or a key of `MWGT`).
pub const MAX_MORPH_WEIGHT: f32 = 1.0e3;
/// Most weight tracks a clip may have (`MWGT`); their keys count against
/// [`MAX_KEYS_PER_CLIP`] on their own.
pub const MAX_WEIGHT_TRACKS: u32 = 8192;
