//! Every reference frame of `shared/data/fbx/frames.json`: convert the FBX, pose the
//! GOM model at the entry's moment with the runtime (`gom_import::pose::pose_model`:
//! `gom_runtime` sampling, `local_to_model`, palettes and CPU skinning) and compare with
//! the reference `.obj` the way `shared/data/fbx/README.md` recommends (order-free, both
//! directions). The objs are ufbx's and the authoring tools' own results, independent of
//! both the converter and the runtime.
//!
//! The objs are in the FBX file's own axes and units. They are mapped into GOM space
//! (D2: left-handed, +Y up, +Z forward, metres) by hand, from the per-file facts in
//! `shared/data/README.md`:
//! * Y-up right-handed files (Maya, Blender): `(x, y, z) -> (x, y, -z) * unit` (mirror Z);
//! * Z-up right-handed files (3ds Max, front = -Y): `(x, y, z) -> (x, z, y) * unit`
//!   (rotate Z-up to Y-up, `(x, z, -y)`, then mirror Z).
//!
//! Normals map with the same axis change (no scale), UVs as `v -> 1 - v`.
//!
//! `time_s` is on the scene's absolute timeline; a clip's time 0 is its stack's start,
//! so the clip time is `time_s - stack start`, with the stack start read from the file
//! by ufbx directly. Times past the clip's end hold the last key (`looped: false`), as
//! ufbx's curves hold past the stack's end.
//!
//! Clips are sampled at the file's frame rate with key reduction off, so every checked
//! whole frame is a sample and the comparison is exact to the file's tolerance. The
//! converter samples every source key as well as the regular rate, so at the default
//! 30 Hz the frames that are source keys are exact too; a frame between source keys (the
//! Maya pivot file's frame 8) is then an interpolation of 30 Hz samples. Key reduction
//! has its own test (`fbx_keys.rs`).
//!
//! `"load"` entries compare the scene as stored in the file. A GOM file holds that
//! state as its bind pose where it can: bones that are not skin-cluster bones take their
//! stored local transform as bind local. Cluster bones take the cluster's bind matrix;
//! when that differs from the stored pose in a file without animation (the half-skinned
//! Blender plane: its bone is posed 1 m up), the converter writes the stored pose as the
//! zero-length clip `STORED_POSE_CLIP`. So a `"load"` entry is checked against that clip
//! when present, else against the bind pose.

use gom_import::fbx::{convert, FbxOptions, STORED_POSE_CLIP};
use gom_import::pose::{pose_model, PoseAt};

mod shared_data;
use shared_data::fbx_dir as data_dir;

/// (unit in metres, Z-up) per file, from the data README's table.
fn file_space(fbx: &str) -> (f64, bool) {
    match fbx {
        "blender_279_sausage_7400_binary.fbx"
        | "blender_293_half_skinned_7400_binary.fbx"
        | "blender_331_static_blend_shape_7400_binary.fbx" => (1.0, false),
        "blender_suzanne_multimaterial_7400_binary.fbx" => (0.01, false),
        "max_geometry_transform_7700_binary.fbx" => (0.0254, true),
        "max_transformed_skin_7500_binary.fbx" => (0.01, true),
        _ if fbx.starts_with("maya_") => (0.01, false),
        other => panic!("no axis facts for {other}"),
    }
}

fn map_dir(v: [f64; 3], z_up: bool) -> [f64; 3] {
    if z_up {
        [v[0], v[2], v[1]]
    } else {
        [v[0], v[1], -v[2]]
    }
}

struct ObjCorner {
    pos: [f64; 3],
    uv: Option<[f64; 2]>,
    normal: Option<[f64; 3]>,
}

fn parse_obj(text: &str, unit: f64, z_up: bool) -> Vec<ObjCorner> {
    let mut v = Vec::new();
    let mut vt = Vec::new();
    let mut vn = Vec::new();
    let mut corners = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let nums = |it: std::str::SplitWhitespace| {
            it.map(|s| s.parse::<f64>().unwrap()).collect::<Vec<_>>()
        };
        match it.next() {
            Some("v") => {
                let n = nums(it);
                v.push(map_dir([n[0], n[1], n[2]], z_up).map(|x| x * unit));
            }
            Some("vt") => {
                let n = nums(it);
                vt.push([n[0], 1.0 - n[1]]);
            }
            Some("vn") => {
                let n = nums(it);
                vn.push(map_dir([n[0], n[1], n[2]], z_up));
            }
            Some("f") => {
                for c in it {
                    let mut p = c.split('/');
                    let idx = |s: Option<&str>| {
                        s.filter(|s| !s.is_empty())
                            .map(|s| s.parse::<usize>().unwrap() - 1)
                    };
                    let (a, b, n) = (idx(p.next()), idx(p.next()), idx(p.next()));
                    corners.push(ObjCorner {
                        pos: v[a.unwrap()],
                        uv: b.map(|b| vt[b]),
                        normal: n.map(|n| vn[n]),
                    });
                }
            }
            _ => {}
        }
    }
    corners
}

