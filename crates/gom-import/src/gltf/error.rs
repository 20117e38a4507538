//! The error type of the glTF importer and exporter.

use std::path::PathBuf;

/// Everything that can go wrong reading or writing glTF. Every variant names the file
/// and, where there is one, the glTF object (`accessors[3]`, `nodes[0]`, …) or the byte
/// offset in a `.glb` container.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// A file (the model itself or an external buffer) could not be read.
    #[error("{path}: cannot read file: {source}")]
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The binary `.glb` container is malformed.
    #[error("{file}: GLB container, byte {offset}: {message}")]
    Container {
        /// The `.glb` file.
        file: String,
        /// Byte offset of the offending field.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The JSON text does not parse or does not follow the glTF schema.
    #[error("{file}: invalid glTF JSON: {message}")]
    Json {
        /// The file whose JSON is broken.
        file: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A glTF object is invalid or refers to data that is not there.
    #[error("{file}: {object}: {message}")]
    Invalid {
        /// The file the object lives in.
        file: String,
        /// The object, as a JSON path: `accessors[3]`, `meshes[0].primitives[1]`.
        object: String,
        /// What is wrong.
        message: String,
    },
    /// A GOM model cannot be written as glTF.
    #[error("cannot export {object} to glTF: {message}")]
    Export {
        /// The part of the model, e.g. `meshes[2]`.
        object: String,
        /// What is wrong.
        message: String,
    },
}
