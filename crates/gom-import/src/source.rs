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
///
/// Every field takes part in [`ImportOptions::fingerprint`] through its `Serialize`
/// implementation, so a field added here is covered by incremental builds without
/// further work. Every field also implements `Deserialize`, so that a build config
/// (`gom.toml`, [`crate::build::config`]) can set any of them by its name.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    #[serde(
        serialize_with = "serialize_path",
        deserialize_with = "deserialize_path"
    )]
    pub tkl: Option<PathBuf>,
    /// JPOG: the material library; found beside the model when `None`.
    #[serde(
        serialize_with = "serialize_path",
        deserialize_with = "deserialize_path"
    )]
    pub tml: Option<PathBuf>,
    /// JPOG: how the game's Z-up axes are read.
    pub jpog_handedness: crate::jpog::Handedness,
    /// JPOG: how animation channels with flags 3 are read.
    pub jpog_channel_flag3: crate::jpog::ChannelFlag3Reading,
    /// Animation files whose clips are mapped onto this model's skeleton
    /// ([`crate::pipeline::anim`]).
    #[serde(
        default,
        serialize_with = "serialize_paths",
        deserialize_with = "deserialize_paths"
    )]
    pub anim: Vec<PathBuf>,
    /// Explicit bone pairs for [`ImportOptions::anim`] files (`anim bone = model bone`
    /// lines, see [`crate::pipeline::retarget::BoneMap`]).
    #[serde(
        default,
        serialize_with = "serialize_path",
        deserialize_with = "deserialize_path"
    )]
    pub bone_map: Option<PathBuf>,
    /// Keep the animation files' translations of non-root bones when retargeting
    /// instead of the model's bind translations.
    #[serde(default)]
    pub keep_translations: bool,
    /// Keep only the clips whose names match one of these glob patterns (all when
    /// empty); applied last, to the final names.
    #[serde(default)]
    pub clip: Vec<String>,
    /// Clip renames, `OLD=NEW`, applied before the ranges and the filter.
    #[serde(default)]
    pub rename_clip: Vec<crate::pipeline::ClipRename>,
    /// Ranges cut out of clips, `NAME:START-END[:NEWNAME]`.
    #[serde(default)]
    pub clip_range: Vec<crate::pipeline::ClipRange>,
    /// The bone every clip's root motion is extracted on.
    #[serde(default)]
    pub root_motion: Option<String>,
    /// Uniform scale applied to the skeleton, the meshes and the keys' translations.
    #[serde(default = "one")]
    pub scale: f32,
    /// The source files' up axis, overriding what their headers say.
    #[serde(default)]
    pub up: Option<crate::pipeline::Axis>,
    /// The source files' forward axis, overriding what their headers say.
    #[serde(default)]
    pub forward: Option<crate::pipeline::Axis>,
    /// The length a source file's unit stands for, overriding what its header says.
    #[serde(default)]
    pub unit: Option<crate::pipeline::LengthUnit>,
}

/// The default of [`ImportOptions::scale`].
fn one() -> f32 {
    1.0
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
            anim: Vec::new(),
            bone_map: None,
            keep_translations: false,
            clip: Vec::new(),
            rename_clip: Vec::new(),
            clip_range: Vec::new(),
            root_motion: None,
            scale: one(),
            up: None,
            forward: None,
            unit: None,
        }
    }
}

impl ImportOptions {
    /// A stable text standing for every option, for build manifests: the SHA-256 (in
    /// hexadecimal) of the options serialised as JSON, fields in declaration order.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        // Serialising plain numbers, booleans, enums and strings cannot fail; should it
        // ever, the error text still differs from any serialisation.
        let text = serde_json::to_string(self).unwrap_or_else(|e| format!("unserialisable: {e}"));
        crate::build::hex(&Sha256::digest(text.as_bytes()))
    }

    /// The options that name files, by field name, with the files they name: a build
    /// reads paths given in a config relative to the config's folder, and rebuilds an
    /// output when one of these files changes. Every field holding a path is listed
    /// here.
    pub fn named_files(&self) -> Vec<(&'static str, Vec<&Path>)> {
        vec![
            ("tkl", self.tkl.iter().map(PathBuf::as_path).collect()),
            ("tml", self.tml.iter().map(PathBuf::as_path).collect()),
            ("anim", self.anim.iter().map(PathBuf::as_path).collect()),
            (
                "bone_map",
                self.bone_map.iter().map(PathBuf::as_path).collect(),
            ),
        ]
    }
}

/// A path as text, in its platform's encoding made lossless: UTF-8 paths as themselves,
/// any other as the hexadecimal of its encoded bytes (serde refuses non-UTF-8 paths).
fn serialize_path<S: serde::Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    let text = path.as_ref().map(|p| match p.to_str() {
        Some(t) => format!("utf8:{t}"),
        None => format!(
            "bytes:{}",
            crate::build::hex(p.as_os_str().as_encoded_bytes())
        ),
    });
    serde::Serialize::serialize(&text, s)
}

