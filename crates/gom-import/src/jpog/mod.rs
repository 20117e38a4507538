//! Jurassic Park: Operation Genesis models (TMD + TKL + TML) into GOM.
//!
//! [`convert`] reads a `.tmd` model with the `jpog` crate, and optionally the `.tkl`
//! keyframe library its animations index and the `.tml` material library holding its
//! textures, and builds one [`gom::Model`]:
//!
//! - **Skeleton.** One bone per node, parents before children: each root in file order
//!   followed depth-first by its descendants (children in file order). A bone's
//!   `bind_local` comes from the node bind matrices (`bind[i] * bind[parent]⁻¹`), its
//!   path is the chain of names (`#2`, `#3`… on repeats).
//! - **Meshes.** One mesh part per mesh of the chosen LOD, with one submesh and the
//!   vertices in file order. Strips become triangle lists with the parity rule
//!   (stitches skipped, counted in the report); each vertex's bone bytes are resolved
//!   through the palette of the piece drawing it to skeleton bones; weights `u8/255` are
//!   merged per bone, renormalised and sorted (D7). `v` is stored negated: `uv = [u, −v]`.
//!   The inverse binds are the nodes' stored inverse bind matrices.
//! - **Materials.** One per material name, named as in the model; with a material
//!   library, `baseColorTexture` is the PNG name `gom tml extract` writes for the
//!   material's first texture, and the PNG itself is returned as a side file.
//! - **Clips.** One per animation, one key per stored key; translations and rotations
//!   come from the keyframe library. Channel flag bit 0 says whether translation keys
//!   are used; otherwise the node's rest translation holds. A channel with flags 3 is
//!   read as [`JpogOptions::channel_flag3_reading`] says. "_lp" clips loop in the game
//!   (listed in the report; GOM clips carry no loop flag).
//! - **Axes.** The models are Z-up; [`Handedness`] says how they become GOM's
//!   left-handed Y-up space (default: right-handed source, `(x, y, z) → (x, z, y)`, a
//!   mirror, so triangle winding swaps). Positions, normals, matrices, quaternions and
//!   translations all go through the same change.
//!
//! `docs/jpog.md`, section "Converting to GOM", states the mapping for users.

pub(crate) mod anim;
pub(crate) mod axes;
mod error;
pub mod export;
mod material;
mod mesh;
mod skeleton;

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use anim::ChannelFlag3Reading;
pub use axes::{Basis, Handedness};
pub use error::JpogImportError;

use crate::imported::SideFile;
use crate::report::Report;

/// Conversion options.
#[derive(Debug, Clone, PartialEq)]
pub struct JpogOptions {
    /// The level of detail to convert (default 0, the most detailed).
    pub lod: usize,
    /// How the game's Z-up axes are read (default [`Handedness::Right`]).
    pub handedness: Handedness,
    /// How channels with flags 3 are read (default: translation and rotation).
    pub channel_flag3_reading: ChannelFlag3Reading,
    /// Channel orders for decoding textures whose order is open.
    pub codec: jpog::CodecOptions,
    /// Decode the materials' textures into PNG side files (default true); when false the
    /// materials still name the files `gom tml extract` would write.
    pub texture_files: bool,
}

impl Default for JpogOptions {
    fn default() -> Self {
        JpogOptions {
            lod: 0,
            handedness: Handedness::default(),
            channel_flag3_reading: ChannelFlag3Reading::default(),
            codec: jpog::CodecOptions::default(),
            texture_files: true,
        }
    }
}

/// What a conversion did, beyond the shared [`Report`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JpogReport {
    /// Counts and warnings shared by every importer.
    pub report: Report,
    /// The LOD converted and how many the model has.
    pub lod: usize,
    /// LODs in the model.
    pub lod_count: usize,
    /// The handedness reading used.
    pub handedness: Handedness,
    /// The keyframe-library name the model's header gives.
    pub tkl_name: String,
    /// The keyframe library used, if any.
    pub tkl: Option<String>,
    /// The material library used, if any.
    pub tml: Option<String>,
    /// Stitch (degenerate) strip triangles skipped.
    pub stitches: usize,
    /// Vertices bound rigidly because no strip draws them or they carry no weight.
    pub unweighted_vertices: usize,
    /// Clips the game loops ("_lp" suffix).
    pub looping_clips: Vec<String>,
    /// Channels with flags 3 and how they were read.
    pub flag3_channels: usize,
    /// How channels with flags 3 were read.
    pub channel_flag3_reading: ChannelFlag3Reading,
}

