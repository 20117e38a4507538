//! The import pipeline ([`gom_import::pipeline`]) end to end through
//! `gom_import::source::import_path`: animation files mapped and retargeted onto one
//! skeleton, clip control, and the units and axes overrides. Poses come from the
//! runtime (`gom_runtime::pose_at`), expectations from the files each clip came from
//! or from hand-computed values.

use glam::{Affine3A, Quat, Vec3};
use gom_import::pipeline::Axis;
use gom_import::source::{import_path, ImportOptions};
use gom_runtime::{Asset, Playback};
use std::path::{Path, PathBuf};

mod shared_data;

/// The model-space bone matrices of `model` playing clip `clip` at `time`.
fn pose(model: &gom::Model, clip: &str, time: f32) -> Vec<Affine3A> {
    let asset = Asset::from_model(model).unwrap();
    let index = model.clips.iter().position(|c| c.name == clip);
    let index = index.unwrap_or_else(|| panic!("no clip {clip}"));
    let pose = asset.model_pose(Some(index), time, Playback::Once).unwrap();
    pose.matrices().to_vec()
}

fn bone(model: &gom::Model, name: &str) -> usize {
    let found = model.skeleton.bones.iter().position(|b| b.name == name);
    found.unwrap_or_else(|| panic!("no bone {name}"))
}

fn max_diff(a: &Affine3A, b: &Affine3A) -> f32 {
    let (a, b) = (a.to_cols_array(), b.to_cols_array());
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// The `tolerance` of the shared frames.json entries for `fbx`, in the file's units.
fn frames_tolerance(dir: &Path, fbx: &str) -> f64 {
    let text = std::fs::read_to_string(dir.join("frames.json")).unwrap();
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    entries
        .iter()
        .filter(|e| e["fbx"] == fbx)
        .filter_map(|e| e["tolerance"].as_f64())
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn sausage_clips_from_separate_files_pose_as_the_files_they_came_from() {
    let Some(dir) = shared_data::fbx_dir() else {
        return;
    };
    let file = |kind: &str| dir.join(format!("maya_game_sausage_7500_binary_{kind}.fbx"));
    // The deform file is the character: its skeleton is the others' and more (the
    // helper bones its animated scale needs, a fourth joint).
    let options = ImportOptions {
        anim: vec![file("wiggle"), file("spin")],
        ..Default::default()
    };
    let merged = import_path(&file("deform"), &options).unwrap();
    assert!(merged.report["pipeline"]["anim"][0]["droppedTracks"]
        .as_array()
        .is_some_and(|d| d.is_empty()));
    // The same rig: every bind agrees, so the keys are carried over unchanged.
    assert_eq!(
        merged.report["pipeline"]["anim"][1]["retargetedBones"],
        serde_json::json!([])
    );
    let merged = &merged.model;
    for kind in ["wiggle", "spin", "deform"] {
        let own = import_path(&file(kind), &ImportOptions::default())
            .unwrap()
            .model;
        assert_eq!(own.clips.len(), 1, "{kind}");
        let own_clip = &own.clips[0];
        // The character's own clip keeps its name; the others are named by file stem.
        let name = match kind {
            "deform" => own_clip.name.clone(),
            _ => format!("maya_game_sausage_7500_binary_{kind}"),
        };
        let clip = merged.clips.iter().find(|c| c.name == name).unwrap();
        assert_eq!(clip.duration, own_clip.duration, "{kind}");
        // The file is in centimetres; the tolerance is in its units.
        let tolerance =
            (frames_tolerance(&dir, &format!("maya_game_sausage_7500_binary_{kind}.fbx")) * 0.01)
                as f32;
        assert!(tolerance.is_finite() && tolerance > 0.0);
        let frames = (own_clip.duration * 24.0).round() as usize;
        for f in 0..=frames {
            let t = f as f32 / 24.0;
            let got = pose(merged, &name, t);
            let want = pose(&own, &own_clip.name, t);
            for (i, b) in own.skeleton.bones.iter().enumerate() {
                let d = max_diff(&got[bone(merged, &b.name)], &want[i]);
                assert!(d <= tolerance, "{kind} frame {f} bone {}: {d}", b.name);
            }
        }
    }
}

/// A bone at `t` with rotation `q` and unit scale.
fn bone_at(name: &str, parent: i32, t: [f32; 3], q: Quat) -> gom::Bone {
    gom::Bone {
        name: name.into(),
        path: name.into(),
        parent,
        bind_local: gom::math::from_trs(t, q.to_array(), [1.0; 3]),
    }
}

fn key(time: f32, t: [f32; 3], q: Quat) -> gom::Key {
    gom::Key {
        time,
        translation: t,
        rotation: q.to_array(),
        scale: [1.0; 3],
    }
}

fn clip(name: &str, duration: f32, tracks: Vec<gom::Track>) -> gom::Clip {
    gom::Clip {
        name: name.into(),
        duration,
        sample_rate: 30.0,
        root_bone_index: -1,
        tracks,
        ..Default::default()
    }
}

fn write_gom(dir: &Path, name: &str, model: &gom::Model) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, gom::gomb::write(model).unwrap()).unwrap();
    path
}

