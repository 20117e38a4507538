//! Vertex welding and GPU-friendly ordering of mesh parts.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use gom::{MeshPart, SkinWeights, Vertices};

/// Replaces `-0.0` by `+0.0` so that equal values have equal bit patterns (the canonical
/// writer writes +0.0 for zero, D13).
pub fn canon(v: f32) -> f32 {
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// A multiply-rotate hash over the key words (as in rustc's FxHash): fast, and only
/// used for lookups (no iteration order reaches the output).
#[derive(Default)]
struct KeyHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

fn push_key(key: &mut Vec<u32>, values: &[f32]) {
    key.extend(values.iter().map(|v| canon(*v).to_bits()));
}

/// Welds identical vertices. `corners` holds one vertex per triangle corner, `indices`
/// references it; the result keeps one copy of each distinct vertex (compared by the
/// bit patterns of every attribute, −0.0 equal to +0.0), numbered in order of first use
/// in `indices`, and the remapped indices. The outcome depends only on the input order.
pub fn weld(corners: &Vertices, indices: &[u32]) -> (Vertices, Vec<u32>) {
    // Every corner's key, flat: all keys have the same length.
    let mut keys: Vec<u32> = Vec::with_capacity(indices.len() * 8);
    let mut stride = 0;
    for (n, &i) in indices.iter().enumerate() {
        let i = i as usize;
        push_key(&mut keys, &corners.positions[i]);
        if let Some(v) = &corners.normals {
            push_key(&mut keys, &v[i]);
        }
        if let Some(v) = &corners.tangents {
            push_key(&mut keys, &v[i]);
        }
        if let Some(v) = &corners.uv0 {
            push_key(&mut keys, &v[i]);
        }
        if let Some(v) = &corners.uv1 {
            push_key(&mut keys, &v[i]);
        }
        if let Some(c) = &corners.colors {
            keys.push(u32::from_le_bytes(c[i]));
        }
        if let Some(s) = &corners.skin {
            let sw: &SkinWeights = &s[i];
            keys.extend(sw.bones.iter().map(|b| u32::from(*b)));
            push_key(&mut keys, &sw.weights);
        }
        if n == 0 {
            stride = keys.len();
        }
    }
    let mut map: HashMap<&[u32], u32, BuildHasherDefault<KeyHasher>> =
        HashMap::with_capacity_and_hasher(indices.len(), BuildHasherDefault::default());
    let mut first: Vec<usize> = Vec::new();
    let mut out_indices = Vec::with_capacity(indices.len());
    for (n, &i) in indices.iter().enumerate() {
        let key = &keys[n * stride..(n + 1) * stride];
        let next = first.len() as u32;
        let idx = *map.entry(key).or_insert_with(|| {
            first.push(i as usize);
            next
        });
        out_indices.push(idx);
    }
    (select(corners, &first), out_indices)
}

/// The vertices `order[k]` of `v`, in that order.
pub fn select(v: &Vertices, order: &[usize]) -> Vertices {
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
    }
}

/// Orders a mesh part for the GPU with meshoptimizer: triangles of each submesh for the
/// post-transform vertex cache (submesh ranges are kept), then vertices in order of
/// first use for vertex fetch. Both steps are deterministic functions of the input.
pub fn optimize_for_gpu(part: &mut MeshPart) {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::Submesh;

    #[test]
    fn weld_merges_equal_vertices_and_keeps_first_use_order() {
        let v = Vertices {
            positions: vec![
                [1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0],
                [-0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
            ],
            uv0: Some(vec![[0.5, 0.5], [0.0, 0.0], [0.0, 0.0], [0.5, 0.25]]),
            ..Default::default()
        };
        let (w, idx) = weld(&v, &[1, 0, 2, 3, 0, 1]);
        // Corners 1 and 2 are equal (−0 = +0); corner 3 differs from 0 by its uv.
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
