//! Mesh parts: one per FBX mesh node (draft §6 rule M1).
//!
//! Rule M2 (split a part when it references another skeleton, other inverse binds or
//! another vertex layout) never triggers here: a GOM file has one skeleton, a part's
//! inverse binds come from its node's single skin deformer, and all corners of one FBX
//! mesh have the same attributes. A second skin deformer on one mesh is reported and
//! ignored, as ufbx's own evaluation does.

use std::collections::HashMap;

use gom::{Material, MeshPart, Model, SkinWeights, Submesh, Vertices};

use super::eval::Stored;
use super::follow::Follow;
use super::mat::{self, M64};
use super::skeleton::{self, Skel};
use crate::optimize::mesh::{canon, optimize_for_gpu, weld};
use crate::optimize::skin::limit_influences;
use crate::report::{MeshReport, Report};

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

/// The two triangles `ufbx::triangulate_face` gives a quad whose two diagonal splits
/// both fold the same way (the common, convex case), without the call: the quad is
/// split along its shorter diagonal, `v0–v2` on a tie. `None` (ask ufbx) for any other
/// face, and for a quad so close to folded that ufbx's normalised test could decide
/// otherwise.
fn split_convex_quad(mesh: &ufbx::Mesh, face: &ufbx::Face) -> Option<[u32; 6]> {
    if face.num_indices != 4 {
        return None;
    }
    let pos = &mesh.vertex_position;
    let i0 = face.index_begin;
    let p = |k: u32| -> Option<[f64; 3]> {
        let c = i0.checked_add(k)? as usize;
        let v = pos.values.get(*pos.indices.get(c)? as usize)?;
        Some([v.x, v.y, v.z])
    };
    let (v0, v1, v2, v3) = (p(0)?, p(1)?, p(2)?, p(3)?);
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let a = sub(v2, v0);
    let b = sub(v3, v1);
    // ufbx compares the dot products of the normalised triangle normals with zero;
    // unnormalised they have the same sign. Only a clear positive is decided here.
    let same_side = |n: [f64; 3], m: [f64; 3]| {
        let d = dot(n, m);
        d > 0.0 && d * d > 1e-12 * dot(n, n) * dot(m, m)
    };
    let folds_a = !same_side(cross(a, sub(v1, v0)), cross(a, sub(v0, v3)));
    let folds_b = !same_side(cross(b, sub(v1, v0)), cross(b, sub(v2, v1)));
    if folds_a || folds_b {
        return None;
    }
    let [i1, i2, i3] = [i0 + 1, i0 + 2, i0 + 3];
    Some(if dot(a, a) <= dot(b, b) {
        [i0, i1, i2, i2, i3, i0]
    } else {
        [i1, i2, i3, i3, i0, i1]
    })
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
    /// Skin weights per vertex (`None`: a static part).
    pub vertex_skin: Option<Vec<SkinWeights>>,
    inverse_bind: Vec<gom::Mat4>,
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
}

/// Prepares every mesh node (depth-first source order) for [`build`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_meshes(
    scene: &ufbx::Scene,
    stored: &Stored,
    skel: &Skel,
    follow: &Follow,
    model_animated: bool,
    report: &mut Report,
) -> Vec<Prepared> {
    let mirrored = scene.metadata.mirror_axis != ufbx::MirrorAxis::None;
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
        out.extend(prepare(
            stored,
            node,
            mesh,
            name,
            skel,
            follow,
            model_animated,
            mirrored,
            report,
        ));
    }
    out
}