/// [`serialize_path`] for a list of paths.
fn serialize_paths<S: serde::Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(paths.len()))?;
    for p in paths {
        seq.serialize_element(&PathText(p))?;
    }
    seq.end()
}

/// A path serialised as [`serialize_path`] writes it.
struct PathText<'a>(&'a Path);

impl serde::Serialize for PathText<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_path(&Some(self.0.to_path_buf()), s)
    }
}

/// Reads a path written by [`serialize_path`] (`utf8:` or `bytes:` and the hexadecimal
/// of its encoded bytes), or a plain path as a person writes it in a config.
fn deserialize_path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    let Some(text) = <Option<String> as serde::Deserialize>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(t) = text.strip_prefix("utf8:") {
        return Ok(Some(PathBuf::from(t)));
    }
    let Some(hex) = text.strip_prefix("bytes:") else {
        return Ok(Some(PathBuf::from(text)));
    };
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    let bad = || serde::de::Error::custom(format!("'{text}' is not a path"));
    let bytes = bytes.ok_or_else(bad)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Ok(Some(PathBuf::from(std::ffi::OsString::from_vec(bytes))))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes)
            .map(|t| Some(PathBuf::from(t)))
            .map_err(|_| bad())
    }
}

/// [`deserialize_path`] for a list of paths.
fn deserialize_paths<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Item(#[serde(deserialize_with = "deserialize_path")] Option<PathBuf>);
    let items = <Vec<Item> as serde::Deserialize>::deserialize(d)?;
    Ok(items.into_iter().filter_map(|i| i.0).collect())
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

/// Why a source file could not be read into a model. Every message names the file
/// once: the importers' own errors name it already; the others are given its path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The extension names no format gom reads.
    #[error("{path}: unknown file type (expected .gom, .gomt, .fbx, .gltf, .glb or .tmd)")]
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
    /// A pipeline step (units and axes, animation files, clip control) failed.
    #[error("{path}: {source}")]
    Pipeline {
        /// The file being converted.
        path: PathBuf,
        /// What failed.
        source: crate::pipeline::PipelineError,
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

/// Why one step of a batch build ([`convert_path`]) failed.
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
    let (mut imported, declared) = import_source(path, bytes, format, options)?;
    if !crate::pipeline::is_active(options) {
        return Ok(imported);
    }
    let failed = |source| ImportError::Pipeline {
        path: path.to_path_buf(),
        source,
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
                source: step(e),
            }
        })?;
        Ok(model)
    })
    .map_err(failed)?;
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
                key_tolerance: crate::optimize::keys::KeyTolerance {
                    tolerance: options.key_tolerance,
                    ..Default::default()
                },
                reduce_keys: options.key_tolerance > 0.0,
                optimize_meshes: options.optimize_meshes,
                ..Default::default()
            };
            let name = path.display().to_string();
            let (model, report) =
                crate::fbx::convert(bytes, &name, &fbx_options).map_err(ImportError::Fbx)?;
            let declared = report.source_space.unwrap_or(space);
            Ok((imported(model, &report, Vec::new()), declared))
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
            let mut warnings_report = report.report.clone();
            for m in &report.morph_targets {
                warnings_report.warn(format!("morph targets ignored: {m}"));
            }
            let out = imported(model, &warnings_report, side_files);
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
        if let Some(bytes) = extracted.or_else(|| read_texture_file(&dir.join(name))) {
            out.insert(name.clone(), bytes);
        }
    }
    out
}

/// The largest texture file [`texture_images`] reads.
pub const MAX_TEXTURE_FILE_BYTES: u64 = 256 << 20;

