//! Key reduction on real clips: the reduced clips pose every skinned vertex within the
//! tolerance bound of the unreduced ones, at every sample time and half-way between.
//!
//! Bound: each joint's error is at most `tolerance` at its measuring distance (its
//! sub-hierarchy's extent plus 10 cm), and the errors of a chain add up, so a vertex
//! moves by at most `tolerance × (deepest chain)`. The meshes here lie within 10 cm of
//! their bones' chains, so the bound holds for every vertex.

use gom::math;
use gom::{Mat4, Model};
use gom_import::fbx::{convert, FbxOptions};

mod shared_data;
use shared_data::fbx_dir as data_dir;

fn slerp(a: [f32; 4], b: [f32; 4], t: f64) -> [f32; 4] {
    let a = a.map(f64::from);
    let mut b = b.map(f64::from);
    let mut d: f64 = (0..4).map(|k| a[k] * b[k]).sum();
    if d < 0.0 {
        b = b.map(|x| -x);
        d = -d;
    }
    let (wa, wb) = if d > 0.9999999 {
        (1.0 - t, t)
    } else {
        let o = d.acos();
        (((1.0 - t) * o).sin() / o.sin(), (t * o).sin() / o.sin())
    };
    let q: Vec<f64> = (0..4).map(|k| wa * a[k] + wb * b[k]).collect();
    let l = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    [q[0] / l, q[1] / l, q[2] / l, q[3] / l].map(|x| x as f32)
}

fn skinned_positions(model: &Model, clip: usize, time: f64) -> Vec<[f32; 3]> {
    let mut local: Vec<Mat4> = model.skeleton.bones.iter().map(|b| b.bind_local).collect();
    for track in &model.clips[clip].tracks {
        let k = &track.keys;
        let t = time as f32;
        let m = if t <= k[0].time {
            math::from_trs(k[0].translation, k[0].rotation, k[0].scale)
        } else if t >= k[k.len() - 1].time {
            let l = k[k.len() - 1];
            math::from_trs(l.translation, l.rotation, l.scale)
        } else {
            let j = k.iter().position(|x| x.time > t).unwrap();
            let (a, b) = (k[j - 1], k[j]);
            let u = (time - f64::from(a.time)) / (f64::from(b.time) - f64::from(a.time));
            let lerp = |x: [f32; 3], y: [f32; 3]| {
                [0, 1, 2]
                    .map(|i| (f64::from(x[i]) + (f64::from(y[i]) - f64::from(x[i])) * u) as f32)
            };
            math::from_trs(
                lerp(a.translation, b.translation),
                slerp(a.rotation, b.rotation, u),
                lerp(a.scale, b.scale),
            )
        };
        local[track.bone as usize] = m;
    }
    let mut world: Vec<Mat4> = Vec::new();
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        world.push(match b.parent_index() {
            Some(p) => math::mul(&local[i], &world[p]),
            None => local[i],
        });
    }
    let mut out = Vec::new();
    for mesh in &model.meshes {
        let skin = mesh.vertices.skin.as_ref().unwrap();
        for (p, s) in mesh.vertices.positions.iter().zip(skin) {
            let mut acc = [0.0f32; 3];
            for k in 0..4 {
                if s.weights[k] > 0.0 {
                    let b = s.bones[k] as usize;
                    let q = math::transform_point(&math::mul(&mesh.inverse_bind[b], &world[b]), *p);
                    for c in 0..3 {
                        acc[c] += s.weights[k] * q[c];
                    }
                }
            }
            out.push(acc);
        }
    }
    out
}

#[test]
fn fbx_key_reduction_stays_within_the_hierarchical_tolerance() {
    let Some(dir) = data_dir() else { return };
    let files = [
        "blender_279_sausage_7400_binary.fbx",
        "maya_game_sausage_7500_binary_wiggle.fbx",
        "maya_game_sausage_7500_binary_spin.fbx",
        "maya_game_sausage_7500_binary_deform.fbx",
        "max_transformed_skin_7500_binary.fbx",
        "maya_transformed_skin_7700_binary.fbx",
        "maya_pivot_offset_7700_binary.fbx",
    ];
    let mut reduced_somewhere = false;
    for name in files {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let reduced_opts = FbxOptions::default();
        let (reduced, report) = convert(&bytes, name, &reduced_opts).unwrap();
        let (full, _) = convert(
            &bytes,
            name,
            &FbxOptions {
                reduce_keys: false,
                ..Default::default()
            },
        )
        .unwrap();
        // (A file whose curves hold between few keys is sampled at little more than
        // its keys, and may have nothing left to reduce.)
        reduced_somewhere |= report.keys_after() < report.keys_before();
        let depth = (0..reduced.skeleton.bones.len())
            .map(|mut b| {
                let mut d = 1;
                while let Some(p) = reduced.skeleton.bones[b].parent_index() {
                    d += 1;
                    b = p;
                }
                d
            })
            .max()
            .unwrap();
        let bound = f64::from(reduced_opts.key_tolerance.tolerance) * depth as f64 + 1e-6;
        for (c, clip) in full.clips.iter().enumerate() {
            let times: Vec<f32> = clip.tracks[0].keys.iter().map(|k| k.time).collect();
            let mut worst = 0.0f64;
            for w in times.windows(2) {
                for t in [f64::from(w[0]), (f64::from(w[0]) + f64::from(w[1])) / 2.0] {
                    let a = skinned_positions(&reduced, c, t);
                    let b = skinned_positions(&full, c, t);
                    for (p, q) in a.iter().zip(&b) {
                        let d = (0..3)
                            .map(|k| f64::from(p[k] - q[k]).powi(2))
                            .sum::<f64>()
                            .sqrt();
                        worst = worst.max(d);
                    }
                }
            }
            eprintln!(
                "{name} {}: keys {} -> {}, worst vertex error {worst:.2e} m (bound {bound:.1e})",
                clip.name,
                full.clips[c]
                    .tracks
                    .iter()
                    .map(|t| t.keys.len())
                    .sum::<usize>(),
                reduced.clips[c]
                    .tracks
                    .iter()
                    .map(|t| t.keys.len())
                    .sum::<usize>()
            );
            assert!(
                worst <= bound,
                "{name} {}: vertex error {worst} > {bound}",
                clip.name
            );
        }
    }
    assert!(reduced_somewhere, "no file had a key to reduce");
}
