//! One entry point for every file kind gom reads: the extension picks the importer,
//! and every importer yields the same [`gom::Model`].
//!
//! The types and functions of an import's neighbours are re-exported here, so that
//! `gom_import::source::X` names everything a caller of the import needs: the
//! options ([`crate::options`]), the formats ([`crate::format`]), the result
//! ([`crate::imported`]), the errors ([`crate::error`]), texture lookup
//! ([`crate::texture`]) and export ([`crate::export`]).

use std::path::{Path, PathBuf};

use crate::pipeline::Stopped;

pub use crate::error::{ConvertError, ExportError, ImportError};
pub use crate::export::{
    export, export_imported, export_to, export_with_images, Converted, Destination, ExportedFiles,
};
pub use crate::format::{OutputFormat, SourceFormat};
pub use crate::imported::{Imported, SideFile};
pub use crate::options::ImportOptions;
pub use crate::texture::{
    find_textures, texture_images, textures_read, Textures, MAX_TEXTURE_FILE_BYTES,
};

/// Reads any file gom understands into a model.
pub fn import_path(path: &Path, options: &ImportOptions) -> Result<Imported, ImportError> {
    let format = SourceFormat::of_path(path).ok_or_else(|| ImportError::UnknownFormat {
        path: path.to_path_buf(),
    })?;
    let bytes = read_file(path)?;
    import_bytes(path, &bytes, format, options)
}

/// Reads `bytes`, the contents of `path` in `format`, into a model. `path` names the
/// file in errors and locates companion files. The pipeline steps the options ask for
/// (units and axes, animation files, clip control: [`crate::pipeline`]) follow the
/// import, whatever the format.
pub fn import_bytes(
    path: &Path,
    bytes: &[u8],
    format: SourceFormat,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut imported = import_with_pipeline(path, bytes, format, options)?;
    if options.compress {
        let compressed =
            crate::compress::compress_model(&mut imported.model, options.compress_settings())
                .map_err(|source| ImportError::Compress {
                    path: path.to_path_buf(),
                    source,
                })?;
        crate::compress::record(&mut imported, &compressed);
    }
    Ok(imported)
}

/// The import and the pipeline steps, before compression.
fn import_with_pipeline(
    path: &Path,
    bytes: &[u8],
    format: SourceFormat,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let (mut imported, declared) = import_source(path, bytes, format, options)?;
    if !crate::pipeline::is_active(options) {
        return Ok(imported);
    }
    let failed = |source| ImportError::Pipeline {
        path: path.to_path_buf(),
        source: Box::new(source),
    };
    let step = crate::pipeline::PipelineError::Step;
    let space = crate::pipeline::correct_space(&mut imported.model, &declared, options)
        .map_err(|e| failed(step(e)))?;
    let anim_options = crate::pipeline::anim_file_options(options);
    crate::pipeline::run(&mut imported, space, options, |anim| {
        let format = SourceFormat::of_path(anim).ok_or_else(|| ImportError::UnknownFormat {
            path: anim.to_path_buf(),
        })?;
        let bytes = read_file(anim)?;
        let (read, declared) = import_source(anim, &bytes, format, &anim_options)?;
        let mut model = read.model;
        crate::pipeline::correct_space(&mut model, &declared, &anim_options).map_err(|e| {
            ImportError::Pipeline {
                path: anim.to_path_buf(),
                source: Box::new(step(e)),
            }
        })?;
        Ok(model)
    })
    .map_err(|stopped| match stopped {
        Stopped::Read(source) => ImportError::AnimFile {
            path: path.to_path_buf(),
            source: Box::new(source),
        },
        Stopped::Step(source) => failed(source),
    })?;
    Ok(imported)
}

