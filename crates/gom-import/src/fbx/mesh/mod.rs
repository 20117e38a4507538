//! Mesh parts: one per FBX mesh node (docs/format.md §2.7).
//!
//! Rule M2 (split a part when it references another skeleton, other inverse binds or
//! another vertex layout) never triggers here: a GOM file has one skeleton, a part's
//! inverse binds come from its node's single skin deformer, and all corners of one FBX
//! mesh have the same attributes. A second skin deformer on one mesh is reported and
//! ignored, as ufbx's own evaluation does.

mod corners;
pub(crate) mod morph;

use std::collections::HashMap;

use glam::DVec3;
use gom::{Material, MeshPart, Model, SkinWeights, SkinningMethod};

use super::eval::Stored;
use super::follow::Follow;
use super::mat::{self, M64};
use super::skeleton::{self, Skel};
use super::textures::Embedded;
use crate::optimize::mesh::canon;
use crate::optimize::skin::{limit_influences_to, split_influences, Influences};
use crate::report::{MeshReport, Report};

pub(crate) use corners::build;

/// How a part's vertices reach model space and follow the skeleton.
enum Binding {
    /// Baked into model space, not skinned (a model whose nodes do not move).
    Static,
    /// Bound with weight 1 to the bone of the node that carries the mesh (D7).
    Rigid(usize),
    /// Skinned by the node's skin deformer.
    Skinned,
}

fn v3(v: &ufbx::Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn f3(v: [f64; 3]) -> [f32; 3] {
    v.map(|x| canon(x as f32))
}

/// Materials of the model, indexed by ufbx element id on first use.
struct MaterialTable<'a> {
    index: HashMap<u32, i32>,
    list: &'a mut Vec<Material>,
    /// The images the file embeds, named as the materials use them.
    embedded: &'a mut Embedded,
}

impl MaterialTable<'_> {
    fn get(&mut self, m: &ufbx::Material) -> i32 {
        if let Some(i) = self.index.get(&m.element.element_id) {
            return *i;
        }
        let i = self.list.len() as i32;
        let texture = m
            .pbr
            .base_color
            .texture
            .as_ref()
            .or(m.fbx.diffuse_color.texture.as_ref())
            .and_then(|t| {
                if let Some(name) = self.embedded.name_of(t) {
                    return Some(name);
                }
                let name: &str = if t.relative_filename.is_empty() {
                    &t.filename
                } else {
                    &t.relative_filename
                };
                (!name.is_empty()).then(|| name.replace('\\', "/"))
            });
        let mut factor = [1.0f32; 4];
        if m.pbr.base_color.has_value {
            let c = &m.pbr.base_color.value_vec4;
            factor = [c.x, c.y, c.z, c.w].map(|v| v as f32);
            if m.pbr.base_color.value_components < 4 {
                factor[3] = 1.0;
            }
        }
        if m.pbr.base_factor.has_value {
            let f = m.pbr.base_factor.value_vec4.x as f32;
            for c in &mut factor[..3] {
                *c *= f;
            }
        }
        let factor = factor.map(|v| if v.is_finite() { canon(v) } else { 1.0 });
        self.list.push(Material {
            name: m.element.name.to_string(),
            base_color_texture: texture,
            base_color_factor: factor,
        });
        self.index.insert(m.element.element_id, i);
        i
    }
}

/// A mesh node's part with everything that needs the skeleton and the report done on
/// the calling thread (binding, skin weights, inverse binds, positions per vertex);
/// [`build`] does the per-corner work, on any thread.
pub(crate) struct Prepared {
    /// The mesh node's typed id.
    node: usize,
    /// The part's name (unique in the model).
    pub name: String,
    g: M64,
    normal_m: M64,
    /// Triangles are flipped (mirroring and a negative determinant combined).
    flip: bool,
    /// Model-space bind positions, per vertex.
    pub vertex_positions: Vec<[f32; 3]>,
    /// Where a corner without a vertex goes.
    origin: [f32; 3],
    /// Skin weights per vertex, the first four slots (`None`: a static part).
    pub vertex_skin: Option<Vec<SkinWeights>>,
    /// Slots 4..8 per vertex, when some vertex has more than four influences.
    vertex_skin_extra: Option<Vec<SkinWeights>>,
    /// The skin deformer's method, and per vertex its dual-quaternion share (blended
    /// only).
    skinning: SkinningMethod,
    vertex_dq: Option<Vec<f32>>,
    inverse_bind: Vec<gom::Mat4>,
    /// The mesh's blend shapes, in model space.
    shapes: morph::MeshShapes,
}

