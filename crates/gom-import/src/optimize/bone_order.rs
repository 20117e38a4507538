//! Triangle order for bone locality, between meshoptimizer's vertex-cache order and its
//! vertex-fetch order ([`super::mesh::order_for_gpu`]).
//!
//! The runtime's vector skinning paths blend a block of sixteen consecutive vertices
//! bone by bone when the block names few bones (`gom_runtime`'s `skin_blocks`), and
//! the fewer it names the faster. Vertices are laid out in order of first use by the
//! triangles, so the triangles decide which vertices share a block. This step cuts
//! each submesh's cache-ordered triangles into clusters (runs of consecutive
//! triangles, meshlet-sized: at most [`CLUSTER_VERTICES`] distinct vertices and
//! [`CLUSTER_TRIANGLES`] triangles) and orders the clusters by their dominant bone
//! (the bone of the largest summed weight over the cluster's vertices), keeping the
//! cache order inside each cluster. Clusters that follow the same bone then lay their
//! vertices out together; the vertex cache loses only its state across the cuts.

use gom::MeshPart;

/// Most distinct vertices in a cluster (a meshlet's usual limit).
pub const CLUSTER_VERTICES: usize = 64;
/// Most triangles in a cluster.
pub const CLUSTER_TRIANGLES: usize = 124;

/// Reorders the triangles of every submesh of `part` (each submesh's range kept) so
/// that clusters of the same dominant bone follow each other. Does nothing for a
/// mesh without skin weights. Deterministic: ties between bones go to the lower index,
/// between clusters to the earlier.
pub fn order_by_bone(part: &mut MeshPart) {
    let Some(skin) = part.vertices.skin.as_deref() else {
        return;
    };
    let mut seen = vec![u32::MAX; part.vertices.positions.len()];
    let mut stamp = 0u32;
    for sub in &part.submeshes {
        let start = sub.index_start as usize;
        let end = start + sub.index_count as usize / 3 * 3;
        let Some(range) = part.indices.get_mut(start..end) else {
            continue;
        };
        let clusters = clusters(range, &mut seen, &mut stamp);
        let mut keyed: Vec<(u16, std::ops::Range<usize>)> = clusters
            .into_iter()
            .map(|c| (dominant_bone(&range[c.clone()], skin), c))
            .collect();
        // A stable sort: clusters of one bone keep their cache order.
        keyed.sort_by_key(|(bone, _)| *bone);
        let ordered: Vec<u32> = keyed
            .iter()
            .flat_map(|(_, c)| range[c.clone()].iter().copied())
            .collect();
        range.copy_from_slice(&ordered);
    }
}

/// The distinct weighted bones of each whole block of 16 vertices of `part`, summed
/// over the blocks: what the runtime's by-bone skinning blends (fewer is faster).
pub fn block_bones(part: &MeshPart) -> usize {
    let skin = part.vertices.skin.as_deref().unwrap_or(&[]);
    let mut bones = Vec::with_capacity(64);
    skin.chunks_exact(16)
        .map(|block| {
            bones.clear();
            for s in block {
                let weighted = s.bones.iter().zip(&s.weights).filter(|(_, &w)| w > 0.0);
                bones.extend(weighted.map(|(&b, _)| b));
            }
            bones.sort_unstable();
            bones.dedup();
            bones.len()
        })
        .sum()
}

/// Cuts `indices` (whole triangles) into runs of at most [`CLUSTER_TRIANGLES`]
/// triangles naming at most [`CLUSTER_VERTICES`] distinct vertices. `seen[v]` holds
/// the stamp of the last cluster that named vertex `v` (advanced per cluster).
fn clusters(indices: &[u32], seen: &mut [u32], stamp: &mut u32) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut first, mut vertices) = (0, 0);
    *stamp = stamp.wrapping_add(1);
    for (t, tri) in indices.chunks_exact(3).enumerate() {
        let new = tri
            .iter()
            .enumerate()
            .filter(|&(k, v)| !tri[..k].contains(v))
            .filter(|(_, &v)| seen.get(v as usize) != Some(&*stamp))
            .count();
        let triangles = t - first / 3;
        if triangles == CLUSTER_TRIANGLES || vertices + new > CLUSTER_VERTICES {
            out.push(first..3 * t);
            first = 3 * t;
            vertices = 0;
            *stamp = stamp.wrapping_add(1);
        }
        for &v in tri {
            if let Some(s) = seen.get_mut(v as usize) {
                if *s != *stamp {
                    *s = *stamp;
                    vertices += 1;
                }
            }
        }
    }
    if first < indices.len() {
        out.push(first..indices.len());
    }
    out
}

