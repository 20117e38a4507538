//! The per-corner work of a mesh part (normals and tangents, corner attributes,
//! triangles), then welding: everything after [`super::prepare_meshes`] that needs
//! neither the skeleton nor the report, so that parts can be built on any thread.

use glam::DVec3;
use gom::{MeshPart, SkinWeights, Submesh, Vertices};

use super::{f3, mat, v3, Built, Prepared, M64};
use crate::optimize::mesh::{canon, optimize_for_gpu, weld_keyed};

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
    skin_extra: Option<Vec<SkinWeights>>,
    dq_weights: Option<Vec<f32>>,
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
    let Some(mesh) = mesh else {
        return Built {
            node: p.node,
            name: p.name,
            part: None,
            slots: Vec::new(),
            warnings,
            channels: Vec::new(),
        };
    };
    let shading = shading(mesh, &p.g, &p.normal_m, &p.name, &mut warnings);
    let corners = corners(mesh, &p, &mut warnings);
    let tris = triangles(mesh, p.flip, &p.name, &mut warnings);
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
            skin_extra: corners.skin_extra,
            dq_weights: corners.dq_weights,
        };
        // With blend shapes, corners of different FBX vertices stay apart: their
        // deltas may differ.
        let vertex_of = |c: usize| mesh.vertex_indices.get(c).copied().unwrap_or(0);
        let source: Option<Vec<u32>> = (!p.shapes.targets.is_empty())
            .then(|| (0..corners.positions.len()).map(vertex_of).collect());
        let (vertices, indices, first) = weld_keyed(&corners, &indices, source.as_deref());
        let morph_targets = super::morph::part_targets(
            &p.shapes.targets,
            &first,
            vertex_of,
            vertices.normals.is_some(),
        );
        let mut part = MeshPart {
            morph_targets,
            name: p.name.clone(),
            vertices,
            indices,
            submeshes,
            inverse_bind: p.inverse_bind,
            mesh_bind_geo_to_model: None,
            bounds: None,
            skinning: p.skinning,
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
        channels: p.shapes.channels,
    }
}

/// The value of corner `c` of an indexed attribute (`None` out of range).
fn at<'a, T>(indices: &[u32], values: &'a [T], c: usize) -> Option<&'a T> {
    values.get(*indices.get(c)? as usize)
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
        at(&a.indices, &a.values, c).map_or([0.0; 3], v3)
    };
    let normals_f64: Option<Vec<[f64; 3]>> = mesh.vertex_normal.exists.then(|| {
        let a = &mesh.vertex_normal;
        let values: Vec<[f64; 3]> = a
            .values
            .iter()
            .map(|v| mat::normalize(normal_m.transform_vector3(v3(v).into())).into())
            .collect();
        (0..nc)
            .map(|c| at(&a.indices, &values, c).copied().unwrap_or([0.0; 3]))
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
                    let t = attr3(&mesh.vertex_tangent, c).into();
                    let t = mat::normalize(g.transform_vector3(t));
                    let b = g.transform_vector3(attr3(&mesh.vertex_bitangent, c).into());
                    let w = if DVec3::from(n[c]).cross(t).dot(b) < 0.0 {
                        -1.0
                    } else {
                        1.0
                    };
                    let t = f3(t.into());
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
                let v = at(&a.indices, &a.values, c).map_or([0.0; 2], |v| [v.x, v.y]);
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
                let v = at(&a.indices, &a.values, c).map_or([1.0; 4], |v| [v.x, v.y, v.z, v.w]);
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
    fn per_corner<T: Copy + Default>(
        s: &Option<Vec<T>>,
        nc: usize,
        vi: impl Fn(usize) -> usize,
    ) -> Option<Vec<T>> {
        s.as_ref().map(|s| {
            (0..nc)
                .map(|c| s.get(vi(c)).copied().unwrap_or_default())
                .collect()
        })
    }
    Corners {
        positions,
        uv0,
        uv1,
        colors,
        skin: per_corner(&p.vertex_skin, nc, vi),
        skin_extra: per_corner(&p.vertex_skin_extra, nc, vi),
        dq_weights: per_corner(&p.vertex_dq, nc, vi),
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
        let shared = crate::fbx::eval::tests::shared_fbx_files();
        sources.extend(shared.iter().map(|p| std::fs::read(p).unwrap()));
        let (mut fast, mut asked) = (0usize, 0usize);
        for bytes in &sources {
            let scene = crate::fbx::load(bytes, "test").unwrap();
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