/// [`import_bytes`] without the pipeline steps, with the space the importer took the
/// file to be in.
fn import_source(
    path: &Path,
    bytes: &[u8],
    format: SourceFormat,
    options: &ImportOptions,
) -> Result<(Imported, crate::pipeline::SourceSpace), ImportError> {
    let space = crate::pipeline::SourceSpace::GOM;
    if bytes.is_empty() {
        return Err(ImportError::Empty {
            path: path.to_path_buf(),
        });
    }
    if format == SourceFormat::Glb && !bytes.starts_with(b"glTF") {
        return Err(ImportError::NotGlb {
            path: path.to_path_buf(),
        });
    }
    match format {
        SourceFormat::Gomb => {
            let read = gom::gomb::read(bytes).map_err(|source| ImportError::Gomb {
                path: path.to_path_buf(),
                source,
            })?;
            let warnings: Vec<String> = read
                .unknown_chunks
                .iter()
                .map(|u| {
                    format!(
                        "unknown chunk '{}' at offset {} skipped",
                        String::from_utf8_lossy(&u.fourcc),
                        u.offset
                    )
                })
                .collect();
            let out = Imported {
                model: read.model,
                warnings,
                ..Imported::default()
            };
            Ok((out, space))
        }
        SourceFormat::Gomt => {
            let model = gom::gomt::read_bytes(bytes).map_err(|source| ImportError::Gomt {
                path: path.to_path_buf(),
                source,
            })?;
            let out = Imported {
                model,
                ..Imported::default()
            };
            Ok((out, space))
        }
        SourceFormat::Fbx => {
            let fbx_options = crate::fbx::FbxOptions {
                sample_rate: options.sample_rate,
                key_tolerance: options.reduction_tolerance(),
                reduce_keys: options.reduces_keys(),
                optimize_meshes: options.optimize_meshes,
                ..Default::default()
            };
            let name = path.display().to_string();
            let (model, report, images) =
                crate::fbx::convert_with_images(bytes, &name, &fbx_options)
                    .map_err(ImportError::Fbx)?;
            let declared = report.source_space.unwrap_or(space);
            Ok((imported(model, &report, images), declared))
        }
        SourceFormat::Gltf | SourceFormat::Glb => {
            let gltf_options = crate::gltf::GltfOptions {
                sample_rate: options.sample_rate,
            };
            let name = path.display().to_string();
            let base = path.parent().filter(|p| !p.as_os_str().is_empty());
            let base = base.unwrap_or(Path::new("."));
            let (model, report) =
                crate::gltf::import_slice(bytes, &name, Some(base), &gltf_options)
                    .map_err(ImportError::Gltf)?;
            let side_files = report
                .images
                .iter()
                .map(|i| SideFile {
                    relative_path: PathBuf::from(&i.file_name),
                    bytes: i.bytes.clone(),
                })
                .collect();
            let out = imported(model, &report.report, side_files);
            Ok((out, crate::pipeline::SourceSpace::GLTF))
        }
        SourceFormat::Tmd => {
            let found = tmd_companions(path, bytes, options);
            let read = |p: &Path| read_file(p).map(|b| (b, p.display().to_string()));
            let tkl = found.tkl.as_deref().map(read).transpose()?;
            let tml = found.tml.as_deref().map(read).transpose()?;
            let jpog_options = crate::jpog::JpogOptions {
                lod: options.lod,
                handedness: options.jpog_handedness,
                channel_flag3_reading: options.jpog_channel_flag3,
                ..Default::default()
            };
            let converted = crate::jpog::convert(
                bytes,
                &path.display().to_string(),
                tkl.as_ref().map(|(b, n)| (b.as_slice(), n.as_str())),
                tml.as_ref().map(|(b, n)| (b.as_slice(), n.as_str())),
                &jpog_options,
            )
            .map_err(ImportError::Jpog)?;
            let report = &converted.report.report;
            let mut out = imported(converted.model, report, converted.side_files);
            out.report = converted.report.to_json();
            Ok((out, space))
        }
        SourceFormat::Bvh => {
            let bvh_options = crate::bvh::BvhOptions::from_import(options);
            let name = path.display().to_string();
            let (model, report) =
                crate::bvh::convert(bytes, &name, &bvh_options).map_err(ImportError::Bvh)?;
            let mut out = imported(model, &report.report, Vec::new());
            (out.report, out.summary) = (report.to_json(), report.summary());
            Ok((out, crate::bvh::SOURCE_SPACE))
        }
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, ImportError> {
    std::fs::read(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn imported(
    model: gom::Model,
    report: &crate::report::Report,
    side_files: Vec<SideFile>,
) -> Imported {
    let mut warnings: Vec<String> = report.loader_warnings.clone();
    warnings.extend(report.warnings.iter().cloned());
    Imported {
        model,
        warnings,
        report: report.to_json(),
        summary: report.summary(),
        side_files,
    }
}

/// The companion files a source's conversion reads besides the source itself: its
/// own (a `.gltf`'s buffers and images, a `.tmd`'s libraries), then the options'
/// animation files (with theirs) and bone map.
pub fn companions(path: &Path, options: &ImportOptions) -> Vec<PathBuf> {
    let mut out = own_companions(path, options);
    for anim in &options.anim {
        out.push(anim.clone());
        out.extend(own_companions(anim, options));
    }
    out.extend(options.bone_map.iter().cloned());
    out
}

/// The files the import of `path` alone reads besides it.
fn own_companions(path: &Path, options: &ImportOptions) -> Vec<PathBuf> {
    match SourceFormat::of_path(path) {
        Some(SourceFormat::Tmd) => companions_of(path, &crate::jpog::read_header(path), options),
        Some(SourceFormat::Gltf) => std::fs::read(path)
            .map(|bytes| companions_of(path, &bytes, options))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The keyframe and material libraries of the `.tmd` at `path`, found from its bytes
/// (its header is enough) and the options.
fn tmd_companions(path: &Path, bytes: &[u8], options: &ImportOptions) -> crate::jpog::Companions {
    let header = &bytes[..bytes.len().min(0x1C)];
    crate::jpog::find_companions(path, header, options.tkl.as_deref(), options.tml.as_deref())
}

/// [`companions`] of the source `path` whose bytes (or, for a `.tmd`, at least its
/// header) are `bytes`, so that a build reads each source once.
pub fn companions_of(path: &Path, bytes: &[u8], options: &ImportOptions) -> Vec<PathBuf> {
    match SourceFormat::of_path(path) {
        Some(SourceFormat::Tmd) => {
            let found = tmd_companions(path, bytes, options);
            found.tkl.into_iter().chain(found.tml).collect()
        }
        Some(SourceFormat::Gltf) => crate::gltf::external_files(path, bytes),
        _ => Vec::new(),
    }
}

/// Imports `path` and encodes it in `format` for an output in another folder: one
/// step of a batch build.
pub fn convert_path(
    path: &Path,
    options: &ImportOptions,
    format: OutputFormat,
) -> Result<Converted, ConvertError> {
    let imported = import_path(path, options)?;
    let out_name = path.with_extension(format.extension());
    // A build writes into another folder (it refuses the source folder).
    let exported = export_to(&imported, path, format, &out_name, Destination::OtherFolder)
        .map_err(|source| ConvertError::Export {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(Converted {
        bytes: exported.bytes,
        side_files: exported.side_files,
        warnings: exported.warnings,
        textures: textures_read(&imported),
    })
}
