//! What a converter needs from a model: the node list, one LOD's meshes as triangles with
//! resolved skinning, and animations with keys resolved through a keyframe library.

use crate::error::{Error, FileKind, Result};
use crate::tkl::Tkl;
use crate::tmd::{Node, Tmd};

fn reference(record: impl Into<String>, field: &'static str, problem: impl Into<String>) -> Error {
    Error::Reference {
        kind: FileKind::Tmd,
        record: record.into(),
        field,
        problem: problem.into(),
    }
}

/// Checks that following parents from any node ends at a root.
pub fn check_acyclic(nodes: &[Node]) -> Result<()> {
    // 0 = unvisited, 1 = on the current path, 2 = known to reach a root
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        let mut path = Vec::new();
        let mut i = start;
        loop {
            match state[i] {
                2 => break,
                1 => {
                    return Err(reference(
                        format!("node {i}"),
                        "parent",
                        "the parent links form a cycle",
                    ))
                }
                _ => {}
            }
            state[i] = 1;
            path.push(i);
            let p = nodes[i].parent;
            if p < 0 {
                break;
            }
            let p = p as usize;
            if p >= nodes.len() {
                return Err(reference(
                    format!("node {i}"),
                    "parent",
                    format!("{p} is out of range"),
                ));
            }
            i = p;
        }
        for j in path {
            state[j] = 2;
        }
    }
    Ok(())
}

/// One node as a converter sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonNode {
    /// Index in the file.
    pub index: usize,
    /// Name.
    pub name: String,
    /// Parent index (`None` for roots); parents may come after children.
    pub parent: Option<usize>,
    /// Model-space bind matrix, 4 rows of 4 (row-vector convention, translation in row 3).
    pub bind: [[f32; 4]; 4],
    /// Inverse bind matrix, same layout.
    pub inverse_bind: [[f32; 4]; 4],
    /// Local rest rotation (x, y, z, w).
    pub rest_rotation: [f32; 4],
    /// Local rest translation.
    pub rest_translation: [f32; 3],
    /// The node flag (likely "non-deforming bone").
    pub flag: u16,
}

fn rows(m: &[f32; 16]) -> [[f32; 4]; 4] {
    [
        [m[0], m[1], m[2], m[3]],
        [m[4], m[5], m[6], m[7]],
        [m[8], m[9], m[10], m[11]],
        [m[12], m[13], m[14], m[15]],
    ]
}

/// Triangles decoded from one strip.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StripTriangles {
    /// Triangles as vertex indices, winding as the game draws them.
    pub triangles: Vec<[u32; 3]>,
    /// Degenerate triangles skipped (they still count for the winding parity).
    pub stitches: usize,
}

/// Decodes a triangle strip: at even position `i` the triangle is `(s[i], s[i+1], s[i+2])`,
/// at odd `i` it is `(s[i+1], s[i], s[i+2])`; triangles with two equal indices are stitches,
/// skipped but counted for the parity.
pub fn decode_strip(strip: &[u16]) -> StripTriangles {
    decode_strip_indices(strip)
}

/// [`decode_strip`] for a strip of any unsigned index type (a writer builds its strips
/// with 32-bit indices before they are known to fit the file's 16).
pub fn decode_strip_indices<I: Copy + Into<u32>>(strip: &[I]) -> StripTriangles {
    let mut out = StripTriangles::default();
    for (i, w) in strip.windows(3).enumerate() {
        let (a, b, c) = (w[0].into(), w[1].into(), w[2].into());
        if a == b || b == c || a == c {
            out.stitches += 1;
            continue;
        }
        out.triangles
            .push(if i % 2 == 0 { [a, b, c] } else { [b, a, c] });
    }
    out
}

/// A vertex with its skinning resolved to node indices.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinnedVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Texture coordinates as stored (v negated).
    pub uv: [f32; 2],
    /// Texture coordinates with v negated back.
    pub uv_unnegated: [f32; 2],
    /// Stored weights.
    pub weights_u8: [u8; 4],
    /// Stored bone bytes (palette slot × 3).
    pub bones_u8: [u8; 4],
    /// Weights as `u8 / 255` (not renormalised, stored order).
    pub weights: [f32; 4],
    /// Palette slots (`bone / 3`).
    pub palette_slots: [u8; 4],
    /// The piece whose strip first draws the vertex (`None` if no strip uses it).
    pub piece: Option<usize>,
    /// Node of each slot through that piece's palette; `None` where the weight is 0.
    pub nodes: [Option<u32>; 4],
}

