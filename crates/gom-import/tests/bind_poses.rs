//! Sources whose bind poses disagree with each other or with the rest pose: two FBX
//! skins binding the same joints at different poses, and glTF inverse binds that differ
//! from the joint nodes' rest transforms (not by one shared offset). Each converts to a
//! model that passes every validation check (the bind-pose check included), whose
//! meshes pose as the source skins them (at the bind pose and at animated frames), whose
//! unanimated bones keep the source's rest pose, and whose conversion says what it did.
//!
//! The expectations come from the sources' own definitions: ufbx's evaluation and
//! skinning of the FBX file (`ufbx::evaluate_scene` with skinning), and the glTF
//! skinning formula `Σ w · jointWorld · inverseBind · v` computed with glam
//! (`gltf_common::reference_triangles`). The model is posed with `gom::math`
//! (`gltf_common::gom_triangles`, D1).

use glam::{Mat4, Quat, Vec3};
use gltf_common::{glb, gom_triangles, reference_triangles, same_triangles, Tri};
use gom_import::fbx::{convert, FbxOptions, STORED_POSE_CLIP};
use gom_import::gltf::{import_slice, GltfOptions, REST_POSE_CLIP};
use serde_json::{json, Value};

mod gltf_common;

// ---------------------------------------------------------------------------------
// FBX: two skins binding the same joints at different poses.

/// FBX's time unit per second.
const SEC: i64 = 46_186_158_000;

/// A column-major FBX matrix: a rotation of `deg` degrees about Z, then a translation.
fn rot_z_then(deg: f64, t: [f64; 3]) -> String {
    let (s, c) = deg.to_radians().sin_cos();
    matrix_text(&[
        c, s, 0.0, 0.0, -s, c, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0,
    ])
}

/// The inverse of [`rot_z_then`]: a cluster's `Transform` (geometry to bone) for a
/// mesh bound at the origin.
fn inverse_rot_z_then(deg: f64, t: [f64; 3]) -> String {
    let (s, c) = deg.to_radians().sin_cos();
    // R^T, then -t R^T.
    let (x, y) = (-(c * t[0] + s * t[1]), -(-s * t[0] + c * t[1]));
    matrix_text(&[
        c, -s, 0.0, 0.0, s, c, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, x, y, -t[2], 1.0,
    ])
}

fn matrix_text(m: &[f64; 16]) -> String {
    let v: Vec<String> = m.iter().map(|x| x.to_string()).collect();
    v.join(",")
}

fn array(name: &str, values: &str) -> String {
    let n = values.split(',').count();
    format!("\t\t{name}: *{n} {{\n\t\t\ta: {values}\n\t\t}}\n")
}

/// A triangle pair skinned to Root and Arm, with the clusters' bind matrices
/// (`TransformLink`) given; geometry `geo`, model `model`, skin `skin`, clusters
/// `skin + 1` (Root) and `skin + 2` (Arm).
fn skinned_mesh(
    name: &str,
    geo: i64,
    model: i64,
    skin: i64,
    root: (f64, [f64; 3]),
    arm: (f64, [f64; 3]),
) -> (String, String) {
    let mut objects = format!("\tGeometry: {geo}, \"Geometry::{name}\", \"Mesh\" {{\n");
    objects += &array("Vertices", "0.5,0,0,1.5,0,0,1,0.5,0,2,0.3,0.1");
    objects += &array("PolygonVertexIndex", "0,1,-3,1,3,-3");
    objects += "\t}\n";
    objects +=
        &format!("\tModel: {model}, \"Model::{name}\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n");
    objects += &format!(
        "\tDeformer: {skin}, \"Deformer::{name}Skin\", \"Skin\" {{\n\t\tVersion: 101\n\t}}\n"
    );
    for (k, (indexes, weights, (deg, t))) in
        [("0,1,2", "1,0.5,0.7", root), ("1,2,3", "0.5,0.3,1", arm)]
            .into_iter()
            .enumerate()
    {
        objects += &format!(
            "\tDeformer: {}, \"SubDeformer::{name}{k}\", \"Cluster\" {{\n\t\tVersion: 100\n",
            skin + 1 + k as i64
        );
        objects += &array("Indexes", indexes);
        objects += &array("Weights", weights);
        objects += &array("Transform", &inverse_rot_z_then(deg, t));
        objects += &array("TransformLink", &rot_z_then(deg, t));
        objects += "\t}\n";
    }
    let conns = format!(
        "\tC: \"OO\",{model},0\n\tC: \"OO\",{geo},{model}\n\tC: \"OO\",{skin},{geo}\n\tC: \"OO\",{},{skin}\n\tC: \"OO\",{},{skin}\n\tC: \"OO\",1001,{}\n\tC: \"OO\",1002,{}\n",
        skin + 1,
        skin + 2,
        skin + 1,
        skin + 2
    );
    (objects, conns)
}

