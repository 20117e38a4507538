//! GOM models into the game's files: a `.tmd` model, the `.tkl` keyframe library its
//! animations index and the `.tml` material library holding its materials.
//!
//! The exact inverse of the importer ([`super::convert`]): GOM space goes back into the
//! game's Z-up axes through the inverse of the same [`super::Handedness`] change, the
//! skeleton becomes the game's nodes, each material's triangles become one game mesh
//! (more when its vertices overflow 16-bit strip indices) split into pieces of at most
//! 28 palette nodes, each drawn by one triangle strip, and every clip becomes a game
//! animation whose keys are appended to the keyframe library. Every rule of the game is
//! checked before any byte is produced; `docs/jpog.md` ("Putting your own model into the
//! game") gives the defaults and the reasons for them.

mod anim;
mod chain;
mod files;
mod interp;
mod lods;
mod long_strip;
mod material;
mod names;
mod pieces;
mod skeleton;
mod split;
mod strip;
mod template;
mod weights;

use std::collections::BTreeMap;

use super::axes::{Basis, Handedness};

pub use files::{library_name_in, new_library_name};
pub use files::{write_all_or_nothing, WriteError};
pub use lods::MAX_LOWER_LODS;
pub use names::{fit_name, short_library_name, NameLimit, TOOL_LIBRARY_NAME};

/// Options of an export.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExportOptions {
    /// The name the libraries take: the keyframe library's header name and the
    /// material library's file stem (at most 15 bytes).
    pub name: String,
    /// How the game's axes are read (the importer's option, inverted).
    pub handedness: Handedness,
    /// Clips to mark as looping (`_lp` suffix) besides those whose name has it already.
    pub loop_clips: Vec<String>,
    /// Shorten names over the game's limits instead of refusing them; the mapping is
    /// reported.
    pub rename: bool,
    /// An existing keyframe library to append the keys to (its keys keep their
    /// indices); a new one named [`ExportOptions::name`] when `None`.
    pub tkl: Option<jpog::Tkl>,
    /// The model being replaced: its fields GOM does not carry are copied (header open
    /// fields, node flags and animation overlay fields matched by name, shader type, LOD
    /// distance); its node names must match the model's.
    pub template: Option<jpog::Tmd>,
    /// PNG bytes of the textures, by the name the materials give
    /// (`Material::base_color_texture`).
    pub textures: BTreeMap<String, Vec<u8>>,
    /// Lower levels of detail to add after LOD 0 (at most [`MAX_LOWER_LODS`]), each with
    /// about half the triangles of the one before.
    pub lods: usize,
    /// Keys are inserted until slerp and normalised lerp between any two successive
    /// keys differ by less than this tolerance at each joint's measuring distance.
    pub key_tolerance: crate::optimize::keys::KeyTolerance,
}

/// The three files of an exported model.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The model.
    pub tmd: jpog::Tmd,
    /// The keyframe library (the given one with the model's keys appended, or a new one).
    pub tkl: jpog::Tkl,
    /// The material library.
    pub tml: jpog::Tml,
    /// For each game mesh of LOD 0 (file order), for each of its vertices, the mesh part
    /// and vertex of the GOM model it comes from.
    pub vertex_sources: Vec<Vec<(usize, u32)>>,
    /// Names shortened by `rename` (`(from, to)`), and what GOM held that the game cannot.
    pub notes: Vec<String>,
}

/// The bytes of the three files: `.tmd`, `.tkl`, `.tml`.
pub type FileBytes = (Vec<u8>, Vec<u8>, Vec<u8>);

impl Exported {
    /// The three files' bytes: `.tmd`, `.tkl`, `.tml`.
    pub fn write(&self) -> Result<FileBytes, ExportError> {
        Ok((self.tmd.write()?, self.tkl.write()?, self.tml.write()?))
    }
}