fn write_glb(dir: &Path, name: &str, model: &gom::Model) -> PathBuf {
    let path = dir.join(name);
    let format = gom_import::source::OutputFormat::Glb;
    let (bytes, _) = gom_import::source::export(model, format, &path).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_prefixed_gltf_animation_with_another_bind_pose_is_retargeted() {
    let dir = tempfile::tempdir().unwrap();
    let quarter = std::f32::consts::FRAC_PI_2;
    let character = gom::Model {
        skeleton: gom::Skeleton {
            bones: vec![
                bone_at("Hips", -1, [0.0, 1.0, 0.0], Quat::IDENTITY),
                bone_at("Spine", 0, [0.0, 0.5, 0.0], Quat::IDENTITY),
                bone_at("Arm", 1, [0.0, 0.2, 0.0], Quat::IDENTITY),
                bone_at("Head", 1, [0.0, 0.4, 0.0], Quat::IDENTITY),
            ],
        },
        ..Default::default()
    };
    let character_path = write_gom(dir.path(), "character.gom", &character);
    // The other rig: taller, its spine bound turned a quarter about Z, a tail.
    let spine_bind = Quat::from_rotation_z(quarter);
    let anim = gom::Model {
        skeleton: gom::Skeleton {
            bones: vec![
                bone_at("mixamorig:Hips", -1, [0.0, 2.0, 0.0], Quat::IDENTITY),
                bone_at("mixamorig:Spine", 0, [0.0, 0.7, 0.0], spine_bind),
                bone_at("mixamorig:Arm", 1, [0.0, 0.3, 0.0], Quat::IDENTITY),
                bone_at("mixamorig:Tail", 0, [0.0, -0.3, 0.0], Quat::IDENTITY),
            ],
        },
        clips: vec![clip(
            "mixamo.com",
            1.0,
            vec![
                gom::Track {
                    bone: 0,
                    keys: vec![
                        key(0.0, [0.0, 2.0, 0.0], Quat::IDENTITY),
                        key(1.0, [1.0, 2.0, 0.0], Quat::IDENTITY),
                    ],
                },
                gom::Track {
                    bone: 1,
                    keys: vec![
                        key(0.0, [0.0, 0.7, 0.0], spine_bind),
                        key(
                            1.0,
                            [0.0, 0.7, 0.0],
                            spine_bind * Quat::from_rotation_x(quarter),
                        ),
                    ],
                },
                gom::Track {
                    bone: 2,
                    keys: vec![
                        key(0.0, [0.0, 0.3, 0.0], Quat::IDENTITY),
                        key(1.0, [0.0, 0.3, 0.0], Quat::from_rotation_y(quarter)),
                    ],
                },
                gom::Track {
                    bone: 3,
                    keys: vec![key(0.0, [0.0, -0.3, 0.0], Quat::IDENTITY)],
                },
            ],
        )],
        ..Default::default()
    };
    let anim_path = write_glb(dir.path(), "walk.glb", &anim);
    let options = ImportOptions {
        anim: vec![anim_path],
        ..Default::default()
    };
    let imported = import_path(&character_path, &options).unwrap();
    let model = &imported.model;
    assert_eq!(model.clips.len(), 1);
    assert_eq!(
        model.clips[0].name, "walk",
        "one clip takes the file's stem"
    );

    let end = pose(model, "walk", 1.0);
    let at = |name: &str| end[bone(model, name)];
    let close = |got: Vec3, want: Vec3, what: &str| {
        assert!(got.abs_diff_eq(want, 1e-5), "{what}: {got} != {want}");
    };
    // Hips: a top bone, so the animation's translation (1, 2, 0) stands.
    close(
        at("Hips").translation.into(),
        Vec3::new(1.0, 2.0, 0.0),
        "hips",
    );
    // Spine: the character's 0.5 above the hips; its rotation the change from the
    // other rig's bind, a quarter about its own X.
    close(
        at("Spine").translation.into(),
        Vec3::new(1.0, 2.5, 0.0),
        "spine",
    );
    let spine_rotation = Quat::from_mat3a(&at("Spine").matrix3);
    assert!(
        spine_rotation.abs_diff_eq(Quat::from_rotation_x(quarter), 1e-5)
            || spine_rotation.abs_diff_eq(-Quat::from_rotation_x(quarter), 1e-5)
    );
    // Arm: 0.2 up the spine's Y, which the quarter turn about X points along +Z.
    close(
        at("Arm").translation.into(),
        Vec3::new(1.0, 2.5, 0.2),
        "arm",
    );
    let arm = at("Arm").transform_vector3(Vec3::X);
    close(
        arm,
        Quat::from_rotation_x(quarter) * Quat::from_rotation_y(quarter) * Vec3::X,
        "arm x axis",
    );
    // Head: not animated, so it holds the character's bind 0.4 up the spine.
    close(
        at("Head").translation.into(),
        Vec3::new(1.0, 2.5, 0.4),
        "head",
    );

    let report = &imported.report["pipeline"]["anim"][0];
    assert_eq!(
        report["droppedTracks"],
        serde_json::json!(["mixamorig:Tail"])
    );
    assert_eq!(report["heldBones"], serde_json::json!(["Head"]));
    assert_eq!(report["matched"][0]["how"], "without-prefix");
    assert!(imported
        .warnings
        .iter()
        .any(|w| w.contains("mixamorig:Tail")));

    // With the translations kept, the arm sits the other rig's 0.3 up the spine.
    let keep = ImportOptions {
        keep_translations: true,
        ..options
    };
    let kept = import_path(&character_path, &keep).unwrap().model;
    let end = pose(&kept, "walk", 1.0);
    let spine = end[bone(&kept, "Spine")].translation;
    close(spine.into(), Vec3::new(1.0, 2.7, 0.0), "kept spine");
}

/// A take of 61 frames at 30 Hz whose one track moves x by one per frame, and three
/// short clips.
fn takes_model() -> gom::Model {
    let frames = (0..=60)
        .map(|f| key(f as f32 / 30.0, [f as f32, 0.0, 0.0], Quat::IDENTITY))
        .collect();
    let short = |name: &str| {
        let keys = vec![
            key(0.0, [0.0; 3], Quat::IDENTITY),
            key(1.0, [1.0, 0.0, 0.0], Quat::IDENTITY),
        ];
        clip(name, 1.0, vec![gom::Track { bone: 0, keys }])
    };
    gom::Model {
        skeleton: gom::Skeleton {
            bones: vec![bone_at("root", -1, [0.0; 3], Quat::IDENTITY)],
        },
        clips: vec![
            clip(
                "Take 001",
                2.0,
                vec![gom::Track {
                    bone: 0,
                    keys: frames,
                }],
            ),
            short("idle"),
            short("run_fast"),
            short("run_slow"),
        ],
        ..Default::default()
    }
}

#[test]
fn clip_renames_ranges_and_filters_give_exactly_the_expected_clips() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_gom(dir.path(), "takes.gom", &takes_model());
    let options = ImportOptions {
        rename_clip: vec!["Take 001=take".parse().unwrap()],
        clip_range: vec![
            "take:10-20:walk".parse().unwrap(),
            "take:0.5s-1s:jump".parse().unwrap(),
            "take:40.5-42:step".parse().unwrap(),
        ],
        clip: vec!["run_*".into(), "walk".into(), "jump".into(), "st?p".into()],
        root_motion: Some("ROOT".into()),
        ..Default::default()
    };
    let model = import_path(&path, &options).unwrap().model;
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["run_fast", "run_slow", "walk", "jump", "step"]);
    let xs = |name: &str| -> Vec<f32> {
        let c = model.clips.iter().find(|c| c.name == name).unwrap();
        c.tracks[0].keys.iter().map(|k| k.translation[0]).collect()
    };
    let clip = |name: &str| model.clips.iter().find(|c| c.name == name).unwrap();
    assert_eq!(xs("walk"), (10..=20).map(|f| f as f32).collect::<Vec<_>>());
    assert!((clip("walk").duration - 10.0 / 30.0).abs() < 1e-6);
    assert_eq!(xs("jump"), (15..=30).map(|f| f as f32).collect::<Vec<_>>());
    assert!((clip("jump").duration - 0.5).abs() < 1e-6);
    // A range starting between frames starts with the interpolated value.
    let step = xs("step");
    assert_eq!(step.len(), 3);
    assert!((step[0] - 40.5).abs() < 1e-4 && step[1] == 41.0 && step[2] == 42.0);
    let walk_times: Vec<f32> = clip("walk").tracks[0].keys.iter().map(|k| k.time).collect();
    for (i, t) in walk_times.iter().enumerate() {
        assert!((t - i as f32 / 30.0).abs() < 1e-5, "walk key {i} at {t}");
    }
    // Root motion on the bone matched ignoring case, in every clip.
    assert!(model
        .clips
        .iter()
        .all(|c| c.root_bone_index == 0 && c.flags.has_root_motion()));

    // In place: a range without a new name trims its clip.
    let trim = ImportOptions {
        clip_range: vec!["idle:0s-0.5s".parse().unwrap()],
        ..Default::default()
    };
    let model = import_path(&path, &trim).unwrap().model;
    let idle = model.clips.iter().find(|c| c.name == "idle").unwrap();
    assert_eq!(idle.duration, 0.5);
    let keys = &idle.tracks[0].keys;
    assert_eq!(keys.len(), 2);
    assert_eq!((keys[1].time, keys[1].translation[0]), (0.5, 0.5));
    assert_eq!(model.clips.len(), 4);

    for bad in ["missing:0-1", "take:10-90"] {
        let o = ImportOptions {
            clip_range: vec![bad.parse().unwrap()],
            ..Default::default()
        };
        assert!(import_path(&path, &o).is_err(), "{bad}");
    }
}

