//! The errors of importing, exporting and converting one file.

use std::path::PathBuf;

/// Why a source file could not be read into a model. Every message names the file
/// once: the importers' own errors name it already; the others are given its path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The extension names no format gom reads.
    #[error("{path}: unknown file type (expected .gom, .gomt, .fbx, .gltf, .glb, .tmd or .bvh)")]
    UnknownFormat {
        /// The file concerned.
        path: PathBuf,
    },
    /// The file (or a companion file) cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file that cannot be read.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The GOM binary reader refused the file.
    #[error("{path}: {source}")]
    Gomb {
        /// The file concerned.
        path: PathBuf,
        /// The reader's error, with the byte offset.
        source: gom::error::ReadError,
    },
    /// The GOM text reader refused the file.
    #[error("{path}: {source}")]
    Gomt {
        /// The file concerned.
        path: PathBuf,
        /// The reader's error, with line and column.
        source: gom::gomt::TextError,
    },
    /// The file holds no bytes.
    #[error("{path}: the file is empty")]
    Empty {
        /// The file concerned.
        path: PathBuf,
    },
    /// A `.glb` file that does not start with a GLB container's magic.
    #[error("{path}: not a GLB container: a .glb starts with the bytes 'glTF' (glTF JSON is named .gltf)")]
    NotGlb {
        /// The file concerned.
        path: PathBuf,
    },
    /// The FBX importer failed; its error names the file.
    #[error("{0}")]
    Fbx(#[source] crate::fbx::FbxError),
    /// The glTF importer failed; its error names the file.
    #[error("{0}")]
    Gltf(#[source] crate::gltf::GltfError),
    /// The JPOG importer failed; its error names the file.
    #[error("{0}")]
    Jpog(#[source] crate::jpog::JpogImportError),
    /// The BVH importer failed; its error names the file.
    #[error("{0}")]
    Bvh(#[source] crate::bvh::BvhError),
    /// An animation file the options name could not be read; the error names it.
    #[error("{path}: {source}")]
    AnimFile {
        /// The file being converted.
        path: PathBuf,
        /// Why the animation file could not be read.
        source: Box<ImportError>,
    },
    /// A pipeline step (units and axes, animation files, clip control) failed.
    #[error("{path}: {source}")]
    Pipeline {
        /// The file being converted.
        path: PathBuf,
        /// What failed (boxed: the steps' errors carry their options, and every
        /// import returns this type).
        source: Box<crate::pipeline::PipelineError>,
    },
    /// A clip could not be compressed (`--compress`).
    #[error("{path}: {source}")]
    Compress {
        /// The file being converted.
        path: PathBuf,
        /// What failed.
        source: crate::compress::CompressError,
    },
}

/// Why a model could not be encoded in an output format.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The GOM binary or text writer refused the model.
    #[error("{0}")]
    Gom(#[source] gom::error::WriteError),
    /// The glTF exporter refused the model.
    #[error("{0}")]
    Gltf(#[source] crate::gltf::GltfError),
}

/// Why one step of a batch build ([`crate::source::convert_path`]) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The source could not be read; the error names it.
    #[error("{0}")]
    Import(#[from] ImportError),
    /// The model read from `path` could not be encoded.
    #[error("{path}: {source}")]
    Export {
        /// The source file whose model was refused.
        path: PathBuf,
        /// The exporter's error.
        source: ExportError,
    },
}
