//! Eight influences through glTF (docs/extensions.md §3): a glTF whose vertices have
//! `JOINTS_1`/`WEIGHTS_1`, posed equal to an independent evaluation written here;
//! GOM → glTF → GOM keeps all eight; dual-quaternion meshes go to glTF as linear
//! skinning with a warning naming them.

mod gltf_common;

use gltf_common::glb;
use gom_import::gltf::{
    export_with_warnings, import_slice, Exported, GltfExportOptions, GltfOptions,
};
use gom_import::pose::{pose_model, PoseAt};
use serde_json::json;

/// Eight joints: joint k turned `0.3·(k+1)` rad about a tilted axis, moved by
/// `(k, 0.5·k, −0.25·k)`; inverse binds left out (identity, glTF's default), so
/// posed at the rest pose the vertices move.
fn joint(k: usize) -> (glam::DQuat, glam::DVec3) {
    let axis = glam::DVec3::new(1.0, k as f64, 0.5).normalize();
    let q = glam::DQuat::from_axis_angle(axis, 0.3 * (k + 1) as f64);
    (
        q,
        glam::DVec3::new(k as f64, 0.5 * k as f64, -0.25 * k as f64),
    )
}

const POSITIONS: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]];
/// Eight distinct weights, descending, summing to 1.
const W: [f32; 8] = [0.3, 0.2, 0.15, 0.1, 0.09, 0.07, 0.05, 0.04];

/// Vertex `v`'s joint in slot `s`.
fn joint_of(v: usize, s: usize) -> u16 {
    ((v * 3 + s) % 8) as u16
}

/// The glTF: one skinned triangle with JOINTS_0/1 and WEIGHTS_0/1, eight joints.
fn eight_glb() -> Vec<u8> {
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: Vec<u8>, bin: &mut Vec<u8>| {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
        bin.extend(bytes);
    };
    push(
        POSITIONS
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
        &mut bin,
    );
    for set in 0..2 {
        let j: Vec<u8> = (0..3)
            .flat_map(|v| (0..4).map(move |s| joint_of(v, 4 * set + s)))
            .flat_map(|j| j.to_le_bytes())
            .collect();
        push(j, &mut bin);
        let w: Vec<u8> = (0..3)
            .flat_map(|_| W[4 * set..4 * set + 4].to_vec())
            .flat_map(|x| x.to_le_bytes())
            .collect();
        push(w, &mut bin);
    }
    push(
        [0u16, 1, 2, 0]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect(),
        &mut bin,
    );
    let mut nodes = vec![json!({"mesh": 0, "skin": 0})];
    for k in 0..8 {
        let (q, t) = joint(k);
        nodes.push(json!({"name": format!("j{k}"), "rotation": [q.x, q.y, q.z, q.w], "translation": [t.x, t.y, t.z]}));
    }
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2, 3, 4, 5, 6, 7, 8]}],
        "nodes": nodes,
        "skins": [{"joints": [1, 2, 3, 4, 5, 6, 7, 8]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4}, "indices": 5}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.5]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5123, "count": 3, "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC4"},
            {"bufferView": 5, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ]
    });
    glb(&doc, &bin)
}

/// Vertex `v` posed, independently: `Σ wₛ · (R_j p + t_j)` in glTF space, then into
/// GOM's (D2: z mirrored).
fn expected(v: usize) -> [f32; 3] {
    let p = glam::DVec3::from(POSITIONS[v].map(f64::from));
    let x: glam::DVec3 = (0..8)
        .map(|s| {
            let (q, t) = joint(usize::from(joint_of(v, s)));
            f64::from(W[s]) * (q * p + t)
        })
        .sum();
    [x.x as f32, x.y as f32, -x.z as f32]
}

/// The model posed at the joints' rest pose: the importer binds at the inverse binds
/// (identity here) and keys the rest pose in the zero-length clip `rest pose`.
fn bind_pose(model: &gom::Model) -> Vec<[f32; 3]> {
    let rest = model.clips.iter().find(|c| c.name == "rest pose");
    let at = PoseAt {
        clip: rest.map(|c| c.name.clone()),
        time: 0.0,
        looped: false,
    };
    pose_model(model, &at).expect("pose").remove(0).positions
}

/// The model's posed vertex for each of [`POSITIONS`] (matched by bind position).
fn by_source_vertex(model: &gom::Model) -> Vec<[f32; 3]> {
    let posed = bind_pose(model);
    let bind = &model.meshes[0].vertices.positions;
    POSITIONS
        .iter()
        .map(|p| {
            let want = [p[0], p[1], -p[2]];
            let i = bind.iter().position(|b| *b == want).expect("vertex kept");
            posed[i]
        })
        .collect()
}

fn near(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= 1e-5 * (1.0 + b[k].abs()))
}

fn import(bytes: &[u8]) -> gom::Model {
    import_slice(bytes, "eight.glb", None, &GltfOptions::default())
        .expect("import")
        .0
}

#[test]
fn joints_1_are_kept_and_posed_as_an_independent_evaluation_says() {
    let model = import(&eight_glb());
    let v = &model.meshes[0].vertices;
    assert!(v.skin_extra.is_some(), "influences five to eight kept");
    // Every vertex keeps all eight weights.
    for i in 0..v.len() {
        let (_, w) = v.influences(i);
        assert_eq!(w, W, "vertex {i}");
    }
    for (v, got) in by_source_vertex(&model).into_iter().enumerate() {
        assert!(
            near(got, expected(v)),
            "vertex {v}: {got:?} vs {:?}",
            expected(v)
        );
    }
}

fn export(model: &gom::Model) -> (Vec<u8>, Vec<String>) {
    let options = GltfExportOptions::default();
    let (exported, warnings) = export_with_warnings(model, &options).expect("export");
    match exported {
        Exported::Glb(b) => (b, warnings),
        other => panic!("expected a GLB, got {other:?}"),
    }
}

#[test]
fn gom_to_gltf_to_gom_keeps_all_eight_influences() {
    let model = import(&eight_glb());
    let (bytes, warnings) = export(&model);
    assert!(warnings.is_empty(), "{warnings:?}");
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("JOINTS_1") && text.contains("WEIGHTS_1"));
    let back = import(&bytes);
    let (a, b) = (&model.meshes[0].vertices, &back.meshes[0].vertices);
    for i in 0..a.len() {
        let name = |m: &gom::Model, bones: [u16; 8]| -> Vec<String> {
            bones
                .iter()
                .map(|&x| m.skeleton.bones[usize::from(x)].name.clone())
                .collect()
        };
        let (ba, wa) = a.influences(i);
        let j = (0..b.len())
            .find(|&j| b.positions[j] == a.positions[i])
            .expect("vertex");
        let (bb, wb) = b.influences(j);
        assert_eq!(wa, wb, "vertex {i}");
        assert_eq!(name(&model, ba), name(&back, bb), "vertex {i}");
    }
    for (v, got) in by_source_vertex(&back).into_iter().enumerate() {
        assert!(near(got, expected(v)), "vertex {v}: {got:?}");
    }
}

#[test]
fn a_dual_quaternion_mesh_goes_to_gltf_as_linear_with_a_warning_naming_it() {
    let mut model = import(&eight_glb());
    model.meshes[0].name = "arm".into();
    model.meshes[0].skinning = gom::SkinningMethod::DualQuaternion;
    let (_, warnings) = export(&model);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("\"arm\"") && warnings[0].contains("linear"),
        "{warnings:?}"
    );
    let tmd = gom_import::export::skinning_warning(&model, ".tmd").expect("a .tmd warning");
    assert!(tmd.contains("\"arm\""));
}
