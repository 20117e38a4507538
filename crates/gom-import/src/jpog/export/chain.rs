//! Strips chained again. A builder joins each strip to the one it happens to build next;
//! once all are built, they can be ordered and turned so that more joins share a
//! vertex. A stripified sequence is split at its stitches into the strips it draws,
//! and they are chained anew, greedily: after the last index `q`, the strip (either
//! way round) that joins cheapest, among those starting at `q` and the next few in
//! the old order, a strip whose end starts another winning ties.
//!
//! Join costs, with `…, q` written and `n` indices so far (a strip's triangles need
//! its first at a position of the parity it was built for):
//! - starting at `q`, right parity: `…, p, q` + `q, b, c…` — no index (the strip's
//!   own first draws the stitches `(p, q, q)` and `(q, q, b)`); wrong parity: `q` once
//!   more — one;
//! - otherwise `…, q` + `q, a` + `a, b, c…` — two indices; wrong parity: three.
//!
//! A strip `s` of `k` indices turned round draws the same triangles, with the same
//! winding, when its first index stands at parity `parity(s) + k`.

use std::collections::HashMap;

/// How many strips of the old order past the first unplaced one are looked at for a
/// join that no strip starting at the last index offers. On CesiumMan any number from
/// 4 to 64 ends within 5 indices of the others.
const LOOK_AHEAD: usize = 16;

/// One strip of a sequence: its indices and the parity of its first index's position.
struct Strip {
    indices: Vec<u32>,
    parity: usize,
}

impl Strip {
    /// The strip turned round: the same triangles, the same winding.
    fn reversed(&self) -> Strip {
        Strip {
            indices: self.indices.iter().rev().copied().collect(),
            parity: (self.parity + self.indices.len()) % 2,
        }
    }
}

/// Whether the triangle at position `i` of `s` is a stitch (two equal indices).
fn stitch(s: &[u32], i: usize) -> bool {
    s[i] == s[i + 1] || s[i + 1] == s[i + 2] || s[i] == s[i + 2]
}

/// The strips `s` draws: its runs of triangles between stitches.
fn strips(s: &[u32]) -> Vec<Strip> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < s.len() {
        if stitch(s, i) {
            i += 1;
            continue;
        }
        let start = i;
        while i + 2 < s.len() && !stitch(s, i) {
            i += 1;
        }
        out.push(Strip {
            indices: s[start..i + 2].to_vec(),
            parity: start % 2,
        });
    }
    out
}

/// Indices joining `strip` to a sequence of `len` indices ending with `last`.
fn cost(len: usize, last: Option<u32>, strip: &Strip) -> usize {
    let fix = usize::from(len % 2 != strip.parity);
    match last {
        None => fix,
        Some(q) if strip.indices[0] == q => fix,
        Some(_) => 2 + fix,
    }
}

/// Appends `strip` to `out` with the join [`cost`] counts.
fn append(out: &mut Vec<u32>, strip: &Strip) {
    let first = strip.indices[0];
    let fix = out.len() % 2 != strip.parity;
    match out.last().copied() {
        Some(q) if q != first => out.extend([q, first]),
        _ => {}
    }
    if fix {
        out.push(first);
    }
    out.extend_from_slice(&strip.indices);
}

/// The strips and their turned copies, with the strips starting at each index.
struct Pool {
    ways: Vec<[Strip; 2]>,
    starting: HashMap<u32, Vec<(usize, usize)>>,
    used: Vec<bool>,
}

impl Pool {
    fn new(all: Vec<Strip>) -> Pool {
        let ways: Vec<[Strip; 2]> = all
            .into_iter()
            .map(|s| {
                let r = s.reversed();
                [s, r]
            })
            .collect();
        let mut starting: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for (k, w) in ways.iter().enumerate() {
            for (way, s) in w.iter().enumerate() {
                starting.entry(s.indices[0]).or_default().push((k, way));
            }
        }
        let used = vec![false; ways.len()];
        Pool {
            ways,
            starting,
            used,
        }
    }

    /// Whether another unplaced strip starts where strip `k` taken `way` ends.
    fn continues(&self, k: usize, way: usize) -> bool {
        let end = self.ways[k][way].indices.last().copied();
        end.and_then(|e| self.starting.get(&e))
            .is_some_and(|v| v.iter().any(|&(j, _)| j != k && !self.used[j]))
    }

    /// The join's cost doubled, less one where the strip's end leads on.
    fn score(&self, out: &[u32], k: usize, way: usize) -> usize {
        let c = cost(out.len(), out.last().copied(), &self.ways[k][way]);
        2 * c + 1 - usize::from(self.continues(k, way))
    }

    /// The strip to place next after `out`, `first_free` being the first unplaced one.
    fn next(&self, out: &[u32], first_free: usize) -> (usize, usize) {
        let mut best: Option<(usize, usize, usize)> = None;
        let mut consider = |score: usize, k: usize, way: usize| {
            if best.is_none_or(|(b, bk, _)| score < b || (score == b && k < bk)) {
                best = Some((score, k, way));
            }
        };
        let at_last = out.last().and_then(|q| self.starting.get(q));
        for &(k, way) in at_last.into_iter().flatten() {
            if !self.used[k] {
                consider(self.score(out, k, way), k, way);
            }
        }
        let ahead = (first_free..self.ways.len()).filter(|&k| !self.used[k]);
        for k in ahead.take(LOOK_AHEAD) {
            for way in 0..2 {
                consider(self.score(out, k, way), k, way);
            }
        }
        best.map_or((first_free, 0), |(_, k, way)| (k, way))
    }
}

/// `s` with its strips chained anew (drawing the same triangles with the same
/// winding); the caller keeps whichever of `s` and this is shorter.
pub(crate) fn rechain(s: &[u32]) -> Vec<u32> {
    let mut pool = Pool::new(strips(s));
    let mut out = Vec::with_capacity(s.len());
    let mut first_free = 0;
    loop {
        while first_free < pool.used.len() && pool.used[first_free] {
            first_free += 1;
        }
        if first_free == pool.used.len() {
            return out;
        }
        let (k, way) = pool.next(&out, first_free);
        pool.used[k] = true;
        append(&mut out, &pool.ways[k][way]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jpog::export::strip::triangle_set;
    use jpog::scene::decode_strip_indices;

    #[test]
    fn a_turned_strip_draws_the_same_triangles() {
        // three triangles of a grid row, first at an even and at an odd position
        for parity in [0, 1] {
            let s = Strip {
                indices: vec![0, 1, 2, 3, 4],
                parity,
            };
            let draw = |s: &Strip| {
                let mut seq = vec![s.indices[0]; s.parity];
                seq.extend_from_slice(&s.indices);
                triangle_set(&decode_strip_indices(&seq).triangles)
            };
            assert_eq!(draw(&s.reversed()), draw(&s));
        }
    }

    #[test]
    fn a_strip_ending_where_another_starts_joins_it_without_an_index() {
        // two quads, (0 1 2 3) and (3 4 5 6), sharing vertex 3, written in the order
        // that joins them by two indices and with the second turned round
        let s = vec![6, 5, 4, 3, 3, 0, 0, 1, 2, 3];
        let before = triangle_set(&decode_strip_indices(&s).triangles);
        let chained = rechain(&s);
        assert_eq!(
            triangle_set(&decode_strip_indices(&chained).triangles),
            before
        );
        // 4 indices a quad, none to join them: the second starts with the first's last
        assert_eq!(chained.len(), 8, "{chained:?}");
    }
}
