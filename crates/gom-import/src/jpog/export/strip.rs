//! One triangle strip per piece: meshopt's `stripify`, with strips joined by stitch
//! (degenerate) triangles. Its parity is the game's: at even position `i` the triangle
//! is `(s[i], s[i+1], s[i+2])`, at odd `i` it is `(s[i+1], s[i], s[i+2])`, counted from
//! the strip's first index, so every triangle keeps its winding: the game's reader's
//! decoder ([`jpog::scene::decode_strip_indices`]) checks every strip written.

use jpog::scene::decode_strip_indices;

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

/// A strip drawing exactly `tris` (indices below `vertex_count`, none degenerate), or
/// `None` when meshopt's strip does not decode to them (never seen; checked so that a
/// wrong strip is never written).
pub(crate) fn stripify(tris: &[[u32; 3]], vertex_count: usize) -> Option<Vec<u32>> {
    let flat: Vec<u32> = tris.iter().flatten().copied().collect();
    // restart index 0: strips are joined with degenerate triangles, the only way the
    // game's format can join them
    let strip = meshopt::stripify(&flat, vertex_count, 0).ok()?;
    let decoded = decode_strip_indices(&strip).triangles;
    (triangle_set(&decoded) == triangle_set(tris)).then_some(strip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_strips_to_exactly_its_triangles() {
        // a 7×5 grid of quads, two triangles each, counter-clockwise
        let (w, h) = (8u32, 6u32);
        let mut tris = Vec::new();
        for y in 0..h - 1 {
            for x in 0..w - 1 {
                let i = y * w + x;
                tris.push([i, i + 1, i + w]);
                tris.push([i + 1, i + w + 1, i + w]);
            }
        }
        // and a separate triangle, so that the strip needs a join
        tris.push([w * h, w * h + 2, w * h + 1]);
        let strip = stripify(&tris, (w * h + 3) as usize).unwrap();
        // the file's 16-bit strip decodes the same
        let s16: Vec<u16> = strip.iter().map(|&v| v as u16).collect();
        let game = jpog::scene::decode_strip(&s16);
        assert_eq!(triangle_set(&game.triangles), triangle_set(&tris));
    }

    #[test]
    fn canonical_keeps_winding() {
        assert_eq!(canonical([5, 2, 9]), [2, 9, 5]);
        assert_ne!(canonical([2, 5, 9]), canonical([2, 9, 5]));
    }
}
