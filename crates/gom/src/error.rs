//! Errors of the GOM format core: [`ReadError`] for bytes a reader refuses and
//! [`WriteError`] for models a writer refuses.
//!
//! Every [`ReadError`] names the byte offset, the place (the header, the chunk table or a
//! chunk by its FourCC) and the field it concerns, and displays as a sentence.

use core::fmt;

/// A chunk's four-character code, the four bytes as they stand in the file (D4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    /// `STR0`, the string table (D6).
    pub const STR0: FourCc = FourCc(*b"STR0");
    /// `SKEL`, the skeleton.
    pub const SKEL: FourCc = FourCc(*b"SKEL");
    /// `MATL`, the material table (D8).
    pub const MATL: FourCc = FourCc(*b"MATL");
    /// `MSH0`, a mesh part (container, D7).
    pub const MSH0: FourCc = FourCc(*b"MSH0");
    /// `VB0 `, a mesh's vertex buffer.
    pub const VB0: FourCc = FourCc(*b"VB0 ");
    /// `IB0 `, a mesh's index buffer.
    pub const IB0: FourCc = FourCc(*b"IB0 ");
    /// `SUB0`, a mesh's submesh table.
    pub const SUB0: FourCc = FourCc(*b"SUB0");
    /// `IBND`, a mesh's inverse bind matrices.
    pub const IBND: FourCc = FourCc(*b"IBND");
    /// `BND0`, a mesh's bounds.
    pub const BND0: FourCc = FourCc(*b"BND0");
    /// `GBTM`, a mesh's geometry-to-model bind matrix (optional).
    pub const GBTM: FourCc = FourCc(*b"GBTM");
    /// `ANIM`, the animation container (D9).
    pub const ANIM: FourCc = FourCc(*b"ANIM");
    /// `CLP0`, one clip inside `ANIM`.
    pub const CLP0: FourCc = FourCc(*b"CLP0");
}

impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in &self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// The eight bytes found where a file's magic should be. Displays them as text (non-ASCII
/// bytes escaped) and in hex: `"GOMX0001" (47 4F 4D 58 30 30 30 31)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Magic(pub [u8; 8]);

impl fmt::Display for Magic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" (", self.0.escape_ascii())?;
        for (i, b) in self.0.iter().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            write!(f, "{sep}{b:02X}")?;
        }
        f.write_str(")")
    }
}

/// Where in a GOMB file a problem lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// The file as a whole (for a chunk the file lacks).
    File,
    /// The 512-byte file header (D3).
    Header,
    /// The chunk table (D5).
    ChunkTable,
    /// A chunk, by its FourCC.
    Chunk(FourCc),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::File => f.write_str("the file"),
            Place::Header => f.write_str("the header"),
            Place::ChunkTable => f.write_str("the chunk table"),
            Place::Chunk(c) => write!(f, "chunk `{c}`"),
        }
    }
}

