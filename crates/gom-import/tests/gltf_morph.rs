//! glTF morph targets in and out: posed positions of a morphing glTF (dense, sparse
//! and normalized targets, default weights, LINEAR, STEP and CUBICSPLINE weight
//! animation) against an evaluation written here from the glTF 2.0 specification
//! (§3.7.2.2 and Appendix C), within 1e-5 relative.

mod gltf_common;

use gltf_common::glb;
use gom_import::gltf::{import_slice, GltfOptions};
use gom_runtime::{Asset, Playback};
use serde_json::{json, Value};

const BASE: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.5],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.5],
];
const T0: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.5],
    [0.1, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [0.0, -0.2, 0.3],
];
/// Target 1 is sparse: vertices 1 and 3 only.
const T1_AT: [u16; 2] = [1, 3];
const T1: [[f32; 3]; 2] = [[0.0, 0.4, 0.0], [0.25, 0.0, 0.0]];
/// Target 2 is normalized i16 (KHR_mesh_quantization).
const T2: [[i16; 3]; 4] = [[0, 0, 16384], [0, 0, 0], [-32767, 0, 0], [0, 0, 0]];
const DEFAULTS: [f32; 3] = [0.5, 0.0, 0.25];
const TIMES: [f32; 3] = [0.0, 1.0, 2.0];
const VALUES: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.5, -0.5], [0.2, 1.0, 0.0]];
/// CUBICSPLINE in- and out-tangents of each key.
const IN_T: [[f32; 3]; 3] = [[0.0; 3], [0.5, -1.0, 2.0], [1.0, 0.0, -1.0]];
const OUT_T: [[f32; 3]; 3] = [[2.0, 1.0, 0.0], [-0.5, 1.0, 1.0], [0.0; 3]];
/// The node's transform: translation then scale 2.
const TRANSLATION: [f32; 3] = [1.0, 0.0, 0.0];
const SCALE: f32 = 2.0;

fn bytes<T: Copy, const N: usize>(v: &[[T; N]], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.iter().flatten().flat_map(|&x| f(x)).collect()
}

fn f32b(x: f32) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}

fn minmax(v: &[[f32; 3]]) -> (Value, Value) {
    let lo: Vec<f32> = (0..3)
        .map(|c| v.iter().map(|p| p[c]).fold(f32::MAX, f32::min))
        .collect();
    let hi: Vec<f32> = (0..3)
        .map(|c| v.iter().map(|p| p[c]).fold(f32::MIN, f32::max))
        .collect();
    (json!(lo), json!(hi))
}

fn t1_dense() -> [[f32; 3]; 4] {
    let mut d = [[0.0; 3]; 4];
    for (k, &i) in T1_AT.iter().enumerate() {
        d[i as usize] = T1[k];
    }
    d
}

fn t2_dense() -> [[f32; 3]; 4] {
    T2.map(|v| v.map(|x| (f32::from(x) / 32767.0).max(-1.0)))
}