impl JpogReport {
    /// The report as JSON: the shared report's fields plus a `jpog` object.
    pub fn to_json(&self) -> Value {
        let mut v = self.report.to_json();
        if let Value::Object(map) = &mut v {
            let jpog = JpogReportJson {
                lod: self.lod,
                lod_count: self.lod_count,
                handedness: self.handedness,
                tkl_name: &self.tkl_name,
                tkl: self.tkl.as_deref(),
                tml: self.tml.as_deref(),
                stitches: self.stitches,
                unweighted_vertices: self.unweighted_vertices,
                looping_clips: &self.looping_clips,
                flag3_channels: self.flag3_channels,
                channel_flag3_reading: self.channel_flag3_reading,
            };
            map.insert(
                "jpog".into(),
                serde_json::to_value(jpog).unwrap_or(Value::Null),
            );
        }
        v
    }
}

/// The `jpog` object of [`JpogReport::to_json`].
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct JpogReportJson<'a> {
    lod: usize,
    lod_count: usize,
    handedness: Handedness,
    tkl_name: &'a str,
    tkl: Option<&'a str>,
    tml: Option<&'a str>,
    stitches: usize,
    unweighted_vertices: usize,
    looping_clips: &'a [String],
    flag3_channels: usize,
    channel_flag3_reading: ChannelFlag3Reading,
}

/// A converted model with its report and the files to write beside it.
#[derive(Debug, Clone)]
pub struct JpogConverted {
    /// The model.
    pub model: gom::Model,
    /// What was done, dropped or assumed.
    pub report: JpogReport,
    /// Texture PNGs named by the materials, to write beside the output.
    pub side_files: Vec<SideFile>,
}

fn read_err(file: &str, source: jpog::Error) -> JpogImportError {
    JpogImportError::Read {
        file: file.to_string(),
        source,
    }
}

/// Converts a model. `tmd_name`, and the names given with the libraries, name the files
/// in errors and in the report. Without a keyframe library the animations are not
/// converted (a warning says so); without a material library the materials carry no
/// texture. The result depends only on the bytes, the options and the converter
/// version (D11).
pub fn convert(
    tmd_bytes: &[u8],
    tmd_name: &str,
    tkl: Option<(&[u8], &str)>,
    tml: Option<(&[u8], &str)>,
    options: &JpogOptions,
) -> Result<JpogConverted, JpogImportError> {
    let tmd = jpog::Tmd::read(tmd_bytes).map_err(|e| read_err(tmd_name, e))?;
    let tkl = match tkl {
        Some((bytes, name)) => Some((jpog::Tkl::read(bytes).map_err(|e| read_err(name, e))?, name)),
        None => None,
    };
    let tml = match tml {
        Some((bytes, name)) => Some((jpog::Tml::read(bytes).map_err(|e| read_err(name, e))?, name)),
        None => None,
    };
    let lod_count = tmd.mesh.lods.len();
    if options.lod >= lod_count.max(1) {
        return Err(JpogImportError::Option(format!(
            "{tmd_name}: LOD {} asked for, the model has {lod_count}",
            options.lod
        )));
    }
    let mut report = Report {
        source: tmd_name.to_string(),
        ..Report::default()
    };
    let basis = options.handedness.basis();
    let nodes = tmd.skeleton().map_err(|e| read_err(tmd_name, e))?;
    let skel = skeleton::build(tmd_name, &nodes, &basis, &mut report)?;

    // meshes and materials
    let geometry = if lod_count == 0 {
        Vec::new()
    } else {
        tmd.lod_geometry(options.lod)
            .map_err(|e| read_err(tmd_name, e))?
    };
    let tex_names = tml.as_ref().map(|(t, _)| jpog::ops::texture_file_names(t));
    let mut materials = material::Materials::default();
    let mut ctx = mesh::MeshContext {
        file: tmd_name,
        lod: options.lod,
        skeleton: &skel,
        basis,
        stats: mesh::MeshStats::default(),
        dropped: Default::default(),
    };
    let mut meshes: Vec<gom::MeshPart> = Vec::with_capacity(geometry.len());
    for (i, g) in geometry.iter().enumerate() {
        if g.triangles.is_empty() {
            report.warn(format!(
                "lod {} mesh {i} (\"{}\") draws no triangle: skipped",
                options.lod, g.material
            ));
            continue;
        }
        let lib = match (&tml, &tex_names) {
            (Some((t, name)), Some(names)) => Some((t, names.as_slice(), *name)),
            _ => None,
        };
        let mi = materials.index_of(
            &g.material,
            lib,
            options.codec,
            options.texture_files,
            &mut report,
        );
        let mut name = if g.material.is_empty() {
            format!("mesh{i}")
        } else {
            g.material.clone()
        };
        if meshes.iter().any(|m| m.name == name) {
            let mut k = 2;
            while meshes.iter().any(|m| m.name == format!("{name}#{k}")) {
                k += 1;
            }
            name = format!("{name}#{k}");
        }
        meshes.push(mesh::convert(&mut ctx, i, name, g, mi, &mut report)?);
    }
    let stats = ctx.stats;
    report.dropped_influences = ctx.dropped;

    // clips
    let mut notes = None;
    match &tkl {
        Some((lib, lib_name)) => {
            if !tmd.animations.is_empty()
                && !lib.name().eq_ignore_ascii_case(&tmd.header.tkl_name())
            {
                report.warn(format!(
                    "the model animates from \"{}\" but the keyframe library {lib_name} is named \"{}\"",
                    tmd.header.tkl_name(),
                    lib.name()
                ));
            }
            notes = Some(anim::convert(
                tmd_name,
                &tmd,
                lib,
                lib_name,
                &skel,
                &basis,
                options.channel_flag3_reading,
                &mut report,
            )?);
        }
        None if !tmd.animations.is_empty() => report.warn(format!(
            "{} not converted: the keyframe library \"{}.tkl\" the model names was not \
             found beside it (give it with --tkl)",
            match tmd.animations.len() {
                1 => "1 animation".to_string(),
                n => format!("{n} animations"),
            },
            tmd.header.tkl_name()
        )),
        None => {}
    }
    let (clips, notes) = notes.unwrap_or_default();
    for c in &notes.looping {
        report.warn(format!(
            "clip \"{c}\" loops in the game (\"_lp\" suffix); play it looped"
        ));
    }
    // Stitch triangles are degenerate by construction (how strips are joined), so
    // skipping them loses nothing: they are counted in the report, not warned about.

    let mut model = gom::Model::default();
    model.header.source_hash = Sha256::digest(tmd_bytes).into();
    model.header.converter_version = gom::CONVERTER_VERSION.to_string();
    model.skeleton.bones = skel.bones;
    model.materials = materials.list;
    model.meshes = meshes;
    model.clips = clips;
    report.bones = model.skeleton.bones.len();
    Ok(JpogConverted {
        model,
        report: JpogReport {
            report,
            lod: options.lod,
            lod_count,
            handedness: options.handedness,
            tkl_name: tmd.header.tkl_name(),
            tkl: tkl.as_ref().map(|(_, n)| n.to_string()),
            tml: tml.as_ref().map(|(_, n)| n.to_string()),
            stitches: stats.stitches,
            unweighted_vertices: stats.unweighted,
            looping_clips: notes.looping,
            flag3_channels: notes.flag3_channels,
            channel_flag3_reading: options.channel_flag3_reading,
        },
        side_files: materials.side_files,
    })
}

