//! GOMB0001, the binary form (D3–D13): the canonical writer [`write()`], the strict zero-copy
//! [`FileView`] and [`read`], which turns a file into a [`Model`].
//!
//! ```
//! let model = gom::Model::default();
//! let bytes = gom::gomb::write(&model).unwrap();
//! let back = gom::gomb::read(&bytes).unwrap();
//! assert_eq!(back.model.meshes.len(), 0);
//! ```

mod anim;
mod clip_ext;
mod cursor;
mod header;
mod lanes;
mod mesh;
mod morph;
mod skel;
mod sknx;
mod str0;
mod to_model;
mod view;
mod write;

pub use header::{HEADER_SIZE, MAGIC};
pub use morph::{TargetView, WeightTrackView};
pub use view::{ClipView, FileView, MeshView, SkeletonView, TrackView};
pub use write::write;

use crate::error::ReadError;
use crate::model::Model;
use crate::validate::Finding;

/// A chunk the reader does not know, skipped by its size (§8.5) and recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownChunk {
    /// Its FourCC.
    pub fourcc: [u8; 4],
    /// File offset of its chunk header.
    pub offset: u64,
    /// Its payload size.
    pub size: u32,
    /// The container holding it (`MSH0` or `ANIM`), `None` at top level.
    pub parent: Option<[u8; 4]>,
}

impl std::fmt::Display for UnknownChunk {
    /// The warning a tool gives for it: `unknown chunk 'XXXX' (N bytes) at offset O
    /// skipped`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown chunk '{}' ({} bytes) at offset {} skipped",
            String::from_utf8_lossy(&self.fourcc),
            self.size,
            self.offset
        )
    }
}

/// What [`read`] returns: the model, the chunks it skipped and the validation
/// findings of the checks whose flags are clear.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The model.
    pub model: Model,
    /// Chunks skipped because their FourCC is unknown.
    pub unknown_chunks: Vec<UnknownChunk>,
    /// Findings of the validation checks whose header flag is clear (D13).
    pub findings: Vec<Finding>,
}

/// Reads a GOMB file strictly: [`FileView::parse`] then [`FileView::to_model`].
pub fn read(bytes: &[u8]) -> Result<Read, ReadError> {
    let mut decoded = Vec::new();
    let view = FileView::parse_decoding(bytes, Some(&mut decoded))?;
    let model = to_model::to_model(&view, decoded);
    let FileView {
        unknown, findings, ..
    } = view;
    Ok(Read {
        model,
        unknown_chunks: unknown,
        findings,
    })
}