/// The test file: one node drawing one morphing quad, three animations.
fn file() -> Vec<u8> {
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut view = |b: Vec<u8>| {
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        views.push(json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": b.len() }));
        bin.extend(b);
        views.len() - 1
    };
    let normals = [[0.0f32, 0.0, 1.0]; 4];
    let n0 = [[0.1f32, 0.0, 0.0], [0.0; 3], [0.0; 3], [0.0, 0.2, 0.0]];
    let v_pos = view(bytes(&BASE, f32b));
    let v_nrm = view(bytes(&normals, f32b));
    let v_idx = view(
        [0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
    );
    let v_t0 = view(bytes(&T0, f32b));
    let v_n0 = view(bytes(&n0, f32b));
    let v_t1i = view(T1_AT.iter().flat_map(|x| x.to_le_bytes()).collect());
    let v_t1v = view(bytes(&T1, f32b));
    // i16x3 padded to 8 bytes per element.
    let v_t2 = view(
        T2.iter()
            .flat_map(|v| [v[0], v[1], v[2], 0])
            .flat_map(|x| x.to_le_bytes())
            .collect(),
    );
    let v_time = view(TIMES.iter().flat_map(|x| x.to_le_bytes()).collect());
    let v_val = view(bytes(&VALUES, f32b));
    let cubic: Vec<[f32; 3]> = (0..3)
        .flat_map(|k| [IN_T[k], VALUES[k], OUT_T[k]])
        .collect();
    let v_cub = view(bytes(&cubic, f32b));
    views[v_t2]["byteStride"] = json!(8);
    let (p_lo, p_hi) = minmax(&BASE);
    let mm = |d: [[f32; 3]; 4]| minmax(&d);
    let (t0_lo, t0_hi) = mm(T0);
    let (t1_lo, t1_hi) = mm(t1_dense());
    let acc = |view: usize, ty: &str, ct: u32, count: usize| json!({ "bufferView": view, "componentType": ct, "count": count, "type": ty });
    let mut accessors = vec![
        acc(v_pos, "VEC3", 5126, 4),
        acc(v_nrm, "VEC3", 5126, 4),
        acc(v_idx, "SCALAR", 5123, 6),
        acc(v_t0, "VEC3", 5126, 4),
        acc(v_n0, "VEC3", 5126, 4),
        json!({ "componentType": 5126, "count": 4, "type": "VEC3", "min": t1_lo, "max": t1_hi,
                "sparse": { "count": 2,
                    "indices": { "bufferView": v_t1i, "componentType": 5123 },
                    "values": { "bufferView": v_t1v } } }),
        acc(v_t2, "VEC3", 5122, 4),
        acc(v_time, "SCALAR", 5126, 3),
        acc(v_val, "SCALAR", 5126, 9),
        acc(v_cub, "SCALAR", 5126, 27),
    ];
    accessors[0]["min"] = p_lo;
    accessors[0]["max"] = p_hi;
    accessors[3]["min"] = t0_lo;
    accessors[3]["max"] = t0_hi;
    accessors[6]["normalized"] = json!(true);
    accessors[6]["min"] = json!([-32767, 0, 0]);
    accessors[6]["max"] = json!([0, 0, 16384]);
    accessors[7]["min"] = json!([0.0]);
    accessors[7]["max"] = json!([2.0]);
    let anim = |name: &str, interp: &str, output: usize| {
        json!({ "name": name,
            "samplers": [{ "input": 7, "output": output, "interpolation": interp }],
            "channels": [{ "sampler": 0, "target": { "node": 0, "path": "weights" } }] })
    };
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0, "translation": TRANSLATION, "scale": [SCALE, SCALE, SCALE] }],
        "meshes": [{ "primitives": [{
            "attributes": { "POSITION": 0, "NORMAL": 1 }, "indices": 2,
            "targets": [{ "POSITION": 3, "NORMAL": 4 }, { "POSITION": 5 }, { "POSITION": 6 }] }],
            "weights": DEFAULTS,
            "extras": { "targetNames": ["smile", "blink", "squint"] } }],
        "animations": [anim("linear", "LINEAR", 8), anim("step", "STEP", 8), anim("cubic", "CUBICSPLINE", 9)],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": views,
        "accessors": accessors,
    });
    glb(&doc, &bin)
}

/// The weights at `t` by the glTF specification's interpolation (Appendix C).
fn weights_at(interp: &str, t: f64) -> [f64; 3] {
    let times = TIMES.map(f64::from);
    let v = |k: usize| VALUES[k].map(f64::from);
    if t <= times[0] {
        return v(0);
    }
    if t >= times[2] {
        return v(2);
    }
    let k = if t < times[1] { 0 } else { 1 };
    let td = times[k + 1] - times[k];
    let s = (t - times[k]) / td;
    match interp {
        "step" => v(k),
        "linear" => std::array::from_fn(|i| v(k)[i] + (v(k + 1)[i] - v(k)[i]) * s),
        _ => std::array::from_fn(|i| {
            let (s2, s3) = (s * s, s * s * s);
            (2.0 * s3 - 3.0 * s2 + 1.0) * v(k)[i]
                + (s3 - 2.0 * s2 + s) * td * f64::from(OUT_T[k][i])
                + (-2.0 * s3 + 3.0 * s2) * v(k + 1)[i]
                + (s3 - s2) * td * f64::from(IN_T[k + 1][i])
        }),
    }
}

/// Each vertex's position by the specification: the node's matrix times the base
/// position plus the weighted target deltas, then mirrored into GOM space (z negated).
fn expected(w: [f64; 3]) -> Vec<[f64; 3]> {
    let targets = [T0, t1_dense(), t2_dense()];
    (0..4)
        .map(|i| {
            let p: [f64; 3] = std::array::from_fn(|c| {
                let d: f64 = (0..3).map(|k| w[k] * f64::from(targets[k][i][c])).sum();
                f64::from(SCALE) * (f64::from(BASE[i][c]) + d) + f64::from(TRANSLATION[c])
            });
            [p[0], p[1], -p[2]]
        })
        .collect()
}

