//! GOM mesh parts as the game's meshes: one game mesh per material (more when its
//! vertices overflow 16-bit strip indices), split into pieces whose palettes hold at
//! most 28 nodes, each drawn by one triangle strip of fewer than 7,500 indices. A vertex
//! belongs to one piece, so a vertex two pieces use is written once for each.

use std::collections::HashMap;

use jpog::scene::decode_strip_indices;
use jpog::tmd::{Mesh, Piece, Vertex, MAX_PALETTE};

use super::names::{NameLimit, Renames};
use super::skeleton::Skeleton;
use super::split::{grow, Patch};
use super::strip::{cut, stripify, triangle_set};
use super::weights::quantise;
use super::{refused, ExportError};
use crate::jpog::axes::Basis;

/// The game tools split strips before this many indices; so do we.
pub const MAX_TOOL_STRIP: usize = 7_500;
/// Vertices one game mesh can hold: its strips index them with u16.
pub const MAX_MESH_VERTICES: usize = 1 << 16;

/// A material the meshes use, in first-use order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MaterialUse {
    /// The name in the game (at most 31 bytes).
    pub name: String,
    /// The GOM material's base-colour texture.
    pub texture: Option<String>,
    /// The GOM material's base-colour factor (white without a material).
    pub color: [f32; 4],
}

/// LOD 0's meshes, and each material's triangles the lower levels are made from.
#[derive(Debug)]
pub(crate) struct Meshes {
    pub meshes: Vec<Mesh>,
    pub sphere: [f32; 4],
    pub materials: Vec<MaterialUse>,
    pub vertex_sources: Vec<Vec<(usize, u32)>>,
    /// Each material's vertices and triangles, in the order of `materials`.
    pub groups: Vec<MaterialTriangles>,
}

/// A vertex in game space with its quantised skinning.
#[derive(Debug, Clone, Copy)]
struct GameVertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
    weights: [u8; 4],
    /// Node of each weighted slot (meaningless where the weight is 0).
    nodes: [u32; 4],
    source: (usize, u32),
}

impl GameVertex {
    fn weighted_nodes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..4)
            .filter(|&k| self.weights[k] > 0)
            .map(|k| self.nodes[k])
    }

    /// What the game stores of the vertex: position, normal and texture coordinates
    /// (a negative zero as zero), weights and the node of each weighted slot. Vertices
    /// with the same key are one vertex to the game (they differed only in what it does
    /// not store: tangents, colours, other texture coordinates, weights finer than a
    /// step of 1/255).
    fn stored(&self) -> [u32; 13] {
        let bits = |v: f32| (v + 0.0).to_bits();
        let weighted = |k: usize| {
            if self.weights[k] > 0 {
                self.nodes[k]
            } else {
                u32::MAX
            }
        };
        [
            bits(self.position[0]),
            bits(self.position[1]),
            bits(self.position[2]),
            bits(self.normal[0]),
            bits(self.normal[1]),
            bits(self.normal[2]),
            bits(self.uv[0]),
            bits(self.uv[1]),
            u32::from_le_bytes(self.weights),
            weighted(0),
            weighted(1),
            weighted(2),
            weighted(3),
        ]
    }
}

/// One material's triangles over its own vertex list.
#[derive(Debug, Default)]
pub(crate) struct MaterialTriangles {
    vertices: Vec<GameVertex>,
    pub triangles: Vec<[u32; 3]>,
}

impl MaterialTriangles {
    /// The vertices' positions, in game space.
    pub fn positions(&self) -> Vec<[f32; 3]> {
        self.vertices.iter().map(|v| v.position).collect()
    }
}

fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// `v` of unit length (negative zeros made positive), or as it is when it has none.
fn normalise(v: [f32; 3]) -> [f32; 3] {
    crate::gltf::normalize3(v.map(f64::from)).map_or(v, |n| n.map(|c| c + 0.0))
}