/// A part built from a [`Prepared`] one: its submeshes' material indices are still
/// the node's material slots, resolved by [`finish`].
pub(crate) struct Built {
    node: usize,
    name: String,
    /// `None` when the mesh has no triangles.
    part: Option<MeshPart>,
    slots: Vec<u32>,
    warnings: Vec<String>,
    /// The blend channels behind the part's morph targets.
    channels: Vec<morph::ChannelTargets>,
}

/// A part of the model with morph targets from blend channels: where their weight
/// animation comes from.
pub(crate) struct MorphSource {
    /// The part's index in the model.
    pub mesh: u32,
    /// The mesh node's typed id.
    pub node: usize,
    pub channels: Vec<morph::ChannelTargets>,
}

/// Prepares every mesh node (depth-first source order) for [`build`].
pub(crate) fn prepare_meshes(
    scene: &ufbx::Scene,
    stored: &Stored,
    skel: &Skel,
    follow: &Follow,
    model_animated: bool,
    report: &mut Report,
) -> Vec<Prepared> {
    let cx = Context {
        stored,
        skel,
        follow,
        model_animated,
        mirrored: scene.metadata.mirror_axis != ufbx::MirrorAxis::None,
    };
    let mut used_names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for node in skeleton::mesh_nodes(scene) {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let mut name = if node.element.name.is_empty() {
            format!("mesh{}", used_names.len())
        } else {
            node.element.name.to_string()
        };
        if used_names.contains(&name) {
            let mut k = 2;
            while used_names.contains(&format!("{name}#{k}")) {
                k += 1;
            }
            name = format!("{name}#{k}");
        }
        used_names.push(name.clone());
        out.extend(prepare(&cx, node, mesh, name, report));
    }
    out
}

/// Adds the built parts to `model` in order, with their materials (indexed on first
/// use) and reports; returns the parts whose morph targets come from blend channels.
pub(crate) fn finish(
    scene: &ufbx::Scene,
    built: Vec<Built>,
    model: &mut Model,
    report: &mut Report,
    embedded: &mut Embedded,
) -> Vec<MorphSource> {
    let mut sources = Vec::new();
    let mut material_list = std::mem::take(&mut model.materials);
    let mut materials = MaterialTable {
        index: HashMap::new(),
        list: &mut material_list,
        embedded,
    };
    for b in built {
        report.warnings.extend(b.warnings);
        let Some(mut part) = b.part else {
            report.warn(format!("mesh \"{}\": no triangles; not converted", b.name));
            continue;
        };
        let node = &scene.nodes[b.node];
        let node_materials = match node.mesh.as_ref() {
            Some(mesh) if node.materials.count == 0 => &mesh.materials,
            _ => &node.materials,
        };
        for (sub, slot) in part.submeshes.iter_mut().zip(b.slots) {
            sub.material_index = node_materials
                .get(slot as usize)
                .map_or(-1, |m| materials.get(m));
        }
        if !b.channels.is_empty() && !part.morph_targets.is_empty() {
            sources.push(MorphSource {
                mesh: model.meshes.len() as u32,
                node: b.node,
                channels: b.channels,
            });
        }
        push(model, report, part);
    }
    model.materials = material_list;
    sources
}

fn push(model: &mut Model, report: &mut Report, part: MeshPart) {
    report.meshes.push(MeshReport {
        name: part.name.clone(),
        vertices: part.vertices.len(),
        triangles: part.indices.len() / 3,
        submeshes: part.submeshes.len(),
        skinned: part.is_skinned(),
    });
    model.meshes.push(part);
}

/// What the preparation of every part shares.
struct Context<'a> {
    stored: &'a Stored,
    skel: &'a Skel,
    follow: &'a Follow,
    model_animated: bool,
    /// The scene was mirrored into GOM's handedness.
    mirrored: bool,
}

/// One mesh node's part under preparation.
struct MeshNode<'a> {
    node: &'a ufbx::Node,
    mesh: &'a ufbx::Mesh,
    /// The mesh node's typed id.
    id: usize,
    /// The mesh node's bone, if any.
    bone: Option<usize>,
    /// The skin deformer converted (the first, when it has a bone).
    skin: Option<&'a ufbx::SkinDeformer>,
    name: String,
}

impl Context<'_> {
    /// The bone a cluster's weights go to (an extra bone when the mesh follows its
    /// node or binds the joint elsewhere).
    fn cluster_bone(&self, m: &MeshNode<'_>, c: &ufbx::SkinCluster) -> Option<usize> {
        let b = self.skel.cluster_bone(c)?;
        Some(
            self.follow
                .bone
                .get(&(m.node.element.typed_id, b))
                .copied()
                .unwrap_or(b),
        )
    }
}

