//! Vertex welding and GPU-friendly ordering of mesh parts.

use gom::{MeshPart, Vertices};

/// Replaces `-0.0` by `+0.0` so that equal values have equal bit patterns (the canonical
/// writer writes +0.0 for zero, D13). Adding `+0.0` does it without a branch: in IEEE
/// arithmetic `-0 + +0 = +0` and `x + 0 = x` for every other finite or infinite `x`.
#[inline]
pub fn canon(v: f32) -> f32 {
    v + 0.0
}

/// Mixes one 32-bit word into a running hash (rustc's FxHash step).
#[inline(always)]
fn mix(h: u64, word: u32) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    (h.rotate_left(5) ^ u64::from(word)).wrapping_mul(SEED)
}

/// Mixes every component of every entry of `column` into `hashes` (one per vertex).
fn mix_column<const N: usize>(hashes: &mut [u64], column: &[[f32; N]]) {
    for (h, v) in hashes.iter_mut().zip(column) {
        for x in v {
            *h = mix(*h, x.to_bits());
        }
    }
}

/// Whether vertices `a` and `b` have bit-identical attributes.
fn same_vertex(v: &Vertices, a: usize, b: usize) -> bool {
    fn eq<const N: usize>(c: &[[f32; N]], a: usize, b: usize) -> bool {
        c[a].iter()
            .zip(&c[b])
            .all(|(x, y)| x.to_bits() == y.to_bits())
    }
    eq(&v.positions, a, b)
        && v.normals.as_deref().is_none_or(|c| eq(c, a, b))
        && v.tangents.as_deref().is_none_or(|c| eq(c, a, b))
        && v.uv0.as_deref().is_none_or(|c| eq(c, a, b))
        && v.uv1.as_deref().is_none_or(|c| eq(c, a, b))
        && v.colors.as_deref().is_none_or(|c| c[a] == c[b])
        && v.skin.as_deref().is_none_or(|c| same_skin(&c[a], &c[b]))
        && v.skin_extra
            .as_deref()
            .is_none_or(|c| same_skin(&c[a], &c[b]))
        && v.dq_weights
            .as_deref()
            .is_none_or(|c| c[a].to_bits() == c[b].to_bits())
}