/// `model` with every translation (bind, inverse bind, key), position and bound
/// multiplied by `s`: what a uniform scale must give and all it may change.
fn scaled_by_hand(mut model: gom::Model, s: f32) -> gom::Model {
    let scale_t = |m: &mut gom::Mat4| m[12..15].iter_mut().for_each(|x| *x *= s);
    for b in &mut model.skeleton.bones {
        scale_t(&mut b.bind_local);
    }
    for m in &mut model.meshes {
        m.vertices
            .positions
            .iter_mut()
            .flatten()
            .for_each(|x| *x *= s);
        m.inverse_bind.iter_mut().for_each(scale_t);
        m.mesh_bind_geo_to_model.iter_mut().for_each(scale_t);
        if let Some(b) = &mut m.bounds {
            b.aabb_min
                .iter_mut()
                .chain(&mut b.aabb_max)
                .chain(&mut b.sphere_center)
                .for_each(|x| *x *= s);
            b.sphere_radius *= s;
        }
    }
    for c in &mut model.clips {
        for k in c.tracks.iter_mut().flat_map(|t| &mut t.keys) {
            k.translation.iter_mut().for_each(|x| *x *= s);
        }
    }
    model
}

#[test]
fn scale_multiplies_positions_bind_and_key_translations_and_nothing_else() {
    let Some(dir) = shared_data::fbx_dir() else {
        return;
    };
    let path = dir.join("maya_game_sausage_7500_binary_wiggle.fbx");
    let plain = import_path(&path, &ImportOptions::default()).unwrap().model;
    let options = ImportOptions {
        scale: 0.01,
        ..Default::default()
    };
    let scaled = import_path(&path, &options).unwrap();
    assert_eq!(scaled.model, scaled_by_hand(plain, 0.01));
    assert_eq!(scaled.report["pipeline"]["space"]["scale"], 0.01f32 as f64);
}

