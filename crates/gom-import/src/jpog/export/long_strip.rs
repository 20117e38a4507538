//! A strip builder that makes strips as long as it can. meshopt's `stripify` follows
//! its input order and continues a strip only with one of the next 16 triangles, which
//! suits a vertex cache but leaves strips short (on CesiumMan, ordered by
//! `optimize_vertex_cache_strip`, 2.07 indices a triangle: more than half are
//! stitches). The game draws nothing but strips, so their length is what counts; no
//! maintained crate offers such a builder, hence this one.
//!
//! Greedy, in the manner of the classic SGI and NVIDIA strippers: a strip starts at the
//! free triangle with the fewest free neighbours (a corner or a border, so that no
//! triangle is left alone), is walked from each of its three edges, and the longest
//! walk is kept; a walk continues across the edge the strip's parity asks for, to the
//! free triangle there with the fewest free neighbours. Where that triangle is taken, a
//! walk turns with a swap (two stitch indices) into the triangle across its last
//! triangle's other edge, if no other strip could take that one. Strips are joined by repeating
//! the last index of one and the first of the next (two indices), each strip being
//! walked with the parity its place gives it, so a join never needs a third.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// A strip walked: its indices, its triangles, the parity of its first position.
struct Walked {
    strip: Vec<u32>,
    taken: Vec<u32>,
    parity: usize,
    /// The parity its place asks for.
    wanted: usize,
}

/// Triangles by their directed edges, with each triangle's free neighbours counted.
struct Mesh<'a> {
    tris: &'a [[u32; 3]],
    by_edge: HashMap<(u32, u32), Vec<u32>>,
    /// Triangles sharing an edge with opposite direction (the same winding).
    neighbours: Vec<Vec<u32>>,
    /// Triangles by their vertices.
    by_vertex: HashMap<u32, Vec<u32>>,
    free_neighbours: Vec<u8>,
    used: Vec<bool>,
    /// Triangles taken by the walk numbered so (walks are tried, then one is kept).
    stamp: Vec<u32>,
}

