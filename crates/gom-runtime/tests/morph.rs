//! Blend shapes at run time: the morpher against a dense evaluation of the formula,
//! morph-then-skin against skinning a model with the morph baked in, and weight
//! sampling against hand-computed values.

use gom::morph::{WeightInterpolation, WeightKey, WeightTrack};
use gom_runtime::{Asset, Morpher, Palette, Playback, SkinTargets};

fn demo() -> gom::Model {
    gom_demo::with_morphs(gom_demo::build())
}

/// The mesh's positions and normals with `weights` applied, computed densely from the
/// model's targets and the formula of docs/extensions.md §4.1 (in f64).
fn dense(mesh: &gom::MeshPart, weights: &[f32]) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let v = &mesh.vertices;
    let mut p: Vec<[f64; 3]> = v.positions.iter().map(|x| x.map(f64::from)).collect();
    let normals = v.normals.as_ref().unwrap();
    let mut n: Vec<[f64; 3]> = normals.iter().map(|x| x.map(f64::from)).collect();
    for (t, &w) in mesh.morph_targets.iter().zip(weights) {
        for (k, &i) in t.indices.iter().enumerate() {
            for c in 0..3 {
                p[i as usize][c] += f64::from(w) * f64::from(t.positions[k][c]);
                n[i as usize][c] += f64::from(w) * f64::from(t.normals.as_ref().unwrap()[k][c]);
            }
        }
    }
    let unit = |x: [f64; 3]| {
        let l = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        x.map(|c| (c / l) as f32)
    };
    (
        p.iter().map(|x| x.map(|c| c as f32)).collect(),
        n.into_iter().map(unit).collect(),
    )
}

fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    a.iter()
        .zip(&b)
        .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

#[test]
fn the_morpher_matches_a_dense_evaluation_and_restores_between_calls() {
    let model = demo();
    let bytes = gom::gomb::write(&model).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let mesh = &asset.meshes()[0];
    let targets = asset.morph_targets(0);
    assert_eq!(targets.len(), 2);
    assert_eq!(targets.name(1), Some("flatten"));
    assert_eq!(targets.default_weights(), &[0.25, 0.0]);
    let mut m = Morpher::new(mesh);
    // The second call's result must not depend on the first's (restored vertices).
    for weights in [[1.0, 0.0], [0.0, 0.7], [-0.5, 1.5], [0.0, 0.0], [0.3, 0.2]] {
        let morphed = m.apply(mesh, targets, &weights).unwrap();
        let (p, n) = dense(&model.meshes[0], &weights);
        for i in 0..mesh.vertex_count() {
            assert!(
                close(morphed.position(i).unwrap(), p[i], 1e-6),
                "{weights:?} p{i}"
            );
            assert!(
                close(morphed.normal(i).unwrap(), n[i], 1e-6),
                "{weights:?} n{i}"
            );
        }
    }
    // Weights all 0: the bind mesh, word for word.
    let morphed = m.apply(mesh, targets, &[0.0, 0.0]).unwrap();
    assert_eq!(morphed.vertex_words(), mesh.vertex_words());
    assert!(
        m.apply(mesh, targets, &[1.0]).is_err(),
        "one weight per target"
    );
}

#[test]
fn morph_then_skin_equals_skinning_the_morph_baked_into_the_model() {
    let model = demo();
    let asset = Asset::from_model(&model).unwrap();
    let weights = [0.8f32, 0.5];
    let mut baked = model.clone();
    let (p, n) = dense(&model.meshes[0], &weights);
    baked.meshes[0].vertices.positions = p;
    baked.meshes[0].vertices.normals = Some(n);
    baked.meshes[0].morph_targets.clear();
    let baked = Asset::from_model(&baked).unwrap();
    let pose = asset.model_pose(Some(0), 0.7, Playback::Once).unwrap();
    let mut palette = Palette::new();
    palette.compute(&asset.meshes()[0], &pose).unwrap();
    let mut m = Morpher::new(&asset.meshes()[0]);
    let morphed = m
        .apply(&asset.meshes()[0], asset.morph_targets(0), &weights)
        .unwrap();
    let count = morphed.vertex_count();
    let skin = |mesh: &gom_runtime::Mesh| {
        let (mut p, mut n) = (vec![[0.0; 3]; count], vec![[0.0; 3]; count]);
        gom_runtime::skin(
            mesh,
            &palette,
            SkinTargets {
                positions: Some(&mut p),
                normals: Some(&mut n),
                tangents: None,
            },
        )
        .unwrap();
        (p, n)
    };
    let (pa, na) = skin(morphed);
    let (pb, nb) = skin(&baked.meshes()[0]);
    for i in 0..count {
        assert!(
            close(pa[i], pb[i], 1e-5),
            "vertex {i}: {:?} {:?}",
            pa[i],
            pb[i]
        );
        assert!(close(na[i], nb[i], 1e-5), "normal {i}");
    }
}