/// Why a model cannot become game files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The model breaks a rule of the game that the export cannot make it fit: the
    /// record names the mesh, piece, node or clip, the problem the limit.
    #[error("{record}: {problem}")]
    Refused {
        /// The mesh, piece, node, clip or material concerned.
        record: String,
        /// What is wrong and the limit, as a sentence fragment.
        problem: String,
    },
    /// The files built broke a rule the `jpog` writer checks.
    #[error(transparent)]
    Jpog(#[from] jpog::Error),
    /// A texture image could not be made.
    #[error(transparent)]
    Image(#[from] gom_image::ImageError),
}

pub(crate) fn refused(record: impl Into<String>, problem: impl Into<String>) -> ExportError {
    ExportError::Refused {
        record: record.into(),
        problem: problem.into(),
    }
}

/// The inverse of an axis change: GOM space back into the game's.
pub(crate) fn inverse_basis(b: &Basis) -> Basis {
    let mut inv = Basis {
        source: [0; 3],
        sign: [1.0; 3],
    };
    for j in 0..3 {
        inv.source[b.source[j]] = j;
        inv.sign[b.source[j]] = b.sign[j];
    }
    inv
}

/// The default LOD distance written without a template (the one the shared creature
/// uses; the game switches to the next level of detail beyond it).
pub const DEFAULT_LOD_DISTANCE: f32 = 35.5;
/// The default shader type of a LOD (0: skinned, the only kind a creature uses).
pub const DEFAULT_SHADER_TYPE: u32 = 0;
/// The default "most simultaneous animations" header field (u4).
pub const DEFAULT_SIMULTANEOUS_ANIMATIONS: u16 = 8;

/// A warning when the library's name is longer than modding tools read.
fn long_library_name(name: &str) -> Option<String> {
    (name.len() > TOOL_LIBRARY_NAME).then(|| {
        format!(
            "keyframe library name {name:?} has {} bytes; modding tools read only the first {TOOL_LIBRARY_NAME} and look for \"{}.tkl\"",
            name.len(),
            names::cut(name, TOOL_LIBRARY_NAME)
        )
    })
}

/// Exports `model` as game files. Nothing is returned unless every rule holds.
pub fn export(model: &gom::Model, options: &ExportOptions) -> Result<Exported, ExportError> {
    if let Some(c) = options
        .loop_clips
        .iter()
        .find(|c| !model.clips.iter().any(|m| &m.name == *c))
    {
        return Err(refused(
            "--loop",
            format!(
                "no clip named \"{c}\" (the model has: {})",
                model.clip_names_listed()
            ),
        ));
    }
    let basis = inverse_basis(&options.handedness.basis());
    let mut notes = Vec::new();
    notes.extend(crate::export::morph_warning(model, ".tmd"));
    let baked;
    let model = if model.meshes.iter().any(|m| !m.morph_targets.is_empty()) {
        let mut m = model.clone();
        gom::morph::bake_defaults(&mut m);
        baked = m;
        &baked
    } else {
        model
    };
    notes.extend(crate::export::skinning_warning(model, ".tmd"));
    notes.extend(crate::export::influences_warning(model, ".tmd"));
    let lib_name = fit_name(&options.name, NameLimit::Library, false, "output name")?;
    let mut renames = names::Renames::new(options.rename);
    let skel = skeleton::build(model, &basis, &mut renames, &mut notes)?;
    let meshes = pieces::build(model, &skel, &basis, &mut renames, &mut notes)?;
    let lower = lods::lower(&meshes, options.lods, &mut notes)?;
    let mut tkl = match &options.tkl {
        Some(t) => t.clone(),
        None => jpog::Tkl::new(&lib_name)?,
    };
    let animations = anim::build(
        model,
        &skel,
        &basis,
        options,
        &mut renames,
        &mut tkl,
        &mut notes,
    )?;
    let tml = material::build(&meshes.materials, &options.textures, &mut notes)?;
    notes.extend(long_library_name(&tkl.name()));
    let mut tmd = jpog::Tmd::new(&tkl.name())?;
    // the research's reading of the open header fields: the library's counts and the
    // number of flagged nodes (none are flagged without a template)
    tmd.header.u1 = u32::try_from(tkl.locations.len()).unwrap_or(u32::MAX);
    tmd.header.u2 = u32::try_from(tkl.rotations.len()).unwrap_or(u32::MAX);
    tmd.header.u3 = 0;
    tmd.header.u4 = DEFAULT_SIMULTANEOUS_ANIMATIONS;
    let static_node = skel.static_node;
    tmd.nodes = skel.nodes;
    tmd.animations = animations;
    let mut levels = vec![jpog::tmd::Lod {
        shader_type: DEFAULT_SHADER_TYPE,
        sphere: meshes.sphere,
        meshes: meshes.meshes,
    }];
    levels.extend(lower);
    tmd.mesh = jpog::tmd::MeshBlock {
        lod_distance: DEFAULT_LOD_DISTANCE,
        lods: levels,
    };
    if let Some(t) = &options.template {
        template::apply(&mut tmd, t, static_node)?;
    }
    tmd.validate()?;
    notes.extend(renames.report());
    Ok(Exported {
        tmd,
        tkl,
        tml,
        vertex_sources: meshes.vertex_sources,
        notes,
    })
}
