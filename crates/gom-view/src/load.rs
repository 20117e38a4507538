//! Reading models for the viewer: files named on the command line through
//! `gom_import`'s one import path (every format, JPOG models with their libraries),
//! and uploaded bytes, which never lead to a file: only self-contained formats are
//! accepted and nothing they name is looked up on disk.

use crate::data::{Notes, ViewModel};
use crate::{Refusal, ViewError};
use gom_import::source::{ImportOptions, SourceFormat};
use std::path::Path;

/// Reads the file at `path` (any format gom reads) and prepares it for the page.
pub fn load_path(path: &Path, options: &ImportOptions) -> Result<ViewModel, ViewError> {
    let imported = gom_import::source::import_path(path, options).map_err(Box::new)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let textures = gom_import::source::texture_images(&imported.model, dir, &imported.side_files);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let keep = SourceFormat::of_path(path) == Some(SourceFormat::Gomb);
    let model = with_flags(imported.model, keep);
    ViewModel::new(
        name,
        &model,
        Notes {
            warnings: imported.warnings,
            textures,
        },
    )
}

/// The formats an upload may have: those whose file holds everything (a `.tmd` needs
/// its libraries, a `.gltf` may name buffers beside it, and an upload has no folder).
pub const UPLOAD_FORMATS: &str = ".gom, .gomt, .glb, .fbx, .bvh, or .gltf with embedded buffers";

/// Reads uploaded `bytes` named `file_name` (a name only: it chooses the format and is
/// shown, and never becomes a path that is opened).
pub fn load_upload(
    file_name: &str,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<ViewModel, ViewError> {
    let name: String = file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(200)
        .collect();
    let refused = |name: &str, refusal| ViewError::Upload {
        name: name.to_string(),
        refusal,
    };
    let format = SourceFormat::of_path(Path::new(&name))
        .ok_or_else(|| refused(&name, Refusal::UnknownType))?;
    let imported = match format {
        SourceFormat::Tmd => return Err(refused(&name, Refusal::NeedsLibraries)),
        SourceFormat::Gltf | SourceFormat::Glb => gltf_upload(&name, bytes, options)?,
        _ => gom_import::source::import_bytes(Path::new(&name), bytes, format, options)
            .map_err(Box::new)?,
    };
    let textures: std::collections::BTreeMap<String, Vec<u8>> = imported
        .side_files
        .iter()
        .map(|s| {
            (
                s.relative_path.to_string_lossy().into_owned(),
                s.bytes.clone(),
            )
        })
        .collect();
    let model = with_flags(imported.model, format == SourceFormat::Gomb);
    ViewModel::new(
        name,
        &model,
        Notes {
            warnings: imported.warnings,
            textures,
        },
    )
}

/// glTF from memory with no folder: only embedded, data-URI and GLB buffers.
fn gltf_upload(
    name: &str,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<gom_import::source::Imported, ViewError> {
    if bytes.is_empty() {
        return Err(ViewError::Upload {
            name: name.to_string(),
            refusal: Refusal::Empty,
        });
    }
    let gltf_options = gom_import::gltf::GltfOptions {
        sample_rate: options.sample_rate,
    };
    let (model, report) = gom_import::gltf::import_slice(bytes, name, None, &gltf_options)?;
    // Morph targets are kept (`report.morph_targets` lists where they were), not
    // worth a warning.
    let mut warnings = report.report.loader_warnings.clone();
    warnings.extend(report.report.warnings.iter().cloned());
    let side_files = report
        .images
        .iter()
        .map(|i| gom_import::source::SideFile {
            relative_path: i.file_name.clone().into(),
            bytes: i.bytes.clone(),
        })
        .collect();
    Ok(gom_import::source::Imported {
        model,
        warnings,
        side_files,
        ..Default::default()
    })
}

/// The model with the validation flags a GOM file written from it would claim; a GOM
/// binary file (`keep`) shows the flags it has.
fn with_flags(mut model: gom::Model, keep: bool) -> gom::Model {
    if !keep {
        model.header.validation_flags = gom::validate::flags_for(&model);
    }
    model
}