struct Posed {
    pos: [f64; 3],
    uv: Option<[f64; 2]>,
    normal: Option<[f64; 3]>,
}

/// Every vertex of every mesh part, posed by the runtime.
fn posed_vertices(model: &gom::Model, at: &PoseAt) -> Vec<Posed> {
    let meshes = pose_model(model, at).unwrap();
    assert_eq!(meshes.len(), model.meshes.len());
    let mut out = Vec::new();
    for m in &meshes {
        for (i, p) in m.positions.iter().enumerate() {
            out.push(Posed {
                pos: p.map(f64::from),
                uv: m.uvs.as_ref().map(|u| u[i].map(f64::from)),
                normal: m.normals.as_ref().map(|n| n[i].map(f64::from)),
            });
        }
    }
    out
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Compares the runtime's pose of `model` at `at` with the reference corners `want`
/// (order-free, both directions): positions within `tol` metres, and UVs and normals
/// when `compare` names them. Prints the worst nearest distance; an error names what
/// did not match.
fn compare_frame(
    model: &gom::Model,
    at: &PoseAt,
    want: &[ObjCorner],
    tol: f64,
    compare: &[&str],
    what: &str,
) -> Result<f64, String> {
    let got = posed_vertices(model, at);
    let use_uv = compare.contains(&"uv");
    let use_normal = compare.contains(&"normal");
    let uv_tol = 0.001 * 2f64.sqrt();
    let n_tol = 0.001 * 3f64.sqrt() + 1e-5;
    let matches = |s: &Posed, o: &ObjCorner| {
        if dist(s.pos, o.pos) >= tol {
            return false;
        }
        if use_uv {
            if let (Some(a), Some(b)) = (s.uv, o.uv) {
                if ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt() >= uv_tol {
                    return false;
                }
            }
        }
        if use_normal {
            if let (Some(a), Some(b)) = (s.normal, o.normal) {
                if dist(a, [0.0; 3]) > 0.1 && dist(b, [0.0; 3]) > 0.1 && dist(a, b) >= n_tol {
                    return false;
                }
            }
        }
        true
    };
    let unmatched_got = got
        .iter()
        .filter(|s| !want.iter().any(|o| matches(s, o)))
        .count();
    let unmatched_want = want
        .iter()
        .filter(|o| !got.iter().any(|s| matches(s, o)))
        .count();
    let worst = want
        .iter()
        .map(|o| {
            got.iter()
                .map(|s| dist(s.pos, o.pos))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(0.0, f64::max);
    eprintln!(
        "{what}: {} converted vertices, {} obj corners, worst nearest {:.3e} m (tol {:.1e}), unmatched {unmatched_got}/{unmatched_want}",
        got.len(),
        want.len(),
        worst,
        tol
    );
    if unmatched_got > 0 || unmatched_want > 0 || use_uv && got.iter().any(|s| s.uv.is_none()) {
        return Err(format!(
            "{what}: {unmatched_got} converted / {unmatched_want} obj unmatched, worst {worst:.3e}"
        ));
    }
    Ok(worst)
}

#[test]
fn fbx_reference_frames_match() {
    let Some(dir) = data_dir() else { return };
    let frames: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("frames.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
    for entry in frames.as_array().unwrap() {
        let fbx = entry["fbx"].as_str().unwrap();
        let obj = entry["obj"].as_str().unwrap();
        let (unit, z_up) = file_space(fbx);
        let bytes = std::fs::read(dir.join(fbx)).unwrap();
        // Exact check: sample at the file's frame rate (the checked times are whole
        // frames from the stack start) and keep every sample.
        let fps = if fbx.starts_with("max_") { 30.0 } else { 24.0 };
        let options = FbxOptions {
            sample_rate: fps,
            reduce_keys: false,
            ..Default::default()
        };
        let (model, _report) = convert(&bytes, fbx, &options).unwrap();
        let compare: Vec<&str> = entry["compare"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let (clip, clip_time) = match entry["mode"].as_str().unwrap() {
            // The stored state: the stored-pose clip when the converter wrote one
            // (stored pose differs from the skin bind pose), else the bind pose.
            "load" => (
                model
                    .clips
                    .iter()
                    .find(|c| c.name == STORED_POSE_CLIP)
                    .map(|c| c.name.clone()),
                0.0,
            ),
            _ => {
                let name = entry["resolved_stack"].as_str().unwrap();
                // Stack start from the file (the clip's time 0 is the stack start).
                let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
                let stack = scene
                    .anim_stacks
                    .iter()
                    .find(|s| &*s.element.name == name)
                    .unwrap();
                let t = entry["time_s"].as_f64().unwrap() - stack.time_begin;
                if !model.clips.iter().any(|c| c.name == name) {
                    failures.push(format!("{obj}: no clip named {name}"));
                    continue;
                }
                (Some(name.to_string()), t)
            }
        };
        let want = parse_obj(&std::fs::read_to_string(dir.join(obj)).unwrap(), unit, z_up);
        let at = PoseAt {
            clip,
            time: clip_time as f32,
            looped: false,
        };
        let tol = entry["tolerance"].as_f64().unwrap() * unit;
        let what = format!("{obj} ({fbx} t={clip_time:.4})");
        if let Err(e) = compare_frame(&model, &at, &want, tol, &compare, &what) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// ufbx's dual-quaternion files and their reference frames: the file, the `.obj`, and
/// the moment on the scene's timeline (`None`: the scene as stored).
const UFBX_DUAL_QUATERNION_FRAMES: [(&str, &str, Option<f64>); 6] = [
    (
        "maya_dual_quaternion_7500_ascii.fbx",
        "maya_dual_quaternion.obj",
        None,
    ),
    (
        "maya_dual_quaternion_scale_7500_ascii.fbx",
        "maya_dual_quaternion_scale.obj",
        None,
    ),
    (
        "maya_dq_weights_7500_ascii.fbx",
        "maya_dq_weights_10.obj",
        Some(10.0 / 24.0),
    ),
    (
        "maya_dq_weights_7500_ascii.fbx",
        "maya_dq_weights_18.obj",
        Some(18.0 / 24.0),
    ),
    (
        "maya_dq_weights_7500_binary.fbx",
        "maya_dq_weights_10.obj",
        Some(10.0 / 24.0),
    ),
    (
        "maya_dq_weights_7500_binary.fbx",
        "maya_dq_weights_18.obj",
        Some(18.0 / 24.0),
    ),
];

/// Every reference frame of ufbx's dual-quaternion and blended (per-vertex DQ weight)
/// skinning files, posed by the runtime, within ufbx's own tolerance (0.001 in the
/// file's units, centimetres), with no conversion warning about the skinning and the
/// method kept. ufbx's `data/` is not part of the repository nor of CI: run with
/// `UFBX_DATA=/path/to/ufbx/data cargo test -p gom-import --test fbx_frames -- --ignored
/// --nocapture` (docs/reliability.md, "Outside corpora").
#[test]
#[ignore]
fn ufbx_dual_quaternion_frames_match() {
    let dir = std::path::PathBuf::from(
        std::env::var_os("UFBX_DATA").expect("UFBX_DATA names ufbx's data/ folder"),
    );
    let unit = 0.01;
    let mut failures = Vec::new();
    for (fbx, obj, time) in UFBX_DUAL_QUATERNION_FRAMES {
        let bytes = std::fs::read(dir.join(fbx)).unwrap();
        let options = FbxOptions {
            sample_rate: 24.0,
            reduce_keys: false,
            ..Default::default()
        };
        let (model, report) = convert(&bytes, fbx, &options).unwrap();
        let skinning: Vec<gom::SkinningMethod> = model.meshes.iter().map(|m| m.skinning).collect();
        eprintln!(
            "{fbx}: skinning {skinning:?}, {} warnings",
            report.warnings.len()
        );
        if skinning.contains(&gom::SkinningMethod::Linear) {
            failures.push(format!("{fbx}: a mesh skinned linearly: {skinning:?}"));
        }
        let skin_warnings = report
            .warnings
            .iter()
            .filter(|w| w.contains("skinning") || w.contains("quaternion"));
        failures.extend(skin_warnings.map(|w| format!("{fbx}: warning {w}")));
        let clip = time.map(|t| {
            let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
            let stack = &scene.anim_stacks[0];
            (stack.element.name.to_string(), t - stack.time_begin)
        });
        let at = match clip {
            Some((name, t)) => PoseAt {
                clip: Some(name),
                time: t as f32,
                looped: false,
            },
            None => PoseAt {
                clip: model
                    .clips
                    .iter()
                    .find(|c| c.name == STORED_POSE_CLIP)
                    .map(|c| c.name.clone()),
                time: 0.0,
                looped: false,
            },
        };
        let want = parse_obj(
            &std::fs::read_to_string(dir.join(obj)).unwrap(),
            unit,
            false,
        );
        let what = format!("{obj} ({fbx} t={:.4})", at.time);
        if let Err(e) = compare_frame(&model, &at, &want, 0.001 * unit, &["position"], &what) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
