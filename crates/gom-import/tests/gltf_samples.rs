//! Every glTF sample of `../shared/data/gltf` converts, follows GOM's rules, and poses
//! like the glTF document itself: at several times of every clip, the skinned
//! triangles equal a reference computed straight from the document with glam
//! (column vectors, `jointMatrix = globalJoint * inverseBind`, then the Z mirror).

mod gltf_common;

use gltf_common::*;
use gom_import::gltf::{import, GltfOptions};

/// Times to check in a clip: the start, inner points, the end and past the end. For
/// clips with CUBICSPLINE channels (resampled at 30 Hz) only sample-grid times.
fn check_times(path: &std::path::Path, animation: usize, duration: f32) -> Vec<f32> {
    let (doc, _) = load(path);
    let cubic = doc
        .animations()
        .nth(animation)
        .unwrap()
        .channels()
        .any(|c| c.sampler().interpolation() == gltf::animation::Interpolation::CubicSpline);
    let mut v: Vec<f32> = [0.0, 0.13, 0.37, 0.5, 0.81, 1.0, 1.3]
        .iter()
        .map(|f| f * duration)
        .collect();
    if cubic {
        v = v
            .into_iter()
            .map(|t| ((f64::from(t) * 30.0).round() / 30.0) as f32)
            .collect();
    }
    v
}

/// Checks, at every [`check_times`] of every clip of `model` (imported from `path`),
/// that `posed(clip, t)` gives the reference triangles of the document.
fn clips_pose_like_the_reference(
    path: &std::path::Path,
    model: &gom::Model,
    posed: impl Fn(usize, f32) -> Vec<Tri>,
) {
    for (ci, clip) in model.clips.iter().enumerate() {
        for t in check_times(path, ci, clip.duration) {
            let reference = reference_triangles(path, Some(ci), t);
            assert!(
                !reference.is_empty(),
                "{}: nothing to compare",
                path.display()
            );
            same_triangles(&posed(ci, t), &reference, 1e-4)
                .unwrap_or_else(|e| panic!("{}, clip {} at {t} s: {e}", path.display(), clip.name));
        }
    }
}

