//! Why a JPOG model could not be converted.

/// An error converting a `.tmd` (with its `.tkl` and `.tml`) into GOM.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JpogImportError {
    /// A file could not be read as its format: the `jpog` reader's error names the
    /// record, field and byte offset.
    #[error("{file}: {source}")]
    Read {
        /// The name given for the file.
        file: String,
        /// The reader's error.
        #[source]
        source: jpog::Error,
    },
    /// The files are readable but hold something GOM cannot (a non-finite value, a
    /// bind matrix that is not affine, keys out of order, too many bones…).
    #[error("{file}: {record}: {problem}")]
    Invalid {
        /// The name given for the file.
        file: String,
        /// The record concerned (e.g. "node 3", "animation 1 channel 4 key 2").
        record: String,
        /// What is wrong, as a sentence fragment.
        problem: String,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
}
