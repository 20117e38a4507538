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
    /// `CLPZ`, the samples of a compressed clip inside `ANIM` (extension,
    /// `docs/extensions.md`).
    pub const CLPZ: FourCc = FourCc(*b"CLPZ");
    /// `CLPA`, an additive clip's reference inside `ANIM`, right after its `CLP0`
    /// (extension, `docs/extensions.md` §4).
    pub const CLPA: FourCc = FourCc(*b"CLPA");
    /// `EVNT`, a clip's float tracks and events inside `ANIM`, after its `CLP0` (and
    /// its `CLPZ` or `CLPA`) (optional extension, `docs/extensions.md` §5).
    pub const EVNT: FourCc = FourCc(*b"EVNT");
    /// Skinning modes and up to eight influences (extension, `docs/extensions.md` §3).
    pub const SKNX: FourCc = FourCc(*b"SKNX");
    /// A mesh's morph targets (extension, `docs/extensions.md` §4).
    pub const MRPH: FourCc = FourCc(*b"MRPH");
    /// A clip's morph weight tracks, inside `ANIM` (extension, `docs/extensions.md` §4).
    pub const MWGT: FourCc = FourCc(*b"MWGT");
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

/// Why a GOMB reader refused a file: the byte `offset` (from the start of the file), the
/// `place` and the `field` concerned, and what is wrong there.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// Byte offset from the start of the file of the field, chunk or byte concerned.
    pub offset: u64,
    /// The file, the header, the chunk table or the chunk concerned.
    pub place: Place,
    /// The field concerned (for some kinds a padding, a FourCC or a container's name).
    pub field: &'static str,
    /// What is wrong.
    pub kind: ReadErrorKind,
}

/// What is wrong in GOMB bytes a reader refused; [`ReadError`] says where.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The file, or the chunk's size, ends before a field does.
    Truncated {
        /// Bytes the field needs.
        needed: u64,
        /// Bytes left in the file or container.
        available: u64,
    },
    /// A field holds a value the format forbids there.
    Value {
        /// The value found.
        value: u64,
        /// What the format requires.
        expected: &'static str,
    },
    /// The file does not start with the magic `GOMB0001` (D3); offset 0, place
    /// [`Place::Header`], field `magic`.
    Magic {
        /// The first eight bytes of the file.
        found: Magic,
    },
    /// An enum field holds a value GOM v1 does not define (§7.1.2).
    UnknownEnum {
        /// The value found.
        value: u32,
    },
    /// The header says the file is big-endian (D3); place [`Place::Header`], field
    /// `endianness`.
    BigEndian,
    /// A reserved field or bit is not zero; the offset is that of the first non-zero
    /// byte (or of the field).
    Reserved,
    /// Padding bytes are not zero (D4); the offset is that of the first non-zero byte
    /// and the field names the padding.
    Padding,
    /// A count exceeds a limit of D12.
    Limit {
        /// The value found.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// A float is NaN or infinite.
    NotFinite,
    /// A chunk or array runs past its container or the end of the file (§8.4); the
    /// offset is that of the chunk header or array, the field the size field or array.
    Overrun {
        /// Bytes claimed.
        size: u64,
        /// Bytes present.
        available: u64,
    },
    /// A known chunk stands where it may not (D4, D13); the offset is that of the
    /// chunk header and the field is `fourcc`.
    Misplaced {
        /// Where it was found, e.g. `at top level` or `inside MSH0`.
        where_: &'static str,
    },
    /// A chunk that may appear once appears again; the offset is that of the second
    /// occurrence and the field is `file` or the container's name.
    Duplicate,
    /// A required chunk is absent; the offset is that of the container (0 for the
    /// file), the place the container and the field the FourCC of the missing chunk.
    Missing,
    /// A chunk table entry disagrees with the chunk it points at (D5); place
    /// [`Place::ChunkTable`], field the entry field.
    TableMismatch {
        /// Entry index.
        index: u32,
    },
    /// Bytes follow the end of the chunk table or of a chunk's fields; the offset is that
    /// of the first extra byte and the field what they follow.
    Trailing {
        /// Number of extra bytes.
        count: u64,
    },
    /// A string is not valid UTF-8 or has no terminating NUL inside the data (D6); the
    /// offset is that of the string's first byte (or of its offset entry).
    BadString {
        /// String index.
        index: u32,
        /// What is wrong.
        reason: &'static str,
    },
    /// A structural rule of D7–D13 is broken.
    Rule {
        /// The rule broken, as a sentence fragment.
        reason: String,
    },
    /// A validation flag is set while its check fails (D13): the file claims what it is
    /// not. Offset 60, place [`Place::Header`], field `validationFlags`.
    FlagClaim {
        /// The flag's name.
        flag: &'static str,
        /// The first failure of the check.
        finding: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ReadError {
            offset,
            place,
            field,
            ref kind,
        } = *self;
        match kind {
            ReadErrorKind::Truncated { needed, available } => write!(
                f,
                "field `{field}` of {place} at offset {offset} needs {needed} bytes but only {available} remain"
            ),
            ReadErrorKind::Value { value, expected } => write!(
                f,
                "field `{field}` of {place} at offset {offset} is {value}, expected {expected}"
            ),
            ReadErrorKind::Magic { found } => write!(
                f,
                "field `{field}` of {place} at offset {offset} is {found}, expected the bytes `GOMB0001`"
            ),
            ReadErrorKind::UnknownEnum { value } => write!(
                f,
                "field `{field}` of {place} at offset {offset} holds the unknown value {value}"
            ),
            ReadErrorKind::BigEndian => write!(
                f,
                "field `{field}` of {place} at offset {offset} says big-endian: big-endian is not supported in v1"
            ),
            ReadErrorKind::Reserved => write!(
                f,
                "reserved field `{field}` of {place} at offset {offset} is not zero"
            ),
            ReadErrorKind::Padding => write!(
                f,
                "padding `{field}` of {place} at offset {offset} is not zero"
            ),
            ReadErrorKind::Limit { value, limit } => write!(
                f,
                "field `{field}` of {place} at offset {offset} is {value}, above the limit of {limit}"
            ),
            ReadErrorKind::NotFinite => write!(
                f,
                "field `{field}` of {place} at offset {offset} is not a finite number"
            ),
            ReadErrorKind::Overrun { size, available } => write!(
                f,
                "{place} at offset {offset} needs {size} bytes for `{field}` but only {available} remain in its container"
            ),
            ReadErrorKind::Misplaced { where_ } => {
                write!(f, "{place} at offset {offset} may not stand {where_}")
            }
            ReadErrorKind::Duplicate => write!(
                f,
                "{place} at offset {offset} appears a second time in its {field}"
            ),
            ReadErrorKind::Missing => write!(
                f,
                "the required chunk `{field}` is missing from {place} (looked for at offset {offset})"
            ),
            ReadErrorKind::TableMismatch { index } => write!(
                f,
                "chunk table entry {index} at offset {offset}: field `{field}` does not match the chunk in the file"
            ),
            ReadErrorKind::Trailing { count } => write!(
                f,
                "{place} has {count} unexpected bytes at offset {offset} after `{field}`"
            ),
            ReadErrorKind::BadString { index, reason } => write!(
                f,
                "string {index} of {place} (field `{field}`, at offset {offset}) {reason}"
            ),
            ReadErrorKind::Rule { reason } => {
                write!(f, "field `{field}` of {place} at offset {offset}: {reason}")
            }
            ReadErrorKind::FlagClaim { flag, finding } => write!(
                f,
                "field `{field}` of {place} at offset {offset} sets {flag} but the check fails: {finding}"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

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
#[non_exhaustive]
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
