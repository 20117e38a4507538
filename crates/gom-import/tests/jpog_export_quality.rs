//! What the game and its modders' tools read well: strips that draw exactly the source's
//! triangles with no more indices than a triangle list (and, on a character-sized mesh,
//! fewer than 1.37 per triangle), and keys that read the same whether a reader slerps
//! or lerps the quaternion components and normalises.

use std::path::PathBuf;

use gom_import::jpog::export::{export, ExportOptions, Exported};
use gom_import::jpog::Handedness;
use gom_import::source::{import_path, ImportOptions};
use gom_test_support::model::{bone_chain, one_material_mesh};
use jpog::scene::decode_strip;
use jpog::{Tkl, Tmd};

/// Indices per triangle a character's strips must stay under (what a public
/// stripifier reaches on a 4,672-triangle character).
const CHARACTER_TARGET: f64 = 1.37;

/// Every model of `../shared/data` with triangles or clips: the game's own, the glTF
/// samples and the FBX files.
fn shared_models() -> Vec<(String, gom::Model)> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for (kind, ext) in [("jpog", "tmd"), ("gltf", "gltf"), ("fbx", "fbx")] {
        let Some(dir) = gom_test_support::shared_data(kind) else {
            continue;
        };
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        assert!(!found.is_empty(), "no .{ext} in {}", dir.display());
        found.sort();
        paths.extend(found);
    }
    paths
        .into_iter()
        .map(|p| {
            let label = p.file_name().unwrap().to_string_lossy().into_owned();
            let model = import_path(&p, &ImportOptions::default())
                .unwrap_or_else(|e| panic!("{label}: {e}"))
                .model;
            (label, model)
        })
        .collect()
}

fn exported(label: &str, model: &gom::Model) -> (Exported, Tmd, Tkl) {
    let options = ExportOptions {
        name: "Check".into(),
        // the left-handed reading keeps the winding: the game's triangles are the
        // source's as they are
        handedness: Handedness::Left,
        rename: true,
        ..ExportOptions::default()
    };
    let e = export(model, &options).unwrap_or_else(|err| panic!("{label}: {err}"));
    let (tmd, tkl, _) = e.write().unwrap_or_else(|err| panic!("{label}: {err}"));
    let tmd = Tmd::read(&tmd).unwrap();
    let tkl = Tkl::read(&tkl).unwrap();
    (e, tmd, tkl)
}

// ---- strips ---------------------------------------------------------------------------

/// A triangle as the bit patterns of its three corner positions, rotated so the
/// smallest corner comes first (the winding kept).
type Corners = [[u32; 3]; 3];

fn canonical(t: [[f32; 3]; 3]) -> Corners {
    let c = t.map(|p| p.map(f32::to_bits));
    let m = (0..3).min_by_key(|&k| c[k]).unwrap();
    [c[m], c[(m + 1) % 3], c[(m + 2) % 3]]
}

fn bind_position(model: &gom::Model, part: usize, vertex: u32) -> [f32; 3] {
    let mesh = &model.meshes[part];
    let p = mesh.vertices.positions[vertex as usize];
    match &mesh.mesh_bind_geo_to_model {
        Some(g) => gom::math::transform_point(g, p),
        None => p,
    }
}

/// The source's non-degenerate triangles by corner positions, sorted.
fn source_triangles(model: &gom::Model) -> Vec<Corners> {
    let mut out = Vec::new();
    for (part, mesh) in model.meshes.iter().enumerate() {
        for t in mesh.indices.chunks_exact(3) {
            let p = [t[0], t[1], t[2]].map(|v| bind_position(model, part, v));
            if p[0] != p[1] && p[1] != p[2] && p[0] != p[2] {
                out.push(canonical(p));
            }
        }
    }
    out.sort_unstable();
    out
}

/// A bound any strip builder meets, computed from a piece's triangles alone: pair
/// each triangle with a free one across an edge of the same winding (in order, first
/// come), a pair drawn with 4 indices, a lone triangle with 3, and pairs and lone
/// triangles joined by repeating one index of each side (2 a join). A triangle list
/// costs 3 a triangle; where no triangle is left lone the bound is under it.
fn paired_bound(tris: &[[u32; 3]]) -> (usize, usize) {
    let mut by_edge: std::collections::HashMap<(u32, u32), Vec<usize>> = Default::default();
    for (t, v) in tris.iter().enumerate() {
        for k in 0..3 {
            by_edge.entry((v[k], v[(k + 1) % 3])).or_default().push(t);
        }
    }
    let mut paired = vec![false; tris.len()];
    let (mut units, mut lone, mut indices) = (0usize, 0, 0);
    for (t, v) in tris.iter().enumerate() {
        if paired[t] {
            continue;
        }
        paired[t] = true;
        units += 1;
        let mate = (0..3)
            .filter_map(|k| by_edge.get(&(v[(k + 1) % 3], v[k])))
            .flatten()
            .copied()
            .find(|&u| !paired[u]);
        if let Some(u) = mate {
            paired[u] = true;
            indices += 4;
        } else {
            lone += 1;
            indices += 3;
        }
    }
    (indices + 2 * units.saturating_sub(1), lone)
}

