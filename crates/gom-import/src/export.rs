//! Encoding a model in an output format, with the files written beside the output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::ExportError;
use crate::format::OutputFormat;
use crate::imported::{Imported, SideFile};
use crate::texture::texture_images;

/// Encodes `model` in `format` for an output file named `output_name` (a `.gltf`
/// refers to its buffer as `<stem>.bin`, returned as a side file). glTF outputs leave
/// textures out: see [`export_with_images`].
pub fn export(
    model: &gom::Model,
    format: OutputFormat,
    output_name: &Path,
) -> Result<(Vec<u8>, Vec<SideFile>), ExportError> {
    export_with_images(model, format, output_name, &BTreeMap::new())
        .map(|e| (e.bytes, e.side_files))
}

/// [`export`], with the texture `images` (see [`texture_images`]) that glTF outputs
/// embed, and warnings about what the output leaves out.
pub fn export_with_images(
    model: &gom::Model,
    format: OutputFormat,
    output_name: &Path,
    images: &BTreeMap<String, Vec<u8>>,
) -> Result<ExportedFiles, ExportError> {
    let files = |bytes, side_files, warnings| ExportedFiles {
        bytes,
        side_files,
        warnings,
    };
    match format {
        OutputFormat::Gomb => gom::gomb::write(model)
            .map(|b| files(b, Vec::new(), Vec::new()))
            .map_err(ExportError::Gom),
        OutputFormat::Gomt => gom::gomt::write(model)
            .map(|t| files(t.into_bytes(), Vec::new(), Vec::new()))
            .map_err(ExportError::Gom),
        OutputFormat::Glb | OutputFormat::Gltf => {
            let stem = output_name
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "model".to_string());
            let bin_name = format!("{stem}.bin");
            let container = if format == OutputFormat::Glb {
                crate::gltf::ExportFormat::Glb
            } else {
                crate::gltf::ExportFormat::Gltf {
                    bin_uri: bin_name.clone(),
                }
            };
            let options = crate::gltf::GltfExportOptions {
                format: container,
                images: images.clone(),
            };
            let (exported, warnings) =
                crate::gltf::export_with_warnings(model, &options).map_err(ExportError::Gltf)?;
            match exported {
                crate::gltf::Exported::Glb(bytes) => Ok(files(bytes, Vec::new(), warnings)),
                crate::gltf::Exported::Gltf { json, bin } => Ok(files(
                    json.into_bytes(),
                    vec![SideFile {
                        relative_path: PathBuf::from(bin_name),
                        bytes: bin,
                    }],
                    warnings,
                )),
            }
        }
    }
}

/// An imported model encoded for its output.
#[derive(Debug, Clone, Default)]
pub struct ExportedFiles {
    /// The main output's bytes.
    pub bytes: Vec<u8>,
    /// Files to write beside it: a `.gltf`'s buffer, and for GOM outputs the images
    /// the import extracted (glTF outputs embed them instead).
    pub side_files: Vec<SideFile>,
    /// The import's warnings (from [`export_imported`]), then the export's.
    pub warnings: Vec<String>,
}

/// Encodes `imported`, read from `source`, in `format` for the output `output_name`:
/// glTF outputs embed the textures (found among the import's extracted images or
/// beside `source`).
pub fn export_imported(
    imported: &Imported,
    source: &Path,
    format: OutputFormat,
    output_name: &Path,
) -> Result<ExportedFiles, ExportError> {
    let embeds = matches!(format, OutputFormat::Glb | OutputFormat::Gltf);
    let images = if embeds {
        let dir = source.parent().unwrap_or(Path::new("."));
        texture_images(&imported.model, dir, &imported.side_files)
    } else {
        BTreeMap::new()
    };
    let mut exported = export_with_images(&imported.model, format, output_name, &images)?;
    if !embeds {
        exported
            .side_files
            .extend(imported.side_files.iter().cloned());
    }
    let mut warnings = imported.warnings.clone();
    warnings.append(&mut exported.warnings);
    exported.warnings = warnings;
    Ok(exported)
}

/// What one conversion produced.
#[derive(Debug, Clone, Default)]
pub struct Converted {
    /// The main output's bytes.
    pub bytes: Vec<u8>,
    /// Files written beside the main output.
    pub side_files: Vec<SideFile>,
    /// Warnings the importer reported.
    pub warnings: Vec<String>,
    /// The texture files the conversion read, relative to the source's folder (read
    /// or looked for: an absent one counts, so that its appearance rebuilds).
    pub textures: Vec<String>,
}
