//! The one error type of the runtime.

use std::fmt;

/// Everything the runtime can refuse.
///
/// Files are checked by the GOMB reader; models built in memory are checked by
/// [`Asset::from_model`](crate::Asset::from_model). Errors name what they concern and
/// read as a sentence.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A model built in memory breaks a rule the runtime relies on.
    InvalidModel {
        /// Where: the mesh, clip or bone concerned.
        location: String,
        /// What is wrong.
        problem: String,
    },
    /// A pose, palette or skeleton has a different bone count than expected.
    BoneCount {
        /// What was being computed.
        what: &'static str,
        /// The bone count required.
        expected: usize,
        /// The bone count given.
        found: usize,
    },
    /// A bone index past the skeleton.
    BoneIndex {
        /// What was being computed.
        what: &'static str,
        /// The index given.
        bone: usize,
        /// The skeleton's bone count.
        bone_count: usize,
    },
    /// A caller-provided buffer has the wrong length.
    BufferLength {
        /// Which buffer.
        buffer: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A clip has a track for a bone the skeleton does not have.
    TrackBone {
        /// The clip's name.
        clip: String,
        /// The track's bone index.
        bone: u32,
        /// The skeleton's bone count.
        bone_count: usize,
    },
    /// A mesh has no vertex attribute the operation needs.
    MissingAttribute {
        /// The mesh's name.
        mesh: String,
        /// The attribute, e.g. `normal`.
        attribute: &'static str,
    },
    /// The GOMB bytes were refused by the reader.
    Read(gom::error::ReadError),
    /// This machine cannot read GOMB data in place (big-endian hosts).
    Unsupported(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidModel { location, problem } => {
                write!(f, "the model cannot be used at run time: {location}: {problem}")
            }
            Error::BoneCount {
                what,
                expected,
                found,
            } => write!(
                f,
                "{what} needs {expected} bones but was given {found}; use the skeleton the data was made for"
            ),
            Error::BoneIndex {
                what,
                bone,
                bone_count,
            } => write!(
                f,
                "{what}: bone {bone} is past the skeleton's {bone_count} bones"
            ),
            Error::BufferLength {
                buffer,
                expected,
                found,
            } => write!(
                f,
                "the {buffer} buffer holds {found} entries but {expected} are needed"
            ),
            Error::TrackBone {
                clip,
                bone,
                bone_count,
            } => write!(
                f,
                "clip \"{clip}\" animates bone {bone} but the skeleton has only {bone_count} bones"
            ),
            Error::MissingAttribute { mesh, attribute } => {
                write!(f, "mesh \"{mesh}\" has no {attribute} attribute")
            }
            Error::Read(e) => write!(f, "the GOMB file was refused: {e}"),
            Error::Unsupported(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read(e) => Some(e),
            _ => None,
        }
    }
}

impl From<gom::error::ReadError> for Error {
    fn from(e: gom::error::ReadError) -> Self {
        Error::Read(e)
    }
}