#[test]
fn every_sample_converts_and_follows_the_gom_rules() {
    let samples = samples();
    if samples.is_empty() {
        return;
    }
    for path in &samples {
        let (model, report) = import(path, &GltfOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.display();
        assert!(!model.meshes.is_empty(), "{name}: no mesh");
        assert_eq!(model.header.converter_version, gom::CONVERTER_VERSION);
        let bytes = std::fs::read(path).unwrap();
        let hash: [u8; 32] = sha2::Digest::finalize(sha2::Digest::chain_update(
            <sha2::Sha256 as sha2::Digest>::new(),
            &bytes,
        ))
        .into();
        assert_eq!(model.header.source_hash, hash, "{name}: sourceHash");
        // Parents first, unique paths.
        let mut paths = std::collections::BTreeSet::new();
        for (i, b) in model.skeleton.bones.iter().enumerate() {
            assert!(b.parent < i as i32, "{name}: bone {i} parent {}", b.parent);
            assert!(
                paths.insert(b.path.clone()),
                "{name}: duplicate path {}",
                b.path
            );
        }
        let findings = gom::validate::validate(&model);
        assert!(findings.is_empty(), "{name}: {findings:?}");
        // And it survives the GOMB writer and reader.
        let gomb = gom::gomb::write(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = gom::gomb::read(&gomb).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(back.findings.is_empty(), "{name}: {:?}", back.findings);
        eprintln!(
            "{name}: {} bones, {} meshes, {} clips, warnings {:?}",
            model.skeleton.bones.len(),
            model.meshes.len(),
            model.clips.len(),
            report.report.warnings
        );
    }
}

#[test]
fn posed_samples_match_the_gltf_reference() {
    let samples = samples();
    if samples.is_empty() {
        return;
    }
    for path in &samples {
        let name = path.display();
        let (model, _) = import(path, &GltfOptions::default()).unwrap();
        // Rest pose.
        let reference = reference_triangles(path, None, 0.0);
        assert!(!reference.is_empty(), "{name}: nothing to compare");
        let ours = gom_triangles(&model, None, 0.0);
        same_triangles(&ours, &reference, 1e-4)
            .unwrap_or_else(|e| panic!("{name}, rest pose: {e}"));
        clips_pose_like_the_reference(path, &model, |ci, t| gom_triangles(&model, Some(ci), t));
    }
}

#[test]
fn step_keys_jump_at_the_key_time() {
    let Some(dir) = data_dir() else {
        return;
    };
    let path = dir.join("InterpolationTest.gltf");
    let (model, _) = import(&path, &GltfOptions::default()).unwrap();
    let (doc, buffers) = load(&path);
    let mut checked = 0;
    for (ci, anim) in doc.animations().enumerate() {
        for ch in anim.channels() {
            if ch.sampler().interpolation() != gltf::animation::Interpolation::Step {
                continue;
            }
            let inputs = input_times(&ch, &buffers);
            let node_name = ch.target().node().name().unwrap().to_string();
            let bone = model
                .skeleton
                .bones
                .iter()
                .position(|b| b.name == node_name)
                .unwrap();
            let track = model.clips[ci]
                .tracks
                .iter()
                .find(|t| t.bone as usize == bone)
                .unwrap();
            // Every input time after the first has a key one f32 step below it that
            // still holds the previous value, so sampling jumps exactly there.
            for w in inputs.windows(2) {
                let below = f32::from_bits(w[1].to_bits() - 1);
                let at = track.keys.iter().position(|k| k.time == w[1]).unwrap();
                let before = track.keys.iter().position(|k| k.time == below).unwrap();
                let hold = track.keys.iter().position(|k| k.time == w[0]).unwrap();
                assert_eq!(before + 1, at);
                assert_eq!(track.keys[before].translation, track.keys[hold].translation);
                assert_eq!(track.keys[before].rotation, track.keys[hold].rotation);
                assert_eq!(track.keys[before].scale, track.keys[hold].scale);
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "InterpolationTest has STEP channels");
}

/// Poses every mesh of a GOMB file with `gom-runtime` (sample, local_to_model,
/// palette, skin) and returns its triangles.
fn runtime_triangles(asset: &gom_runtime::Asset, clip: usize, t: f32) -> Vec<Tri> {
    use gom_runtime::*;
    let (mut ctx, mut local, mut model, mut palette) = (
        SamplingContext::new(),
        LocalPose::default(),
        ModelPose::new(),
        Palette::new(),
    );
    sample(
        &asset.clips()[clip],
        asset.skeleton(),
        t,
        Playback::Once,
        &mut ctx,
        &mut local,
    )
    .unwrap();
    local_to_model(asset.skeleton(), &local, &mut model).unwrap();
    let mut out = Vec::new();
    for mesh in asset.meshes() {
        palette.compute(mesh, &model).unwrap();
        let mut positions = vec![[0.0; 3]; mesh.vertex_count()];
        skin(
            mesh,
            &palette,
            SkinTargets {
                positions: Some(&mut positions),
                ..Default::default()
            },
        )
        .unwrap();
        let idx: Vec<usize> = (0..mesh.indices().len())
            .map(|i| mesh.indices().get(i).unwrap() as usize)
            .collect();
        for tri in idx.chunks_exact(3) {
            out.push([positions[tri[0]], positions[tri[1]], positions[tri[2]]]);
        }
    }
    out
}

#[test]
fn gom_runtime_poses_converted_samples_like_the_gltf_reference() {
    let samples = samples();
    if samples.is_empty() {
        return;
    }
    for path in &samples {
        let name = path.display();
        let (model, _) = import(path, &GltfOptions::default()).unwrap();
        let bytes = gom::gomb::write(&model).unwrap();
        let asset = gom_runtime::Asset::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        clips_pose_like_the_reference(path, &model, |ci, t| runtime_triangles(&asset, ci, t));
    }
}

#[test]
fn cubic_channels_are_resampled_at_the_sample_rate() {
    let Some(dir) = data_dir() else {
        return;
    };
    let path = dir.join("InterpolationTest.gltf");
    let (doc, buffers) = load(&path);
    for rate in [30.0f32, 10.0] {
        let (model, _) = import(&path, &GltfOptions { sample_rate: rate }).unwrap();
        let mut checked = 0;
        for (ci, anim) in doc.animations().enumerate() {
            for ch in anim.channels() {
                if ch.sampler().interpolation() != gltf::animation::Interpolation::CubicSpline {
                    continue;
                }
                let inputs = input_times(&ch, &buffers);
                let (first, last) = (inputs[0], inputs[inputs.len() - 1]);
                let clip = &model.clips[ci];
                assert_eq!(clip.sample_rate, rate);
                let times: Vec<f32> = clip.tracks[0].keys.iter().map(|k| k.time).collect();
                // Every key is an input time or a multiple of 1/rate inside the range,
                // and every such multiple is there.
                let grid: Vec<f32> = (0..)
                    .map(|i| (f64::from(i) / f64::from(rate)) as f32)
                    .skip_while(|&t| t <= first)
                    .take_while(|&t| t < last)
                    .collect();
                for t in &times {
                    assert!(
                        inputs.contains(t) || grid.contains(t),
                        "{}: key at {t}",
                        clip.name
                    );
                }
                for t in grid.iter().chain(&inputs) {
                    assert!(times.contains(t), "{}: no key at {t}", clip.name);
                }
                checked += 1;
            }
        }
        assert!(checked > 0, "InterpolationTest has CUBICSPLINE channels");
    }
}
