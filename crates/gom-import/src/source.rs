//! One entry point for every file kind gom reads: the extension picks the importer,
//! and every importer yields the same [`gom::Model`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The source formats gom reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceFormat {
    /// GOM binary (`.gom`, `.gomb`).
    Gomb,
    /// GOM text (`.gomt`).
    Gomt,
    /// FBX, binary or ASCII (`.fbx`).
    Fbx,
    /// glTF 2.0 JSON (`.gltf`).
    Gltf,
    /// glTF 2.0 binary (`.glb`).
    Glb,
    /// Jurassic Park: Operation Genesis model (`.tmd`).
    Tmd,
}

impl SourceFormat {
    /// The format named by `path`'s extension, if gom reads it.
    pub fn of_path(path: &Path) -> Option<SourceFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "gom" | "gomb" => SourceFormat::Gomb,
            "gomt" => SourceFormat::Gomt,
            "fbx" => SourceFormat::Fbx,
            "gltf" => SourceFormat::Gltf,
            "glb" => SourceFormat::Glb,
            "tmd" => SourceFormat::Tmd,
            _ => return None,
        })
    }
}

/// The output formats gom writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutputFormat {
    /// GOM binary.
    Gomb,
    /// GOM text.
    Gomt,
    /// glTF 2.0 binary.
    Glb,
    /// glTF 2.0 JSON with embedded buffers.
    Gltf,
}

impl OutputFormat {
    /// The format named by an extension or a `--to`/`--format` value.
    pub fn from_name(name: &str) -> Option<OutputFormat> {
        Some(match name.to_ascii_lowercase().as_str() {
            "gom" | "gomb" => OutputFormat::Gomb,
            "gomt" => OutputFormat::Gomt,
            "glb" => OutputFormat::Glb,
            "gltf" => OutputFormat::Gltf,
            _ => return None,
        })
    }

    /// The format named by `path`'s extension.
    pub fn of_path(path: &Path) -> Option<OutputFormat> {
        OutputFormat::from_name(path.extension()?.to_str()?)
    }

    /// The file extension written for this format.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Gomb => "gom",
            OutputFormat::Gomt => "gomt",
            OutputFormat::Glb => "glb",
            OutputFormat::Gltf => "gltf",
        }
    }
}

/// A file a conversion writes beside its main output (an embedded texture, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    /// Path relative to the main output's folder.
    pub relative_path: PathBuf,
    /// The bytes to write.
    pub bytes: Vec<u8>,
}

/// Options that affect how a source file becomes a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOptions {
    /// Rate animation is sampled at when a source must be resampled, in Hz.
    pub sample_rate: f32,
    /// Reorder vertices and indices for the vertex cache and fetch (meshopt).
    pub optimize_meshes: bool,
    /// Key reduction tolerance in metres, measured 10 cm from the joint; 0 keeps
    /// every key.
    pub key_tolerance: f32,
    /// JPOG: the level of detail to convert.
    pub lod: usize,
    /// JPOG: the keyframe library; found beside the model by its name when `None`.
    pub tkl: Option<PathBuf>,
    /// JPOG: the material library; found beside the model when `None`.
    pub tml: Option<PathBuf>,
    /// JPOG: how the game's Z-up axes are read.
    pub jpog_handedness: crate::jpog::Handedness,
    /// JPOG: how animation channels with flags 3 are read.
    pub jpog_channel_flag3: crate::jpog::ChannelFlag3Reading,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            sample_rate: 30.0,
            optimize_meshes: true,
            key_tolerance: 0.001,
            lod: 0,
            tkl: None,
            tml: None,
            jpog_handedness: Default::default(),
            jpog_channel_flag3: Default::default(),
        }
    }
}