impl<'a> Mesh<'a> {
    fn new(tris: &'a [[u32; 3]]) -> Mesh<'a> {
        let mut by_edge: HashMap<(u32, u32), Vec<u32>> = HashMap::with_capacity(tris.len() * 3);
        for (t, tri) in tris.iter().enumerate() {
            for k in 0..3 {
                by_edge
                    .entry((tri[k], tri[(k + 1) % 3]))
                    .or_default()
                    .push(t as u32);
            }
        }
        let neighbours: Vec<Vec<u32>> = tris
            .iter()
            .enumerate()
            .map(|(t, tri)| {
                let mut n: Vec<u32> = (0..3)
                    .filter_map(|k| by_edge.get(&(tri[(k + 1) % 3], tri[k])))
                    .flatten()
                    .copied()
                    .filter(|&u| u as usize != t)
                    .collect();
                n.sort_unstable();
                n.dedup();
                n
            })
            .collect();
        let mut by_vertex: HashMap<u32, Vec<u32>> = HashMap::new();
        for (t, tri) in tris.iter().enumerate() {
            for &v in tri {
                by_vertex.entry(v).or_default().push(t as u32);
            }
        }
        let free_neighbours = neighbours.iter().map(|n| n.len().min(255) as u8).collect();
        Mesh {
            tris,
            by_edge,
            neighbours,
            by_vertex,
            free_neighbours,
            used: vec![false; tris.len()],
            stamp: vec![0; tris.len()],
        }
    }

    fn free(&self, t: u32, walk: u32) -> bool {
        !self.used[t as usize] && self.stamp[t as usize] != walk
    }

    /// The free triangle holding directed edge `x → y` with the fewest free neighbours,
    /// and its third vertex.
    fn next(&self, x: u32, y: u32, walk: u32) -> Option<(u32, u32)> {
        let t = *self
            .by_edge
            .get(&(x, y))?
            .iter()
            .filter(|&&t| self.free(t, walk))
            .min_by_key(|&&t| self.free_neighbours[t as usize])?;
        let tri = self.tris[t as usize];
        let k = (0..3).find(|&k| tri[k] == x && tri[(k + 1) % 3] == y)?;
        Some((t, tri[(k + 2) % 3]))
    }

    /// The strip walked from triangle `t`, read from its edge `rot`, first as the
    /// game reads a triangle at an even position (`flip` false) or at an odd one,
    /// extended forwards and then (with `back`) backwards as far as free triangles go:
    /// its indices, its triangles, and the parity of its first triangle's position.
    fn walk(&mut self, t: u32, (rot, flip): (usize, bool), back: bool, walk: u32) -> Walked {
        let tri = self.tris[t as usize];
        let [a, b, c] = [tri[rot], tri[(rot + 1) % 3], tri[(rot + 2) % 3]];
        // at an odd position the game reads (s1, s0, s2)
        let mut s = if flip { vec![b, a, c] } else { vec![a, b, c] };
        let first = usize::from(flip);
        let mut taken = vec![t];
        self.stamp[t as usize] = walk;
        // forwards: the triangle after the last at position first + m - 2
        loop {
            let m = s.len();
            let (p, q) = (s[m - 2], s[m - 1]);
            let (x, y) = if (first + m) % 2 == 0 { (p, q) } else { (q, p) };
            if let Some((u, z)) = self.next(x, y, walk) {
                self.stamp[u as usize] = walk;
                s.push(z);
                taken.push(u);
            } else if let Some((u, z)) = self.swap(&s, first, walk) {
                self.stamp[u as usize] = walk;
                // `…, o, p, q` + `q, o, z`: the stitches (p, q, q) and (q, q, o),
                // then (q, o, z) drawn with the winding its position gives
                let (o, q) = (s[s.len() - 3], s[s.len() - 1]);
                s.extend([q, o, z]);
                taken.push(u);
            } else {
                break;
            }
        }
        // backwards: a triangle (z, f0, f1) before the first, one position earlier
        let mut front: Vec<u32> = Vec::new();
        let mut parity = first;
        let (mut f0, mut f1) = (s[0], s[1]);
        loop {
            let before = 1 - parity;
            let (x, y) = if before == 0 { (f0, f1) } else { (f1, f0) };
            let Some((u, z)) = self.next(x, y, walk).filter(|_| back) else {
                break;
            };
            self.stamp[u as usize] = walk;
            front.push(z);
            taken.push(u);
            parity = before;
            (f0, f1) = (z, f0);
        }
        front.reverse();
        front.extend_from_slice(&s);
        Walked {
            strip: front,
            taken,
            parity,
            wanted: parity,
        }
    }

    /// A swap at the end of strip `s` (first position parity `first`), whose last
    /// triangle `(o, p, q)` has no free triangle across the edge its parity asks for:
    /// the free triangle across its edge `o`–`q` and that triangle's third vertex,
    /// when nothing else could take it (it has no other free neighbour). A swap costs
    /// two indices; a triangle left alone costs a strip of its own, three and a join.
    fn swap(&self, s: &[u32], first: usize, walk: u32) -> Option<(u32, u32)> {
        let m = s.len();
        if m < 3 {
            return None;
        }
        let (o, q) = (s[m - 3], s[m - 1]);
        // the last triangle, at position `first + m - 3`, is drawn (o, p, q) when even
        // (its edge q → o) and (p, o, q) when odd (its edge o → q); the neighbour
        // holds the edge reversed
        let (x, y) = if (first + m - 3).is_multiple_of(2) {
            (o, q)
        } else {
            (q, o)
        };
        let (u, z) = self.next(x, y, walk)?;
        (self.free_neighbours[u as usize] <= 1).then_some((u, z))
    }

    /// Marks `taken` used and counts their neighbours' free neighbours down, queueing
    /// each neighbour again with its new count.
    fn take(&mut self, taken: &[u32], queue: &mut BinaryHeap<Reverse<(u8, u32)>>) {
        for &t in taken {
            self.used[t as usize] = true;
        }
        for &t in taken {
            for i in 0..self.neighbours[t as usize].len() {
                let u = self.neighbours[t as usize][i] as usize;
                if !self.used[u] {
                    self.free_neighbours[u] = self.free_neighbours[u].saturating_sub(1);
                    queue.push(Reverse((self.free_neighbours[u], u as u32)));
                }
            }
        }
    }
}

/// Indices a strip costs beyond one a triangle: its first two, its swaps and its join.
fn overhead(w: &Walked, joined: usize) -> usize {
    w.strip.len() - w.taken.len() + joined + usize::from(w.parity != w.wanted)
}

impl Mesh<'_> {
    /// The walks a strip can start with after `out`: from `t` in every direction (joined
    /// by two indices), and from every free triangle at `out`'s last index onwards,
    /// starting with that index (joined by none: `…, x, y` then `y, a, b…` draws the
    /// stitches `(x, y, y)` and `(y, y, a)` and then `(y, a, b)`).
    fn walks(&mut self, t: u32, out: &[u32], walk: &mut u32) -> Vec<(Walked, usize)> {
        let wanted = out.len() % 2;
        let joined = if out.is_empty() { 0 } else { 2 };
        let mut all = Vec::new();
        for (rot, flip) in [0, 1, 2].into_iter().flat_map(|r| [(r, false), (r, true)]) {
            *walk += 1;
            let mut w = self.walk(t, (rot, flip), true, *walk);
            w.wanted = wanted;
            all.push((w, joined));
        }
        let Some(&last) = out.last() else {
            return all;
        };
        let mut at: Vec<u32> = self.by_vertex.get(&last).cloned().unwrap_or_default();
        at.retain(|&u| !self.used[u as usize]);
        for u in at {
            let tri = self.tris[u as usize];
            let Some(k) = (0..3).find(|&k| tri[k] == last) else {
                continue;
            };
            // the first index is `last` read at the parity the place gives
            let start = if wanted == 0 {
                (k, false)
            } else {
                ((k + 2) % 3, true)
            };
            *walk += 1;
            let mut w = self.walk(u, start, false, *walk);
            w.wanted = wanted;
            all.push((w, 0));
        }
        all
    }

