//! Mesh parts: their vertex accessors, one primitive per submesh, their skins (shared
//! by parts with the same joints and inverse binds) and their nodes.
//!
//! A skinned part's GBTM is baked into its vertices (glTF ignores a skinned node's
//! transform); a static part's GBTM becomes its node's matrix.

use std::collections::BTreeMap;

use gltf::json::accessor::{ComponentType, Type};
use gltf::json::buffer::Target;
use gltf::json::mesh::{Primitive, Semantic};
use gltf::json::validation::Checked::{self, Valid};
use gltf::json::{Accessor, Index, Mesh, Node, Skin};

use gom::math::{transform_point, transform_vector};
use gom::Mat4;

use super::bin::Bin;
use super::export_err;
use super::nodes::set_transform;
use crate::gltf::convert::{mirror_mat, mirror_tangent, mirror_vec3, normal_matrix, normalize3};
use crate::gltf::GltfError;

/// A primitive's attributes: semantic to accessor.
type Attributes = BTreeMap<Checked<Semantic>, Index<Accessor>>;

/// One skin of the export, with what decides whether a part can share it.
pub(super) struct SkinEntry {
    /// Its joints, as bone indices in bone order.
    bones: Vec<usize>,
    /// The inverse binds of the part that made it, by bone.
    inverse_bind: Vec<Mat4>,
    /// The skin as written.
    pub(super) skin: Skin,
    /// Whether its joints span several root bones (then it needs a common root).
    pub(super) spans_roots: bool,
}

/// The meshes of an export, each with its node (nodes not yet numbered), and the skins.
#[derive(Default)]
pub(super) struct Parts {
    /// One mesh per drawn part.
    pub(super) meshes: Vec<Mesh>,
    /// One node per mesh, in the same order.
    pub(super) nodes: Vec<Node>,
    /// The skins the nodes name.
    pub(super) skins: Vec<SkinEntry>,
    /// Per model mesh, the index of its node among `nodes` (`None` when not drawn).
    pub(super) node_of_mesh: Vec<Option<usize>>,
}

/// Every mesh part with vertices and triangles, its buffers written to `bin`. Eight
/// influences go to `JOINTS_1`/`WEIGHTS_1`; glTF has no dual-quaternion skinning, so
/// dual-quaternion and blended parts are written as linear skinning with one warning
/// naming them.
pub(super) fn parts(
    model: &gom::Model,
    bin: &mut Bin,
    material_count: usize,
    warnings: &mut Vec<String>,
) -> Result<Parts, GltfError> {
    warnings.extend(crate::export::skinning_warning(model, "glTF"));
    let root_of = root_bones(&model.skeleton.bones);
    let mut parts = Parts {
        node_of_mesh: vec![None; model.meshes.len()],
        ..Default::default()
    };
    for (mi, part) in model.meshes.iter().enumerate() {
        let object = format!("meshes[{mi}]");
        if part.vertices.is_empty() || part.submeshes.is_empty() {
            continue; // nothing to draw; glTF needs at least one vertex per primitive
        }
        // Geometry: skinned parts get GBTM baked, static parts keep it on the node.
        let bake = part.vertices.skin.as_ref().and(part.mesh_bind_geo_to_model);
        let mut attrs = vertex_attributes(&part.vertices, bake.as_ref(), bin);
        let skin = match &part.vertices.skin {
            Some(first) => {
                let bone_count = model.skeleton.bones.len();
                let extra = part.vertices.skin_extra.as_deref();
                let weights: Vec<&[gom::SkinWeights]> =
                    [Some(&first[..]), extra].into_iter().flatten().collect();
                check_skin(part, &weights, bone_count).map_err(|m| export_err(&object, m))?;
                Some(add_skin(
                    part,
                    &weights,
                    &root_of,
                    bin,
                    &mut attrs,
                    &mut parts.skins,
                ))
            }
            None => None,
        };
        let mut primitives = primitives(part, &object, &attrs, material_count, bin)?;
        if primitives.is_empty() {
            continue;
        }
        let targets = super::morph::targets(part, bake.as_ref(), bin);
        for p in &mut primitives {
            p.targets.clone_from(&targets);
        }
        let (weights, extras) = super::morph::weights_and_names(part);
        let mesh = Index::push(
            &mut parts.meshes,
            Mesh {
                name: Some(part.name.clone()),
                primitives,
                weights,
                extensions: None,
                extras,
            },
        );
        let mut node = Node {
            name: Some(part.name.clone()),
            mesh: Some(mesh),
            skin,
            ..Default::default()
        };
        if let (None, Some(g)) = (skin, part.mesh_bind_geo_to_model) {
            set_transform(&mut node, &mirror_mat(&g), false);
        }
        parts.node_of_mesh[mi] = Some(parts.nodes.len());
        parts.nodes.push(node);
    }
    Ok(parts)
}

