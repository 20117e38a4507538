//! The crate's one error type.

use std::fmt;

/// Which kind of file an error concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A `.tml` material library.
    Tml,
    /// A `.tmd` model.
    Tmd,
    /// A `.tkl` keyframe library.
    Tkl,
    /// A DDS file embedded in a TML texture (format 6).
    Dds,
    /// A PNG image.
    Png,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Tml => "TML",
            FileKind::Tmd => "TMD",
            FileKind::Tkl => "TKL",
            FileKind::Dds => "DDS",
            FileKind::Png => "PNG",
        })
    }
}

/// Everything that can go wrong reading, converting or writing the game's files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not follow the layout: `record` names the record (e.g. "node 12",
    /// "lod 0 mesh 2 piece 1"), `field` the field, `offset` the file offset.
    #[error("{kind} {record}: field `{field}` at byte {offset}: {problem}")]
    Malformed {
        /// The file kind.
        kind: FileKind,
        /// The record concerned.
        record: String,
        /// The field concerned.
        field: &'static str,
        /// File offset of the field.
        offset: u64,
        /// What is wrong, as a sentence fragment.
        problem: String,
    },
    /// A writer or edit refused a value that breaks one of the game's rules.
    #[error("{kind} {record}: field `{field}`: {reason}; the game cannot load such a file, so it is not written")]
    Refused {
        /// The file kind.
        kind: FileKind,
        /// The record concerned.
        record: String,
        /// The field concerned.
        field: &'static str,
        /// The rule that is broken.
        reason: String,
    },
    /// A texture format this crate cannot decode or encode (its bytes are kept).
    #[error(
        "TML {record}: texture format {format} is not supported (its bytes are kept unchanged)"
    )]
    UnsupportedFormat {
        /// The texture concerned.
        record: String,
        /// The stored format number.
        format: u16,
    },
    /// A reference between files or records does not resolve (a key index past the end of
    /// the keyframe library, a bone byte past a palette, a parent cycle).
    #[error("{kind} {record}: field `{field}`: {problem}")]
    Reference {
        /// The file kind holding the reference.
        kind: FileKind,
        /// The record concerned.
        record: String,
        /// The field concerned.
        field: &'static str,
        /// What does not resolve.
        problem: String,
    },
    /// Something requested by the caller does not exist (a material name, a LOD index…).
    #[error("{kind}: {what} not found")]
    NotFound {
        /// The file kind.
        kind: FileKind,
        /// What was looked for.
        what: String,
    },
    /// An image could not be made, decoded or encoded (gom's one image codec).
    #[error("{context}: {source}")]
    Image {
        /// What was being done: "decode", "encode", "image".
        context: &'static str,
        /// The codec's error.
        #[source]
        source: gom_image::ImageError,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path concerned.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds a [`Error::Malformed`].
    pub fn malformed(
        kind: FileKind,
        record: impl Into<String>,
        field: &'static str,
        offset: usize,
        problem: impl Into<String>,
    ) -> Self {
        Error::Malformed {
            kind,
            record: record.into(),
            field,
            offset: offset as u64,
            problem: problem.into(),
        }
    }

    /// Builds a [`Error::Refused`].
    pub fn refused(
        kind: FileKind,
        record: impl Into<String>,
        field: &'static str,
        reason: impl Into<String>,
    ) -> Self {
        Error::Refused {
            kind,
            record: record.into(),
            field,
            reason: reason.into(),
        }
    }
}