/// Mesh B's binds of Root and Arm: (degrees about z, translation).
const MESH_B_ROOT: (f64, [f64; 3]) = (10.0, [0.0, 0.5, 0.0]);
const MESH_B_ARM: (f64, [f64; 3]) = (-20.0, [1.2, 0.3, 0.2]);

/// Joints Root (at the origin) and Arm (1 m along x, stored rotated 30° about z);
/// mesh A binds them where Root stands and with Arm unrotated, mesh B binds both
/// elsewhere (Root rotated 10° and raised, Arm rotated −20° and moved): the two skins
/// differ by a different offset per joint. With `animated`, one stack turns Root from
/// 0° to 40° about z over one second and leaves Arm alone.
fn two_skins_fbx(animated: bool) -> String {
    let joint = |id: i64, name: &str, props: &str| {
        format!(
            "\tNodeAttribute: {}, \"NodeAttribute::{name}\", \"LimbNode\" {{\n\t\tTypeFlags: \"Skeleton\"\n\t}}\n\tModel: {id}, \"Model::{name}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n{props}\t\t}}\n\t}}\n",
            id + 100
        )
    };
    let mut objects = joint(1001, "Root", "");
    objects += &joint(
        1002,
        "Arm",
        "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",1,0,0\n\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",0,0,30\n",
    );
    let mut conns =
        "\tC: \"OO\",1101,1001\n\tC: \"OO\",1102,1002\n\tC: \"OO\",1001,0\n\tC: \"OO\",1002,1001\n"
            .to_string();
    let (a_objects, a_conns) = skinned_mesh(
        "MeshA",
        3000,
        3001,
        4000,
        (0.0, [0.0; 3]),
        (0.0, [1.0, 0.0, 0.0]),
    );
    let (b_objects, b_conns) = skinned_mesh("MeshB", 3010, 3011, 4010, MESH_B_ROOT, MESH_B_ARM);
    objects += &(a_objects + &b_objects);
    conns += &(a_conns + &b_conns);
    if animated {
        objects += &format!(
            "\tAnimationStack: 2001, \"AnimStack::turn\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{SEC}\n\t\t}}\n\t}}\n\tAnimationLayer: 2002, \"AnimLayer::base\", \"\" {{\n\t}}\n\tAnimationCurveNode: 2003, \"AnimCurveNode::R\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",0\n\t\t}}\n\t}}\n\tAnimationCurve: 2004, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *2 {{\n\t\t\ta: 0,{SEC}\n\t\t}}\n\t\tKeyValueFloat: *2 {{\n\t\t\ta: 0,40\n\t\t}}\n\t\tKeyAttrFlags: *1 {{\n\t\t\ta: 4\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,218434821,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: 2\n\t\t}}\n\t}}\n"
        );
        conns += "\tC: \"OO\",2002,2001\n\tC: \"OO\",2003,2002\n\tC: \"OP\",2003,1001, \"Lcl Rotation\"\n\tC: \"OP\",2004,2003, \"d|Z\"\n";
    }
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nGlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",100\n\t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{conns}}}\n"
    )
}

/// (x, y, z) of the file (right-handed, Y up, metres) in GOM space (D2).
fn mirror(v: ufbx::Vec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, -v.z as f32]
}

