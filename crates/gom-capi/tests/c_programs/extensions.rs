//! The C programs of the extension entry points (blend shapes, additive clips and
//! IK, float tracks and events), each built with the sanitizers and given task lines
//! with what `gom pose` writes or what the Rust runtime computes for the same inputs.

use std::fmt::Write as _;
use std::path::Path;

use gom::additive::{make_additive, reference_pose, Reference};
use gom::events::{Event, FloatTrack, Interpolation};
use gom_runtime::{Asset, Playback};

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

/// The extended demo written as GOMB in `dir`, with its model and bytes.
fn demo_file(dir: &Path) -> (std::path::PathBuf, gom::Model, Vec<u8>) {
    let model = extended_demo();
    let bytes = gom::gomb::write(&model).expect("the extended demo writes");
    let path = dir.join("extended.gom");
    std::fs::write(&path, &bytes).expect("write");
    (path, model, bytes)
}

/// Floats as words that parse back to the same bits.
fn floats(v: impl IntoIterator<Item = f32>) -> String {
    v.into_iter().map(|x| format!(" {x:?}")).collect()
}

#[test]
fn c_morph_program_matches_gom_pose_and_the_runtime_under_sanitizers() {
    if !have_cc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (file, model, bytes) = demo_file(dir.path());
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
