//! A material's triangles split into pieces whose palettes hold at most 28 nodes, grown
//! as regions over shared edges so that each piece is one connected patch where it can
//! be: a patch strips into long strips and shares few vertices with other pieces (a
//! vertex two pieces draw is written once for each).
//!
//! A piece grows from the first triangle not yet placed; of the triangles beside it,
//! those needing fewest nodes the palette lacks come first, the earliest found first
//! among equals. When nothing beside the piece fits, it goes on from the next triangle
//! in order that fits (a triangle that does not fit never will: adding a node to the
//! palette lowers what it lacks by at most the one place the palette loses).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use jpog::tmd::MAX_PALETTE;

/// Triangles over a material's vertices and the nodes each vertex is weighted to.
pub(crate) struct Patch<'a> {
    pub triangles: &'a [[u32; 3]],
    /// Each vertex's weighted nodes.
    pub nodes: &'a dyn Fn(u32) -> Vec<u32>,
}

/// Each triangle's neighbours across its edges, as ranges into one list.
struct Neighbours {
    start: Vec<usize>,
    list: Vec<u32>,
}

impl Neighbours {
    fn new(tris: &[[u32; 3]]) -> Neighbours {
        let mut edges: Vec<(u32, u32, u32)> = Vec::with_capacity(tris.len() * 3);
        for (t, tri) in tris.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                edges.push((a.min(b), a.max(b), t as u32));
            }
        }
        edges.sort_unstable();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for run in edges.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            for x in run {
                for y in run {
                    if x.2 != y.2 {
                        pairs.push((x.2, y.2));
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut start = vec![0usize; tris.len() + 1];
        for &(a, _) in &pairs {
            start[a as usize + 1] += 1;
        }
        for i in 0..tris.len() {
            start[i + 1] += start[i];
        }
        Neighbours {
            start,
            list: pairs.into_iter().map(|(_, b)| b).collect(),
        }
    }

    fn of(&self, t: usize) -> &[u32] {
        &self.list[self.start[t]..self.start[t + 1]]
    }
}

/// The nodes of triangle `t` that `palette` lacks, in first-use order.
fn lacking(p: &Patch<'_>, t: [u32; 3], palette: &[u32]) -> Vec<u32> {
    let mut need: Vec<u32> = Vec::with_capacity(12);
    for &v in &t {
        for n in (p.nodes)(v) {
            if !palette.contains(&n) && !need.contains(&n) {
                need.push(n);
            }
        }
    }
    need
}

/// Groups of triangle indices, each needing at most 28 palette nodes, in the order they
/// were grown; every triangle is in exactly one.
pub(crate) fn grow(p: &Patch<'_>) -> Vec<Vec<u32>> {
    let n = p.triangles.len();
    let around = Neighbours::new(p.triangles);
    let mut placed = vec![false; n];
    let mut first_free = 0usize;
    let mut pieces = Vec::new();
    loop {
        while first_free < n && placed[first_free] {
            first_free += 1;
        }
        if first_free == n {
            return pieces;
        }
        pieces.push(grow_one(p, &around, &mut placed, first_free));
    }
}

/// One piece grown from triangle `seed`.
fn grow_one(p: &Patch<'_>, around: &Neighbours, placed: &mut [bool], seed: usize) -> Vec<u32> {
    let mut palette: Vec<u32> = Vec::new();
    let mut piece = Vec::new();
    // (lacking nodes, order found, triangle), fewest lacking and earliest first
    let mut frontier: BinaryHeap<Reverse<(usize, u64, u32)>> = BinaryHeap::new();
    let mut found = 0u64;
    let mut scan = seed;
    frontier.push(Reverse((0, 0, seed as u32)));
    loop {
        let Some(Reverse((_, _, t))) = frontier.pop() else {
            // nothing beside the piece fits: go on from the next triangle that does
            match (scan..placed.len()).find(|&t| {
                !placed[t] && {
                    let need = lacking(p, p.triangles[t], &palette);
                    palette.len() + need.len() <= MAX_PALETTE
                }
            }) {
                Some(t) => {
                    scan = t;
                    found += 1;
                    frontier.push(Reverse((0, found, t as u32)));
                    continue;
                }
                None => return piece,
            }
        };
        let t = t as usize;
        if placed[t] {
            continue;
        }
        let need = lacking(p, p.triangles[t], &palette);
        if palette.len() + need.len() > MAX_PALETTE {
            continue;
        }
        placed[t] = true;
        palette.extend(need);
        piece.push(t as u32);
        for &u in around.of(t) {
            if !placed[u as usize] {
                found += 1;
                let cost = lacking(p, p.triangles[u as usize], &palette).len();
                frontier.push(Reverse((cost, found, u)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strip of `n` quads along x, vertex `2i` and `2i + 1` at column `i`, each vertex
    /// weighted to the node of its column.
    fn band(n: u32) -> Vec<[u32; 3]> {
        (0..n)
            .flat_map(|i| {
                let (a, b) = (2 * i, 2 * i + 2);
                [[a, a + 1, b], [b, a + 1, b + 1]]
            })
            .collect()
    }

    #[test]
    fn pieces_hold_at_most_28_nodes_and_are_connected_runs() {
        let tris = band(100);
        let nodes = |v: u32| vec![v / 2];
        let p = Patch {
            triangles: &tris,
            nodes: &nodes,
        };
        let pieces = grow(&p);
        let mut all: Vec<u32> = pieces.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..tris.len() as u32).collect::<Vec<_>>());
        for piece in &pieces {
            let mut used: Vec<u32> = piece
                .iter()
                .flat_map(|&t| tris[t as usize].map(|v| v / 2))
                .collect();
            used.sort_unstable();
            used.dedup();
            assert!(used.len() <= MAX_PALETTE, "{}", used.len());
            // a run of columns: the nodes used are consecutive
            assert_eq!(used.last().unwrap() - used[0] + 1, used.len() as u32);
        }
        // 101 columns, 28 per piece with one shared at each cut: 4 pieces
        assert_eq!(pieces.len(), 4);
    }
}