/// The root bone of each bone (parents come first: checked by the caller).
fn root_bones(bones: &[gom::Bone]) -> Vec<usize> {
    let mut root_of: Vec<usize> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let r = usize::try_from(b.parent).map_or(i, |p| root_of[p]);
        root_of.push(r);
    }
    root_of
}

/// Positions (with bounds), normals, tangents, UV sets and colours, each an accessor
/// in `bin`, with `bake` applied when given and everything mirrored back to
/// right-handed.
fn vertex_attributes(v: &gom::Vertices, bake: Option<&Mat4>, bin: &mut Bin) -> Attributes {
    let array = Some(Target::ArrayBuffer);
    let mut attrs = Attributes::new();
    let positions: Vec<f32> = v
        .positions
        .iter()
        .flat_map(|p| mirror_vec3(bake.map_or(*p, |g| transform_point(g, *p))))
        .collect();
    let pos = bin.floats(&positions, Type::Vec3, array, true);
    attrs.insert(Valid(Semantic::Positions), pos);
    if let Some(normals) = &v.normals {
        let nm = bake.and_then(normal_matrix);
        let out: Vec<f32> = normals
            .iter()
            .flat_map(|nv| {
                let t = nm.map_or(*nv, |m| transform_vector(&m, *nv));
                mirror_vec3(normalize3(t.map(f64::from)).unwrap_or([0.0, 1.0, 0.0]))
            })
            .collect();
        let a = bin.floats(&out, Type::Vec3, array, false);
        attrs.insert(Valid(Semantic::Normals), a);
    }
    if let Some(tangents) = &v.tangents {
        let out: Vec<f32> = tangents
            .iter()
            .flat_map(|t| {
                let d = [t[0], t[1], t[2]];
                let d = bake.map_or(d, |g| transform_vector(g, d));
                let d = normalize3(d.map(f64::from)).unwrap_or([1.0, 0.0, 0.0]);
                let w = if t[3] < 0.0 { -1.0 } else { 1.0 };
                mirror_tangent([d[0], d[1], d[2], w])
            })
            .collect();
        let a = bin.floats(&out, Type::Vec4, array, false);
        attrs.insert(Valid(Semantic::Tangents), a);
    }
    for (set, uv) in [(0, &v.uv0), (1, &v.uv1)] {
        if let Some(uv) = uv {
            let flat: Vec<f32> = uv.iter().flatten().copied().collect();
            let a = bin.floats(&flat, Type::Vec2, array, false);
            attrs.insert(Valid(Semantic::TexCoords(set)), a);
        }
    }
    if let Some(colors) = &v.colors {
        let flat: Vec<u32> = colors.iter().flatten().map(|&c| u32::from(c)).collect();
        let a = bin.uints(&flat, ComponentType::U8, Type::Vec4, array, true);
        attrs.insert(Valid(Semantic::Colors(0)), a);
    }
    attrs
}

/// What makes a part's skin unwritable: no bones, inverse binds that do not match
/// them, or a weighted bone index past them (in any set of four slots).
fn check_skin(
    part: &gom::MeshPart,
    sets: &[&[gom::SkinWeights]],
    bone_count: usize,
) -> Result<(), String> {
    if bone_count == 0 {
        return Err("skinned but the skeleton has no bones".into());
    }
    if part.inverse_bind.len() != bone_count {
        return Err(format!(
            "{} inverse binds for {bone_count} bones",
            part.inverse_bind.len()
        ));
    }
    for (k, sw) in sets.iter().flat_map(|w| w.iter().enumerate()) {
        for s in 0..4 {
            let b = sw.bones[s];
            if sw.weights[s] > 0.0 && usize::from(b) >= bone_count {
                return Err(format!(
                    "vertex {k}: bone {b} is not below the bone count {bone_count}"
                ));
            }
        }
    }
    Ok(())
}

/// The joints of a skin, in bone order: every bone under the root bones its weights
/// use (glTF wants a skin's joints to share a root), or every bone, with `true`, when
/// they use several root bones.
fn skin_joints(sets: &[&[gom::SkinWeights]], root_of: &[usize]) -> (Vec<usize>, bool) {
    let used: std::collections::BTreeSet<usize> = sets
        .iter()
        .flat_map(|w| w.iter())
        .flat_map(|sw| {
            (0..4)
                .filter(|&s| sw.weights[s] > 0.0)
                .map(|s| root_of[usize::from(sw.bones[s])])
        })
        .collect();
    let root = match used.len() {
        0 => root_of.first().copied(),
        1 => used.first().copied(),
        _ => None,
    };
    match root {
        Some(r) => (
            (0..root_of.len()).filter(|&b| root_of[b] == r).collect(),
            false,
        ),
        None => ((0..root_of.len()).collect(), used.len() > 1),
    }
}