#[test]
fn weights_sample_linear_step_defaults_and_loop() {
    let key = |time, weight| WeightKey { time, weight };
    let tracks = [
        WeightTrack {
            mesh: 0,
            target: 1,
            interpolation: WeightInterpolation::Linear,
            keys: vec![key(0.0, 0.0), key(1.0, 1.0)],
        },
        WeightTrack {
            mesh: 0,
            target: 2,
            interpolation: WeightInterpolation::Step,
            keys: vec![key(0.0, 0.5), key(0.5, 1.0)],
        },
        WeightTrack {
            mesh: 1,
            target: 0,
            interpolation: WeightInterpolation::Linear,
            keys: vec![key(0.0, 9.0)],
        },
    ];
    let defaults = [0.25, 0.0, 0.0];
    let mut w = [0.0; 3];
    let sample = |t, pb, w: &mut [f32]| {
        gom_runtime::sample_weights(&tracks, 0, &defaults, 2.0, t, pb, w).unwrap()
    };
    sample(0.25, Playback::Once, &mut w);
    assert_eq!(w, [0.25, 0.25, 0.5]);
    sample(0.75, Playback::Once, &mut w);
    assert_eq!(w, [0.25, 0.75, 1.0]);
    sample(3.0, Playback::Once, &mut w);
    assert_eq!(w, [0.25, 1.0, 1.0]);
    sample(2.25, Playback::Loop, &mut w);
    assert_eq!(w, [0.25, 0.25, 0.5]);
    let mut short = [0.0; 2];
    assert!(gom_runtime::sample_weights(
        &tracks,
        0,
        &defaults,
        2.0,
        0.0,
        Playback::Once,
        &mut short
    )
    .is_err());
}

#[test]
fn posed_meshes_apply_the_clips_weights() {
    let model = demo();
    let bytes = gom::gomb::write(&model).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    // The curl clip keys flatten to 1 at half its duration; bulge keeps 0.25.
    let half = asset.clips()[1].duration() / 2.0;
    let mut w = [0.0; 2];
    asset
        .sample_weights(Some(1), 0, half, Playback::Once, &mut w)
        .unwrap();
    assert_eq!(w, [0.25, 1.0]);
    let posed = asset.posed_meshes(Some(1), half, Playback::Once).unwrap();
    let mut baked = model.clone();
    let (p, n) = dense(&model.meshes[0], &w);
    baked.meshes[0].vertices.positions = p;
    baked.meshes[0].vertices.normals = Some(n);
    baked.meshes[0].morph_targets.clear();
    baked.clips[1].weight_tracks.clear();
    let expected = Asset::from_model(&baked)
        .unwrap()
        .posed_meshes(Some(1), half, Playback::Once)
        .unwrap();
    for (a, b) in posed[0].positions.iter().zip(&expected[0].positions) {
        assert!(close(*a, *b, 1e-5), "{a:?} {b:?}");
    }
    // Without a clip, the default weights apply.
    let bind = asset.posed_meshes(None, 0.0, Playback::Once).unwrap();
    let unmorphed = Asset::from_model(&gom_demo::build())
        .unwrap()
        .posed_meshes(None, 0.0, Playback::Once)
        .unwrap();
    assert_ne!(bind[0].positions, unmorphed[0].positions);
    assert_eq!(bind[1].positions, unmorphed[1].positions);
}