/// ufbx's own skinning of every mesh at `time` of the file's animation (its stored
/// pose without one), as GOM-space triangles (mirrored, winding reversed).
fn ufbx_triangles(text: &str, time: f64) -> Vec<Tri> {
    let scene = ufbx::load_memory(text.as_bytes(), ufbx::LoadOpts::default()).expect("ufbx");
    let opts = ufbx::EvaluateOpts {
        evaluate_skinning: true,
        ..Default::default()
    };
    let posed = ufbx::evaluate_scene(&scene, &scene.anim, time, opts).expect("evaluate");
    let mut out = Vec::new();
    for node in posed.nodes.iter() {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        assert!(!mesh.skinned_is_local, "ufbx skins into world space");
        let p = &mesh.skinned_position;
        for face in mesh.faces.iter() {
            let c = |k: u32| mirror(p.values[p.indices[(face.index_begin + k) as usize] as usize]);
            out.push([c(0), c(2), c(1)]);
        }
    }
    out
}

/// The bind-pose geometry of every mesh as the file stores it, as GOM-space triangles.
fn fbx_bind_triangles(text: &str) -> Vec<Tri> {
    let scene = ufbx::load_memory(text.as_bytes(), ufbx::LoadOpts::default()).expect("ufbx");
    let mut out = Vec::new();
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        for face in mesh.faces.iter() {
            let c = |k: u32| {
                let v = mesh.vertex_indices[(face.index_begin + k) as usize];
                mirror(mesh.vertices[v as usize])
            };
            out.push([c(0), c(2), c(1)]);
        }
    }
    out
}

fn clip_index(model: &gom::Model, name: &str) -> usize {
    model
        .clips
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no clip {name}: {:?}", model.clip_names_listed()))
}

fn no_findings(model: &gom::Model) {
    let findings = gom::validate::validate(model);
    assert!(findings.is_empty(), "{findings:?}");
}

/// Bone `name`'s model-space matrix at `time` of clip `clip`, from the model.
fn bone_world(model: &gom::Model, clip: usize, time: f32, name: &str) -> gom::Mat4 {
    let b = model
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == name)
        .expect("bone");
    gltf_common::pose(model, Some(clip), time)[b]
}

/// Node `name`'s world matrix in ufbx's evaluation at `time`, in GOM's convention
/// (row vectors, z mirrored: `F M F`).
fn ufbx_world(text: &str, time: f64, name: &str) -> gom::Mat4 {
    let scene = ufbx::load_memory(text.as_bytes(), ufbx::LoadOpts::default()).expect("ufbx");
    let posed =
        ufbx::evaluate_scene(&scene, &scene.anim, time, ufbx::EvaluateOpts::default()).unwrap();
    let node = posed
        .nodes
        .iter()
        .find(|n| &*n.element.name == name)
        .expect("node");
    let m = &node.node_to_world;
    // Column j of the column-vector matrix is row j of the row-vector one; F M F
    // negates the entries with exactly one z index.
    let rows = [
        [m.m00, m.m10, m.m20, 0.0],
        [m.m01, m.m11, m.m21, 0.0],
        [m.m02, m.m12, m.m22, 0.0],
        [m.m03, m.m13, m.m23, 1.0],
    ];
    std::array::from_fn(|i| {
        let (row, col) = (i / 4, i % 4);
        let v = rows[row][col] as f32;
        if (row == 2) != (col == 2) {
            -v
        } else {
            v
        }
    })
}

fn close_mat(a: &gom::Mat4, b: &gom::Mat4) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5)
}