fn prepare(
    cx: &Context<'_>,
    node: &ufbx::Node,
    mesh: &ufbx::Mesh,
    name: String,
    report: &mut Report,
) -> Option<Prepared> {
    let id = node.element.typed_id as usize;
    let m = MeshNode {
        node,
        mesh,
        id,
        bone: cx.skel.node_bone.get(id).copied().flatten(),
        skin: skin_deformer(mesh, &name, report),
        name,
    };
    let geo_to_node = mat::from_ufbx(&node.geometry_to_node);
    let (g, binding) = bind_geometry(cx, &m, &geo_to_node, report)?;
    let normal_m = mat::normal_matrix(&g);
    let flip = (cx.mirrored != mesh.reversed_winding) != (mat::det3(&g) < 0.0);
    let base: Vec<[f64; 3]> = m.mesh.vertices.iter().map(v3).collect();
    let shapes = morph::shapes(m.mesh, &g, &normal_m, &m.name, report);
    let influences = vertex_skin(cx, &m, &binding, report)?;
    let (vertex_skin, vertex_skin_extra) = match influences.as_deref().map(split_influences) {
        Some((first, extra)) => (Some(first), extra),
        None => (None, None),
    };
    let (skinning, vertex_dq) = match (&binding, m.skin) {
        (Binding::Skinned, Some(skin)) => skinning_method(skin, m.mesh.num_vertices),
        _ => (SkinningMethod::Linear, None),
    };
    let inverse_bind = if vertex_skin.is_some() {
        inverse_binds(cx, &m, &binding, &g, &geo_to_node)
    } else {
        Vec::new()
    };
    // Positions are transformed once per vertex.
    let vertex_positions: Vec<[f32; 3]> = base
        .iter()
        .map(|&p| f3(g.transform_point3(p.into()).into()))
        .collect();
    let origin = f3(g.transform_point3(DVec3::ZERO).into());
    Some(Prepared {
        node: id,
        name: m.name,
        g,
        normal_m,
        flip,
        vertex_positions,
        origin,
        vertex_skin,
        vertex_skin_extra,
        skinning,
        vertex_dq,
        inverse_bind,
        shapes,
    })
}

/// The GOM skinning method of `skin` (`docs/extensions.md` §3) and, for blended
/// skinning, each vertex's dual-quaternion share (ufbx's `dq_weight`, clamped to
/// [0, 1]). Blended skinning whose shares are all 0 is linear, all 1 dual quaternion.
fn skinning_method(
    skin: &ufbx::SkinDeformer,
    vertices: usize,
) -> (SkinningMethod, Option<Vec<f32>>) {
    match skin.skinning_method {
        ufbx::SkinningMethod::DualQuaternion => (SkinningMethod::DualQuaternion, None),
        ufbx::SkinningMethod::BlendedDqLinear => {
            let dq: Vec<f32> = (0..vertices)
                .map(|v| {
                    let a = skin.vertices.get(v).map_or(0.0, |sv| sv.dq_weight as f32);
                    if a.is_finite() {
                        canon(a.clamp(0.0, 1.0))
                    } else {
                        0.0
                    }
                })
                .collect();
            if dq.iter().all(|&a| a == 0.0) {
                (SkinningMethod::Linear, None)
            } else if dq.iter().all(|&a| a == 1.0) {
                (SkinningMethod::DualQuaternion, None)
            } else {
                (SkinningMethod::Blended, Some(dq))
            }
        }
        ufbx::SkinningMethod::Linear | ufbx::SkinningMethod::Rigid => {
            (SkinningMethod::Linear, None)
        }
    }
}

/// The mesh's skin deformer to convert: the first, when one of its clusters has a
/// bone. Warns about further deformers.
fn skin_deformer<'a>(
    mesh: &'a ufbx::Mesh,
    name: &str,
    report: &mut Report,
) -> Option<&'a ufbx::SkinDeformer> {
    if mesh.skin_deformers.count > 1 {
        report.warn(format!(
            "mesh \"{name}\": {} skin deformers; only the first is converted",
            mesh.skin_deformers.count
        ));
    }
    let skin = mesh
        .skin_deformers
        .first()
        .map(|s| &**s)
        .filter(|s| s.clusters.iter().any(|c| c.bone_node.is_some()))?;
    Some(skin)
}