/// The game vertices of mesh part `pi`, in game space.
fn part_vertices(
    part: &gom::MeshPart,
    pi: usize,
    skel: &Skeleton,
    basis: &Basis,
) -> Result<Vec<GameVertex>, ExportError> {
    let v = &part.vertices;
    let n = v.positions.len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let record = || format!("mesh \"{}\" vertex {i}", part.name);
        let mut p = v.positions[i];
        let mut nrm = v
            .normals
            .as_ref()
            .and_then(|x| x.get(i))
            .copied()
            .unwrap_or([0.0; 3]);
        if let Some(g) = &part.mesh_bind_geo_to_model {
            p = gom::math::transform_point(g, p);
            nrm = normalise(gom::math::transform_vector(g, nrm));
        }
        let uv = v
            .uv0
            .as_ref()
            .and_then(|x| x.get(i))
            .copied()
            .unwrap_or([0.0; 2]);
        if !(finite(&p) && finite(&nrm) && finite(&uv)) {
            return Err(refused(
                record(),
                "a position, normal or texture coordinate is not finite",
            ));
        }
        let (weights, nodes) = match (&v.skin, skel.static_node) {
            (Some(skin), _) => {
                let Some(&sw) = skin.get(i) else {
                    return Err(refused(
                        record(),
                        "the skin stream is shorter than the positions",
                    ));
                };
                let bones = sw.bones.map(u32::from);
                if let Some(b) =
                    (0..4).find(|&k| sw.weights[k] > 0.0 && bones[k] as usize >= skel.nodes.len())
                {
                    return Err(refused(
                        record(),
                        format!("weighted to bone {} which the skeleton lacks", bones[b]),
                    ));
                }
                (quantise(sw.weights), bones)
            }
            (None, Some(s)) => ([255, 0, 0, 0], [s as u32, 0, 0, 0]),
            (None, None) => return Err(refused(record(), "not skinned and no static root")),
        };
        out.push(GameVertex {
            position: basis.vector(p),
            normal: basis.vector(nrm),
            uv: [uv[0] + 0.0, -uv[1] + 0.0],
            weights,
            nodes,
            source: (pi, i as u32),
        });
    }
    Ok(out)
}

/// Gathers every material's triangles (winding changed with the axes), in first-use
/// order of the materials.
fn gather(
    model: &gom::Model,
    skel: &Skeleton,
    basis: &Basis,
    renames: &mut Renames,
    notes: &mut Vec<String>,
) -> Result<(Vec<MaterialUse>, Vec<MaterialTriangles>), ExportError> {
    let mut uses: Vec<MaterialUse> = Vec::new();
    let mut groups: Vec<MaterialTriangles> = Vec::new();
    let mut welds: Vec<HashMap<[u32; 13], u32>> = Vec::new();
    let mut keys: Vec<i64> = Vec::new();
    let (mut degenerate, mut welded) = (0usize, 0usize);
    for (pi, part) in model.meshes.iter().enumerate() {
        let verts = part_vertices(part, pi, skel, basis)?;
        for sm in &part.submeshes {
            let mat = usize::try_from(sm.material_index)
                .ok()
                .and_then(|m| model.materials.get(m));
            let key = mat.map_or(-1, |_| i64::from(sm.material_index));
            let gi = match keys.iter().position(|&k| k == key) {
                Some(g) => g,
                None => {
                    let source = mat.map_or("default", |m| m.name.as_str());
                    let source = if source.is_empty() { "default" } else { source };
                    let record = format!("material \"{source}\"");
                    uses.push(MaterialUse {
                        name: renames.fit(source, NameLimit::Material, &record)?,
                        texture: mat.and_then(|m| m.base_color_texture.clone()),
                        color: mat.map_or([1.0; 4], |m| m.base_color_factor),
                    });
                    groups.push(MaterialTriangles::default());
                    welds.push(HashMap::new());
                    keys.push(key);
                    keys.len() - 1
                }
            };
            let (g, weld) = (&mut groups[gi], &mut welds[gi]);
            let start = sm.index_start as usize;
            let end = start
                .saturating_add(sm.index_count as usize)
                .min(part.indices.len());
            let mut local: HashMap<u32, u32> = HashMap::new();
            for t in part.indices[start.min(end)..end].chunks_exact(3) {
                if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
                    degenerate += 1;
                    continue;
                }
                let mut tri = [0u32; 3];
                for (k, &vi) in t.iter().enumerate() {
                    if let Some(&i) = local.get(&vi) {
                        tri[k] = i;
                        continue;
                    }
                    let v = *verts.get(vi as usize).ok_or_else(|| {
                        refused(
                            format!("mesh \"{}\"", part.name),
                            format!("index {vi} but the mesh has {} vertices", verts.len()),
                        )
                    })?;
                    let i = *weld.entry(v.stored()).or_insert_with(|| {
                        g.vertices.push(v);
                        (g.vertices.len() - 1) as u32
                    });
                    welded += usize::from(g.vertices[i as usize].source != v.source);
                    local.insert(vi, i);
                    tri[k] = i;
                }
                if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
                    degenerate += 1;
                    continue;
                }
                g.triangles.push(basis.triangle(tri));
            }
        }
    }
    if welded > 0 {
        notes.push(format!(
            "{welded} vertices written once with another that the game stores the same (they differed only in data it does not keep)"
        ));
    }
    if degenerate > 0 {
        notes.push(format!(
            "{degenerate} degenerate triangle(s) left out (the game draws none)"
        ));
    }
    Ok((uses, groups))
}

