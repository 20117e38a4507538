//! The C programs of the extension entry points (blend shapes, additive clips and
//! IK, float tracks and events), each built with the sanitizers and given task lines
//! with what `gom pose` writes or what the Rust runtime computes for the same inputs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::{vec3, Vec3};
use gom::additive::{make_additive, reference_pose, Reference};
use gom::events::{Event, FloatTrack, Interpolation};
use gom_runtime::{
    apply_aim_ik, apply_two_bone_ik, blend_additive, local_to_model, sample, AimIk, Asset,
    LocalPose, ModelPose, Playback, SamplingContext, TwoBoneIk,
};

use super::{build_libgom, compile, expected_pose, have_cc, run_sanitized, CRATE};

/// The demo with blend shapes (`gom_demo::with_morphs`), float tracks and events on
/// "swish", and two additive clips: "swish+bind" (from the bind pose) and "curl+swish"
/// (from "swish" at 0.25 s).
pub(crate) fn extended_demo() -> gom::Model {
    let mut m = gom_demo::with_morphs(gom_demo::build());
    let swish = m.clips[0].clone();
    let d = swish.duration;
    let event = |time: f32, name: &str, payload: Option<&str>| Event {
        time,
        name: name.into(),
        payload: payload.map(str::to_string),
    };
    m.clips[0].extras.events = vec![
        event(0.0, "start", None),
        event(0.25 * d, "step", Some("left")),
        event(0.5 * d, "step", Some("right")),
        event(d, "end", None),
    ];
    m.clips[0].extras.float_tracks = vec![
        FloatTrack {
            name: "blink".into(),
            components: 1,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5 * d, d],
            values: vec![0.0, 1.0, 0.25],
        },
        FloatTrack {
            name: "tint".into(),
            components: 3,
            interpolation: Interpolation::Step,
            times: vec![0.1 * d, 0.6 * d],
            values: vec![1.0, 2.0, 3.0, -4.0, 5.5, 6.0],
        },
    ];
    let references = [
        ("swish+bind", 0, Reference::BindPose),
        (
            "curl+swish",
            1,
            Reference::ClipFrame {
                clip: "swish".into(),
                time: 0.25,
            },
        ),
    ];
    for (name, of, reference) in references {
        let pose = reference_pose(&m, &reference).expect("reference pose");
        let mut add = make_additive(&m, &m.clips[of], reference, &pose).expect("additive");
        add.name = name.into();
        m.clips.push(add);
    }
    m
}

/// Compiles `tests/c/{program}.c` with the sanitizers, runs it on `tasks` and checks
/// that every check passed.
fn run_program(program: &str, dir: &Path, tasks: &str) {
    let lib = build_libgom();
    let exe = dir.join(program);
    let source = Path::new(CRATE).join(format!("tests/c/{program}.c"));
    compile(&[source], &lib, &exe, true);
    let list = dir.join(format!("{program}.txt"));
    std::fs::write(&list, tasks).expect("write tasks");
    let log = run_sanitized(std::process::Command::new(&exe).arg(&list));
    eprintln!("{log}");
    assert!(log.contains(" 0 failed checks"), "{log}");
}