/// The model-space bind transform of the geometry, and the binding.
fn bind_geometry(
    cx: &Context<'_>,
    m: &MeshNode<'_>,
    geo_to_node: &M64,
    report: &mut Report,
) -> Option<(M64, Binding)> {
    let name = &m.name;
    Some(if let Some(skin) = m.skin {
        let c = skin.clusters.iter().find(|c| c.bone_node.is_some())?;
        let g = mat::mul(
            &mat::from_ufbx(&c.geometry_to_bone),
            &mat::from_ufbx(&c.bind_to_world),
        );
        for other in skin.clusters.iter().filter(|c| c.bone_node.is_some()) {
            let go = mat::mul(
                &mat::from_ufbx(&other.geometry_to_bone),
                &mat::from_ufbx(&other.bind_to_world),
            );
            if !mat::approx_eq(&g, &go, 1e-4) {
                report.warn(format!(
                    "mesh \"{name}\": skin clusters disagree on the mesh's bind matrix; the part's inverse binds follow each cluster, so its bind-pose check may fail"
                ));
                break;
            }
        }
        // A mesh that follows its node: geometry placed at the stored mesh node.
        let g = match (
            cx.follow.inv_mesh_bind.get(&m.node.element.typed_id),
            m.bone,
        ) {
            (Some(inv_t), Some(b)) => mat::mul(&mat::mul(&g, inv_t), &cx.skel.bind_world[b]),
            _ => g,
        };
        (g, Binding::Skinned)
    } else if let (true, Some(b)) = (cx.model_animated, m.bone) {
        (
            mat::mul(geo_to_node, &cx.skel.bind_world[b]),
            Binding::Rigid(b),
        )
    } else {
        (
            mat::mul(geo_to_node, &cx.stored.world[m.id]),
            Binding::Static,
        )
    })
}

/// Up to eight skin influences per vertex (`Some(None)`: a static part; `None`: a
/// skinned binding without a skin, which does not occur); past eight, the lightest
/// are dropped and counted.
fn vertex_skin(
    cx: &Context<'_>,
    m: &MeshNode<'_>,
    binding: &Binding,
    report: &mut Report,
) -> Option<Option<Vec<Influences>>> {
    let one_bone = |b: usize| Influences {
        first: SkinWeights {
            bones: [b as u16, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        },
        extra: SkinWeights::default(),
    };
    let skin = match binding {
        Binding::Static => return Some(None),
        Binding::Rigid(b) => return Some(Some(vec![one_bone(*b); m.mesh.num_vertices])),
        Binding::Skinned => m.skin?,
    };
    let cluster_bone: Vec<Option<u16>> = skin
        .clusters
        .iter()
        .map(|c| cx.cluster_bone(m, c).map(|b| b as u16))
        .collect();
    let mut out = Vec::with_capacity(m.mesh.num_vertices);
    let mut unweighted = 0usize;
    let mut infl: Vec<(u16, f64)> = Vec::new();
    for v in 0..m.mesh.num_vertices {
        infl.clear();
        if let Some(sv) = skin.vertices.get(v) {
            let begin = (sv.weight_begin as usize).min(skin.weights.len());
            let end = begin
                .saturating_add(sv.num_weights as usize)
                .min(skin.weights.len());
            for w in &skin.weights.as_ref()[begin..end] {
                if let Some(Some(b)) = cluster_bone.get(w.cluster_index as usize) {
                    infl.push((*b, w.weight));
                }
            }
        }
        let max = gom::limits::MAX_SKIN_INFLUENCES;
        match limit_influences_to(&infl, max, &mut report.dropped_influences) {
            Some(sw) => out.push(sw),
            None => {
                unweighted += 1;
                out.push(one_bone(m.bone.unwrap_or(0)));
            }
        }
    }
    if unweighted > 0 {
        report.warn(format!(
            "mesh \"{}\": {unweighted} vertex(es) without skin weights bound to the mesh node's bone",
            m.name
        ));
    }
    Some(Some(out))
}

/// Inverse binds of a skinned part: one per skeleton bone.
fn inverse_binds(
    cx: &Context<'_>,
    m: &MeshNode<'_>,
    binding: &Binding,
    g: &M64,
    geo_to_node: &M64,
) -> Vec<gom::Mat4> {
    let mut ibnd: Vec<gom::Mat4> = cx
        .skel
        .bind_world_f32
        .iter()
        .map(|w| gom::math::inverse_affine(w).unwrap_or(gom::IDENTITY))
        .collect();
    let inv_g = mat::inverse(g).unwrap_or(mat::ID);
    if let (Binding::Skinned, Some(skin)) = (binding, m.skin) {
        if let Some(b) = m.bone {
            // Unweighted vertices follow the mesh node: geometry -> node -> node's bone.
            ibnd[b] = mat::to_f32(&mat::mul(&inv_g, geo_to_node));
        }
        let mut done = vec![false; ibnd.len()];
        for c in skin.clusters.iter() {
            let Some(b) = cx.cluster_bone(m, c) else {
                continue;
            };
            if !done[b] {
                done[b] = true;
                ibnd[b] = mat::to_f32(&mat::mul(&inv_g, &mat::from_ufbx(&c.geometry_to_bone)));
            }
        }
    }
    ibnd
}