/// The palette drawing `vertices` (material indices): their weighted nodes in
/// first-use order.
fn palette_of(g: &MaterialTriangles, vertices: &[u32]) -> Vec<u32> {
    let mut palette = Vec::new();
    for &v in vertices {
        for n in g.vertices[v as usize].weighted_nodes() {
            if !palette.contains(&n) {
                palette.push(n);
            }
        }
    }
    palette
}

/// A piece ready to lay out: its palette, its vertices (material indices) and its strip
/// over them.
struct Laid {
    palette: Vec<u32>,
    vertices: Vec<u32>,
    strip: Vec<u32>,
}

/// `indices` over their own vertex list: the list (values of `indices`, first-use
/// order) and the indices into it.
fn localise(indices: impl Iterator<Item = u32>) -> (Vec<u32>, Vec<u32>) {
    let mut map: HashMap<u32, u32> = HashMap::new();
    let mut vertices = Vec::new();
    let local = indices
        .map(|v| {
            *map.entry(v).or_insert_with(|| {
                vertices.push(v);
                (vertices.len() - 1) as u32
            })
        })
        .collect();
    (vertices, local)
}

/// Strips a piece's triangles; a strip too long for the game's tools is cut into
/// several pieces at its stitches. Every piece's strip is checked to draw, together,
/// exactly the triangles given.
fn lay_out(
    triangles: &[[u32; 3]],
    g: &MaterialTriangles,
    record: &str,
    out: &mut Vec<Laid>,
) -> Result<(), ExportError> {
    let (vertices, flat) = localise(triangles.iter().flatten().copied());
    let local: Vec<[u32; 3]> = flat.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let strip = stripify(&local, vertices.len()).ok_or_else(|| {
        refused(
            record,
            "the triangle strip did not decode to the piece's triangles",
        )
    })?;
    let mut drawn = Vec::with_capacity(triangles.len());
    for part in cut(&strip, MAX_TOOL_STRIP) {
        let (own, strip) = localise(part.iter().map(|&s| vertices[s as usize]));
        let decoded = decode_strip_indices(&strip).triangles;
        drawn.extend(decoded.iter().map(|t| t.map(|i| own[i as usize])));
        let palette = palette_of(g, &own);
        if palette.len() > MAX_PALETTE {
            return Err(refused(record, "a piece's palette passed 28 nodes"));
        }
        out.push(Laid {
            palette,
            vertices: own,
            strip,
        });
    }
    if triangle_set(&drawn) != triangle_set(triangles) {
        return Err(refused(
            record,
            "the cut triangle strips did not decode to the piece's triangles",
        ));
    }
    Ok(())
}

/// The game vertex of material vertex `v` inside a piece with `palette`.
fn piece_vertex(v: &GameVertex, palette: &[u32]) -> Vertex {
    let mut bones = [0u8; 4];
    for ((b, &w), &node) in bones.iter_mut().zip(&v.weights).zip(&v.nodes) {
        if w > 0 {
            // the palette holds every weighted node of the piece's vertices, at most 28
            let slot = palette.iter().position(|&n| n == node).unwrap_or(0);
            *b = (slot * 3) as u8;
        }
    }
    Vertex {
        position: v.position,
        normal: v.normal,
        weights: v.weights,
        bones,
        uv: v.uv,
    }
}

