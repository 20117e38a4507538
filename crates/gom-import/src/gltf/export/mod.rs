//! [`gom::Model`] → glTF 2.0.
//!
//! Layout of the output: nodes `0..boneCount` are the bones (same order, TRS when the
//! bind matrix decomposes exactly, else `matrix`), followed by one node per mesh part.
//! glTF asks a skin's joints for a common root: a skinned part's skin holds, in bone
//! order, the bones under the one root bone its weights use; when they use several,
//! it holds every bone and one last node at rest, no joint, parents the root bones
//! (it is that skin's `skeleton`). Parts with the same joints and inverse binds share
//! a skin.
//! A skinned part's GBTM is baked into its vertices (glTF ignores a skinned node's
//! transform); a static part's GBTM becomes its node's matrix. Each submesh is a
//! primitive sharing the part's vertex accessors. Every clip becomes an animation
//! with LINEAR samplers (clips without tracks are left out: glTF requires at least
//! one channel). Textures are embedded as buffer views with their MIME type (PNG or
//! JPEG, from [`GltfExportOptions::images`]); one without an image is left out with a
//! warning. Everything is mirrored back to right-handed (D2).
//!
//! glTF has no place for a clip's root-motion flag and root bone, its sample rate, or a
//! duration longer than its last key: those do not survive a round trip. Vertex
//! colours are written as normalised unsigned bytes, joints as unsigned bytes (up to
//! 256 bones) or shorts, indices as unsigned shorts (up to 65,535 vertices) or ints;
//! normals and tangents are renormalised, quaternions too; buffer views start on
//! 4-byte boundaries.
//!
//! The document is a typed [`gltf::json::Root`], built by section: the buffer, its
//! views and accessors (`bin`), the nodes and scene (`nodes`), materials, textures and
//! images (`materials`), meshes and skins (`meshes`), animations (`animations`). Its
//! keys come in the order of `gltf::json`'s fields, and it writes the properties that
//! type always writes (a material's `alphaMode`, `doubleSided`, `emissiveFactor`,
//! `metallicFactor`, `roughnessFactor`, a texture reference's `texCoord`) at their
//! glTF defaults. Node transforms and material factors are printed as the shortest
//! text that reads back as the same `f32`; accessor bounds keep each `f32`'s exact
//! value (the validator compares them with the data). It writes no extension and no
//! extras.

mod animations;
mod bin;
mod check;
mod materials;
mod meshes;
mod morph;
mod nodes;

use std::collections::BTreeMap;

use gltf::json::validation::USize64;
use gltf::json::{Asset, Buffer, Index, Root};

use super::GltfError;
use bin::Bin;

/// Which glTF container to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportFormat {
    /// A single binary `.glb`.
    Glb,
    /// A `.gltf` JSON file and a `.bin` buffer it refers to by `bin_uri`.
    Gltf {
        /// The URI the JSON uses for the buffer, e.g. `model.bin`.
        bin_uri: String,
    },
}

/// Options of the glTF exporter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfExportOptions {
    /// The container to write.
    pub format: ExportFormat,
    /// The encoded images of the textures the model's materials name, by that name.
    /// They are embedded in the buffer (a buffer view with its MIME type), so the
    /// output holds its images; a texture missing here, or neither PNG nor JPEG, is
    /// left out with a warning.
    pub images: BTreeMap<String, Vec<u8>>,
}

impl Default for GltfExportOptions {
    fn default() -> Self {
        Self {
            format: ExportFormat::Glb,
            images: BTreeMap::new(),
        }
    }
}

/// The exported bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exported {
    /// A `.glb` file.
    Glb(Vec<u8>),
    /// A `.gltf` JSON text and its `.bin` buffer.
    Gltf {
        /// The JSON text.
        json: String,
        /// The buffer bytes.
        bin: Vec<u8>,
    },
}

/// The name of the node added as the common root of several root bones.
pub const COMMON_ROOT_NAME: &str = "gom_skeleton_root";

fn export_err(object: impl Into<String>, message: impl Into<String>) -> GltfError {
    GltfError::Export {
        object: object.into(),
        message: message.into(),
    }
}

