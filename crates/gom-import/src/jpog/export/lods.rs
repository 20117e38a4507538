//! `--lods N`: lower levels of detail made with meshopt's simplifier. Each level keeps
//! about half the triangles of the one before, material by material; the simplifier only
//! picks which of the material's vertices remain (it never moves one), so every vertex
//! keeps its normal, texture coordinates and weights, and each level is split into
//! pieces and strips exactly as LOD 0 is.

use jpog::tmd::Lod;

use super::pieces::{level, Meshes};
use super::{ExportError, DEFAULT_SHADER_TYPE};

/// The most lower levels `--lods` makes: past it the levels would hold a handful of
/// triangles each (each level halves the count).
pub const MAX_LOWER_LODS: usize = 8;

/// The simplifier's error bound, relative to the mesh's extent: 1 lets it go as far as
/// the triangle target, which is what a level of detail asks for.
const TARGET_ERROR: f32 = 1.0;

/// About half of `tris` (over vertices at `positions`), winding kept. meshopt's
/// edge-collapse simplifier first; when the mesh's borders and seams stop it above
/// three quarters of the triangles, its "sloppy" one, which ignores topology.
pub(crate) fn halve(tris: &[[u32; 3]], positions: &[[f32; 3]]) -> Vec<[u32; 3]> {
    let target = (tris.len() / 2).max(1);
    if tris.len() <= 1 {
        return tris.to_vec();
    }
    let flat: Vec<u32> = tris.iter().flatten().copied().collect();
    let mut out = meshopt::simplify_decoder(
        &flat,
        positions,
        target * 3,
        TARGET_ERROR,
        meshopt::SimplifyOptions::None,
        None,
    );
    if out.len() / 3 > target + target / 2 {
        out = meshopt::simplify_sloppy_decoder(&flat, positions, target * 3, TARGET_ERROR, None);
    }
    out.chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .collect()
}

/// Levels 1 to `count`, each from the one before; a level the simplifier could not
/// shrink is noted.
pub(crate) fn lower(
    m: &Meshes,
    count: usize,
    notes: &mut Vec<String>,
) -> Result<Vec<Lod>, ExportError> {
    if count > MAX_LOWER_LODS {
        return Err(super::refused(
            "--lods",
            format!("{count} lower levels; at most {MAX_LOWER_LODS} are made"),
        ));
    }
    let positions: Vec<Vec<[f32; 3]>> = m.groups.iter().map(|g| g.positions()).collect();
    let mut prev: Vec<Vec<[u32; 3]>> = m.groups.iter().map(|g| g.triangles.clone()).collect();
    let mut lods = Vec::with_capacity(count);
    for l in 1..=count {
        let next: Vec<Vec<[u32; 3]>> = prev
            .iter()
            .zip(&positions)
            .map(|(t, p)| halve(t, p))
            .collect();
        let (before, after) = (total(&prev), total(&next));
        if after * 4 > before * 3 {
            notes.push(format!(
                "lod {l}: the simplifier kept {after} of {before} triangles"
            ));
        }
        let slices: Vec<&[[u32; 3]]> = next.iter().map(Vec::as_slice).collect();
        let made = level(&m.materials, &m.groups, &slices)?;
        lods.push(Lod {
            shader_type: DEFAULT_SHADER_TYPE,
            sphere: made.sphere,
            meshes: made.meshes,
        });
        prev = next;
    }
    Ok(lods)
}

fn total(t: &[Vec<[u32; 3]>]) -> usize {
    t.iter().map(Vec::len).sum()
}
