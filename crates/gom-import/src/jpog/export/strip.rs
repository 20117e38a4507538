//! One triangle strip per piece: the triangles ordered for strips by meshopt's
//! `optimize_vertex_cache_strip` (as meshopt's documentation asks before `stripify`),
//! then the shortest of meshopt's `stripify` and a builder of long strips
//! ([`super::long_strip`]), each also chained anew ([`super::chain`]), strips joined
//! by stitch (degenerate) triangles. Its
//! parity is the game's: at even position `i` the triangle is `(s[i], s[i+1], s[i+2])`,
//! at odd `i` it is `(s[i+1], s[i], s[i+2])`, counted from the strip's first index, so
//! every triangle keeps its winding: the game's reader's decoder
//! ([`jpog::scene::decode_strip_indices`]) checks every strip written.
//!
//! A strip too long for the game's tools is cut into several ([`cut`]), each cut made
//! where the strip stitches two strips together when one lies near, so that no strip is
//! broken and the stitch itself is dropped.

use jpog::scene::decode_strip_indices;

use super::chain::rechain;
use super::long_strip::{long_strip, Choice};

/// A triangle rotated so that its smallest index comes first (winding kept).
pub(crate) fn canonical(t: [u32; 3]) -> [u32; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
    [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
}

/// The triangles as a sorted list of canonical rotations: equal for two lists holding
/// the same triangles with the same winding, in any order and rotation.
pub(crate) fn triangle_set(tris: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut v: Vec<[u32; 3]> = tris.iter().map(|&t| canonical(t)).collect();
    v.sort_unstable();
    v
}

/// A strip drawing exactly `tris` (indices below `vertex_count`, none degenerate): the
/// shortest of meshopt's strip and [`long_strip`]'s over the triangles in four orders,
/// each as built and chained anew ([`rechain`]), each checked to decode to `tris`;
/// `None` when none does (never seen;
/// checked so that a wrong strip is never written).
pub(crate) fn stripify(tris: &[[u32; 3]], vertex_count: usize) -> Option<Vec<u32>> {
    let flat: Vec<u32> = tris.iter().flatten().copied().collect();
    let ordered = meshopt::optimize_vertex_cache_strip(&flat, vertex_count);
    let ordered_tris: Vec<[u32; 3]> = ordered
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    // The long-strip builder breaks ties by triangle order, and its result moves by a
    // few percent with it: it runs over four orders (meshopt's, the source's, the
    // source's reversed, by lowest vertex) keeping each of its two choices, and the
    // shortest strip of all is written.
    let reversed: Vec<[u32; 3]> = tris.iter().rev().copied().collect();
    let mut by_vertex = tris.to_vec();
    by_vertex.sort_by_key(|t| t[0].min(t[1]).min(t[2]));
    let mut candidates: Vec<Vec<u32>> = Vec::with_capacity(9);
    for order in [&ordered_tris[..], tris, &reversed, &by_vertex] {
        for choice in [Choice::Cheapest, Choice::Longest] {
            candidates.push(long_strip(order, choice));
        }
    }
    // restart index 0: strips are joined with degenerate triangles, the only way the
    // game's format can join them
    candidates.extend(meshopt::stripify(&ordered, vertex_count, 0).ok());
    // each chained anew as well: the shortest of all wins
    let chained: Vec<Vec<u32>> = candidates.iter().map(|c| rechain(c)).collect();
    let want = triangle_set(tris);
    candidates
        .into_iter()
        .chain(chained)
        .filter(|s| triangle_set(&decode_strip_indices(s).triangles) == want)
        .min_by_key(Vec::len)
}

/// Whether the triangle at position `i` of `s` is a stitch (two equal indices).
fn stitch_at(s: &[u32], i: usize) -> bool {
    s[i] == s[i + 1] || s[i + 1] == s[i + 2] || s[i] == s[i + 2]
}

/// The triangles at positions `from..to` of `strip` as a strip of their own: stitches
/// at either end dropped, and the first kept triangle at a position of the parity it
/// had (one leading index repeated, or one stitch kept, when it was odd).
fn part(strip: &[u32], from: usize, to: usize) -> Vec<u32> {
    let (mut from, mut to) = (from, to);
    while to > from && stitch_at(strip, to - 1) {
        to -= 1;
    }
    let lead = (from..to).take_while(|&i| stitch_at(strip, i)).count();
    if lead == to - from {
        return Vec::new();
    }
    from += lead;
    let mut out = Vec::with_capacity(to - from + 3);
    if from % 2 == 1 {
        if lead > 0 {
            from -= 1;
        } else {
            out.push(strip[from]);
        }
    }
    out.extend_from_slice(&strip[from..to + 2]);
    out
}

/// `strip` cut into strips shorter than `limit` indices (`limit` at least 16) that
/// together draw exactly its triangles, each with its winding. There are as few as the
/// limit allows, of about equal length; each cut is moved to the nearest stitch within
/// an eighth of that length, if any.
pub(crate) fn cut(strip: &[u32], limit: usize) -> Vec<Vec<u32>> {
    if strip.len() < limit {
        return vec![strip.to_vec()];
    }
    // triangles lie at positions 0..len-2; a part of positions a..b holds b-a+2 indices
    // and at most one more for its parity
    let positions = strip.len() - 2;
    let most = limit - 4;
    let count = positions.div_ceil(most);
    let target = positions.div_ceil(count);
    let reach = target / 8;
    let mut parts = Vec::with_capacity(count);
    let mut from = 0;
    for k in 1..=count {
        // the parts after this one must still hold the rest
        let min_end = positions.saturating_sub((count - k) * most);
        let ideal = (from + target).max(min_end).min(positions);
        let end = if ideal == positions {
            positions
        } else {
            let lo = ideal.saturating_sub(reach).max(from + 1).max(min_end);
            let hi = (ideal + reach).min(from + most).min(positions - 1);
            (0..=reach)
                .flat_map(|d| [ideal.checked_sub(d), Some(ideal + d)])
                .flatten()
                .find(|&i| (lo..=hi).contains(&i) && stitch_at(strip, i))
                .unwrap_or(ideal)
        };
        let p = part(strip, from, end);
        if !p.is_empty() {
            parts.push(p);
        }
        from = end;
        if from == positions {
            break;
        }
    }
    parts
}

/// The triangles of a `w`×`h` grid of vertices, two counter-clockwise triangles a
/// quad: the tests' mesh for strips.
#[cfg(test)]
pub(crate) fn grid_triangles(w: u32, h: u32) -> Vec<[u32; 3]> {
    let mut tris = Vec::new();
    for y in 0..h - 1 {
        for x in 0..w - 1 {
            let i = y * w + x;
            tris.push([i, i + 1, i + w]);
            tris.push([i + 1, i + w + 1, i + w]);
        }
    }
    tris
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_strips_to_exactly_its_triangles() {
        // a 7×5 grid of quads, two triangles each, counter-clockwise
        let (w, h) = (8u32, 6u32);
        let mut tris = grid_triangles(w, h);
        // and a separate triangle, so that the strip needs a join
        tris.push([w * h, w * h + 2, w * h + 1]);
        let strip = stripify(&tris, (w * h + 3) as usize).unwrap();
        // the file's 16-bit strip decodes the same
        let s16: Vec<u16> = strip.iter().map(|&v| v as u16).collect();
        let game = jpog::scene::decode_strip(&s16);
        assert_eq!(triangle_set(&game.triangles), triangle_set(&tris));
    }

    #[test]
    fn a_long_strip_is_cut_into_parts_drawing_exactly_its_triangles() {
        // a 60×40 grid: one strip of several thousand indices with many stitches
        let (w, h) = (61u32, 41u32);
        let tris = grid_triangles(w, h);
        let strip = stripify(&tris, (w * h) as usize).unwrap();
        for limit in [16, 100, 1001, strip.len() / 2, strip.len()] {
            let parts = cut(&strip, limit);
            let mut drawn = Vec::new();
            for p in &parts {
                assert!(p.len() < limit, "{} of {limit}", p.len());
                drawn.extend(decode_strip_indices(p).triangles);
            }
            assert_eq!(triangle_set(&drawn), triangle_set(&tris), "limit {limit}");
            let fewest = (strip.len() - 2).div_ceil(limit - 4);
            assert!(parts.len() <= fewest, "{} parts", parts.len());
        }
    }

    #[test]
    fn a_part_starting_at_an_odd_position_keeps_its_winding() {
        // positions 0: (0 1 2), 1: (2 1 3) odd, 2: (2 3 4)
        let s = [0, 1, 2, 3, 4];
        let p = part(&s, 1, 3);
        let want = triangle_set(&decode_strip_indices(&s).triangles[1..]);
        assert_eq!(triangle_set(&decode_strip_indices(&p).triangles), want);
        // a leading stitch kept rather than an index repeated
        let s = [0, 1, 2, 2, 5, 6, 7];
        let p = part(&s, 1, 5);
        assert_eq!(p.len(), 5);
        let all = decode_strip_indices(&s).triangles;
        assert_eq!(
            triangle_set(&decode_strip_indices(&p).triangles),
            triangle_set(&all[1..])
        );
    }

    #[test]
    fn canonical_keeps_winding() {
        assert_eq!(canonical([5, 2, 9]), [2, 9, 5]);
        assert_ne!(canonical([2, 5, 9]), canonical([2, 9, 5]));
    }
}
