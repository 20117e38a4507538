//! A whole model posed at one moment of one clip, and written as Wavefront OBJ.
//!
//! This is the library side of `gom pose`: the runtime poses and skins the model
//! ([`Asset::posed_meshes`], in model space, D1); this adds what an OBJ file shows
//! besides (names, UVs, triangles).

use gom::Model;
use gom_runtime::{Asset, Playback};
use std::fmt::Write;

/// Which moment to pose a model at.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseAt {
    /// The clip's name, or `None` for the bind pose.
    pub clip: Option<String>,
    /// Time in seconds from the clip's start.
    pub time: f32,
    /// Wrap times past the clip's end (`fmod`, D9) instead of holding the last key.
    pub looped: bool,
}

/// One mesh part, skinned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PosedMesh {
    /// The mesh part's name.
    pub name: String,
    /// Skinned positions in model space.
    pub positions: Vec<[f32; 3]>,
    /// Skinned normals, when the mesh has normals.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Texture coordinates (unchanged by skinning).
    pub uvs: Option<Vec<[f32; 2]>>,
    /// The triangle list.
    pub indices: Vec<u32>,
}

/// Errors posing a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PoseError {
    /// The model has no clip of that name.
    #[error("no clip named \"{name}\" (the model has: {available})")]
    NoSuchClip {
        /// The name asked for.
        name: String,
        /// The clip names the model has ([`gom::Model::clip_names_listed`]).
        available: String,
    },
    /// The runtime refused the model or the pose.
    #[error(transparent)]
    Runtime(#[from] gom_runtime::Error),
}

/// One bone posed, in model space.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PosedJoint {
    /// The bone's index.
    pub index: usize,
    /// The bone's name.
    pub name: String,
    /// The parent bone's index, or −1 for a root.
    pub parent: i32,
    /// The bone's origin in model space (the matrix's translation row).
    pub position: [f32; 3],
    /// The bone's model-space matrix, GOM's convention (D1): row-major, row vectors
    /// (`p' = p · M`), the translation in elements 12 to 14.
    pub matrix: [f32; 16],
}

/// Every bone of `model` at `at`, in model space: what the runtime's sampling and
/// local-to-model product give, the bind pose without a clip.
pub fn pose_joints(model: &Model, at: &PoseAt) -> Result<Vec<PosedJoint>, PoseError> {
    let asset = Asset::from_model(model)?;
    let clip = clip_index(&asset, model, at)?;
    let pose = asset.model_pose(clip, at.time, playback(at))?;
    Ok(model
        .skeleton
        .bones
        .iter()
        .enumerate()
        .map(|(index, bone)| {
            let matrix = pose.row_major(index).unwrap_or(gom::IDENTITY);
            PosedJoint {
                index,
                name: bone.name.clone(),
                parent: bone.parent,
                position: [matrix[12], matrix[13], matrix[14]],
                matrix,
            }
        })
        .collect())
}

/// The playback `at` asks for.
fn playback(at: &PoseAt) -> Playback {
    if at.looped {
        Playback::Loop
    } else {
        Playback::Once
    }
}

/// The index of the clip `at` names, `None` for the bind pose.
fn clip_index(asset: &Asset<'_>, model: &Model, at: &PoseAt) -> Result<Option<usize>, PoseError> {
    Ok(match &at.clip {
        Some(name) => Some(
            asset
                .clips()
                .iter()
                .position(|c| c.name() == name)
                .ok_or_else(|| PoseError::NoSuchClip {
                    name: name.clone(),
                    available: model.clip_names_listed(),
                })?,
        ),
        None => None,
    })
}

/// Poses every mesh part of `model` at `at` and skins it.
pub fn pose_model(model: &Model, at: &PoseAt) -> Result<Vec<PosedMesh>, PoseError> {
    let asset = Asset::from_model(model)?;
    let clip = clip_index(&asset, model, at)?;
    let skinned = asset.posed_meshes(clip, at.time, playback(at))?;
    Ok(skinned
        .into_iter()
        .zip(&model.meshes)
        .map(|(s, part)| PosedMesh {
            name: part.name.clone(),
            positions: s.positions,
            normals: s.normals,
            uvs: part.vertices.uv0.clone(),
            indices: part.indices.clone(),
        })
        .collect())
}

/// Writes posed meshes as Wavefront OBJ text: one group (`g`) per mesh part, with
/// positions, normals and UVs. Coordinates are GOM model space as they are
/// (left-handed, +Y up, metres); UVs are written with OBJ's bottom-left origin
/// (`v = 1 - v`, D2). Faces keep GOM's vertex order.
pub fn write_obj(meshes: &[PosedMesh]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}", gom::CONVERTER_VERSION);
    let mut base = 1usize;
    for m in meshes {
        let _ = writeln!(s, "g {}", obj_name(&m.name));
        for p in &m.positions {
            let _ = writeln!(s, "v {} {} {}", p[0], p[1], p[2]);
        }
        if let Some(uvs) = &m.uvs {
            for t in uvs {
                let _ = writeln!(s, "vt {} {}", t[0], 1.0 - t[1]);
            }
        }
        if let Some(normals) = &m.normals {
            for n in normals {
                let _ = writeln!(s, "vn {} {} {}", n[0], n[1], n[2]);
            }
        }
        for tri in m.indices.chunks_exact(3) {
            let _ = write!(s, "f");
            for &i in tri {
                let i = i as usize + base;
                match (m.uvs.is_some(), m.normals.is_some()) {
                    (true, true) => write!(s, " {i}/{i}/{i}"),
                    (true, false) => write!(s, " {i}/{i}"),
                    (false, true) => write!(s, " {i}//{i}"),
                    (false, false) => write!(s, " {i}"),
                }
                .ok();
            }
            s.push('\n');
        }
        base += m.positions.len();
    }
    s
}

/// An OBJ group name: whitespace and control characters would split or break the
/// line, so they become `_`; an empty name becomes `mesh`.
fn obj_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if n.is_empty() {
        "mesh".into()
    } else {
        n
    }
}