/// Adds the built parts to `model` in order, with their materials (indexed on first
/// use) and reports.
pub(crate) fn finish(
    scene: &ufbx::Scene,
    built: Vec<Built>,
    model: &mut Model,
    report: &mut Report,
) {
    let mut material_list = std::mem::take(&mut model.materials);
    let mut materials = MaterialTable {
        index: HashMap::new(),
        list: &mut material_list,
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
        push(model, report, part);
    }
    model.materials = material_list;
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

#[allow(clippy::too_many_arguments)]
fn prepare(
    stored: &Stored,
    node: &ufbx::Node,
    mesh: &ufbx::Mesh,
    name: String,
    skel: &Skel,
    follow: &Follow,
    model_animated: bool,
    mirrored: bool,
    report: &mut Report,
) -> Option<Prepared> {
    let node_id = node.element.typed_id as usize;
    let node_bone = skel.node_bone.get(node_id).copied().flatten();
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
        .filter(|s| s.clusters.iter().any(|c| c.bone_node.is_some()));
    if let Some(skin) = skin {
        if skin.skinning_method == ufbx::SkinningMethod::DualQuaternion
            || (skin.skinning_method == ufbx::SkinningMethod::BlendedDqLinear
                && skin.dq_weights.iter().any(|w| *w > 0.0))
        {
            report.warn(format!(
                "mesh \"{name}\": dual-quaternion skinning converted as linear skinning"
            ));
        }
    }
    let geo_to_node = mat::from_ufbx(&node.geometry_to_node);
    // The bone a cluster's weights go to (an extra bone when the mesh follows its node).
    let bone_of = |c: &ufbx::SkinCluster| -> Option<usize> {
        let b = c
            .bone_node
            .as_ref()
            .and_then(|b| skel.node_bone[b.element.typed_id as usize])?;
        Some(
            follow
                .bone
                .get(&(node.element.typed_id, b))
                .copied()
                .unwrap_or(b),
        )
    };

    // Model-space bind transform of the geometry, and the binding.
    let (g, binding): (M64, Binding) = if let Some(skin) = skin {
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
        let g = match (follow.inv_mesh_bind.get(&node.element.typed_id), node_bone) {
            (Some(inv_t), Some(m)) => mat::mul(&mat::mul(&g, inv_t), &skel.bind_world[m]),
            _ => g,
        };
        (g, Binding::Skinned)
    } else if let (true, Some(b)) = (model_animated, node_bone) {
        (
            mat::mul(&geo_to_node, &skel.bind_world[b]),
            Binding::Rigid(b),
        )
    } else {
        (
            mat::mul(&geo_to_node, &stored.world[node_id]),
            Binding::Static,
        )
    };
    let normal_m = mat::normal_matrix(&g);
    let flip = (mirrored != mesh.reversed_winding) != (mat::det3(&g) < 0.0);

    // Blend shapes: GOM v1 has no morph targets. Bake the stored weights.
    let mut base: Vec<[f64; 3]> = mesh.vertices.iter().map(v3).collect();
    for blend in mesh.blend_deformers.iter() {
        let active: Vec<String> = blend
            .channels
            .iter()
            .filter(|c| c.weight != 0.0)
            .map(|c| format!("{} = {}", &*c.element.name, c.weight))
            .collect();
        if active.is_empty() {
            report.warn(format!(
                "mesh \"{name}\": blend deformer \"{}\" with {} channel(s) dropped (GOM v1 has no morph targets; all stored weights are 0)",
                &*blend.element.name,
                blend.channels.count
            ));
        } else {
            for (v, p) in base.iter_mut().enumerate() {
                let o = ufbx::get_blend_vertex_offset(blend, v);
                p[0] += o.x;
                p[1] += o.y;
                p[2] += o.z;
            }
            report.warn(format!(
                "mesh \"{name}\": blend deformer \"{}\" ({} channel(s)) baked into the base geometry at its stored weights [{}] (GOM v1 has no morph targets; normals are not re-derived)",
                &*blend.element.name,
                blend.channels.count,
                active.join(", ")
            ));
        }
    }

    // Per-vertex skin weights.
    let vertex_skin: Option<Vec<SkinWeights>> = match binding {
        Binding::Static => None,
        Binding::Rigid(b) => {
            let sw = SkinWeights {
                bones: [b as u16, 0, 0, 0],
                weights: [1.0, 0.0, 0.0, 0.0],
            };
            Some(vec![sw; mesh.num_vertices])
        }
        Binding::Skinned => {
            let skin = skin?;
            let cluster_bone: Vec<Option<u16>> = skin
                .clusters
                .iter()
                .map(|c| bone_of(c).map(|b| b as u16))
                .collect();
            let mut out = Vec::with_capacity(mesh.num_vertices);
            let mut unweighted = 0usize;
            let mut infl: Vec<(u16, f64)> = Vec::new();
            for v in 0..mesh.num_vertices {
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
                match limit_influences(&infl, &mut report.dropped_influences) {
                    Some(sw) => out.push(sw),
                    None => {
                        unweighted += 1;
                        let b = node_bone.unwrap_or(0) as u16;
                        out.push(SkinWeights {
                            bones: [b, 0, 0, 0],
                            weights: [1.0, 0.0, 0.0, 0.0],
                        });
                    }
                }
            }
            if unweighted > 0 {
                report.warn(format!(
                    "mesh \"{name}\": {unweighted} vertex(es) without skin weights bound to the mesh node's bone"
                ));
            }
            Some(out)
        }
    };

    // Inverse binds: one per skeleton bone for a skinned part.
    let inverse_bind: Vec<gom::Mat4> = if vertex_skin.is_some() {
        let mut ibnd: Vec<gom::Mat4> = skel
            .bind_world_f32
            .iter()
            .map(|w| gom::math::inverse_affine(w).unwrap_or(gom::IDENTITY))
            .collect();
        let inv_g = mat::inverse(&g).unwrap_or(mat::ID);
        if let (Binding::Skinned, Some(skin)) = (&binding, skin) {
            if let Some(m) = node_bone {
                // Unweighted vertices follow the mesh node: geometry -> node -> node's bone.
                ibnd[m] = mat::to_f32(&mat::mul(&inv_g, &geo_to_node));
            }
            let mut done = vec![false; ibnd.len()];
            for c in skin.clusters.iter() {
                let Some(b) = bone_of(c) else { continue };
                if !done[b] {
                    done[b] = true;
                    ibnd[b] = mat::to_f32(&mat::mul(&inv_g, &mat::from_ufbx(&c.geometry_to_bone)));
                }
            }
        }
        ibnd
    } else {
        Vec::new()
    };

    // Positions are transformed once per vertex.
    let vertex_positions: Vec<[f32; 3]> = base.iter().map(|&p| f3(mat::point(&g, p))).collect();
    let origin = f3(mat::point(&g, [0.0; 3]));
    Some(Prepared {
        node: node_id,
        name,
        g,
        normal_m,
        flip,
        vertex_positions,
        origin,
        vertex_skin,
        inverse_bind,
    })
}

/// Normals and tangents per corner.
struct Shading {
    normals: Option<Vec<[f32; 3]>>,
    tangents: Option<Vec<[f32; 4]>>,
}

/// Positions, UVs, colours and skin weights per corner.
struct Corners {
    positions: Vec<[f32; 3]>,
    uv0: Option<Vec<[f32; 2]>>,
    uv1: Option<Vec<[f32; 2]>>,
    colors: Option<Vec<[u8; 4]>>,
    skin: Option<Vec<SkinWeights>>,
}

/// Triangles (corner indices) grouped by material slot, slots in order of first use.
struct Triangles {
    indices: Vec<u32>,
    submeshes: Vec<Submesh>,
    slots: Vec<u32>,
}

/// The part of `p`: its per-corner work, corners welded, ordered for the GPU when
/// `optimize` is set. Needs neither the skeleton nor the report, so that parts can be
/// built on any thread.
pub(crate) fn build(root: &ufbx::SceneRoot, p: Prepared, optimize: bool) -> Built {
    let scene: &ufbx::Scene = root;
    let mut warnings = Vec::new();
    let mesh = scene.nodes.get(p.node).and_then(|n| n.mesh.as_deref());
    let (shading, corners, tris) = match mesh {
        Some(mesh) => (
            shading(mesh, &p.g, &p.normal_m, &p.name, &mut warnings),
            corners(mesh, &p, &mut warnings),
            triangles(mesh, p.flip, &p.name, &mut warnings),
        ),
        None => (
            Shading {
                normals: None,
                tangents: None,
            },
            Corners {
                positions: Vec::new(),
                uv0: None,
                uv1: None,
                colors: None,
                skin: None,
            },
            Triangles {
                indices: Vec::new(),
                submeshes: Vec::new(),
                slots: Vec::new(),
            },
        ),
    };
    let Triangles {
        indices,
        submeshes,
        slots,
    } = tris;
    let part = (!indices.is_empty()).then(|| {
        let corners = Vertices {
            positions: corners.positions,
            normals: shading.normals,
            tangents: shading.tangents,
            uv0: corners.uv0,
            uv1: corners.uv1,
            colors: corners.colors,
            skin: corners.skin,
        };
        let (vertices, indices) = weld(&corners, &indices);
        let mut part = MeshPart {
            name: p.name.clone(),
            vertices,
            indices,
            submeshes,
            inverse_bind: p.inverse_bind,
            mesh_bind_geo_to_model: None,
            bounds: None,
        };
        if optimize {
            optimize_for_gpu(&mut part);
        }
        part
    });
    Built {
        node: p.node,
        name: p.name,
        part,
        slots,
        warnings,
    }
}

/// Corner normals (in `f64` while tangent signs are computed against them, transformed
/// once per stored value: FBX normals are often indexed) and tangents.
fn shading(
    mesh: &ufbx::Mesh,
    g: &M64,
    normal_m: &M64,
    name: &str,
    warnings: &mut Vec<String>,
) -> Shading {
    let nc = mesh.num_indices;
    let attr3 = |a: &ufbx::VertexVec3, c: usize| -> [f64; 3] {
        a.indices
            .get(c)
            .and_then(|&i| a.values.get(i as usize))
            .map(v3)
            .unwrap_or([0.0; 3])
    };
    let normals_f64: Option<Vec<[f64; 3]>> = mesh.vertex_normal.exists.then(|| {
        let a = &mesh.vertex_normal;
        let values: Vec<[f64; 3]> = a
            .values
            .iter()
            .map(|v| mat::normalize(mat::vector(normal_m, v3(v))))
            .collect();
        (0..nc)
            .map(|c| {
                a.indices
                    .get(c)
                    .and_then(|&i| values.get(i as usize))
                    .copied()
                    .unwrap_or([0.0; 3])
            })
            .collect()
    });
    let tangents = match (
        &normals_f64,
        mesh.vertex_tangent.exists,
        mesh.vertex_bitangent.exists,
    ) {
        (Some(n), true, true) => Some(
            (0..nc)
                .map(|c| {
                    let t = mat::normalize(mat::vector(g, attr3(&mesh.vertex_tangent, c)));
                    let b = mat::vector(g, attr3(&mesh.vertex_bitangent, c));
                    let nn = n[c];
                    let cr = [
                        nn[1] * t[2] - nn[2] * t[1],
                        nn[2] * t[0] - nn[0] * t[2],
                        nn[0] * t[1] - nn[1] * t[0],
                    ];
                    let w = if cr[0] * b[0] + cr[1] * b[1] + cr[2] * b[2] < 0.0 {
                        -1.0
                    } else {
                        1.0
                    };
                    let t = f3(t);
                    [t[0], t[1], t[2], w]
                })
                .collect::<Vec<[f32; 4]>>(),
        ),
        (_, true, _) => {
            warnings.push(format!(
                "mesh \"{name}\": tangents without normals or bitangents dropped"
            ));
            None
        }
        _ => None,
    };
    Shading {
        normals: normals_f64.map(|n| n.into_iter().map(f3).collect()),
        tangents,
    }
}

/// Corner positions, UVs (v flipped, D2), colours and skin weights.
fn corners(mesh: &ufbx::Mesh, p: &Prepared, warnings: &mut Vec<String>) -> Corners {
    let (vertex_positions, origin, name) = (&p.vertex_positions, p.origin, &p.name);
    let nc = mesh.num_indices;
    let vi = |c: usize| mesh.vertex_indices.get(c).copied().unwrap_or(0) as usize;
    let positions: Vec<[f32; 3]> = (0..nc)
        .map(|c| vertex_positions.get(vi(c)).copied().unwrap_or(origin))
        .collect();
    let uv_of = |a: &ufbx::VertexVec2| -> Vec<[f32; 2]> {
        (0..nc)
            .map(|c| {
                let v = a
                    .indices
                    .get(c)
                    .and_then(|&i| a.values.get(i as usize))
                    .map(|v| [v.x, v.y])
                    .unwrap_or([0.0; 2]);
                [canon(v[0] as f32), canon((1.0 - v[1]) as f32)]
            })
            .collect()
    };
    let uv0 = mesh.vertex_uv.exists.then(|| uv_of(&mesh.vertex_uv));
    let uv1 = mesh
        .uv_sets
        .get(1)
        .filter(|s| s.vertex_uv.exists)
        .map(|s| uv_of(&s.vertex_uv));
    if mesh.uv_sets.count > 2 {
        warnings.push(format!(
            "mesh \"{name}\": {} UV sets; only the first two are kept",
            mesh.uv_sets.count
        ));
    }
    let colors = mesh.vertex_color.exists.then(|| {
        let a = &mesh.vertex_color;
        (0..nc)
            .map(|c| {
                let v = a
                    .indices
                    .get(c)
                    .and_then(|&i| a.values.get(i as usize))
                    .map(|v| [v.x, v.y, v.z, v.w])
                    .unwrap_or([1.0; 4]);
                v.map(|x| {
                    let x = if x.is_finite() {
                        x.clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    (x * 255.0).round() as u8
                })
            })
            .collect::<Vec<[u8; 4]>>()
    });
    if mesh.color_sets.count > 1 {
        warnings.push(format!(
            "mesh \"{name}\": {} vertex colour sets; only the first is kept",
            mesh.color_sets.count
        ));
    }
    let skin = p.vertex_skin.as_ref().map(|s| {
        (0..nc)
            .map(|c| s.get(vi(c)).copied().unwrap_or_default())
            .collect()
    });
    Corners {
        positions,
        uv0,
        uv1,
        colors,
        skin,
    }
}

/// Triangles grouped by material slot, slots in order of first use; flipped when
/// `flip` is set.
fn triangles(mesh: &ufbx::Mesh, flip: bool, name: &str, warnings: &mut Vec<String>) -> Triangles {
    let mut slots: Vec<(u32, Vec<u32>)> = Vec::new();
    let (mut skipped, mut out_of_range) = (0usize, 0usize);
    let nc = mesh.num_indices;
    let mut buf: Vec<u32> = Vec::new();
    for (fi, face) in mesh.faces.iter().enumerate() {
        if face.num_indices < 3 {
            skipped += 1;
            continue;
        }
        let need = (face.num_indices as usize - 2) * 3;
        if buf.len() < need {
            buf.resize(need, 0);
        }
        let n = if face.num_indices == 3 {
            let b = face.index_begin;
            buf[..3].copy_from_slice(&[b, b.saturating_add(1), b.saturating_add(2)]);
            1
        } else if let Some(q) = split_convex_quad(mesh, face) {
            buf[..6].copy_from_slice(&q);
            2
        } else {
            ufbx::triangulate_face(&mut buf, mesh, *face) as usize
        };
        let slot = mesh.face_material.get(fi).copied().unwrap_or(0);
        let pos = match slots.iter().position(|(s, _)| *s == slot) {
            Some(p) => p,
            None => {
                slots.push((slot, Vec::new()));
                slots.len() - 1
            }
        };
        let list = &mut slots[pos].1;
        for t in buf[..(n * 3).min(buf.len())].chunks_exact(3) {
            // ufbx keeps faces inside the mesh's corners; a triangle that is not
            // would reference no corner attributes, so it is dropped rather than
            // indexed.
            if t.iter().any(|&c| c as usize >= nc) {
                out_of_range += 1;
                continue;
            }
            if flip {
                list.extend([t[0], t[2], t[1]]);
            } else {
                list.extend([t[0], t[1], t[2]]);
            }
        }
    }
    if skipped > 0 {
        warnings.push(format!(
            "mesh \"{name}\": {skipped} point or line face(s) dropped"
        ));
    }
    if out_of_range > 0 {
        warnings.push(format!(
            "mesh \"{name}\": {out_of_range} triangle(s) outside the mesh's corners dropped"
        ));
    }
    let mut indices = Vec::new();
    let mut submeshes = Vec::new();
    let mut used_slots = Vec::new();
    for (slot, tris) in &slots {
        if tris.is_empty() {
            continue;
        }
        submeshes.push(Submesh {
            material_index: -1,
            index_start: indices.len() as u32,
            index_count: tris.len() as u32,
        });
        used_slots.push(*slot);
        indices.extend_from_slice(tris);
    }
    Triangles {
        indices,
        submeshes,
        slots: used_slots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ASCII FBX holding one mesh of `quads` (four vertex positions each).
    fn quad_mesh_fbx(quads: &[[[f64; 3]; 4]]) -> String {
        let coords: Vec<String> = quads
            .iter()
            .flatten()
            .flatten()
            .map(|c| format!("{c:?}"))
            .collect();
        let indices: Vec<String> = (0..quads.len() as i64)
            .flat_map(|q| {
                let b = q * 4;
                [b, b + 1, b + 2, -(b + 3) - 1]
            })
            .map(|i| i.to_string())
            .collect();
        format!(
            "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nObjects:  {{\n\tGeometry: 100, \"Geometry::q\", \"Mesh\" {{\n\t\tVertices: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t\tPolygonVertexIndex: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t}}\n\tModel: 200, \"Model::q\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n}}\nConnections:  {{\n\tC: \"OO\",200,0\n\tC: \"OO\",100,200\n}}\n",
            coords.len(),
            coords.join(","),
            indices.len(),
            indices.join(",")
        )
    }

    /// The quad split taken without ufbx is the one ufbx's `triangulate_face` gives, on
    /// random quads (flat and convex, bent, folded, concave, degenerate) and on every
    /// quad of the shared files.
    #[test]
    fn convex_quad_split_is_ufbxs_split() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut quads = Vec::new();
        for i in 0..4000 {
            let mut q = [[0.0; 3]; 4];
            match i % 4 {
                // A flat convex quad (a jittered square, some long and thin), tilted.
                0 | 1 => {
                    let (sx, sy) = (1.0 + rnd().abs() * 9.0, 1.0 + rnd().abs());
                    let corners = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
                    for (k, c) in corners.iter().enumerate() {
                        let (x, y) = (c[0] * sx + rnd() * 0.3, c[1] * sy + rnd() * 0.3);
                        q[k] = [x, y * 0.6, y * 0.8 + rnd() * 0.01 * (i % 8) as f64];
                    }
                }
                // Anything: bent, folded, concave or self-crossing.
                2 => {
                    q = [
                        [rnd(), rnd(), rnd()],
                        [rnd(), rnd(), rnd()],
                        [rnd(), rnd(), rnd()],
                        [rnd(), rnd(), rnd()],
                    ]
                }
                // Degenerate: repeated or collinear corners.
                _ => {
                    let (a, b) = ([rnd(), rnd(), rnd()], [rnd(), rnd(), rnd()]);
                    let mid = [
                        (a[0] + b[0]) / 2.0,
                        (a[1] + b[1]) / 2.0,
                        (a[2] + b[2]) / 2.0,
                    ];
                    q = [
                        a,
                        b,
                        if i % 8 == 3 { b } else { mid },
                        [rnd(), rnd(), rnd()],
                    ];
                }
            }
            quads.push(q);
        }
        let mut sources = vec![quad_mesh_fbx(&quads).into_bytes()];
        let shared = super::super::eval::tests::shared_fbx_files();
        sources.extend(shared.iter().map(|p| std::fs::read(p).unwrap()));
        let (mut fast, mut asked) = (0usize, 0usize);
        for bytes in &sources {
            let scene = super::super::load(bytes, "test").unwrap();
            for mesh in scene.meshes.iter() {
                let mut buf = [0u32; 6];
                for face in mesh.faces.iter().filter(|f| f.num_indices == 4) {
                    let n = ufbx::triangulate_face(&mut buf, mesh, *face);
                    assert_eq!(n, 2);
                    match split_convex_quad(mesh, face) {
                        Some(q) => {
                            fast += 1;
                            assert_eq!(q, buf, "quad at corner {}", face.index_begin);
                        }
                        None => asked += 1,
                    }
                }
            }
        }
        // Both paths are exercised: most quads are decided here, folded ones by ufbx.
        assert!(
            fast >= 2000 && asked >= 500,
            "{fast} decided here, {asked} by ufbx"
        );
    }
}