#[test]
fn a_unit_override_scales_as_the_unit_says() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_gom(dir.path(), "takes.gom", &takes_model());
    let plain = import_path(&path, &ImportOptions::default()).unwrap().model;
    let cm = ImportOptions {
        unit: Some(gom_import::pipeline::LengthUnit::Cm),
        ..Default::default()
    };
    assert_eq!(
        import_path(&path, &cm).unwrap().model,
        scaled_by_hand(plain.clone(), 0.01)
    );
    let inches = ImportOptions {
        unit: Some(gom_import::pipeline::LengthUnit::In),
        ..Default::default()
    };
    assert_eq!(
        import_path(&path, &inches).unwrap().model,
        scaled_by_hand(plain, 0.0254)
    );

    // A centimetre FBX said to be in metres grows a hundredfold.
    let Some(fbx) = shared_data::fbx_dir() else {
        return;
    };
    let sausage = fbx.join("maya_game_sausage_7500_binary_wiggle.fbx");
    let plain = import_path(&sausage, &ImportOptions::default())
        .unwrap()
        .model;
    let metres = ImportOptions {
        unit: Some(gom_import::pipeline::LengthUnit::M),
        ..Default::default()
    };
    let grown = import_path(&sausage, &metres).unwrap().model;
    let (a, b) = (
        &plain.meshes[0].vertices.positions,
        &grown.meshes[0].vertices.positions,
    );
    for (p, q) in a.iter().zip(b) {
        for i in 0..3 {
            assert!(
                (q[i] - 100.0 * p[i]).abs() <= 1e-4 * q[i].abs().max(1.0),
                "{p:?} {q:?}"
            );
        }
    }
}