impl ImportOptions {
    /// A stable text naming every option, for build manifests.
    pub fn fingerprint(&self) -> String {
        format!(
            "sample_rate={};optimize_meshes={};key_tolerance={};lod={};tkl={:?};tml={:?}",
            self.sample_rate,
            self.optimize_meshes,
            self.key_tolerance,
            self.lod,
            self.tkl,
            self.tml
        )
    }
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

/// An error reading or converting a source file; the message names the file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ImportError {
    /// The file concerned.
    pub path: PathBuf,
    /// What went wrong, as a sentence.
    pub message: String,
}

impl ImportError {
    fn new(path: &Path, message: impl std::fmt::Display) -> Self {
        ImportError {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

/// Reads any file gom understands into a model.
pub fn import_path(path: &Path, options: &ImportOptions) -> Result<Imported, ImportError> {
    let format = SourceFormat::of_path(path).ok_or_else(|| {
        ImportError::new(
            path,
            "unknown file type (expected .gom, .gomt, .fbx, .gltf, .glb or .tmd)",
        )
    })?;
    let bytes = std::fs::read(path).map_err(|e| ImportError::new(path, e))?;
    import_bytes(path, &bytes, format, options)
}

/// Reads `bytes`, the contents of `path` in `format`, into a model. `path` names the
/// file in errors and locates companion files.
pub fn import_bytes(
    path: &Path,
    bytes: &[u8],
    format: SourceFormat,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    if bytes.is_empty() {
        return Err(ImportError::new(path, "the file is empty"));
    }
    if format == SourceFormat::Glb && !bytes.starts_with(b"glTF") {
        return Err(ImportError::new(
            path,
            "not a GLB container: a .glb starts with the bytes 'glTF' (glTF JSON is named .gltf)",
        ));
    }
    match format {
        SourceFormat::Gomb => {
            let read = gom::gomb::read(bytes).map_err(|e| ImportError::new(path, e))?;
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
            Ok(Imported {
                model: read.model,
                warnings,
                ..Imported::default()
            })
        }
        SourceFormat::Gomt => {
            let text = std::str::from_utf8(bytes)
                .map_err(|e| ImportError::new(path, format!("not UTF-8 text: {e}")))?;
            let model = gom::gomt::read(text).map_err(|e| ImportError::new(path, e))?;
            Ok(Imported {
                model,
                ..Imported::default()
            })
        }
        SourceFormat::Fbx => {
            let fbx_options = crate::fbx::FbxOptions {
                sample_rate: options.sample_rate,
                key_tolerance: crate::optimize::keys::KeyTolerance {
                    tolerance: options.key_tolerance,
                    ..Default::default()
                },
                reduce_keys: options.key_tolerance > 0.0,
                optimize_meshes: options.optimize_meshes,
                ..Default::default()
            };
            let name = path.display().to_string();
            let (model, report) = crate::fbx::convert(bytes, &name, &fbx_options)
                .map_err(|e| ImportError::new(path, e))?;
            Ok(imported(model, &report, Vec::new()))
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
                    .map_err(|e| ImportError::new(path, e))?;
            let side_files = report
                .images
                .iter()
                .map(|i| SideFile {
                    relative_path: PathBuf::from(&i.file_name),
                    bytes: i.bytes.clone(),
                })
                .collect();
            let mut warnings_report = report.report.clone();
            for m in &report.morph_targets {
                warnings_report.warn(format!("morph targets ignored: {m}"));
            }
            Ok(imported(model, &warnings_report, side_files))
        }
        SourceFormat::Tmd => {
            let header = &bytes[..bytes.len().min(0x1C)];
            let found = crate::jpog::find_companions(
                path,
                header,
                options.tkl.as_deref(),
                options.tml.as_deref(),
            );
            let read = |p: &Path| {
                std::fs::read(p)
                    .map(|b| (b, p.display().to_string()))
                    .map_err(|e| ImportError::new(p, e))
            };
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
            .map_err(|e| ImportError::new(path, e))?;
            let report = &converted.report.report;
            let mut out = imported(converted.model, report, converted.side_files);
            out.report = converted.report.to_json();
            Ok(out)
        }
    }
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

/// Encodes `model` in `format` for an output file named `output_name` (a `.gltf`
/// refers to its buffer as `<stem>.bin`, returned as a side file). glTF outputs leave
/// textures out: see [`export_with_images`].
pub fn export(
    model: &gom::Model,
    format: OutputFormat,
    output_name: &Path,
) -> Result<(Vec<u8>, Vec<SideFile>), String> {
    export_with_images(model, format, output_name, &BTreeMap::new())
        .map(|e| (e.bytes, e.side_files))
}

/// The encoded images of the textures `model`'s materials name, by name: from
/// `side_files` (images the import extracted) or else the file of that name relative
/// to `dir` (the source's folder). Textures found in neither are not listed.
pub fn texture_images(
    model: &gom::Model,
    dir: &Path,
    side_files: &[SideFile],
) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for name in model
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture.as_ref())
    {
        if out.contains_key(name) {
            continue;
        }
        let extracted = side_files
            .iter()
            .find(|s| s.relative_path == Path::new(name))
            .map(|s| s.bytes.clone());
        if let Some(bytes) = extracted.or_else(|| std::fs::read(dir.join(name)).ok()) {
            out.insert(name.clone(), bytes);
        }
    }
    out
}

/// [`export`], with the texture `images` (see [`texture_images`]) that glTF outputs
/// embed, and warnings about what the output leaves out.
pub fn export_with_images(
    model: &gom::Model,
    format: OutputFormat,
    output_name: &Path,
    images: &BTreeMap<String, Vec<u8>>,
) -> Result<ExportedFiles, String> {
    let files = |bytes, side_files, warnings| ExportedFiles {
        bytes,
        side_files,
        warnings,
    };
    match format {
        OutputFormat::Gomb => gom::gomb::write(model)
            .map(|b| files(b, Vec::new(), Vec::new()))
            .map_err(|e| e.to_string()),
        OutputFormat::Gomt => gom::gomt::write(model)
            .map(|t| files(t.into_bytes(), Vec::new(), Vec::new()))
            .map_err(|e| e.to_string()),
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
                crate::gltf::export_with_warnings(model, &options).map_err(|e| e.to_string())?;
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

/// The companion files a source's conversion reads besides the source itself.
pub fn companions(path: &Path, options: &ImportOptions) -> Vec<PathBuf> {
    match SourceFormat::of_path(path) {
        Some(SourceFormat::Tmd) => {}
        Some(SourceFormat::Gltf) => return gltf_external_files(path),
        _ => return Vec::new(),
    }
    let header = crate::jpog::read_header(path);
    let found = crate::jpog::find_companions(
        path,
        &header,
        options.tkl.as_deref(),
        options.tml.as_deref(),
    );
    found.tkl.into_iter().chain(found.tml).collect()
}

/// The relative files (buffers, images) a `.gltf` refers to by URI, sorted. Data URIs
/// and absolute or remote URIs are not files beside the model and are left out.
fn gltf_external_files(path: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read(path) else {
        return Vec::new();
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out: Vec<PathBuf> = ["buffers", "images"]
        .iter()
        .filter_map(|k| doc.get(*k).and_then(|v| v.as_array()))
        .flatten()
        .filter_map(|item| item.get("uri").and_then(|u| u.as_str()))
        .filter(|uri| !uri.starts_with("data:") && !uri.contains("://") && !uri.starts_with('/'))
        .map(|uri| base.join(uri))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Imports `path` and encodes it in `format`: one step of a batch build.
pub fn convert_path(
    path: &Path,
    options: &ImportOptions,
    format: OutputFormat,
) -> Result<crate::build::Converted, String> {
    let imported = import_path(path, options).map_err(|e| e.to_string())?;
    let out_name = path.with_extension(format.extension());
    let exported = export_imported(&imported, path, format, &out_name)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(crate::build::Converted {
        bytes: exported.bytes,
        side_files: exported.side_files,
        warnings: exported.warnings,
    })
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
) -> Result<ExportedFiles, String> {
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