/// The keyframe-library name in a model's header (the text up to the first NUL of the
/// 16 bytes at 0x0C), or `None` when the bytes are not a TMD header.
pub fn tkl_name_of(tmd_bytes: &[u8]) -> Option<String> {
    if tmd_bytes.get(..4)? != b"TMDL" {
        return None;
    }
    let field = tmd_bytes.get(0x0C..0x1C)?;
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    let name = String::from_utf8_lossy(&field[..end]).into_owned();
    (!name.is_empty()).then_some(name)
}

/// The libraries a model's conversion reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Companions {
    /// The keyframe library.
    pub tkl: Option<PathBuf>,
    /// The material library.
    pub tml: Option<PathBuf>,
}

/// The file in `dir` named `name`, compared case-insensitively (an exact match first,
/// then the first match in byte order of the names).
fn find_beside(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    let want = name.to_lowercase();
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().to_lowercase() == want)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

/// Finds a model's libraries: the keyframe library named by the header's `tklName`
/// (`<tklName>.tkl` beside the model, case-insensitively) unless `tkl` is given, and
/// the material library with the model's stem (`<stem>.tml`, case-insensitively)
/// unless `tml` is given. A given path is returned as it is; a library not found is
/// `None`.
pub fn find_companions(
    model: &Path,
    tmd_header: &[u8],
    tkl: Option<&Path>,
    tml: Option<&Path>,
) -> Companions {
    let dir = match model.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tkl = match tkl {
        Some(p) => Some(p.to_path_buf()),
        None => tkl_name_of(tmd_header).and_then(|n| {
            // the name is a file stem from the model: never let it leave the folder
            if n.contains(['/', '\\']) || n == ".." || n == "." {
                None
            } else {
                find_beside(&dir, &format!("{n}.tkl"))
            }
        }),
    };
    let tml = match tml {
        Some(p) => Some(p.to_path_buf()),
        None => model
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| find_beside(&dir, &format!("{s}.tml"))),
    };
    Companions { tkl, tml }
}

/// Reads the first bytes of a model file, enough for [`tkl_name_of`].
pub fn read_header(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut buf = Vec::with_capacity(0x1C);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(0x1C).read_to_end(&mut buf);
    }
    buf
}
