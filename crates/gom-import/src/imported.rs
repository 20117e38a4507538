//! What an import yields: the model, what the importer said about it, and the files
//! to write beside an output.

use std::path::PathBuf;

/// A file a conversion writes beside its main output (an embedded texture, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    /// Path relative to the main output's folder.
    pub relative_path: PathBuf,
    /// The bytes to write.
    pub bytes: Vec<u8>,
}

/// A model read from a source file, with what the importer had to say about it.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// The model.
    pub model: gom::Model,
    /// Warnings: what the source held that GOM cannot, what was dropped or changed.
    pub warnings: Vec<String>,
    /// The importer's detailed report, for `--report json`.
    pub report: serde_json::Value,
    /// The report for a person to read ([`crate::report::Report::summary`]).
    pub summary: Vec<String>,
    /// Files to write beside the output (embedded textures).
    pub side_files: Vec<SideFile>,
}