impl SkinnedVertex {
    /// `(node, weight)` for the used slots in stored order.
    pub fn influences(&self) -> Vec<(u32, f32)> {
        (0..4)
            .filter_map(|k| self.nodes[k].map(|n| (n, self.weights[k])))
            .collect()
    }
}

/// One mesh of a LOD as triangles.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshGeometry {
    /// Material name.
    pub material: String,
    /// The mesh's vertex list (pieces concatenated).
    pub vertices: Vec<SkinnedVertex>,
    /// Triangles of all pieces in piece order.
    pub triangles: Vec<[u32; 3]>,
    /// Triangles contributed by each piece.
    pub piece_triangles: Vec<usize>,
    /// Stitches skipped in all pieces.
    pub stitches: usize,
}

/// A key with its translation and rotation looked up in the keyframe library.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResolvedKey {
    /// Time in seconds.
    pub time: f32,
    /// Stored translation index.
    pub loc_index: u16,
    /// Stored rotation index.
    pub rot_index: u16,
    /// The translation at `loc_index`.
    pub translation: [f32; 3],
    /// The rotation (x, y, z, w) at `rot_index`.
    pub rotation: [f32; 4],
}

/// One node's channel with resolved keys.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedChannel {
    /// Node index.
    pub node: usize,
    /// Stored flags.
    pub flags: u16,
    /// Bit 0: translation keys used.
    pub translation_used: bool,
    /// Keys.
    pub keys: Vec<ResolvedKey>,
}

/// One animation with resolved keys.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedAnimation {
    /// Name.
    pub name: String,
    /// Name ends in "_lp".
    pub looping: bool,
    /// Overlay field (likely additive).
    pub overlay: u32,
    /// Duration in seconds.
    pub duration: f32,
    /// One channel per node, in node order.
    pub channels: Vec<ResolvedChannel>,
}