#[test]
fn fbx_skins_that_bind_the_same_joints_at_different_poses_validate_and_skin_as_the_source() {
    let text = two_skins_fbx(true);
    let (model, report) = convert(text.as_bytes(), "poses.fbx", &FbxOptions::default()).unwrap();
    no_findings(&model);
    // At the bind pose each mesh is its own bind geometry.
    same_triangles(
        &gom_triangles(&model, None, 0.0),
        &fbx_bind_triangles(&text),
        1e-5,
    )
    .unwrap();
    // At every frame each mesh is where ufbx skins it.
    let clip = clip_index(&model, "turn");
    for t in [0.0, 0.25, 0.5, 1.0] {
        same_triangles(
            &gom_triangles(&model, Some(clip), t as f32),
            &ufbx_triangles(&text, t),
            1e-5,
        )
        .unwrap_or_else(|e| panic!("t = {t}: {e}"));
        // Arm, which no curve moves, stays at its stored 30° under the turning Root.
        let arm = bone_world(&model, clip, t as f32, "Arm");
        assert!(
            close_mat(&arm, &ufbx_world(&text, t, "Arm")),
            "t = {t}: {arm:?}"
        );
    }
    let said: Vec<&String> = report
        .warnings
        .iter()
        .filter(|w| w.contains("at another pose"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", report.warnings);
    assert!(
        said[0].contains("MeshB") && said[0].contains("2 extra bone"),
        "{said:?}"
    );
}

#[test]
fn fbx_skins_at_different_poses_without_animation_show_the_stored_pose() {
    let text = two_skins_fbx(false);
    let (model, report) = convert(text.as_bytes(), "poses.fbx", &FbxOptions::default()).unwrap();
    no_findings(&model);
    let clip = clip_index(&model, STORED_POSE_CLIP);
    same_triangles(
        &gom_triangles(&model, Some(clip), 0.0),
        &ufbx_triangles(&text, 0.0),
        1e-5,
    )
    .unwrap();
    let arm = bone_world(&model, clip, 0.0, "Arm");
    assert!(close_mat(&arm, &ufbx_world(&text, 0.0, "Arm")), "{arm:?}");
    assert!(
        report.warnings.iter().any(|w| w.contains(STORED_POSE_CLIP)),
        "{:?}",
        report.warnings
    );
}

#[test]
fn fbx_skins_at_one_pose_need_no_extra_bone_and_no_warning() {
    // Mesh B bound where mesh A is: nothing changes form.
    let mut text = two_skins_fbx(true);
    for ((deg, t), (a_deg, a_t)) in [
        (MESH_B_ROOT, (0.0, [0.0; 3])),
        (MESH_B_ARM, (0.0, [1.0, 0.0, 0.0])),
    ] {
        let matrices: [fn(f64, [f64; 3]) -> String; 2] = [rot_z_then, inverse_rot_z_then];
        for f in matrices {
            let (from, to) = (f(deg, t), f(a_deg, a_t));
            assert!(text.contains(&from));
            text = text.replace(&from, &to);
        }
    }
    let (model, report) = convert(text.as_bytes(), "poses.fbx", &FbxOptions::default()).unwrap();
    no_findings(&model);
    let names: Vec<&str> = model
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["Root", "Arm", "MeshA", "MeshB"]);
    assert!(
        !report
            .warnings
            .iter()
            .any(|w| w.contains("at another pose")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn fbx_conversion_of_split_binds_is_deterministic() {
    let text = two_skins_fbx(true);
    let bytes = || {
        let (model, _) = convert(text.as_bytes(), "poses.fbx", &FbxOptions::default()).unwrap();
        gom::gomb::write(&model).unwrap()
    };
    assert_eq!(bytes(), bytes());
}

// ---------------------------------------------------------------------------------
// glTF: inverse binds that differ from the joints' rest pose, and from each other.

/// Appends `bytes` to `bin` as a buffer view and an accessor of `count` `kind`
/// elements of component type `component`.
fn push_accessor(
    doc: &mut Value,
    bin: &mut Vec<u8>,
    bytes: &[u8],
    component: u32,
    count: usize,
    kind: &str,
) -> usize {
    let views = doc["bufferViews"].as_array_mut().expect("views");
    views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
    let view = views.len() - 1;
    bin.extend_from_slice(bytes);
    let accessors = doc["accessors"].as_array_mut().expect("accessors");
    accessors.push(
        json!({"bufferView": view, "componentType": component, "count": count, "type": kind}),
    );
    accessors.len() - 1
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The joints' rest pose: root at (0, 0.2, 0), j0 below it at (0.5, 0, 0) turned 20°
/// about z, j1 below j0 at (1, 0, 0) turned 30° about y.
fn rest_locals() -> [Mat4; 3] {
    [
        Mat4::from_translation(Vec3::new(0.0, 0.2, 0.0)),
        Mat4::from_rotation_translation(
            Quat::from_rotation_z(20f32.to_radians()),
            Vec3::new(0.5, 0.0, 0.0),
        ),
        Mat4::from_rotation_translation(
            Quat::from_rotation_y(30f32.to_radians()),
            Vec3::new(1.0, 0.0, 0.0),
        ),
    ]
}

/// [`binds`] at the rest pose.
const REST: usize = 2;

/// Two binds of j0 and j1 (world matrices), each off the rest pose by another offset,
/// or ([`REST`]) their rest pose.
fn binds(which: usize) -> [Mat4; 2] {
    let rest = rest_locals();
    match which {
        REST => [rest[0] * rest[1], rest[0] * rest[1] * rest[2]],
        0 => [
            Mat4::from_rotation_translation(
                Quat::from_rotation_z(-10f32.to_radians()),
                Vec3::new(0.3, 0.1, 0.0),
            ),
            Mat4::from_rotation_translation(
                Quat::from_rotation_x(25f32.to_radians()),
                Vec3::new(1.2, 0.5, 0.1),
            ),
        ],
        _ => [
            Mat4::from_rotation_translation(
                Quat::from_rotation_y(15f32.to_radians()),
                Vec3::new(0.6, -0.1, 0.2),
            ),
            Mat4::from_rotation_translation(
                Quat::from_rotation_z(40f32.to_radians()),
                Vec3::new(1.5, 0.2, -0.1),
            ),
        ],
    }
}

/// A glTF scene: the joints of [`rest_locals`], and one skinned mesh (two triangles
/// over both joints) per entry of `skins`, each skin binding j0 and j1 at
/// [`binds`]`(entry)`. With `animated`, one animation turns j0 from 20° to 60° about z
/// over one second and leaves j1 alone.
fn skinned_gltf(skins: &[usize], animated: bool) -> Vec<u8> {
    skinned_gltf_with_prop(skins, animated, false)
}

/// [`skinned_gltf`], with `prop` a node below j1 that draws the same mesh unskinned.
fn skinned_gltf_with_prop(skins: &[usize], animated: bool, prop: bool) -> Vec<u8> {
    let trs = |m: Mat4| {
        let (_, r, t) = m.to_scale_rotation_translation();
        json!({"translation": t.to_array(), "rotation": r.to_array()})
    };
    let rest = rest_locals();
    let mut nodes = vec![
        json!({"name": "root", "children": [1], "translation": [0.0, 0.2, 0.0]}),
        merge(json!({"name": "j0", "children": [2]}), trs(rest[1])),
        merge(json!({"name": "j1"}), trs(rest[2])),
    ];
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "buffers": [],
        "bufferViews": [],
        "accessors": [],
        "meshes": [],
        "skins": []
    });
    let mut bin = Vec::new();
    let positions = [
        0.2f32, 0.0, 0.0, 1.0, 0.1, 0.0, 0.6, 0.5, 0.1, 1.6, 0.3, -0.2,
    ];
    let pos = push_accessor(&mut doc, &mut bin, &f32_bytes(&positions), 5126, 4, "VEC3");
    doc["accessors"][pos]["min"] = json!([0.2, 0.0, -0.2]);
    doc["accessors"][pos]["max"] = json!([1.6, 0.5, 0.1]);
    let joints = push_accessor(
        &mut doc,
        &mut bin,
        &[0u8, 1, 0, 0].repeat(4),
        5121,
        4,
        "VEC4",
    );
    let weights = [
        1.0f32, 0.0, 0.0, 0.0, 0.6, 0.4, 0.0, 0.0, 0.3, 0.7, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
    ];
    let weights = push_accessor(&mut doc, &mut bin, &f32_bytes(&weights), 5126, 4, "VEC4");
    let indices = push_accessor(
        &mut doc,
        &mut bin,
        &[0u16, 1, 2, 1, 3, 2]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<u8>>(),
        5123,
        6,
        "SCALAR",
    );
    doc["meshes"] = json!([{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}, "indices": indices}]}]);
    let mut scene = vec![0];
    for (k, &which) in skins.iter().enumerate() {
        let ibm: Vec<f32> = binds(which)
            .iter()
            .flat_map(|b| b.inverse().to_cols_array())
            .collect();
        let ibm = push_accessor(&mut doc, &mut bin, &f32_bytes(&ibm), 5126, 2, "MAT4");
        doc["skins"]
            .as_array_mut()
            .expect("skins")
            .push(json!({"joints": [1, 2], "inverseBindMatrices": ibm}));
        scene.push(nodes.len());
        nodes.push(json!({"name": format!("mesh{k}"), "mesh": 0, "skin": k}));
    }
    if animated {
        let times = push_accessor(
            &mut doc,
            &mut bin,
            &f32_bytes(&[0.0, 1.0]),
            5126,
            2,
            "SCALAR",
        );
        doc["accessors"][times]["min"] = json!([0.0]);
        doc["accessors"][times]["max"] = json!([1.0]);
        let turns: Vec<f32> = [20f32, 60.0]
            .iter()
            .flat_map(|d| Quat::from_rotation_z(d.to_radians()).to_array())
            .collect();
        let turns = push_accessor(&mut doc, &mut bin, &f32_bytes(&turns), 5126, 2, "VEC4");
        doc["animations"] = json!([{"name": "turn",
            "samplers": [{"input": times, "output": turns, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]);
    }
    if prop {
        nodes[2]["children"] = json!([nodes.len()]);
        nodes.push(json!({"name": "prop", "mesh": 0, "translation": [0.0, 0.3, 0.0]}));
    }
    doc["nodes"] = Value::Array(nodes);
    doc["scenes"] = json!([{"nodes": scene}]);
    doc["buffers"] = json!([{"byteLength": bin.len()}]);
    glb(&doc, &bin)
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

/// The model of `bytes` and its warnings, and the same bytes as a file for the
/// reference (which reads files).
fn import_gltf(
    bytes: &[u8],
    dir: &tempfile::TempDir,
) -> (gom::Model, Vec<String>, std::path::PathBuf) {
    let path = dir.path().join("skinned.glb");
    std::fs::write(&path, bytes).unwrap();
    let (model, report) =
        import_slice(bytes, "skinned.glb", None, &GltfOptions::default()).unwrap();
    (model, report.report.warnings, path)
}

/// Each mesh's own vertices (glTF's bind shape: `jointWorld = inverse(IBM)`), as
/// GOM-space triangles, once per skinned mesh node.
fn gltf_bind_triangles(meshes: usize) -> Vec<Tri> {
    let p = [
        [0.2f32, 0.0, 0.0],
        [1.0, 0.1, 0.0],
        [0.6, 0.5, 0.1],
        [1.6, 0.3, -0.2],
    ];
    let m = |i: usize| [p[i][0], p[i][1], -p[i][2]];
    let tris: Vec<Tri> = [[0, 1, 2], [1, 3, 2]]
        .iter()
        .map(|t| [m(t[0]), m(t[2]), m(t[1])])
        .collect();
    tris.repeat(meshes)
}

/// A glTF matrix (column vectors) in GOM's convention, mirrored (`F M F`): the
/// column-major array of a column-vector matrix is the row-major array of its
/// row-vector form, and the mirror negates the entries with exactly one z index.
fn gom_form(m: Mat4) -> gom::Mat4 {
    let w = m.to_cols_array();
    std::array::from_fn(|i| {
        if (i / 4 == 2) != (i % 4 == 2) {
            -w[i]
        } else {
            w[i]
        }
    })
}

/// j1's world matrix with j0 turned `deg` about z (the rest pose otherwise), in GOM's
/// convention.
fn gltf_j1_world(deg: f32) -> gom::Mat4 {
    let rest = rest_locals();
    let j0 = Mat4::from_rotation_translation(
        Quat::from_rotation_z(deg.to_radians()),
        Vec3::new(0.5, 0.0, 0.0),
    );
    gom_form(rest[0] * j0 * rest[2])
}

fn bone_index(model: &gom::Model, name: &str) -> usize {
    model
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == name)
        .expect("bone")
}

/// The model's meshes at `times` of its clip "turn" are where the glTF file at `path`
/// skins them at the same times of its animation 0.
fn skins_as_the_gltf_source(model: &gom::Model, path: &std::path::Path, times: &[f32]) {
    let clip = clip_index(model, "turn");
    for &t in times {
        same_triangles(
            &gom_triangles(model, Some(clip), t),
            &reference_triangles(path, Some(0), t),
            1e-5,
        )
        .unwrap_or_else(|e| panic!("t = {t}: {e}"));
    }
}

#[test]
fn gltf_inverse_binds_off_the_rest_pose_validate_and_skin_as_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let (model, warnings, path) = import_gltf(&skinned_gltf(&[0], true), &dir);
    no_findings(&model);
    same_triangles(
        &gom_triangles(&model, None, 0.0),
        &gltf_bind_triangles(1),
        1e-5,
    )
    .unwrap();
    let times = [0.0f32, 0.3, 1.0];
    skins_as_the_gltf_source(&model, &path, &times);
    let (clip, j1) = (clip_index(&model, "turn"), bone_index(&model, "j1"));
    for t in times {
        // j1, which the clip does not move, keeps its rest pose under the turning j0.
        let world = gltf_common::pose(&model, Some(clip), t)[j1];
        assert!(
            close_mat(&world, &gltf_j1_world(20.0 + 40.0 * t)),
            "t = {t}: {world:?}"
        );
    }
    let said: Vec<&String> = warnings
        .iter()
        .filter(|w| w.contains("differ from the nodes' rest pose"))
        .collect();
    assert_eq!(said.len(), 1, "{warnings:?}");
    assert!(
        !warnings.iter().any(|w| w.contains("will fail")),
        "{warnings:?}"
    );
}

#[test]
fn gltf_inverse_binds_off_the_rest_pose_without_animation_show_the_rest_pose() {
    let dir = tempfile::tempdir().unwrap();
    let (model, warnings, path) = import_gltf(&skinned_gltf(&[0], false), &dir);
    no_findings(&model);
    let clip = clip_index(&model, REST_POSE_CLIP);
    same_triangles(
        &gom_triangles(&model, Some(clip), 0.0),
        &reference_triangles(&path, None, 0.0),
        1e-5,
    )
    .unwrap();
    let world = gltf_common::pose(&model, Some(clip), 0.0)[bone_index(&model, "j1")];
    assert!(close_mat(&world, &gltf_j1_world(20.0)), "{world:?}");
    assert!(
        warnings.iter().any(|w| w.contains(REST_POSE_CLIP)),
        "{warnings:?}"
    );
}

#[test]
fn gltf_skins_that_bind_the_same_joints_at_different_poses_validate_and_skin_as_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let (model, warnings, path) = import_gltf(&skinned_gltf(&[0, 1], true), &dir);
    no_findings(&model);
    same_triangles(
        &gom_triangles(&model, None, 0.0),
        &gltf_bind_triangles(2),
        1e-5,
    )
    .unwrap();
    skins_as_the_gltf_source(&model, &path, &[0.0, 0.5, 1.0]);
    assert!(
        warnings.iter().any(|w| w.contains("2 extra bone(s)")),
        "{warnings:?}"
    );
}

#[test]
fn gltf_a_mesh_rigidly_bound_below_a_rebound_joint_follows_it() {
    // prop hangs below j1, whose bind follows the skin: it is stored at its bone's
    // bind pose, and poses where the source draws it.
    let dir = tempfile::tempdir().unwrap();
    let (model, _, path) = import_gltf(&skinned_gltf_with_prop(&[0], true, true), &dir);
    no_findings(&model);
    skins_as_the_gltf_source(&model, &path, &[0.0, 0.5, 1.0]);
}

#[test]
fn gltf_inverse_binds_at_the_rest_pose_change_nothing_and_say_nothing() {
    // The same scene bound at its rest pose: the skeleton keeps the nodes' transforms,
    // the clip animates j0 alone and nothing is reported.
    let (model, report) = import_slice(
        &skinned_gltf(&[REST], true),
        "a.glb",
        None,
        &GltfOptions::default(),
    )
    .unwrap();
    no_findings(&model);
    let rest = rest_locals();
    for (b, name) in ["root", "j0", "j1"].iter().enumerate() {
        let bone = &model.skeleton.bones[bone_index(&model, name)];
        assert!(
            close_mat(&bone.bind_local, &gom_form(rest[b])),
            "{name}: {:?}",
            bone.bind_local
        );
    }
    let tracked: Vec<u32> = model.clips[0].tracks.iter().map(|t| t.bone).collect();
    assert_eq!(tracked, [bone_index(&model, "j0") as u32]);
    assert_eq!(model.skeleton.bones.len(), 3);
    assert!(
        !report
            .report
            .warnings
            .iter()
            .any(|w| w.contains("rest pose")),
        "{:?}",
        report.report.warnings
    );
}

#[test]
fn gltf_conversion_of_rebound_skins_is_deterministic() {
    let bytes = skinned_gltf(&[0, 1], true);
    let write = || {
        let (model, _) = import_slice(&bytes, "a.glb", None, &GltfOptions::default()).unwrap();
        gom::gomb::write(&model).unwrap()
    };
    assert_eq!(write(), write());
}