/// Whether two skins have the same bones and bit-identical weights.
fn same_skin(a: &gom::SkinWeights, b: &gom::SkinWeights) -> bool {
    a.bones == b.bones
        && a.weights
            .iter()
            .zip(&b.weights)
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Welds identical vertices. `corners` holds one vertex per triangle corner, `indices`
/// references it (every index below `corners.len()`, every stream as long as
/// `positions`); the result keeps one copy of each distinct vertex (compared by the bit
/// patterns of every attribute; the converters write `+0.0` for zero, so `-0.0` does
/// not occur), numbered in order of first use in `indices`, and the remapped indices.
/// The outcome depends only on the input.
///
/// Written here rather than with meshoptimizer's `generateVertexRemapMulti`, which
/// gives the same numbering: that hashes every byte of every stream and compares stream
/// by stream, about 250 instructions a corner on the shared FBX files (callgrind);
/// hashing each attribute column as words into one open-addressing table costs about a
/// quarter of it.
///
/// With `keys` (one per corner: the source vertex whose blend-shape deltas the
/// corner takes), corners merge only when their keys are equal too. Also returns, per
/// welded vertex, the corner it was made from.
pub(crate) fn weld_keyed(
    corners: &Vertices,
    indices: &[u32],
    keys: Option<&[u32]>,
) -> (Vertices, Vec<u32>, Vec<usize>) {
    let n = corners.len();
    let mut hashes = vec![0u64; n];
    if let Some(k) = keys {
        for (h, &v) in hashes.iter_mut().zip(k) {
            *h = mix(*h, v);
        }
    }
    mix_column(&mut hashes, &corners.positions);
    if let Some(c) = &corners.normals {
        mix_column(&mut hashes, c);
    }
    if let Some(c) = &corners.tangents {
        mix_column(&mut hashes, c);
    }
    if let Some(c) = &corners.uv0 {
        mix_column(&mut hashes, c);
    }
    if let Some(c) = &corners.uv1 {
        mix_column(&mut hashes, c);
    }
    if let Some(c) = &corners.colors {
        for (h, v) in hashes.iter_mut().zip(c) {
            *h = mix(*h, u32::from_le_bytes(*v));
        }
    }
    if let Some(c) = &corners.skin {
        for (h, v) in hashes.iter_mut().zip(c) {
            let b = v.bones;
            *h = mix(*h, u32::from(b[0]) | u32::from(b[1]) << 16);
            *h = mix(*h, u32::from(b[2]) | u32::from(b[3]) << 16);
            for w in v.weights {
                *h = mix(*h, w.to_bits());
            }
        }
    }
    // Open addressing, at most half full; slots hold a representative corner.
    let capacity = (2 * n).next_power_of_two().max(16);
    let mask = capacity - 1;
    let mut table = vec![u32::MAX; capacity];
    let mut remap = vec![u32::MAX; n];
    let mut first: Vec<usize> = Vec::new();
    let mut out_indices = Vec::with_capacity(indices.len());
    for &i in indices {
        let i = i as usize;
        if remap[i] == u32::MAX {
            // The high bits are the best mixed.
            let mut slot = (hashes[i] >> 32) as usize & mask;
            loop {
                let t = table[slot];
                if t == u32::MAX {
                    table[slot] = i as u32;
                    remap[i] = first.len() as u32;
                    first.push(i);
                    break;
                }
                let t = t as usize;
                let same_key = keys.is_none_or(|k| k.get(t) == k.get(i));
                if hashes[t] == hashes[i] && same_key && same_vertex(corners, t, i) {
                    remap[i] = remap[t];
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        out_indices.push(remap[i]);
    }
    (select(corners, &first), out_indices, first)
}

/// The vertices `order[k]` of `v`, in that order.
fn select(v: &Vertices, order: &[usize]) -> Vertices {
    fn pick<T: Copy>(s: &[T], order: &[usize]) -> Vec<T> {
        order.iter().map(|&i| s[i]).collect()
    }
    Vertices {
        positions: pick(&v.positions, order),
        normals: v.normals.as_deref().map(|s| pick(s, order)),
        tangents: v.tangents.as_deref().map(|s| pick(s, order)),
        uv0: v.uv0.as_deref().map(|s| pick(s, order)),
        uv1: v.uv1.as_deref().map(|s| pick(s, order)),
        colors: v.colors.as_deref().map(|s| pick(s, order)),
        skin: v.skin.as_deref().map(|s| pick(s, order)),
        skin_extra: v.skin_extra.as_deref().map(|s| pick(s, order)),
        dq_weights: v.dq_weights.as_deref().map(|s| pick(s, order)),
    }
}

/// The steps of [`order_for_gpu`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuOrder {
    /// meshoptimizer's vertex-cache order, then its vertex-fetch order.
    CacheThenFetch,
    /// The same with the clusters of the cache order ordered by dominant bone
    /// between the two ([`super::bone_order`]) when that makes the blocks of 16
    /// vertices name fewer bones in all ([`super::bone_order::block_bones`]): what
    /// conversion does.
    CacheBonesThenFetch,
}

/// Orders a mesh part for the GPU with meshoptimizer, as conversion does: triangles
/// of each submesh for the post-transform vertex cache (submesh ranges are kept), their
/// clusters by dominant bone where that makes blocks of 16 vertices name fewer bones,
/// then vertices in order of first use for vertex fetch.
/// Every step is a deterministic function of the input.
pub(crate) fn optimize_for_gpu(part: &mut MeshPart) {
    order_for_gpu(part, GpuOrder::CacheBonesThenFetch);
}

/// Orders a mesh part for the GPU by the steps `order` names (public so that the
/// steps can be measured apart).
pub fn order_for_gpu(part: &mut MeshPart, order: GpuOrder) {
    let vertex_count = part.vertices.len();
    if vertex_count == 0 || part.indices.is_empty() {
        return;
    }
    for sub in &part.submeshes {
        let start = sub.index_start as usize;
        let end = start + sub.index_count as usize;
        if end > part.indices.len() {
            continue;
        }
        let range = &mut part.indices[start..end];
        let optimized = meshopt::optimize_vertex_cache(range, vertex_count);
        range.copy_from_slice(&optimized);
    }
    if order == GpuOrder::CacheBonesThenFetch && part.vertices.skin.is_some() {
        // The bone order only where it makes the blocks of 16 vertices name fewer
        // bones than the cache order alone (it costs the vertex cache a little at
        // each cluster's cut).
        let mut by_bone = part.clone();
        super::bone_order::order_by_bone(&mut by_bone);
        fetch_order(&mut by_bone);
        fetch_order(part);
        let bones = super::bone_order::block_bones;
        if bones(&by_bone) < bones(part) {
            *part = by_bone;
        }
        return;
    }
    fetch_order(part);
}

/// meshoptimizer's vertex-fetch order: vertices in order of first use (unused ones
/// dropped).
fn fetch_order(part: &mut MeshPart) {
    let vertex_count = part.vertices.len();
    let remap = meshopt::optimize_vertex_fetch_remap(&part.indices, vertex_count);
    // `remap[old] = new` for used vertices, u32::MAX for unused ones.
    let used = remap.iter().filter(|&&r| r != u32::MAX).count();
    let mut order = vec![usize::MAX; used];
    for (old, &new) in remap.iter().enumerate() {
        if let Some(slot) = order.get_mut(new as usize) {
            *slot = old;
        }
    }
    part.vertices = select(&part.vertices, &order);
    for i in &mut part.indices {
        *i = remap[*i as usize];
    }
    for t in &mut part.morph_targets {
        remap_target(t, &remap);
    }
}

/// Renumbers a morph target's vertices by `remap` (`remap[old] = new`, `u32::MAX`
/// for a vertex no longer there), dropping the gone ones and keeping the indices
/// ascending with their deltas.
fn remap_target(t: &mut gom::morph::MorphTarget, remap: &[u32]) {
    let mut order: Vec<(u32, usize)> = t
        .indices
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| Some((*remap.get(i as usize).filter(|&&r| r != u32::MAX)?, k)))
        .collect();
    order.sort_unstable();
    fn pick(d: &[[f32; 3]], order: &[(u32, usize)]) -> Vec<[f32; 3]> {
        order.iter().map(|&(_, k)| d[k]).collect()
    }
    t.positions = pick(&t.positions, &order);
    t.normals = t.normals.as_deref().map(|d| pick(d, &order));
    t.tangents = t.tangents.as_deref().map(|d| pick(d, &order));
    t.indices = order.into_iter().map(|(i, _)| i).collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::Submesh;

    #[test]
    fn canon_turns_negative_zero_positive_and_keeps_every_other_value() {
        assert_eq!(canon(-0.0).to_bits(), 0);
        assert_eq!(canon(0.0).to_bits(), 0);
        let tiny = f32::from_bits(1);
        for v in [
            1.5,
            -2.25,
            tiny,
            -tiny,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            -f32::INFINITY,
        ] {
            assert_eq!(canon(v).to_bits(), v.to_bits(), "{v}");
        }
    }

    #[test]
    fn weld_merges_equal_vertices_and_keeps_first_use_order() {
        let v = Vertices {
            positions: vec![
                [1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
            ],
            uv0: Some(vec![[0.5, 0.5], [0.0, 0.0], [0.0, 0.0], [0.5, 0.25]]),
            ..Default::default()
        };
        let (w, idx, first) = weld_keyed(&v, &[1, 0, 2, 3, 0, 1], None);
        assert_eq!(first, vec![1, 0, 3]);
        // Corners 1 and 2 are equal; corner 3 differs from 0 by its uv.
        assert_eq!(idx, vec![0, 1, 0, 2, 1, 0]);
        assert_eq!(
            w.positions,
            vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
        );
        assert_eq!(w.uv0.unwrap(), vec![[0.0, 0.0], [0.5, 0.5], [0.5, 0.25]]);
    }

    #[test]
    fn gpu_order_keeps_triangles_and_submeshes() {
        // A 4x4 grid of quads, two submeshes.
        let mut positions = Vec::new();
        for y in 0..5 {
            for x in 0..5 {
                positions.push([x as f32, y as f32, 0.0]);
            }
        }
        let mut indices = Vec::new();
        for y in 0..4u32 {
            for x in 0..4u32 {
                let a = y * 5 + x;
                indices.extend([a, a + 5, a + 1, a + 1, a + 5, a + 6]);
            }
        }
        let mut part = MeshPart {
            vertices: Vertices {
                positions,
                ..Default::default()
            },
            indices: indices.clone(),
            submeshes: vec![
                Submesh {
                    material_index: 0,
                    index_start: 0,
                    index_count: 48,
                },
                Submesh {
                    material_index: 1,
                    index_start: 48,
                    index_count: 48,
                },
            ],
            ..Default::default()
        };
        let before = part.clone();
        optimize_for_gpu(&mut part);
        let tri_set = |p: &MeshPart, range: std::ops::Range<usize>| {
            let mut t: Vec<[[u32; 3]; 3]> = p.indices[range]
                .chunks(3)
                .map(|c| {
                    let mut tri = [0usize, 1, 2]
                        .map(|k| p.vertices.positions[c[k] as usize].map(f32::to_bits));
                    // rotate so the smallest corner comes first (keeps winding)
                    let m = (0..3).min_by_key(|&k| tri[k]).unwrap_or(0);
                    tri.rotate_left(m);
                    tri
                })
                .collect();
            t.sort();
            t
        };
        assert_eq!(tri_set(&before, 0..48), tri_set(&part, 0..48));
        assert_eq!(tri_set(&before, 48..96), tri_set(&part, 48..96));
        assert_eq!(part.vertices.len(), 25);
        // Vertex fetch order: vertices appear in order of first use.
        let mut seen = 0u32;
        for &i in &part.indices {
            assert!(i <= seen);
            if i == seen {
                seen += 1;
            }
        }
    }
}