impl Tmd {
    /// The node list for a converter; refuses parent cycles.
    pub fn skeleton(&self) -> Result<Vec<SkeletonNode>> {
        check_acyclic(&self.nodes)?;
        Ok(self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| SkeletonNode {
                index: i,
                name: n.name(),
                parent: usize::try_from(n.parent).ok(),
                bind: rows(&n.bind),
                inverse_bind: rows(&n.inverse_bind),
                rest_rotation: n.rest_rotation,
                rest_translation: n.rest_translation,
                flag: n.flag,
            })
            .collect())
    }

    /// The meshes of LOD `lod` as triangles with skinning resolved through each piece's
    /// palette.
    pub fn lod_geometry(&self, lod: usize) -> Result<Vec<MeshGeometry>> {
        let l = self.mesh.lods.get(lod).ok_or_else(|| Error::NotFound {
            kind: FileKind::Tmd,
            what: format!("lod {lod} (the model has {})", self.mesh.lods.len()),
        })?;
        let mut out = Vec::with_capacity(l.meshes.len());
        for (mi, mesh) in l.meshes.iter().enumerate() {
            let verts: Vec<_> = mesh.vertices().collect();
            let mut piece_of: Vec<Option<usize>> = vec![None; verts.len()];
            let mut triangles = Vec::new();
            let mut piece_triangles = Vec::with_capacity(mesh.pieces.len());
            let mut stitches = 0;
            for (pi, p) in mesh.pieces.iter().enumerate() {
                for &s in &p.strip {
                    let s = usize::from(s);
                    match piece_of.get_mut(s) {
                        Some(slot) => {
                            slot.get_or_insert(pi);
                        }
                        None => {
                            return Err(reference(
                                format!("lod {lod} mesh {mi} piece {pi}"),
                                "strip",
                                format!("index {s} but the mesh has {} vertices", verts.len()),
                            ))
                        }
                    }
                }
                let t = decode_strip(&p.strip);
                stitches += t.stitches;
                piece_triangles.push(t.triangles.len());
                triangles.extend(t.triangles);
            }
            let mut vertices = Vec::with_capacity(verts.len());
            for (vi, v) in verts.iter().enumerate() {
                let piece = piece_of[vi];
                let mut nodes = [None; 4];
                let mut slots = [0u8; 4];
                let mut weights = [0f32; 4];
                for k in 0..4 {
                    slots[k] = v.bones[k] / 3;
                    weights[k] = f32::from(v.weights[k]) / 255.0;
                    if v.weights[k] == 0 {
                        continue;
                    }
                    let Some(pi) = piece else { continue };
                    let pal = &mesh.pieces[pi].palette;
                    let node = pal.get(usize::from(slots[k])).ok_or_else(|| {
                        reference(
                            format!("lod {lod} mesh {mi} vertex {vi}"),
                            "bones",
                            format!(
                                "slot {k} has bone byte {} (palette slot {}) but piece {pi}'s palette has {} nodes",
                                v.bones[k],
                                slots[k],
                                pal.len()
                            ),
                        )
                    })?;
                    nodes[k] = Some(*node);
                }
                vertices.push(SkinnedVertex {
                    position: v.position,
                    normal: v.normal,
                    uv: v.uv,
                    uv_unnegated: [v.uv[0], -v.uv[1]],
                    weights_u8: v.weights,
                    bones_u8: v.bones,
                    weights,
                    palette_slots: slots,
                    piece,
                    nodes,
                });
            }
            out.push(MeshGeometry {
                material: mesh.material(),
                vertices,
                triangles,
                piece_triangles,
                stitches,
            });
        }
        Ok(out)
    }

    /// The animations with every key's translation and rotation looked up in `tkl`
    /// (whatever the channel flags say); refuses indices past the library's end.
    pub fn resolve_animations(&self, tkl: &Tkl) -> Result<Vec<ResolvedAnimation>> {
        let mut out = Vec::with_capacity(self.animations.len());
        for (ai, a) in self.animations.iter().enumerate() {
            let mut channels = Vec::with_capacity(a.channels.len());
            for (ci, c) in a.channels.iter().enumerate() {
                let mut keys = Vec::with_capacity(c.keys.len());
                for (ki, k) in c.keys.iter().enumerate() {
                    let rec = || format!("animation {ai} channel {ci} key {ki}");
                    let translation =
                        *tkl.locations.get(usize::from(k.loc_index)).ok_or_else(|| {
                            reference(
                                rec(),
                                "locIndex",
                                format!(
                                    "{} but the keyframe library has {} translations",
                                    k.loc_index,
                                    tkl.locations.len()
                                ),
                            )
                        })?;
                    let rotation =
                        *tkl.rotations.get(usize::from(k.rot_index)).ok_or_else(|| {
                            reference(
                                rec(),
                                "rotIndex",
                                format!(
                                    "{} but the keyframe library has {} rotations",
                                    k.rot_index,
                                    tkl.rotations.len()
                                ),
                            )
                        })?;
                    keys.push(ResolvedKey {
                        time: k.time,
                        loc_index: k.loc_index,
                        rot_index: k.rot_index,
                        translation,
                        rotation,
                    });
                }
                channels.push(ResolvedChannel {
                    node: ci,
                    flags: c.flags,
                    translation_used: c.flags & 1 != 0,
                    keys,
                });
            }
            out.push(ResolvedAnimation {
                name: a.name(),
                looping: a.is_looping(),
                overlay: a.overlay,
                duration: a.duration,
                channels,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_parity_counts_stitches() {
        // hand-decoded: (0,1,2) even; (2,1,3) odd; then 4 stitches; (4,5,6) at even 6
        let t = decode_strip(&[0, 1, 2, 3, 3, 4, 4, 5, 6]);
        assert_eq!(t.triangles, vec![[0, 1, 2], [2, 1, 3], [4, 5, 6]]);
        assert_eq!(t.stitches, 4);
        // (0,0,1) stitch at 0; (0,1,2) at odd 1 swaps to (1,0,2); (1,2,3) at even 2
        let t = decode_strip(&[0, 0, 1, 2, 3]);
        assert_eq!(t.triangles, vec![[1, 0, 2], [1, 2, 3]]);
        assert_eq!(t.stitches, 1);
        assert!(decode_strip(&[1, 2]).triangles.is_empty());
    }
}
