//! The GOM skeleton as the game's nodes: one node per bone in bone order (parents
//! first), names of at most 15 bytes, model-space bind and inverse bind matrices, and
//! the local rest rotation and translation of the bind pose. A model without bones, or
//! with a mesh that is not skinned, gets a static root node those vertices are bound to.

use gom::Mat4;
use jpog::tmd::Node;

use super::names::{NameLimit, Renames};
use super::{refused, ExportError};
use crate::jpog::axes::Basis;

/// The name of the static root node added for meshes that follow no bone.
pub const STATIC_ROOT: &str = "gom_static";

/// The nodes with what the other parts of the export need.
#[derive(Debug, Clone)]
pub(crate) struct Skeleton {
    /// The nodes, bone `i` as node `i`, the static root (if any) last.
    pub nodes: Vec<Node>,
    /// The static root's node index, when one was added.
    pub static_node: Option<usize>,
}

fn mul64(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut r = [0.0f64; 16];
    for i in 0..4 {
        for j in 0..4 {
            r[i * 4 + j] = (0..4).map(|k| a[i * 4 + k] * b[k * 4 + j]).sum();
        }
    }
    r
}

/// Model-space bind matrices, composed in f64 so that a chain of bones loses nothing
/// the f32 result can hold.
fn bind_world64(bones: &[gom::Bone]) -> Vec<[f64; 16]> {
    let mut world: Vec<[f64; 16]> = Vec::with_capacity(bones.len());
    for (i, bone) in bones.iter().enumerate() {
        let local = bone.bind_local.map(f64::from);
        let m = match bone.parent_index() {
            Some(p) if p < i => mul64(&local, &world[p]),
            _ => local,
        };
        world.push(m);
    }
    world
}

fn to32(m: &[f64; 16]) -> Mat4 {
    m.map(|v| v as f32 + 0.0)
}

/// Two inverse bind matrices differing by more than this in an entry bind a bone
/// differently.
const INVERSE_BIND_TOLERANCE: f32 = 1e-5;

/// A note for each bone whose inverse bind matrix differs between skinned mesh parts:
/// the game holds one per node, so the other parts are drawn with the first's.
fn differing_inverse_binds(model: &gom::Model, first: usize) -> Vec<String> {
    let bones = &model.skeleton.bones;
    let chosen = &model.meshes[first];
    let mut notes = Vec::new();
    for (b, bone) in bones.iter().enumerate() {
        let other = model.meshes.iter().find(|m| {
            m.is_skinned()
                && m.inverse_bind.len() == bones.len()
                && m.inverse_bind[b]
                    .iter()
                    .zip(&chosen.inverse_bind[b])
                    .any(|(x, y)| (x - y).abs() > INVERSE_BIND_TOLERANCE)
        });
        if let Some(m) = other {
            notes.push(format!(
                "bone {b} \"{}\": mesh \"{}\" binds it with another inverse bind matrix than mesh \"{}\"; the game holds one per node, so \"{}\"'s is written and \"{}\" may be drawn displaced",
                bone.name, m.name, chosen.name, chosen.name, m.name
            ));
        }
    }
    notes
}

/// The inverse bind matrices the nodes carry: those of the first skinned mesh part
/// (GOM stores them per mesh; the game once per node; a bone other parts bind
/// differently gets a note), else the bind matrices' inverses.
fn inverse_binds(
    model: &gom::Model,
    world: &[[f64; 16]],
    notes: &mut Vec<String>,
) -> Result<Vec<Mat4>, ExportError> {
    let n = model.skeleton.bones.len();
    if let Some(first) = model
        .meshes
        .iter()
        .position(|m| m.is_skinned() && m.inverse_bind.len() == n)
    {
        notes.extend(differing_inverse_binds(model, first));
        return Ok(model.meshes[first].inverse_bind.clone());
    }
    world
        .iter()
        .enumerate()
        .map(|(i, w)| {
            gom::math::inverse_affine_f64(w, 0.0)
                .map(|inv| to32(&inv))
                .ok_or_else(|| refused(format!("bone {i}"), "the bind matrix is singular"))
        })
        .collect()
}

fn identity_node(name: &str) -> Result<Node, ExportError> {
    let (name_length, name_field) = jpog::tmd::short_name(name, "node")?;
    Ok(Node {
        rest_rotation: [0.0, 0.0, 0.0, 1.0],
        bind: gom::IDENTITY,
        inverse_bind: gom::IDENTITY,
        name_length,
        name_field,
        parent: -1,
        flag: 0,
        rest_translation: [0.0; 3],
    })
}

/// Builds the nodes; `basis` is the change from GOM space into the game's.
pub(crate) fn build(
    model: &gom::Model,
    basis: &Basis,
    renames: &mut Renames,
    notes: &mut Vec<String>,
) -> Result<Skeleton, ExportError> {
    let bones = &model.skeleton.bones;
    // one node per bone, plus possibly the static root: the count is a u16 and parents
    // an i16
    if bones.len() >= i16::MAX as usize {
        return Err(refused(
            "skeleton",
            format!(
                "{} bones; the game holds at most {}",
                bones.len(),
                i16::MAX - 1
            ),
        ));
    }
    let world = bind_world64(bones);
    let inverse = inverse_binds(model, &world, notes)?;
    let mut nodes = Vec::with_capacity(bones.len() + 1);
    for (i, bone) in bones.iter().enumerate() {
        let record = format!("bone {i} \"{}\"", bone.name);
        let source = if bone.name.is_empty() {
            format!("node{i}")
        } else {
            bone.name.clone()
        };
        let name = renames.fit(&source, NameLimit::Node, &record)?;
        let (name_length, name_field) = jpog::tmd::short_name(&name, &record)?;
        let (t, r, _) = crate::gltf::decompose(&bone.bind_local);
        nodes.push(Node {
            rest_rotation: basis.quat(r),
            bind: basis.mat4(&to32(&world[i])),
            inverse_bind: basis.mat4(&inverse[i]),
            name_length,
            name_field,
            // below i16::MAX, checked above
            parent: bone.parent.max(-1) as i16,
            flag: 0,
            rest_translation: basis.vector(t),
        });
    }
    let needs_static = bones.is_empty() || model.meshes.iter().any(|m| !m.is_skinned());
    let static_node = if needs_static {
        let name = renames.fit(STATIC_ROOT, NameLimit::Node, "static root")?;
        nodes.push(identity_node(&name)?);
        Some(nodes.len() - 1)
    } else {
        None
    };
    Ok(Skeleton { nodes, static_node })
}