    /// The strip to append to `out` next: of [`Mesh::walks`], the one `choice` asks
    /// for: its indices with its join, and its triangles.
    fn best_strip(
        &mut self,
        t: u32,
        out: &[u32],
        walk: &mut u32,
        choice: Choice,
    ) -> (Vec<u32>, Vec<u32>) {
        let mut best: Option<(Walked, usize)> = None;
        for (w, joined) in self.walks(t, out, walk) {
            let better = best.as_ref().is_none_or(|(b, bj)| {
                let (wc, bc) = (overhead(&w, joined), overhead(b, *bj));
                let (wn, bn) = (w.taken.len(), b.taken.len());
                match choice {
                    Choice::Cheapest => wc * bn < bc * wn || (wc * bn == bc * wn && wn > bn),
                    Choice::Longest => wn > bn || (wn == bn && wc < bc),
                }
            });
            if better {
                best = Some((w, joined));
            }
        }
        let Some((w, joined)) = best else {
            return (Vec::new(), Vec::new());
        };
        let mut s = Vec::with_capacity(w.strip.len() + 3);
        if joined > 0 {
            s.extend([out[out.len() - 1], w.strip[0]]);
        }
        if w.parity != w.wanted {
            s.push(w.strip[0]);
        }
        s.extend_from_slice(&w.strip);
        (s, w.taken)
    }
}

/// Which walk a strip keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    /// The one costing fewest indices beyond its triangles, per triangle.
    Cheapest,
    /// The one drawing most triangles.
    Longest,
}

/// One strip drawing `tris` (none degenerate), strips joined by stitch triangles; the
/// caller checks it decodes to them.
pub(crate) fn long_strip(tris: &[[u32; 3]], choice: Choice) -> Vec<u32> {
    let mut mesh = Mesh::new(tris);
    let mut queue: BinaryHeap<Reverse<(u8, u32)>> = (0..tris.len() as u32)
        .map(|t| Reverse((mesh.free_neighbours[t as usize], t)))
        .collect();
    let mut out: Vec<u32> = Vec::with_capacity(tris.len() * 2);
    let mut walk = 0u32;
    while let Some(Reverse((count, t))) = queue.pop() {
        if mesh.used[t as usize] || count != mesh.free_neighbours[t as usize] {
            continue;
        }
        let (s, taken) = mesh.best_strip(t, &out, &mut walk, choice);
        out.extend_from_slice(&s);
        mesh.take(&taken, &mut queue);
        if !mesh.used[t as usize] {
            // a strip from elsewhere was kept: `t` waits for its turn again
            queue.push(Reverse((mesh.free_neighbours[t as usize], t)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jpog::export::strip::{grid_triangles, triangle_set};
    use jpog::scene::decode_strip_indices;

    #[test]
    fn a_grid_becomes_long_strips_drawing_exactly_its_triangles() {
        let (w, h) = (21u32, 21u32);
        let tris = grid_triangles(w, h);
        let s = long_strip(&tris, Choice::Cheapest);
        let decoded = decode_strip_indices(&s);
        assert_eq!(triangle_set(&decoded.triangles), triangle_set(&tris));
        // rows of 40 triangles make 42 indices and a join of 2: 1.1 a triangle
        let per = s.len() as f64 / tris.len() as f64;
        assert!(per < 1.25, "{per} indices a triangle");
    }

    #[test]
    fn separate_triangles_and_both_windings_are_drawn() {
        let tris = [[0, 1, 2], [3, 5, 4], [2, 1, 6], [7, 8, 9]];
        let s = long_strip(&tris, Choice::Cheapest);
        let decoded = decode_strip_indices(&s);
        assert_eq!(triangle_set(&decoded.triangles), triangle_set(&tris));
    }
}