/// Why a GOMB reader refused a file. Every variant carries the byte `offset` (from the
/// start of the file), the `place` and the `field` concerned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// The file, or the chunk's size, ends before a field does.
    #[error("field `{field}` of {place} at offset {offset} needs {needed} bytes but only {available} remain")]
    Truncated {
        /// Offset of the field.
        offset: u64,
        /// Place of the field.
        place: Place,
        /// The field.
        field: &'static str,
        /// Bytes the field needs.
        needed: u64,
        /// Bytes left in the file or container.
        available: u64,
    },
    /// A field holds a value the format forbids there.
    #[error("field `{field}` of {place} at offset {offset} is {value}, expected {expected}")]
    Value {
        /// Offset of the field.
        offset: u64,
        /// Place of the field.
        place: Place,
        /// The field.
        field: &'static str,
        /// The value found.
        value: u64,
        /// What the format requires.
        expected: &'static str,
    },
    /// The file does not start with the magic `GOMB0001` (D3).
    #[error(
        "field `{field}` of {place} at offset {offset} is {found}, expected the bytes `GOMB0001`"
    )]
    Magic {
        /// Always 0.
        offset: u64,
        /// Always [`Place::Header`].
        place: Place,
        /// Always `magic`.
        field: &'static str,
        /// The first eight bytes of the file.
        found: Magic,
    },
    /// An enum field holds a value GOM v1 does not define (§7.1.2).
    #[error("field `{field}` of {place} at offset {offset} holds the unknown value {value}")]
    UnknownEnum {
        /// Offset of the field.
        offset: u64,
        /// Place of the field.
        place: Place,
        /// The field.
        field: &'static str,
        /// The value found.
        value: u32,
    },
    /// The header says the file is big-endian (D3).
    #[error("field `{field}` of {place} at offset {offset} says big-endian: big-endian is not supported in v1")]
    BigEndian {
        /// Offset of the field.
        offset: u64,
        /// Always [`Place::Header`].
        place: Place,
        /// Always `endianness`.
        field: &'static str,
    },
    /// A reserved field or bit is not zero.
    #[error("reserved field `{field}` of {place} at offset {offset} is not zero")]
    Reserved {
        /// Offset of the first non-zero byte (or of the field).
        offset: u64,
        /// Place of the field.
        place: Place,
        /// The field.
        field: &'static str,
    },
    /// Padding bytes are not zero (D4).
    #[error("padding `{field}` of {place} at offset {offset} is not zero")]
    Padding {
        /// Offset of the first non-zero padding byte.
        offset: u64,
        /// Place of the padding.
        place: Place,
        /// Which padding.
        field: &'static str,
    },
    /// A count exceeds a limit of D12.
    #[error(
        "field `{field}` of {place} at offset {offset} is {value}, above the limit of {limit}"
    )]
    Limit {
        /// Offset of the field.
        offset: u64,
        /// Place of the field.
        place: Place,
        /// The field.
        field: &'static str,
        /// The value found.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// A float is NaN or infinite.
    #[error("field `{field}` of {place} at offset {offset} is not a finite number")]
    NotFinite {
        /// Offset of the float.
        offset: u64,
        /// Place of the float.
        place: Place,
        /// The field.
        field: &'static str,
    },
    /// A chunk or array runs past its container or the end of the file (§8.4).
    #[error("{place} at offset {offset} needs {size} bytes for `{field}` but only {available} remain in its container")]
    Overrun {
        /// Offset of the chunk header or array.
        offset: u64,
        /// The chunk.
        place: Place,
        /// The size field or array.
        field: &'static str,
        /// Bytes claimed.
        size: u64,
        /// Bytes present.
        available: u64,
    },
    /// A known chunk stands where it may not (D4, D13).
    #[error("{place} at offset {offset} may not stand {where_}")]
    Misplaced {
        /// Offset of the chunk header.
        offset: u64,
        /// The chunk.
        place: Place,
        /// Always `fourcc`.
        field: &'static str,
        /// Where it was found, e.g. `at top level` or `inside MSH0`.
        where_: &'static str,
    },
    /// A chunk that may appear once appears again.
    #[error("{place} at offset {offset} appears a second time in its {field}")]
    Duplicate {
        /// Offset of the second occurrence.
        offset: u64,
        /// The chunk.
        place: Place,
        /// `file` or the container's name.
        field: &'static str,
    },
    /// A required chunk is absent.
    #[error(
        "the required chunk `{field}` is missing from {place} (looked for at offset {offset})"
    )]
    Missing {
        /// Offset of the container (0 for the file).
        offset: u64,
        /// The container, or the header for the file.
        place: Place,
        /// The FourCC of the missing chunk.
        field: &'static str,
    },
    /// A chunk table entry disagrees with the chunk it points at (D5).
    #[error("chunk table entry {index} at offset {offset}: field `{field}` does not match the chunk in the file")]
    TableMismatch {
        /// Offset of the entry field.
        offset: u64,
        /// Always [`Place::ChunkTable`].
        place: Place,
        /// The entry field.
        field: &'static str,
        /// Entry index.
        index: u32,
    },
    /// Bytes follow the end of the chunk table or of a chunk's fields.
    #[error("{place} has {count} unexpected bytes at offset {offset} after `{field}`")]
    Trailing {
        /// Offset of the first extra byte.
        offset: u64,
        /// Where.
        place: Place,
        /// What they follow.
        field: &'static str,
        /// Number of extra bytes.
        count: u64,
    },
    /// A string is not valid UTF-8 or has no terminating NUL inside the data (D6).
    #[error("string {index} of {place} (field `{field}`, at offset {offset}) {reason}")]
    BadString {
        /// Offset of the string's first byte (or of its offset entry).
        offset: u64,
        /// Always chunk STR0.
        place: Place,
        /// The field.
        field: &'static str,
        /// String index.
        index: u32,
        /// What is wrong.
        reason: &'static str,
    },
    /// A structural rule of D7–D13 is broken.
    #[error("field `{field}` of {place} at offset {offset}: {reason}")]
    Rule {
        /// Offset of the offending value.
        offset: u64,
        /// Place of the value.
        place: Place,
        /// The field.
        field: &'static str,
        /// The rule broken, as a sentence fragment.
        reason: String,
    },
    /// A validation flag is set while its check fails (D13): the file claims what it is not.
    #[error(
        "field `{field}` of {place} at offset {offset} sets {flag} but the check fails: {finding}"
    )]
    FlagClaim {
        /// Offset of the header's `validationFlags` field (60).
        offset: u64,
        /// Always [`Place::Header`].
        place: Place,
        /// Always `validationFlags`.
        field: &'static str,
        /// The flag's name.
        flag: &'static str,
        /// The first failure of the check.
        finding: String,
    },
}

