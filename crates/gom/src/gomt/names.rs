//! The names GOMT uses for enum values, flags and vertex keys.

use crate::model::{ClipFlags, ValidationFlags};
use crate::validate::Check;

/// The only coordinate system of GOM v1 (binary value 1).
pub const COORDINATE_SYSTEM: &str = "CS_LH_YUP_METERS";
/// The only matrix convention of GOM v1 (binary value 1).
pub const MATRIX_CONVENTION: &str = "MC_ROW_MAJOR_ROW_VECTOR_RIGHT_MUL";

/// Clip flag names with their bits.
pub const CLIP_FLAGS: [(&str, ClipFlags); 1] = [("HasRootMotion", ClipFlags::HAS_ROOT_MOTION)];

/// The keys a vertex table may carry, in the order they are written: position,
/// normal, tangent, uv0, uv1, colour, skin bone indices, skin weights, then the
/// `SKNX` extension's influences five to eight (bone indices, weights) and
/// dual-quaternion share (`docs/extensions.md` §3).
pub const VERTEX_KEYS: [&str; 11] = [
    "p", "n", "t", "uv", "uv1", "c", "bi", "bw", "bi2", "bw2", "dq",
];

/// The bit of a validation flag name (the names of [`Check::name`]).
pub fn validation_flag(name: &str) -> Option<ValidationFlags> {
    Check::ALL
        .iter()
        .find(|c| c.name() == name)
        .map(|c| c.flag())
}

/// The names of the flags set in `flags`, in bit order.
pub fn validation_flag_names(flags: ValidationFlags) -> Vec<&'static str> {
    Check::ALL
        .iter()
        .filter(|c| flags.contains(c.flag()))
        .map(|c| c.name())
        .collect()
}

/// The bit of a clip flag name.
pub fn clip_flag(name: &str) -> Option<ClipFlags> {
    CLIP_FLAGS.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

/// Parses 64 hexadecimal digits (either case) into 32 bytes.
pub fn parse_hash(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in b.chunks_exact(2).enumerate() {
        let hi = char::from(pair[0]).to_digit(16)?;
        let lo = char::from(pair[1]).to_digit(16)?;
        out[i] = u8::try_from(hi * 16 + lo).ok()?;
    }
    Some(out)
}

/// 64 lowercase hexadecimal digits.
pub fn format_hash(h: &[u8; 32]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(64);
    for &b in h {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}