/// Writes a part's joints and weights (as indices into its skin's joints) into `bin`
/// and `attrs`, set `k` of four slots as `JOINTS_k`/`WEIGHTS_k`, and returns its
/// skin: one already in `skins` with the same joints and inverse binds, or a new one.
fn add_skin(
    part: &gom::MeshPart,
    sets: &[&[gom::SkinWeights]],
    root_of: &[usize],
    bin: &mut Bin,
    attrs: &mut Attributes,
    skins: &mut Vec<SkinEntry>,
) -> Index<Skin> {
    let (bones, spans_roots) = skin_joints(sets, root_of);
    let mut joint_of = vec![0u32; root_of.len()];
    for (j, &b) in bones.iter().enumerate() {
        joint_of[b] = j as u32;
    }
    for (set, weights) in sets.iter().enumerate() {
        write_joints(weights, &joint_of, bones.len(), set as u32, bin, attrs);
    }
    if let Some(s) = skins
        .iter()
        .position(|s| s.bones == bones && s.inverse_bind == part.inverse_bind)
    {
        return Index::new(s as u32);
    }
    let flat: Vec<f32> = bones
        .iter()
        .flat_map(|&b| mirror_mat(&part.inverse_bind[b]))
        .collect();
    let ibm = bin.floats(&flat, Type::Mat4, None, false);
    let skin = Skin {
        inverse_bind_matrices: Some(ibm),
        joints: bones.iter().map(|&b| Index::new(b as u32)).collect(),
        skeleton: None,
        name: None,
        extensions: None,
        extras: Default::default(),
    };
    skins.push(SkinEntry {
        bones,
        inverse_bind: part.inverse_bind.clone(),
        skin,
        spans_roots,
    });
    Index::new(skins.len() as u32 - 1)
}

/// Writes one set of four slots as `JOINTS_set`/`WEIGHTS_set`, joints as indices into
/// the skin's `joint_count` joints.
fn write_joints(
    weights: &[gom::SkinWeights],
    joint_of: &[u32],
    joint_count: usize,
    set: u32,
    bin: &mut Bin,
    attrs: &mut Attributes,
) {
    let mut joints = Vec::with_capacity(weights.len() * 4);
    let mut w = Vec::with_capacity(weights.len() * 4);
    for sw in weights {
        for s in 0..4 {
            let used = sw.weights[s] > 0.0;
            joints.push(if used {
                joint_of[usize::from(sw.bones[s])]
            } else {
                0
            });
            w.push(if used { sw.weights[s] } else { 0.0 });
        }
    }
    let component = if joint_count <= 256 {
        ComponentType::U8
    } else {
        ComponentType::U16
    };
    let array = Some(Target::ArrayBuffer);
    let ja = bin.uints(&joints, component, Type::Vec4, array, false);
    let wa = bin.floats(&w, Type::Vec4, array, false);
    attrs.insert(Valid(Semantic::Joints(set)), ja);
    attrs.insert(Valid(Semantic::Weights(set)), wa);
}

/// One primitive per submesh with triangles, sharing `attrs`; GOM's clockwise
/// triangles back to glTF's order, indices as shorts up to 65,535 vertices, else ints.
fn primitives(
    part: &gom::MeshPart,
    object: &str,
    attrs: &Attributes,
    material_count: usize,
    bin: &mut Bin,
) -> Result<Vec<Primitive>, GltfError> {
    let n = part.vertices.len();
    let component = if n > 65535 {
        ComponentType::U32
    } else {
        ComponentType::U16
    };
    let mut prims = Vec::new();
    for (si, sub) in part.submeshes.iter().enumerate() {
        let at = || format!("{object}.submeshes[{si}]");
        let start = sub.index_start as usize;
        let triangles = start
            .checked_add(sub.index_count as usize)
            .and_then(|end| part.indices.get(start..end))
            .ok_or_else(|| export_err(at(), "range outside the indices"))?;
        let mut idx = Vec::with_capacity(triangles.len());
        for tri in triangles.chunks_exact(3) {
            if tri.iter().any(|&i| i as usize >= n) {
                return Err(export_err(at(), "an index is not below the vertex count"));
            }
            idx.extend([tri[0], tri[2], tri[1]]);
        }
        if idx.is_empty() {
            continue;
        }
        let indices = bin.uints(
            &idx,
            component,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            false,
        );
        let material = usize::try_from(sub.material_index)
            .ok()
            .filter(|&m| m < material_count)
            .map(|m| Index::new(m as u32));
        prims.push(Primitive {
            attributes: attrs.clone(),
            indices: Some(indices),
            material,
            mode: Valid(Default::default()),
            targets: None,
            extensions: None,
            extras: Default::default(),
        });
    }
    Ok(prims)
}
