//! Encoding a model in an output format, with the files written beside the output.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::error::ExportError;
use crate::format::OutputFormat;
use crate::imported::{Imported, SideFile};
use crate::texture::{find_textures, Textures};

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

/// [`export`], with the texture `images` (see [`crate::texture::texture_images`]) that glTF outputs
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

/// Encodes `imported`, read from `source`, in `format` for the output `output_name`,
/// with the textures the materials name: a glTF output embeds them, a GOM output has
/// them written beside it when it goes to another folder than the source
/// ([`Destination::of`]); see [`export_to`].
pub fn export_imported(
    imported: &Imported,
    source: &Path,
    format: OutputFormat,
    output_name: &Path,
) -> Result<ExportedFiles, ExportError> {
    let destination = Destination::of(source, output_name);
    export_to(imported, source, format, output_name, destination)
}

/// Whether an output goes to its source's folder or to another one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// The source's folder: textures beside the source are beside the output already.
    SourceFolder,
    /// Another folder (every output of a build): the textures go with the output.
    OtherFolder,
}

impl Destination {
    /// Where `output` goes for `source`: the source's folder when both name one
    /// folder (through links), another folder otherwise (also when the output's
    /// folder does not exist yet).
    pub fn of(source: &Path, output: &Path) -> Destination {
        let folder = |p: &Path| {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()
        };
        match (folder(source), folder(output)) {
            (Some(a), Some(b)) if a == b => Destination::SourceFolder,
            _ => Destination::OtherFolder,
        }
    }
}

/// [`export_imported`] for an output whose [`Destination`] is known. One rule for
/// every texture a material names, found among the import's extracted images or as
/// a file beside `source` ([`crate::texture::find_textures`]):
///
/// - a glTF output embeds it;
/// - a GOM output has an extracted image written beside it, and a file found beside
///   the source copied beside it when it goes to another folder (under the same
///   name, which must stay inside the output's folder: a name with `..` is left as it
///   is, with a warning);
/// - a texture found nowhere gets a warning, whatever the output.
pub fn export_to(
    imported: &Imported,
    source: &Path,
    format: OutputFormat,
    output_name: &Path,
    destination: Destination,
) -> Result<ExportedFiles, ExportError> {
    let dir = source.parent().unwrap_or(Path::new("."));
    let textures = find_textures(&imported.model, dir, &imported.side_files);
    let embeds = matches!(format, OutputFormat::Glb | OutputFormat::Gltf);
    let images = if embeds {
        textures.found.clone()
    } else {
        BTreeMap::new()
    };
    let mut exported = export_with_images(&imported.model, format, output_name, &images)?;
    let mut warnings = imported.warnings.clone();
    if !embeds {
        exported
            .side_files
            .extend(imported.side_files.iter().cloned());
        if destination == Destination::OtherFolder {
            let copies = copies_beside(&textures, &imported.side_files, &mut warnings);
            exported.side_files.extend(copies);
        }
        warnings.extend(textures.missing.iter().map(|name| {
            format!("texture \"{name}\" not found; the output names it, but no image is beside it")
        }));
    }
    warnings.append(&mut exported.warnings);
    exported.warnings = warnings;
    Ok(exported)
}

/// The texture files found beside the source (not among the import's `extracted`
/// images) as side files of the same name; a name that would leave the output's
/// folder is not copied, with a warning, and an absolute path needs no copy.
fn copies_beside(
    textures: &Textures,
    extracted: &[SideFile],
    warnings: &mut Vec<String>,
) -> Vec<SideFile> {
    let mut out = Vec::new();
    for (name, bytes) in &textures.found {
        let path = Path::new(name);
        if extracted.iter().any(|s| s.relative_path == path) || path.is_absolute() {
            continue;
        }
        if path.components().all(|c| matches!(c, Component::Normal(_))) {
            out.push(SideFile {
                relative_path: PathBuf::from(name),
                bytes: bytes.clone(),
            });
        } else {
            warnings.push(format!(
                "texture \"{name}\" lies outside the output's folder; not copied beside the \
                 output, which names it as the source does"
            ));
        }
    }
    out
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
    /// or looked for: an absent one counts, so that its appearance rebuilds); those a
    /// GOM output has copied beside it are among its side files too.
    pub textures: Vec<String>,
}

/// The meshes of `model` whose names `pick` selects, listed as `"a", "b"`, or `None`.
fn listed_meshes(model: &gom::Model, pick: impl Fn(&gom::MeshPart) -> bool) -> Option<String> {
    let names: Vec<String> = model
        .meshes
        .iter()
        .filter(|m| pick(m))
        .map(|m| format!("\"{}\"", m.name))
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// The warning an output without dual-quaternion skinning (glTF, `.tmd`) gives for
/// the meshes skinned otherwise than linearly (`docs/extensions.md` §3): they are
/// written with linear blend skinning of the same weights, which poses them
/// differently.
pub fn skinning_warning(model: &gom::Model, format: &str) -> Option<String> {
    let names = listed_meshes(model, |m| m.skinning != gom::SkinningMethod::Linear)?;
    Some(format!(
        "meshes {names}: dual-quaternion or blended skinning written as linear blend skinning ({format} has no dual-quaternion skinning; the poses differ)"
    ))
}

/// The warning an output of four influences (`.tmd`) gives for meshes with more: the
/// four heaviest are kept and renormalised.
pub fn influences_warning(model: &gom::Model, format: &str) -> Option<String> {
    let names = listed_meshes(model, |m| m.vertices.skin_extra.is_some())?;
    Some(format!(
        "meshes {names}: influences five to eight dropped and the first four renormalised ({format} holds four)"
    ))
}