impl ReadError {
    /// Byte offset from the start of the file.
    pub fn offset(&self) -> u64 {
        match self {
            ReadError::Truncated { offset, .. }
            | ReadError::Value { offset, .. }
            | ReadError::Magic { offset, .. }
            | ReadError::UnknownEnum { offset, .. }
            | ReadError::BigEndian { offset, .. }
            | ReadError::Reserved { offset, .. }
            | ReadError::Padding { offset, .. }
            | ReadError::Limit { offset, .. }
            | ReadError::NotFinite { offset, .. }
            | ReadError::Overrun { offset, .. }
            | ReadError::Misplaced { offset, .. }
            | ReadError::Duplicate { offset, .. }
            | ReadError::Missing { offset, .. }
            | ReadError::TableMismatch { offset, .. }
            | ReadError::Trailing { offset, .. }
            | ReadError::BadString { offset, .. }
            | ReadError::Rule { offset, .. }
            | ReadError::FlagClaim { offset, .. } => *offset,
        }
    }

    /// The header, the chunk table or the chunk concerned.
    pub fn place(&self) -> Place {
        match self {
            ReadError::Truncated { place, .. }
            | ReadError::Value { place, .. }
            | ReadError::Magic { place, .. }
            | ReadError::UnknownEnum { place, .. }
            | ReadError::BigEndian { place, .. }
            | ReadError::Reserved { place, .. }
            | ReadError::Padding { place, .. }
            | ReadError::Limit { place, .. }
            | ReadError::NotFinite { place, .. }
            | ReadError::Overrun { place, .. }
            | ReadError::Misplaced { place, .. }
            | ReadError::Duplicate { place, .. }
            | ReadError::Missing { place, .. }
            | ReadError::TableMismatch { place, .. }
            | ReadError::Trailing { place, .. }
            | ReadError::BadString { place, .. }
            | ReadError::Rule { place, .. }
            | ReadError::FlagClaim { place, .. } => *place,
        }
    }

    /// The field concerned.
    pub fn field(&self) -> &'static str {
        match self {
            ReadError::Truncated { field, .. }
            | ReadError::Value { field, .. }
            | ReadError::Magic { field, .. }
            | ReadError::UnknownEnum { field, .. }
            | ReadError::BigEndian { field, .. }
            | ReadError::Reserved { field, .. }
            | ReadError::Padding { field, .. }
            | ReadError::Limit { field, .. }
            | ReadError::NotFinite { field, .. }
            | ReadError::Overrun { field, .. }
            | ReadError::Misplaced { field, .. }
            | ReadError::Duplicate { field, .. }
            | ReadError::Missing { field, .. }
            | ReadError::TableMismatch { field, .. }
            | ReadError::Trailing { field, .. }
            | ReadError::BadString { field, .. }
            | ReadError::Rule { field, .. }
            | ReadError::FlagClaim { field, .. } => field,
        }
    }
}

/// What in a model a writer refuses to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The header (converter version).
    Header,
    /// A bone, by index.
    Bone(usize),
    /// A material, by index.
    Material(usize),
    /// A mesh part, by index.
    Mesh(usize),
    /// A clip, by index.
    Clip(usize),
    /// The whole file.
    File,
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Header => f.write_str("the header"),
            Item::Bone(i) => write!(f, "bone {i}"),
            Item::Material(i) => write!(f, "material {i}"),
            Item::Mesh(i) => write!(f, "mesh {i}"),
            Item::Clip(i) => write!(f, "clip {i}"),
            Item::File => f.write_str("the file"),
        }
    }
}

/// A model that cannot be written, because a reader would refuse the result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// A value breaks a structural rule of the format.
    #[error("{item} (`{name}`), field `{field}`: {reason}")]
    Invalid {
        /// The model item.
        item: Item,
        /// Its name, when it has one.
        name: String,
        /// The field.
        field: &'static str,
        /// The rule broken.
        reason: String,
    },
    /// A count exceeds a limit of D12, or the file would exceed 4 GiB.
    #[error("{item} (`{name}`), field `{field}`: {value} is above the limit of {limit}")]
    Limit {
        /// The model item.
        item: Item,
        /// Its name, when it has one.
        name: String,
        /// The field.
        field: &'static str,
        /// The value.
        value: u64,
        /// The limit.
        limit: u64,
    },
}

impl WriteError {
    /// The model item concerned.
    pub fn item(&self) -> Item {
        match self {
            WriteError::Invalid { item, .. } | WriteError::Limit { item, .. } => *item,
        }
    }

    /// The field concerned.
    pub fn field(&self) -> &'static str {
        match self {
            WriteError::Invalid { field, .. } | WriteError::Limit { field, .. } => field,
        }
    }
}