/// The bytes of the texture file at `path`, when it is a regular file of at most
/// [`MAX_TEXTURE_FILE_BYTES`]: a texture name comes from the model, so it may name a
/// device or a pipe that never ends, or a file far larger than any image.
fn read_texture_file(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_TEXTURE_FILE_BYTES {
        return None;
    }
    let mut out = Vec::new();
    file.take(MAX_TEXTURE_FILE_BYTES + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() as u64 <= MAX_TEXTURE_FILE_BYTES).then_some(out)
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

/// The texture files (names relative to `source`'s folder) that encoding `imported`
/// in `format` reads: glTF outputs embed the textures the materials name, from the
/// import's extracted images or else from files beside the source; other outputs
/// read none.
pub fn textures_read(imported: &Imported, format: OutputFormat) -> Vec<String> {
    if !matches!(format, OutputFormat::Glb | OutputFormat::Gltf) {
        return Vec::new();
    }
    let mut names: Vec<String> = imported
        .model
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture.clone())
        .filter(|n| {
            !imported
                .side_files
                .iter()
                .any(|s| s.relative_path == Path::new(n))
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Imports `path` and encodes it in `format`: one step of a batch build.
pub fn convert_path(
    path: &Path,
    options: &ImportOptions,
    format: OutputFormat,
) -> Result<crate::build::Converted, ConvertError> {
    let imported = import_path(path, options)?;
    let out_name = path.with_extension(format.extension());
    let exported = export_imported(&imported, path, format, &out_name).map_err(|source| {
        ConvertError::Export {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(crate::build::Converted {
        bytes: exported.bytes,
        side_files: exported.side_files,
        warnings: exported.warnings,
        textures: textures_read(&imported, format),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One variant of the default options per field, each differing in that field only.
    fn one_field_changed() -> Vec<(&'static str, ImportOptions)> {
        let base = ImportOptions::default;
        vec![
            (
                "sample_rate",
                ImportOptions {
                    sample_rate: 24.0,
                    ..base()
                },
            ),
            (
                "optimize_meshes",
                ImportOptions {
                    optimize_meshes: false,
                    ..base()
                },
            ),
            (
                "key_tolerance",
                ImportOptions {
                    key_tolerance: 0.002,
                    ..base()
                },
            ),
            ("lod", ImportOptions { lod: 1, ..base() }),
            (
                "tkl",
                ImportOptions {
                    tkl: Some("a.tkl".into()),
                    ..base()
                },
            ),
            (
                "tml",
                ImportOptions {
                    tml: Some("a.tml".into()),
                    ..base()
                },
            ),
            (
                "jpog_handedness",
                ImportOptions {
                    jpog_handedness: crate::jpog::Handedness::Left,
                    ..base()
                },
            ),
            (
                "jpog_channel_flag3",
                ImportOptions {
                    jpog_channel_flag3: crate::jpog::ChannelFlag3Reading::TranslationOnly,
                    ..base()
                },
            ),
            (
                "anim",
                ImportOptions {
                    anim: vec!["walk.fbx".into()],
                    ..base()
                },
            ),
            (
                "bone_map",
                ImportOptions {
                    bone_map: Some("bones.txt".into()),
                    ..base()
                },
            ),
            (
                "keep_translations",
                ImportOptions {
                    keep_translations: true,
                    ..base()
                },
            ),
            (
                "clip",
                ImportOptions {
                    clip: vec!["walk*".into()],
                    ..base()
                },
            ),
            (
                "rename_clip",
                ImportOptions {
                    rename_clip: vec!["a=b".parse().unwrap()],
                    ..base()
                },
            ),
            (
                "clip_range",
                ImportOptions {
                    clip_range: vec!["a:0-10".parse().unwrap()],
                    ..base()
                },
            ),
            (
                "root_motion",
                ImportOptions {
                    root_motion: Some("hips".into()),
                    ..base()
                },
            ),
            (
                "scale",
                ImportOptions {
                    scale: 0.01,
                    ..base()
                },
            ),
            (
                "up",
                ImportOptions {
                    up: Some(crate::pipeline::Axis::PosZ),
                    ..base()
                },
            ),
            (
                "forward",
                ImportOptions {
                    forward: Some(crate::pipeline::Axis::NegY),
                    ..base()
                },
            ),
            (
                "unit",
                ImportOptions {
                    unit: Some(crate::pipeline::LengthUnit::Cm),
                    ..base()
                },
            ),
        ]
    }

    #[test]
    fn fingerprint_changes_with_every_field() {
        let default = ImportOptions::default().fingerprint();
        assert_eq!(default, ImportOptions::default().fingerprint());
        let mut seen = std::collections::BTreeSet::from([default.clone()]);
        for (field, options) in one_field_changed() {
            assert_ne!(options, ImportOptions::default(), "{field}");
            let f = options.fingerprint();
            assert!(
                seen.insert(f),
                "changing {field} leaves the fingerprint unchanged"
            );
        }
    }

    #[test]
    fn texture_files_are_read_only_when_regular_and_bounded() {
        let dir = std::env::temp_dir().join(format!("gom-texture-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("t.png");
        std::fs::write(&png, b"\x89PNG not really").unwrap();
        assert_eq!(
            read_texture_file(&png).as_deref(),
            Some(&b"\x89PNG not really"[..])
        );
        // A folder, and on Unix an endless device, are not texture files.
        assert_eq!(read_texture_file(&dir), None);
        #[cfg(unix)]
        assert_eq!(read_texture_file(Path::new("/dev/zero")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fingerprint_tells_a_tkl_path_from_a_tml_path() {
        let tkl = ImportOptions {
            tkl: Some("x".into()),
            ..Default::default()
        };
        let tml = ImportOptions {
            tml: Some("x".into()),
            ..Default::default()
        };
        assert_ne!(tkl.fingerprint(), tml.fingerprint());
    }
}