#[test]
fn up_and_forward_overrides_turn_the_model_as_hand_computed() {
    let dir = tempfile::tempdir().unwrap();
    // A glTF file written Z-up by mistake: a bone 2 m along the file's +Z, which is
    // its up, and a clip moving it 1 m along the file's +X.
    let model = gom::Model {
        skeleton: gom::Skeleton {
            bones: vec![bone_at("root", -1, [0.0, 0.0, -2.0], Quat::IDENTITY)],
        },
        clips: vec![clip(
            "move",
            1.0,
            vec![gom::Track {
                bone: 0,
                keys: vec![
                    key(0.0, [0.0, 0.0, -2.0], Quat::IDENTITY),
                    key(1.0, [1.0, 0.0, -2.0], Quat::IDENTITY),
                ],
            }],
        )],
        ..Default::default()
    };
    // GOM (x, y, z) is glTF (x, y, -z): the bone is at the file's (0, 0, 2).
    let path = write_glb(dir.path(), "zup.glb", &model);
    let up = ImportOptions {
        up: Some(Axis::PosZ),
        ..Default::default()
    };
    let turned = import_path(&path, &up).unwrap().model;
    let p = |m: &gom::Model, t: f32| Vec3::from(pose(m, "move", t)[0].translation);
    // Up is up: the file's +Z is GOM's +Y; the file's +X stays GOM's +X.
    assert!(p(&turned, 0.0).abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-6));
    assert!(p(&turned, 1.0).abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6));

    // Forward +X: the file's +X becomes GOM's +Z (forward), its Y stays up.
    let forward = ImportOptions {
        forward: Some(Axis::PosX),
        ..Default::default()
    };
    let turned = import_path(&path, &forward).unwrap().model;
    assert!(
        p(&turned, 1.0).abs_diff_eq(Vec3::new(2.0, 0.0, 1.0), 1e-6),
        "{}",
        p(&turned, 1.0)
    );

    // The header's own axes change nothing.
    let same = ImportOptions {
        up: Some(Axis::PosY),
        ..Default::default()
    };
    let plain = import_path(&path, &ImportOptions::default()).unwrap().model;
    assert_eq!(import_path(&path, &same).unwrap().model, plain);
}

/// An animation file's weight tracks land on the model's mesh and target of the same
/// names, whatever their indices in the animation file; tracks of targets the model
/// lacks are dropped.
#[test]
fn merged_weight_tracks_follow_mesh_and_target_names() {
    let model = gom_demo::with_morphs(gom_demo::build());
    // The animation file: the same rig with its meshes in the other order and the
    // targets of the tentacle swapped, plus a track of a target the model lacks.
    let mut anim = model.clone();
    anim.meshes.reverse();
    let tentacle = anim.meshes.len() - 1;
    anim.meshes[tentacle].morph_targets.reverse();
    let mut extra = anim.meshes[tentacle].morph_targets[0].clone();
    extra.name = "only in the animation".into();
    anim.meshes[tentacle].morph_targets.push(extra);
    let curl = &mut anim.clips[1];
    let keys = curl.weight_tracks[0].keys.clone();
    curl.weight_tracks = vec![
        gom::morph::WeightTrack {
            mesh: tentacle as u32,
            target: 0, // "flatten" in the animation file
            interpolation: gom::morph::WeightInterpolation::Linear,
            keys: keys.clone(),
        },
        gom::morph::WeightTrack {
            mesh: tentacle as u32,
            target: 2, // a target the model lacks
            interpolation: gom::morph::WeightInterpolation::Linear,
            keys,
        },
    ];
    let mut merged = model.clone();
    gom_import::pipeline::anim::add_clips(
        &mut merged,
        &anim,
        "anim.gom",
        "anim",
        &Default::default(),
        false,
    )
    .expect("add clips");
    let added = merged.clips.last().expect("a clip");
    // "flatten" is target 1 of the model's mesh 0.
    assert_eq!(added.weight_tracks.len(), 1);
    assert_eq!(
        (added.weight_tracks[0].mesh, added.weight_tracks[0].target),
        (0, 1)
    );
    assert_eq!(
        added.weight_tracks[0].keys,
        model.clips[1].weight_tracks[0].keys
    );
    assert!(gom::validate::validate(&merged).is_empty());
}