/// The bone with the largest summed weight over the distinct vertices of `indices`
/// (the lower index on a tie); 0 when none is weighted.
fn dominant_bone(indices: &[u32], skin: &[gom::SkinWeights]) -> u16 {
    let mut vertices: Vec<u32> = indices.to_vec();
    vertices.sort_unstable();
    vertices.dedup();
    // Bones in order of index with their summed weights.
    let mut sums: Vec<(u16, f32)> = Vec::new();
    for s in vertices.iter().filter_map(|&v| skin.get(v as usize)) {
        for (&bone, &w) in s.bones.iter().zip(&s.weights) {
            if w <= 0.0 || !w.is_finite() {
                continue;
            }
            match sums.binary_search_by_key(&bone, |&(b, _)| b) {
                Ok(k) => sums[k].1 += w,
                Err(k) => sums.insert(k, (bone, w)),
            }
        }
    }
    sums.iter()
        .fold(None, |best: Option<(u16, f32)>, &(b, w)| match best {
            Some((_, bw)) if bw >= w => best,
            _ => Some((b, w)),
        })
        .map_or(0, |(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::{SkinWeights, Submesh, Vertices};

    fn one_bone(b: u16) -> SkinWeights {
        SkinWeights {
            bones: [b, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        }
    }

    /// A strip of `n` separate triangles, triangle `t` on bone `bone(t)`.
    fn part(n: usize, bone: impl Fn(usize) -> u16) -> MeshPart {
        let vertices = 3 * n;
        MeshPart {
            vertices: Vertices {
                positions: (0..vertices).map(|i| [i as f32, 0.0, 0.0]).collect(),
                skin: Some((0..vertices).map(|i| one_bone(bone(i / 3))).collect()),
                ..Default::default()
            },
            indices: (0..vertices as u32).collect(),
            submeshes: vec![Submesh {
                material_index: 0,
                index_start: 0,
                index_count: vertices as u32,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn clusters_are_cut_at_the_vertex_limit_and_the_triangle_limit() {
        // Separate triangles: 21 fit in 64 vertices (63), the 22nd starts a cluster.
        let p = part(50, |_| 0);
        let mut seen = vec![u32::MAX; 150];
        let c = clusters(&p.indices, &mut seen, &mut 0);
        assert_eq!(c, [0..63, 63..126, 126..150]);
        // One triangle repeated: one vertex set, cut by the triangle count alone.
        let same: Vec<u32> = (0..200).flat_map(|_| [0, 1, 2]).collect();
        let c = clusters(&same, &mut seen, &mut 7);
        assert_eq!(c, [0..372, 372..600]);
    }

    #[test]
    fn the_dominant_bone_is_the_heaviest_and_the_lower_on_a_tie() {
        let skin = [
            SkinWeights {
                bones: [3, 5, 0, 0],
                weights: [0.5, 0.5, 0.0, 0.0],
            },
            SkinWeights {
                bones: [5, 3, 9, 0],
                weights: [0.4, 0.4, 0.2, 0.0],
            },
            one_bone(9),
        ];
        assert_eq!(dominant_bone(&[0, 1, 0], &skin), 3);
        // Vertex 2 twice counts once: 3 and 5 0.9, 9 1.2.
        assert_eq!(dominant_bone(&[0, 1, 2, 2], &skin), 9);
        assert_eq!(dominant_bone(&[], &skin), 0);
    }

    #[test]
    fn clusters_of_one_bone_come_together_in_their_first_order() {
        // 22 triangles a cluster (63 + 3 > 64 cuts at 21): clusters alternate between
        // bones 4 and 1 by their triangles' bone.
        let bone = |t: usize| if (t / 21).is_multiple_of(2) { 4 } else { 1 };
        let mut p = part(21 * 4, bone);
        let before = p.indices.clone();
        order_by_bone(&mut p);
        // Bone 1's clusters (1 and 3) first, then bone 4's (0 and 2), each unchanged.
        let c = |k: usize| before[63 * k..63 * (k + 1)].to_vec();
        assert_eq!(p.indices, [c(1), c(3), c(0), c(2)].concat());
    }

    #[test]
    fn block_bones_counts_each_whole_blocks_distinct_weighted_bones() {
        // Block 0: triangles on bones 0..5 (three vertices each, 16 vertices: bones
        // 0 to 5); block 1: bones 5 to 10; the 4 vertices after are no whole block.
        let mut p = part(12, |t| t as u16);
        assert_eq!(p.vertices.len(), 36);
        assert_eq!(block_bones(&p), 6 + 6);
        // A zero weight names no bone.
        if let Some(s) = p.vertices.skin.as_mut() {
            s[0].bones[1] = 40;
        }
        assert_eq!(block_bones(&p), 12);
        p.vertices.skin = None;
        assert_eq!(block_bones(&p), 0);
    }

    #[test]
    fn a_mesh_without_skin_and_submesh_ranges_are_kept() {
        let mut p = part(30, |t| (30 - t) as u16);
        p.vertices.skin = None;
        let before = p.indices.clone();
        order_by_bone(&mut p);
        assert_eq!(p.indices, before);
        // Two submeshes of 30 triangles (clusters of 21 and 9, the second on lower
        // bones): each is reordered, and triangles never cross between them.
        let mut p = part(60, |t| (60 - t) as u16);
        p.submeshes = vec![
            Submesh {
                material_index: 0,
                index_start: 0,
                index_count: 90,
            },
            Submesh {
                material_index: 1,
                index_start: 90,
                index_count: 90,
            },
        ];
        let before = p.indices.clone();
        order_by_bone(&mut p);
        for r in [0..90, 90..180] {
            let mut a = p.indices[r.clone()].to_vec();
            let mut b = before[r.clone()].to_vec();
            assert_ne!(a, b);
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
        }
    }
}