/// Percent-encodes the characters a relative URI may not hold as they are.
fn uri_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            b'\\' => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Writes `model` as glTF 2.0 (right-handed, LINEAR animation samplers). Textures are
/// embedded from [`GltfExportOptions::images`]; see [`export_with_warnings`] for what
/// was left out.
pub fn export(model: &gom::Model, options: &GltfExportOptions) -> Result<Exported, GltfError> {
    export_with_warnings(model, options).map(|(exported, _)| exported)
}

/// [`export`], with warnings about what the output leaves out (textures whose image
/// is missing or of a format glTF does not hold).
pub fn export_with_warnings(
    model: &gom::Model,
    options: &GltfExportOptions,
) -> Result<(Exported, Vec<String>), GltfError> {
    check::parents_first(&model.skeleton.bones)?;
    check::finite(model)?;
    let mut warnings = Vec::new();
    let (root, bin) = document(model, &options.images, &mut warnings)?;
    let exported = match &options.format {
        ExportFormat::Glb => Exported::Glb(glb(root, bin)?),
        ExportFormat::Gltf { bin_uri } => gltf_text(root, bin, bin_uri)?,
    };
    Ok((exported, warnings))
}

/// The document of `model` (without its buffer) and the buffer's bytes, section by
/// section in the order the bytes are laid out: images, meshes and skins, animations.
fn document(
    model: &gom::Model,
    images: &BTreeMap<String, Vec<u8>>,
    warnings: &mut Vec<String>,
) -> Result<(Root, Vec<u8>), GltfError> {
    let mut bin = Bin::default();
    let (mut nodes, roots) = nodes::bone_nodes(model);
    let looks = materials::looks(model, images, &mut bin, warnings);
    let parts = meshes::parts(model, &mut bin, looks.materials.len(), warnings)?;
    let common_root = parts.skins.iter().any(|s| s.spans_roots);
    // The parts' nodes follow the bones' (`nodes::scene`).
    let part_nodes: Vec<Option<u32>> = parts
        .node_of_mesh
        .iter()
        .map(|k| k.map(|k| (nodes.len() + k) as u32))
        .collect();
    let (scene, root_node) = nodes::scene(&mut nodes, &roots, parts.nodes, common_root);
    let skins = parts
        .skins
        .into_iter()
        .map(|entry| {
            let mut skin = entry.skin;
            if entry.spans_roots {
                skin.skeleton = root_node;
            }
            skin
        })
        .collect();
    let animations = animations::animations(model, &part_nodes, &mut bin)?;
    bin.pad();
    let root = Root {
        asset: Asset {
            generator: Some(gom::CONVERTER_VERSION.to_string()),
            ..Default::default()
        },
        scene: Some(Index::new(0)),
        scenes: vec![scene],
        nodes,
        meshes: parts.meshes,
        skins,
        materials: looks.materials,
        textures: looks.textures,
        images: looks.images,
        animations,
        buffer_views: bin.views,
        accessors: bin.accessors,
        ..Default::default()
    };
    Ok((root, bin.data))
}

/// The one buffer, when there are bytes, at `uri` (`None` in a `.glb`).
fn buffers(bin: &[u8], uri: Option<String>) -> Vec<Buffer> {
    if bin.is_empty() {
        return Vec::new();
    }
    vec![Buffer {
        byte_length: USize64::from(bin.len()),
        name: None,
        uri,
        extensions: None,
        extras: Default::default(),
    }]
}

/// A `.glb`: the 12-byte header, the JSON chunk padded with spaces, the BIN chunk.
fn glb(mut root: Root, bin: Vec<u8>) -> Result<Vec<u8>, GltfError> {
    root.buffers = buffers(&bin, None);
    let mut text = root
        .to_vec()
        .map_err(|e| export_err("model", e.to_string()))?;
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let has_bin = !bin.is_empty();
    let mut total = 12 + 8 + text.len();
    if has_bin {
        total += 8 + bin.len();
    }
    let too_large = || export_err("model", "larger than the 4 GiB a .glb can hold");
    let total32 = u32::try_from(total).map_err(|_| too_large())?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if has_bin {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

/// A `.gltf` (pretty-printed JSON) naming its buffer `bin_uri`, and the buffer.
fn gltf_text(mut root: Root, bin: Vec<u8>, bin_uri: &str) -> Result<Exported, GltfError> {
    root.buffers = buffers(&bin, Some(uri_encode(bin_uri)));
    let json = root
        .to_string_pretty()
        .map_err(|e| export_err("model", e.to_string()))?;
    Ok(Exported::Gltf { json, bin })
}