/// What the first level's strips hold: the triangles they draw (by the source
/// positions of their corners, sorted), the strip indices in all, the pairing bound
/// summed over the pieces and the lone triangles it leaves.
fn drawn(e: &Exported, tmd: &Tmd, model: &gom::Model) -> (Vec<Corners>, usize, usize, usize) {
    let mut triangles = Vec::new();
    let (mut indices, mut bound, mut lone) = (0, 0, 0);
    for (m, mesh) in tmd.mesh.lods[0].meshes.iter().enumerate() {
        for piece in &mesh.pieces {
            indices += piece.strip.len();
            let (b, l) = paired_bound(&decode_strip(&piece.strip).triangles);
            bound += b;
            lone += l;
            for t in decode_strip(&piece.strip).triangles {
                let p = t.map(|i| {
                    let (part, v) = e.vertex_sources[m][i as usize];
                    bind_position(model, part, v)
                });
                if p[0] != p[1] && p[1] != p[2] && p[0] != p[2] {
                    triangles.push(canonical(p));
                }
            }
        }
    }
    triangles.sort_unstable();
    (triangles, indices, bound, lone)
}

#[test]
fn every_shared_model_strips_to_exactly_its_triangles_within_the_pairing_bound() {
    let models = shared_models();
    let mut checked = 0;
    for (label, model) in &models {
        let source = source_triangles(model);
        if source.is_empty() {
            continue;
        }
        let (e, tmd, _) = exported(label, model);
        let (triangles, indices, bound, lone) = drawn(&e, &tmd, model);
        assert_eq!(
            triangles, source,
            "{label}: the strips draw other triangles"
        );
        let per_triangle = indices as f64 / source.len() as f64;
        eprintln!(
            "{label}: {} triangles, {indices} strip indices ({per_triangle:.3} a triangle), \
             pairing bound {bound}, {lone} lone triangles",
            source.len()
        );
        assert!(
            indices <= bound,
            "{label}: {indices} indices, over the bound {bound}"
        );
        if lone == 0 {
            assert!(
                indices <= 3 * source.len(),
                "{label}: {per_triangle:.3} indices a triangle, more than a list"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} shared models have triangles");
}

/// A skinned sphere of `rings × segments` quads (about 20,000 triangles at 100 × 100)
/// over a chain of bones from pole to pole, its triangles in a scrambled order, as an
/// importer may hand them over.
fn sphere(rings: u32, segments: u32, bones: usize) -> gom::Model {
    let (skeleton, inverse) = bone_chain(bones, [0.0, -1.0, 0.0], [0.0, 2.0 / bones as f32, 0.0]);
    let mut m = gom::Model {
        skeleton,
        ..Default::default()
    };
    let mut v = gom::Vertices::default();
    let (mut normals, mut uvs, mut skin) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = [
                theta.sin() * phi.cos(),
                -theta.cos(),
                theta.sin() * phi.sin(),
            ];
            v.positions.push(n);
            normals.push(n);
            uvs.push([s as f32 / segments as f32, r as f32 / rings as f32]);
            let b = ((r as usize * bones) / (rings as usize + 1)).min(bones - 1);
            let b1 = (b + 1).min(bones - 1) as u16;
            skin.push(gom::SkinWeights {
                bones: [b as u16, b1, 0, 0],
                weights: if b1 as usize == b {
                    [1.0, 0.0, 0.0, 0.0]
                } else {
                    [0.75, 0.25, 0.0, 0.0]
                },
            });
        }
    }
    v.normals = Some(normals);
    v.uv0 = Some(uvs);
    v.skin = Some(skin);
    let row = segments + 1;
    let mut quads: Vec<[u32; 6]> = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, (r + 1) * row + s);
            quads.push([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    // a fixed permutation (multiplication by a unit modulo the count) scrambles them
    let n = quads.len();
    let stride = (0..).map(|k| 7919 + k).find(|s| gcd(*s, n) == 1).unwrap();
    let indices: Vec<u32> = (0..n).flat_map(|k| quads[(k * stride) % n]).collect();
    one_material_mesh(&mut m, "Skin", v, indices, inverse);
    m
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn a_twenty_thousand_triangle_character_strips_under_the_target() {
    let model = sphere(100, 100, 24);
    let source = source_triangles(&model);
    // the poles' quads hold a degenerate half each: about 19,800 remain
    assert!(source.len() > 19_500, "{} triangles", source.len());
    let (e, tmd, _) = exported("sphere", &model);
    let (triangles, indices, _, _) = drawn(&e, &tmd, &model);
    assert_eq!(triangles, source);
    let per_triangle = indices as f64 / source.len() as f64;
    eprintln!("sphere: {indices} strip indices, {per_triangle:.3} a triangle");
    assert!(
        per_triangle <= CHARACTER_TARGET,
        "{per_triangle:.3} indices a triangle"
    );
}

// ---- keys -----------------------------------------------------------------------------

type Q = [f64; 4];

fn dot(a: Q, b: Q) -> f64 {
    a.iter().zip(&b).map(|(x, y)| x * y).sum()
}

fn normalized(q: Q) -> Q {
    let l = dot(q, q).sqrt();
    q.map(|v| v / l)
}

/// Slerp along the shorter arc, from its definition: `sin((1−t)Ω)/sin Ω · a + sin(tΩ)/sin Ω · b`.
fn slerp(a: Q, b: Q, t: f64) -> Q {
    let (a, mut b) = (normalized(a), normalized(b));
    if dot(a, b) < 0.0 {
        b = b.map(|v| -v);
    }
    let omega = dot(a, b).clamp(-1.0, 1.0).acos();
    if omega < 1e-9 {
        return a;
    }
    let (wa, wb) = (((1.0 - t) * omega).sin(), (t * omega).sin());
    normalized([0, 1, 2, 3].map(|k| wa * a[k] + wb * b[k]))
}

/// Component-wise lerp of the stored quaternions (no sign flip), normalised.
fn nlerp(a: Q, b: Q, t: f64) -> Q {
    normalized([0, 1, 2, 3].map(|k| (1.0 - t) * a[k] + t * b[k]))
}

/// How far a point `distance` from the joint moves between rotations `p` and `q`:
/// `2 d sin(δ/2)` for the angle `δ` between them.
fn displacement(p: Q, q: Q, distance: f64) -> f64 {
    let half = dot(p, q).abs().clamp(0.0, 1.0).acos();
    2.0 * distance * half.sin()
}

/// The largest gap between the two readings over every interval of every clip, each
/// interval checked at 16 points; and the number of intervals.
fn worst_gap(tmd: &Tmd, tkl: &Tkl, distance: f64) -> (f64, usize) {
    let animations = tmd.resolve_animations(tkl).unwrap();
    let mut worst = 0.0f64;
    let mut intervals = 0;
    for a in &animations {
        for c in &a.channels {
            for pair in c.keys.windows(2) {
                let (p, q) = (
                    pair[0].rotation.map(f64::from),
                    pair[1].rotation.map(f64::from),
                );
                intervals += 1;
                for j in 0..16 {
                    let t = (j as f64 + 0.5) / 16.0;
                    worst = worst.max(displacement(slerp(p, q, t), nlerp(p, q, t), distance));
                }
            }
        }
    }
    (worst, intervals)
}

#[test]
fn every_written_clip_reads_the_same_under_slerp_and_normalised_lerp() {
    let tolerance = gom_import::optimize::keys::KeyTolerance::default();
    let (distance, allowed) = (
        f64::from(tolerance.distance),
        f64::from(tolerance.tolerance),
    );
    let mut clips = 0;
    let mut disagreed_before = 0;
    for (label, model) in shared_models() {
        if model.clips.is_empty() || model.meshes.iter().all(|m| m.indices.is_empty()) {
            continue;
        }
        let (_, tmd, tkl) = exported(&label, &model);
        let (worst, intervals) = worst_gap(&tmd, &tkl, distance);
        eprintln!("{label}: {intervals} intervals, widest gap {worst:.2e} m");
        assert!(
            worst <= allowed * 1.001,
            "{label}: slerp and nlerp {worst:.2e} m apart"
        );
        clips += tmd.animations.len();
        if label.ends_with(".tmd") {
            // the game's own keys, as stored, are the case the insertion is for
            let dir = gom_test_support::shared_data("jpog").unwrap();
            let source = Tmd::read(&std::fs::read(dir.join(&label)).unwrap()).unwrap();
            let name = source.header.tkl_name();
            if let Ok(bytes) = std::fs::read(dir.join(format!("{name}.tkl"))) {
                let (before, _) = worst_gap(&source, &Tkl::read(&bytes).unwrap(), distance);
                eprintln!("{label} as stored: widest gap {before:.2e} m");
                if before > allowed {
                    disagreed_before += 1;
                }
            }
        }
    }
    assert!(clips > 0, "no shared model has clips");
    assert!(
        disagreed_before > 0,
        "no stored clip of the game disagrees, so the check above could not fail"
    );
}
