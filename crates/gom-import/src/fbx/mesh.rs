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
use super::FbxOptions;
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

/// Converts every mesh node into a mesh part of `model`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert_meshes(
    scene: &ufbx::Scene,
    stored: &Stored,
    skel: &Skel,
    follow: &Follow,
    model_animated: bool,
    options: &FbxOptions,
    model: &mut Model,
    report: &mut Report,
) {
    let mut material_list = std::mem::take(&mut model.materials);
    let mut materials = MaterialTable {
        index: HashMap::new(),
        list: &mut material_list,
    };
    let mirrored = scene.metadata.mirror_axis != ufbx::MirrorAxis::None;
    let mut used_names: Vec<String> = Vec::new();
    for node in skeleton::mesh_nodes(scene) {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let mut name = if node.element.name.is_empty() {
            format!("mesh{}", model.meshes.len())
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
        if let Some(part) = convert_one(
            stored,
            node,
            mesh,
            &name,
            skel,
            follow,
            model_animated,
            mirrored,
            options,
            &mut materials,
            report,
        ) {
            if options.optimize_meshes {
                let mut part = part;
                optimize_for_gpu(&mut part);
                push(model, report, part);
            } else {
                push(model, report, part);
            }
        }
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
fn convert_one(
    stored: &Stored,
    node: &ufbx::Node,
    mesh: &ufbx::Mesh,
    name: &str,
    skel: &Skel,
    follow: &Follow,
    model_animated: bool,
    mirrored: bool,
    _options: &FbxOptions,
    materials: &mut MaterialTable<'_>,
    report: &mut Report,
) -> Option<MeshPart> {
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

    // Attributes per polygon corner. Positions are transformed once per vertex.
    let nc = mesh.num_indices;
    let vi = |c: usize| mesh.vertex_indices.get(c).copied().unwrap_or(0) as usize;
    let vertex_positions: Vec<[f32; 3]> = base.iter().map(|&p| f3(mat::point(&g, p))).collect();
    let origin = f3(mat::point(&g, [0.0; 3]));
    let positions: Vec<[f32; 3]> = (0..nc)
        .map(|c| vertex_positions.get(vi(c)).copied().unwrap_or(origin))
        .collect();
    let attr3 = |a: &ufbx::VertexVec3, c: usize| -> [f64; 3] {
        a.indices
            .get(c)
            .and_then(|&i| a.values.get(i as usize))
            .map(v3)
            .unwrap_or([0.0; 3])
    };
    // Normals in f64 (tangent signs are computed against them), transformed once per
    // stored value: FBX normals are often indexed.
    let normals_f64: Option<Vec<[f64; 3]>> = mesh.vertex_normal.exists.then(|| {
        let a = &mesh.vertex_normal;
        let values: Vec<[f64; 3]> = a
            .values
            .iter()
            .map(|v| mat::normalize(mat::vector(&normal_m, v3(v))))
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
                    let t = mat::normalize(mat::vector(&g, attr3(&mesh.vertex_tangent, c)));
                    let b = mat::vector(&g, attr3(&mesh.vertex_bitangent, c));
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
            report.warn(format!(
                "mesh \"{name}\": tangents without normals or bitangents dropped"
            ));
            None
        }
        _ => None,
    };
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
        report.warn(format!(
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
        report.warn(format!(
            "mesh \"{name}\": {} vertex colour sets; only the first is kept",
            mesh.color_sets.count
        ));
    }
    let corners = Vertices {
        positions,
        normals: normals_f64.map(|n| n.into_iter().map(f3).collect()),
        tangents,
        uv0,
        uv1,
        colors,
        skin: vertex_skin.map(|s| {
            (0..nc)
                .map(|c| s.get(vi(c)).copied().unwrap_or_default())
                .collect()
        }),
    };

    // Triangles grouped by material slot, slots in order of first use.
    let node_materials = if node.materials.count > 0 {
        &node.materials
    } else {
        &mesh.materials
    };
    let mut slots: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut buf: Vec<u32> = Vec::new();
    let mut skipped = 0usize;
    let mut out_of_range = 0usize;
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
            // ufbx keeps faces inside the mesh's corners; a triangle that is not would
            // reference no corner attributes, so it is dropped rather than indexed.
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
        report.warn(format!(
            "mesh \"{name}\": {skipped} point or line face(s) dropped"
        ));
    }
    if out_of_range > 0 {
        report.warn(format!(
            "mesh \"{name}\": {out_of_range} triangle(s) outside the mesh's corners dropped"
        ));
    }
    let mut corner_indices = Vec::new();
    let mut submeshes = Vec::new();
    for (slot, tris) in &slots {
        if tris.is_empty() {
            continue;
        }
        let material_index = node_materials
            .get(*slot as usize)
            .map_or(-1, |m| materials.get(m));
        submeshes.push(Submesh {
            material_index,
            index_start: corner_indices.len() as u32,
            index_count: tris.len() as u32,
        });
        corner_indices.extend_from_slice(tris);
    }
    if corner_indices.is_empty() {
        report.warn(format!("mesh \"{name}\": no triangles; not converted"));
        return None;
    }
    let (vertices, indices) = weld(&corners, &corner_indices);
    Some(MeshPart {
        name: name.to_string(),
        vertices,
        indices,
        submeshes,
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
    })
}