/// GOM's posed positions, each matched to the glTF vertex whose unmorphed position it
/// has (the importer may reorder vertices).
fn posed(asset: &Asset<'_>, clip: Option<usize>, t: f32) -> Vec<[f64; 3]> {
    let posed = asset.posed_meshes(clip, t, Playback::Once).unwrap();
    let bind = asset.meshes()[0].clone();
    let mut out = vec![[f64::NAN; 3]; 4];
    for (v, p) in posed[0].positions.iter().enumerate() {
        let b = bind.position(v).unwrap();
        let i = (0..4)
            .find(|&i| {
                let e = expected([0.0; 3])[i];
                (0..3).all(|c| (f64::from(b[c]) - e[c]).abs() < 1e-5)
            })
            .expect("a base vertex");
        out[i] = p.map(f64::from);
    }
    out
}

fn assert_close(a: &[[f64; 3]], b: &[[f64; 3]], what: &str) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        for c in 0..3 {
            let tol = 1e-5 * y[c].abs().max(1.0);
            assert!(
                (x[c] - y[c]).abs() <= tol,
                "{what}: vertex {i}: {x:?} vs {y:?}"
            );
        }
    }
}

#[test]
fn morphing_gltf_poses_as_the_specification_evaluates_it() {
    let (model, report) =
        import_slice(&file(), "morph.glb", None, &GltfOptions::default()).unwrap();
    assert!(
        !report.report.warnings.iter().any(|w| w.contains("morph")),
        "{:?}",
        report.report.warnings
    );
    let mesh = &model.meshes[0];
    let names: Vec<&str> = mesh.morph_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["smile", "blink", "squint"]);
    let defaults: Vec<f32> = mesh
        .morph_targets
        .iter()
        .map(|t| t.default_weight)
        .collect();
    assert_eq!(defaults, DEFAULTS);
    // Sparse storage: the sparse target moves two vertices.
    assert_eq!(mesh.morph_targets[1].indices.len(), 2);
    let bytes = gom::gomb::write(&model).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    // Default weights, without a clip.
    assert_close(
        &posed(&asset, None, 0.0),
        &expected(DEFAULTS.map(f64::from)),
        "defaults",
    );
    for (name, times) in [
        ("linear", vec![0.0f32, 0.25, 0.5, 1.0, 1.3, 2.0, 2.5]),
        ("step", vec![0.0, 0.5, 0.99, 1.0, 1.7, 2.0]),
        // Resampled at 30 Hz: checked on the samples and the keys.
        (
            "cubic",
            vec![
                0.0,
                5.0 / 30.0,
                11.0 / 30.0,
                1.0,
                40.0 / 30.0,
                59.0 / 30.0,
                2.0,
            ],
        ),
    ] {
        let clip = asset.clips().iter().position(|c| c.name() == name).unwrap();
        for t in times {
            let w = weights_at(name, f64::from(t));
            assert_close(
                &posed(&asset, Some(clip), t),
                &expected(w),
                &format!("{name} at {t}"),
            );
        }
    }
}

#[test]
fn gom_to_gltf_to_gom_keeps_targets_weights_and_tracks_bit_for_bit() {
    use gom_import::gltf::{export, Exported, GltfExportOptions};
    let model = gom_demo::with_morphs(gom_demo::build());
    let Exported::Glb(bytes) = export(&model, &GltfExportOptions::default()).unwrap() else {
        unreachable!("a .glb by default")
    };
    let (back, _) = import_slice(&bytes, "round.glb", None, &GltfOptions::default()).unwrap();
    let mesh = back
        .meshes
        .iter()
        .position(|m| m.name == model.meshes[0].name)
        .unwrap();
    assert_eq!(
        back.meshes[mesh].morph_targets,
        model.meshes[0].morph_targets
    );
    let clip = back.clips.iter().find(|c| c.name == "curl").unwrap();
    let mut expected = model.clips[1].weight_tracks.clone();
    for t in &mut expected {
        t.mesh = mesh as u32;
    }
    assert_eq!(clip.weight_tracks, expected);
    assert!(back
        .meshes
        .iter()
        .enumerate()
        .all(|(i, m)| i == mesh || m.morph_targets.is_empty()));
}