/// Packs laid-out pieces into game meshes of at most 65,536 vertices each.
fn pack(
    name: &str,
    g: &MaterialTriangles,
    laid: Vec<Laid>,
    meshes: &mut Vec<Mesh>,
    sources: &mut Vec<Vec<(usize, u32)>>,
) -> Result<(), ExportError> {
    let material_field = jpog::tml::Material::name_field_from(name)?;
    let mut cur: Vec<Laid> = Vec::new();
    let mut count = 0usize;
    let flush =
        |cur: &mut Vec<Laid>, meshes: &mut Vec<Mesh>, sources: &mut Vec<Vec<(usize, u32)>>| {
            if cur.is_empty() {
                return;
            }
            let mut all = Vec::new();
            let mut src = Vec::new();
            let mut pieces = Vec::with_capacity(cur.len());
            for l in cur.drain(..) {
                let base = all.len() as u32;
                all.extend(
                    l.vertices
                        .iter()
                        .map(|&v| piece_vertex(&g.vertices[v as usize], &l.palette)),
                );
                src.extend(l.vertices.iter().map(|&v| g.vertices[v as usize].source));
                pieces.push(Piece {
                    verts_required: 0,
                    box_center: [0.0; 3],
                    box_extents: [0.0; 3],
                    palette: l.palette,
                    vertices: Vec::new(),
                    // below 65,536 vertices per mesh, so every index fits
                    strip: l.strip.iter().map(|&s| (s + base) as u16).collect(),
                });
            }
            for p in &mut pieces {
                p.recompute_derived(&all);
            }
            pieces[0].vertices = all;
            meshes.push(Mesh {
                material_field,
                pieces,
            });
            sources.push(src);
        };
    for l in laid {
        if count + l.vertices.len() > MAX_MESH_VERTICES {
            flush(&mut cur, meshes, sources);
            count = 0;
        }
        count += l.vertices.len();
        cur.push(l);
    }
    flush(&mut cur, meshes, sources);
    Ok(())
}

/// Centre and radius of a sphere around every vertex (the box's centre, the farthest
/// vertex from it).
fn sphere(meshes: &[Mesh]) -> [f32; 4] {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for v in meshes.iter().flat_map(|m| m.vertices()) {
        for k in 0..3 {
            lo[k] = lo[k].min(v.position[k]);
            hi[k] = hi[k].max(v.position[k]);
        }
    }
    if lo[0] > hi[0] {
        return [0.0; 4];
    }
    let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) * 0.5);
    let r = meshes
        .iter()
        .flat_map(|m| m.vertices())
        .map(|v| {
            (0..3)
                .map(|k| (v.position[k] - c[k]).powi(2))
                .sum::<f32>()
                .sqrt()
        })
        .fold(0.0f32, f32::max);
    [c[0], c[1], c[2], r]
}

/// One level of detail's meshes.
pub(crate) struct Level {
    pub meshes: Vec<Mesh>,
    /// The sphere around every vertex.
    pub sphere: [f32; 4],
    /// For each mesh, for each of its vertices, the mesh part and vertex it comes from.
    pub vertex_sources: Vec<Vec<(usize, u32)>>,
}

/// One level: each material's `triangles` (over the material's vertices) as pieces and
/// strips.
pub(crate) fn level(
    materials: &[MaterialUse],
    groups: &[MaterialTriangles],
    triangles: &[&[[u32; 3]]],
) -> Result<Level, ExportError> {
    let mut meshes = Vec::new();
    let mut vertex_sources = Vec::new();
    for ((m, g), tris) in materials.iter().zip(groups).zip(triangles) {
        if tris.is_empty() {
            continue;
        }
        let record = format!("material \"{}\"", m.name);
        let mut laid = Vec::new();
        let nodes = |v: u32| {
            g.vertices[v as usize]
                .weighted_nodes()
                .collect::<Vec<u32>>()
        };
        let patch = Patch {
            triangles: tris,
            nodes: &nodes,
        };
        for piece in grow(&patch) {
            let t: Vec<[u32; 3]> = piece.iter().map(|&i| tris[i as usize]).collect();
            lay_out(&t, g, &record, &mut laid)?;
        }
        pack(&m.name, g, laid, &mut meshes, &mut vertex_sources)?;
    }
    Ok(Level {
        sphere: sphere(&meshes),
        meshes,
        vertex_sources,
    })
}

/// Builds LOD 0's meshes.
pub(crate) fn build(
    model: &gom::Model,
    skel: &Skeleton,
    basis: &Basis,
    renames: &mut Renames,
    notes: &mut Vec<String>,
) -> Result<Meshes, ExportError> {
    let (materials, groups) = gather(model, skel, basis, renames, notes)?;
    let all: Vec<&[[u32; 3]]> = groups.iter().map(|g| g.triangles.as_slice()).collect();
    let lod0 = level(&materials, &groups, &all)?;
    Ok(Meshes {
        sphere: lod0.sphere,
        meshes: lod0.meshes,
        materials,
        vertex_sources: lod0.vertex_sources,
        groups,
    })
}