/// A test's temporary folder with the extended demo written in it as GOMB: the
/// folder, the file, the model and its bytes; `None` (after saying why) without a C
/// compiler.
fn setup() -> Option<(tempfile::TempDir, PathBuf, gom::Model, Vec<u8>)> {
    if !have_cc() {
        return None;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let model = extended_demo();
    let bytes = gom::gomb::write(&model).expect("the extended demo writes");
    let file = dir.path().join("extended.gom");
    std::fs::write(&file, &bytes).expect("write");
    Some((dir, file, model, bytes))
}

/// Floats as words that parse back to the same bits.
fn floats(v: impl IntoIterator<Item = f32>) -> String {
    v.into_iter().map(|x| format!(" {x:?}")).collect()
}

#[test]
fn c_morph_program_matches_gom_pose_and_the_runtime_under_sanitizers() {
    let Some((dir, file, model, bytes)) = setup() else {
        return;
    };
    let asset = Asset::parse(&bytes).expect("the runtime reads it");
    let f = file.display();
    let mut t = String::new();
    for (mi, mesh) in model.meshes.iter().enumerate() {
        let _ = write!(t, "T {f} {mi} {}", mesh.morph_targets.len());
        for target in &mesh.morph_targets {
            let _ = write!(t, " {}{}", target.name, floats([target.default_weight]));
        }
        t.push('\n');
    }
    assert!(
        model.meshes[0].morph_targets.len() == 2,
        "the demo has blend shapes"
    );
    let bind = dir.path().join("bind.obj");
    expected_pose(&model, None, 0.0, false, &bind);
    let _ = writeln!(
        t,
        "S {f} -1 0 0 {}\nB {f} {}",
        bind.display(),
        bind.display()
    );
    for (ci, clip) in model.clips.iter().enumerate().take(2) {
        let d = clip.duration;
        for (k, (time, looped)) in [(0.3 * d, false), (1.6 * d, true), (-0.2 * d, true)]
            .into_iter()
            .enumerate()
        {
            let playback = if looped {
                Playback::Loop
            } else {
                Playback::Once
            };
            let mut w = vec![0.0; asset.morph_targets(0).len()];
            asset
                .sample_weights(Some(ci), 0, time, playback, &mut w)
                .expect("weights");
            let l = looped as i32;
            let _ = writeln!(t, "W {f} {ci} 0 {time:?} {l} {}{}", w.len(), floats(w));
            let obj = dir.path().join(format!("{ci}-{k}.obj"));
            expected_pose(&model, Some(&clip.name), time, looped, &obj);
            let _ = writeln!(t, "S {f} {ci} {time:?} {l} {}", obj.display());
        }
    }
    let _ = writeln!(t, "N {f}");
    run_program("morph_test", dir.path(), &t);
}

/// The runtime's local and model poses of clip `clip` at `time`, looped.
fn runtime_pose(asset: &Asset, clip: usize, time: f32) -> (LocalPose, ModelPose) {
    let (mut local, mut model) = (LocalPose::default(), ModelPose::new());
    let mut ctx = SamplingContext::new();
    let c = &asset.clips()[clip];
    sample(
        c,
        asset.skeleton(),
        time,
        Playback::Loop,
        &mut ctx,
        &mut local,
    )
    .expect("sample");
    local_to_model(asset.skeleton(), &local, &mut model).expect("local to model");
    (local, model)
}

/// `N` then the row-major matrices of `model`.
fn model_words(model: &ModelPose) -> String {
    let n = model.bone_count();
    let mut s = format!(" {n}");
    for i in 0..n {
        s += &floats(model.row_major(i).expect("a bone"));
    }
    s
}

fn v3(v: Vec3) -> String {
    floats(v.to_array())
}

#[test]
fn c_layers_program_matches_the_runtime_under_sanitizers() {
    let Some((dir, file, model, bytes)) = setup() else {
        return;
    };
    let asset = Asset::parse(&bytes).expect("the runtime reads it");
    let skeleton = asset.skeleton();
    let f = file.display();
    let find = |name: &str| model.clips.iter().position(|c| c.name == name).expect(name);
    let (swish_bind, curl_swish) = (find("swish+bind"), find("curl+swish"));
    let mut t = format!(
        "A {f} 0 0 0 0 -\nA {f} {swish_bind} 1 1 0 -\nA {f} {curl_swish} 1 2 {:?} swish\n",
        0.25f32
    );
    for (base, add, time, weight, masked) in [
        (1, swish_bind, 0.3f32, 1.0f32, false),
        (0, curl_swish, 0.7, 0.6, true),
        (1, curl_swish, 1.9, 1.4, false),
    ] {
        let (b, _) = runtime_pose(&asset, base, time);
        let (d, _) = runtime_pose(&asset, add, time);
        let mask: Vec<f32> = (0..b.bone_count()).map(|i| (i % 3) as f32 / 2.0).collect();
        let mut out = LocalPose::default();
        blend_additive(&b, &d, weight, masked.then_some(&mask[..]), &mut out).expect("blend");
        let n = out.bone_count();
        let _ = write!(
            t,
            "D {f} {base} {add} {time:?} {weight:?} {} {n}",
            masked as i32
        );
        for i in 0..n {
            let x = out.get(i).expect("a bone");
            t += &(v3(x.translation) + &floats(x.rotation.to_array()) + &v3(x.scale));
        }
        t.push('\n');
    }
    // Reachable and not, softened and twisted, half weight.
    let two_bone = [
        (vec3(0.3, 0.5, 0.1), Vec3::X, Vec3::Z, 1.0, 1.0, 0.0),
        (vec3(0.1, 3.0, 0.0), Vec3::Z, Vec3::Z, 1.0, 1.0, 0.0),
        (vec3(-0.2, 0.6, 0.3), Vec3::NEG_X, Vec3::X, 0.5, 0.8, 0.4),
        (vec3(0.0, 0.8, 0.2), Vec3::X, Vec3::Z, 1.0, 0.9, 0.0),
    ];
    let mut outcomes = Vec::new();
    for (clip, time) in [(0, 0.0f32), (1, 0.45)] {
        for (target, pole, axis, weight, soften, twist) in two_bone {
            let (mut local, mut model) = runtime_pose(&asset, clip, time);
            let p = TwoBoneIk {
                target,
                pole,
                mid_axis: axis,
                weight,
                soften,
                twist,
            };
            let reached = apply_two_bone_ik(skeleton, [1, 2, 3], &p, &mut local, &mut model)
                .expect("two-bone IK");
            outcomes.push(reached);
            let _ = writeln!(
                t,
                "K {f} {clip} {time:?} 1 2 3{}{}{}{} {}{}",
                v3(target),
                v3(pole),
                v3(axis),
                floats([weight, soften, twist]),
                reached as i32,
                model_words(&model)
            );
        }
        let aim = AimIk {
            target: vec3(0.5, 1.4, 0.5),
            forward: Vec3::Y,
            up: Vec3::X,
            offset: vec3(0.05, 0.0, 0.0),
            pole: Vec3::Z,
            twist: 0.2,
            weight: 0.9,
        };
        for (bone, p) in [(4, aim), (5, AimIk { weight: 1.0, ..aim })] {
            let (mut local, mut model) = runtime_pose(&asset, clip, time);
            let reached = apply_aim_ik(skeleton, bone, &p, &mut local, &mut model).expect("aim IK");
            let _ = writeln!(
                t,
                "I {f} {clip} {time:?} {bone}{}{}{}{}{}{} {}{}",
                v3(p.target),
                v3(p.forward),
                v3(p.up),
                v3(p.offset),
                v3(p.pole),
                floats([p.twist, p.weight]),
                reached as i32,
                model_words(&model)
            );
        }
        for bone in [0, 2, 5] {
            let _ = writeln!(t, "L {f} {clip} {time:?} {bone}");
        }
    }
    // The C program checks the end joint's position where the target is reached.
    assert!(outcomes.contains(&true) && outcomes.contains(&false));
    let _ = writeln!(t, "N {f}");
    run_program("layers_test", dir.path(), &t);
}

#[test]
fn c_events_program_matches_the_runtime_under_sanitizers() {
    let Some((dir, file, model, bytes)) = setup() else {
        return;
    };
    let asset = Asset::parse(&bytes).expect("the runtime reads it");
    let f = file.display();
    let clip = &asset.clips()[0];
    let d = clip.duration();
    let mut t = String::new();
    for (k, track) in model.clips[0].extras.float_tracks.iter().enumerate() {
        for (time, looped) in [
            (0.0, false),
            (0.3 * d, false),
            (0.55 * d, false),
            (2.3 * d, true),
        ] {
            let playback = if looped {
                Playback::Loop
            } else {
                Playback::Once
            };
            let v = clip.sample_float_track(k, time, playback).expect("a track");
            let n = track.components as usize;
            let _ = writeln!(
                t,
                "F {f} 0 {k} {} {n} {time:?} {}{}",
                track.name,
                looped as i32,
                floats(v[..n].iter().copied())
            );
        }
    }
    let events = clip.events();
    for (i, e) in events.iter().enumerate() {
        let payload = e.payload.as_deref().unwrap_or("-");
        let _ = writeln!(t, "V {f} 0 {i} {:?} {} {payload}", e.time, e.name);
    }
    let spans = [
        (-1e-6, 0.3 * d, false),
        (0.3 * d, 2.0 * d, false),
        (0.9 * d, 0.1 * d, false),
        (-1e-6, 2.6 * d, true),
        (3.4 * d, 0.2 * d, true),
        (0.25 * d, 0.25 * d + 1e-3, true),
    ];
    let mut crossed = Vec::new();
    for (from, to, looped) in spans {
        let playback = if looped {
            Playback::Loop
        } else {
            Playback::Once
        };
        gom_runtime::events_between(clip, from, to, playback, &mut crossed);
        let indices = crossed.iter().map(|e| {
            events
                .iter()
                .position(|x| std::ptr::eq(x, *e))
                .expect("an event")
        });
        let _ = write!(
            t,
            "E {f} 0 {from:?} {to:?} {} {}",
            looped as i32,
            crossed.len()
        );
        indices.for_each(|i| t += &format!(" {i}"));
        t.push('\n');
    }
    let _ = writeln!(t, "N {f}");
    run_program("events_test", dir.path(), &t);
}
