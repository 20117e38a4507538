//! FBX skinning methods (docs/extensions.md §3): a skin deformer set to dual
//! quaternion, and one set to blended with per-vertex dual-quaternion weights, each on
//! a small ASCII FBX built here. The converted model, posed by `gom pose`'s code,
//! against an independent dual-quaternion evaluation written in the test (glam f64
//! quaternions from the rig this file defines) and against ufbx's own evaluated
//! skinning (`ufbx_get_skin_vertex_matrix`).

use glam::{DQuat, DVec3};
use gom::SkinningMethod;
use gom_import::fbx::{convert, FbxOptions, STORED_POSE_CLIP};
use gom_import::pose::{pose_model, PoseAt};

/// The bar's vertices, in cm: two per slice at x = 0, 10, 20 (off the X axis).
const VERTICES: [[f64; 3]; 6] = [
    [0.0, 5.0, 0.0],
    [0.0, 0.0, 5.0],
    [10.0, 5.0, 0.0],
    [10.0, 0.0, 5.0],
    [20.0, 5.0, 0.0],
    [20.0, 0.0, 5.0],
];
/// Weights of the root bone per vertex; the child has the rest.
const ROOT_WEIGHT: [f64; 6] = [1.0, 1.0, 0.5, 0.5, 0.0, 0.0];
/// Dual-quaternion shares of the blended file.
const BLEND: [f64; 6] = [0.0, 1.0, 0.25, 0.75, 0.5, 1.0];
/// The child's stored turn about +X, degrees, and where it stands (cm).
const TWIST: f64 = 100.0;
const CHILD_AT: [f64; 3] = [10.0, 0.0, 0.0];

fn list(v: impl IntoIterator<Item = f64>) -> String {
    // `{:?}` keeps a decimal point: an array of integers is not read as reals.
    v.into_iter()
        .map(|x| format!("{x:?}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// A limb node with its node attribute (id + 100), stored at translation `t` and
/// rotation `r` (degrees).
fn joint(id: i64, name: &str, t: [f64; 3], r: [f64; 3]) -> String {
    format!(
        "\tNodeAttribute: {}, \"NodeAttribute::{name}\", \"LimbNode\" {{\n\t\tTypeFlags: \"Skeleton\"\n\t}}\n\tModel: {id}, \"Model::{name}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",{},{},{}\n\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",{},{},{}\n\t\t}}\n\t}}\n",
        id + 100, t[0], t[1], t[2], r[0], r[1], r[2]
    )
}

/// A cluster weighting vertex `i` by `weights[i]`, its bone bound unturned at `link`.
fn cluster(id: i64, weights: &[f64], link: [f64; 3]) -> String {
    let idx: Vec<f64> = (0..weights.len()).map(|i| i as f64).collect();
    format!(
        "\tDeformer: {id}, \"SubDeformer::C{id}\", \"Cluster\" {{\n\t\tVersion: 100\n\t\tIndexes: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tWeights: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tTransform: *16 {{\n\t\t\ta: 1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,{:?},{:?},{:?},1.0\n\t\t}}\n\t\tTransformLink: *16 {{\n\t\t\ta: 1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,{:?},{:?},{:?},1.0\n\t\t}}\n\t}}\n",
        list(idx),
        list(weights.iter().copied()),
        -link[0], -link[1], -link[2],
        link[0], link[1], link[2],
        n = weights.len()
    )
}

/// An ASCII FBX 7.4 file (Y up, centimetres) of `objects` and `conns`.
fn fbx_file(objects: &str, conns: &str) -> String {
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nGlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{conns}}}\n"
    )
}

/// An ASCII FBX 7.4 file (each cluster's `Transform` the mesh to the bone at bind,
/// its `TransformLink` the bone's bind in the world): a root joint, a child joint at [`CHILD_AT`] stored turned
/// [`TWIST`]° about +X (bound unturned), a bar mesh skinned to both with
/// `skinning_type` (`DualQuaternion` or `Blend`, with [`BLEND`] as BlendWeights).
fn rig_fbx(skinning_type: &str) -> String {
    let blend = if skinning_type == "Blend" {
        format!(
            "\t\tIndexes: *6 {{\n\t\t\ta: 0,1,2,3,4,5\n\t\t}}\n\t\tBlendWeights: *6 {{\n\t\t\ta: {}\n\t\t}}\n",
            list(BLEND)
        )
    } else {
        String::new()
    };
    let mut objects = joint(1001, "Root", [0.0; 3], [0.0; 3]);
    objects += &joint(1002, "Child", CHILD_AT, [TWIST, 0.0, 0.0]);
    objects += &format!(
        "\tGeometry: 3000, \"Geometry::Bar\", \"Mesh\" {{\n\t\tVertices: *18 {{\n\t\t\ta: {}\n\t\t}}\n\t\tPolygonVertexIndex: *8 {{\n\t\t\ta: 0,1,3,-3,2,3,5,-5\n\t\t}}\n\t}}\n\tModel: 3001, \"Model::Bar\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n",
        list(VERTICES.iter().flatten().copied())
    );
    objects += &format!(
        "\tDeformer: 4000, \"Deformer::Skin\", \"Skin\" {{\n\t\tVersion: 101\n\t\tLink_DeformAcuracy: 50\n\t\tSkinningType: \"{skinning_type}\"\n{blend}\t}}\n"
    );
    objects += &cluster(4001, &ROOT_WEIGHT, [0.0; 3]);
    let child: Vec<f64> = ROOT_WEIGHT.iter().map(|w| 1.0 - w).collect();
    objects += &cluster(4002, &child, CHILD_AT);
    let conns = "\tC: \"OO\",1101,1001\n\tC: \"OO\",1102,1002\n\tC: \"OO\",1001,0\n\tC: \"OO\",1002,1001\n\tC: \"OO\",3000,3001\n\tC: \"OO\",3001,0\n\tC: \"OO\",4000,3000\n\tC: \"OO\",4001,4000\n\tC: \"OO\",4002,4000\n\tC: \"OO\",1001,4001\n\tC: \"OO\",1002,4002\n";
    fbx_file(&objects, conns)
}

/// Vertex `v` posed by the rig, independently: linear blend and dual-quaternion
/// skinning of the two bones (root still; child turned about +X through
/// [`CHILD_AT`]), mixed by the share `alpha`. FBX space, cm.
fn expected(v: usize, alpha: f64) -> DVec3 {
    let p = DVec3::from(VERTICES[v]);
    let c = DVec3::from(CHILD_AT);
    let q = [DQuat::IDENTITY, DQuat::from_rotation_x(TWIST.to_radians())];
    let t = [DVec3::ZERO, c - q[1] * c];
    let w = [ROOT_WEIGHT[v], 1.0 - ROOT_WEIGHT[v]];
    let lin: DVec3 = (0..2).map(|k| w[k] * (q[k] * p + t[k])).sum();
    let (mut real, mut dual) = (
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    );
    for k in 0..2 {
        let sw = if q[k].dot(q[0]) < 0.0 { -w[k] } else { w[k] };
        real += q[k] * sw;
        dual += DQuat::from_xyzw(t[k].x, t[k].y, t[k].z, 0.0) * q[k] * (0.5 * sw);
    }
    let n = real.length();
    let (r, d) = (real * (1.0 / n), dual * (1.0 / n));
    let tr = d * r.conjugate() * 2.0;
    let dq = r * p + DVec3::new(tr.x, tr.y, tr.z);
    lin * (1.0 - alpha) + dq * alpha
}

/// FBX cm, right-handed → GOM metres, left-handed (D2: z mirrored).
fn to_gom(p: DVec3) -> [f64; 3] {
    [p.x / 100.0, p.y / 100.0, -p.z / 100.0]
}

/// The converted model posed at its stored pose, vertex by vertex of the FBX mesh
/// (matched by bind position).
fn posed(text: &str) -> (gom::Model, Vec<String>, Vec<[f64; 3]>) {
    let (model, report) =
        convert(text.as_bytes(), "rig.fbx", &FbxOptions::default()).expect("convert");
    let at = PoseAt {
        clip: Some(STORED_POSE_CLIP.into()),
        time: 0.0,
        looped: false,
    };
    let meshes = pose_model(&model, &at).expect("pose");
    let bind = &model.meshes[0].vertices.positions;
    let out = VERTICES
        .iter()
        .map(|&v| {
            let want = to_gom(DVec3::from(v));
            let i = bind
                .iter()
                .position(|b| (0..3).all(|k| (f64::from(b[k]) - want[k]).abs() < 1e-6))
                .expect("every FBX vertex is in the mesh");
            meshes[0].positions[i].map(f64::from)
        })
        .collect();
    (model, report.warnings, out)
}

/// ufbx's own evaluated skinning of vertex `v` (the stored pose), in GOM space.
fn ufbx_posed(text: &str, v: usize) -> [f64; 3] {
    let scene = ufbx::load_memory(text.as_bytes(), ufbx::LoadOpts::default()).expect("ufbx");
    let mesh = scene.meshes.iter().next().expect("a mesh");
    let skin = &mesh.skin_deformers[0];
    let m = ufbx::get_skin_vertex_matrix(skin, v, &ufbx::Matrix::default());
    let p = ufbx::transform_position(
        &m,
        ufbx::Vec3 {
            x: VERTICES[v][0],
            y: VERTICES[v][1],
            z: VERTICES[v][2],
        },
    );
    to_gom(DVec3::new(p.x, p.y, p.z))
}

fn assert_near(got: [f64; 3], want: [f64; 3], what: &str) {
    let d = (0..3)
        .map(|k| (got[k] - want[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(d < 2e-6, "{what}: {got:?} vs {want:?} ({d} m apart)");
}

#[test]
fn a_dual_quaternion_skin_converts_and_poses_as_the_rig_and_ufbx_say() {
    let text = rig_fbx("DualQuaternion");
    let (model, warnings, got) = posed(&text);
    assert_eq!(model.meshes[0].skinning, SkinningMethod::DualQuaternion);
    assert!(
        !warnings.iter().any(|w| w.contains("dual-quaternion")),
        "{warnings:?}"
    );
    for (v, &g) in got.iter().enumerate() {
        assert_near(
            g,
            to_gom(expected(v, 1.0)),
            &format!("vertex {v} vs the rig"),
        );
        assert_near(g, ufbx_posed(&text, v), &format!("vertex {v} vs ufbx"));
    }
    // A vertex shared half and half keeps its distance from the axis (5 cm), which
    // linear skinning would not.
    let r = (got[2][1].powi(2) + got[2][2].powi(2)).sqrt();
    assert!((r - 0.05).abs() < 1e-6, "{r}");
    let lin = to_gom(expected(2, 0.0));
    assert!((lin[1].powi(2) + lin[2].powi(2)).sqrt() < 0.04);
}

#[test]
fn a_blended_skin_keeps_each_vertex_share_and_poses_as_the_rig_and_ufbx_say() {
    let text = rig_fbx("Blend");
    let (model, _, got) = posed(&text);
    let mesh = &model.meshes[0];
    assert_eq!(mesh.skinning, SkinningMethod::Blended);
    let shares = mesh.vertices.dq_weights.as_ref().expect("shares");
    for (v, &b) in BLEND.iter().enumerate() {
        assert_near(
            got[v],
            to_gom(expected(v, b)),
            &format!("vertex {v} vs the rig"),
        );
        assert_near(got[v], ufbx_posed(&text, v), &format!("vertex {v} vs ufbx"));
    }
    let mut kept: Vec<f32> = shares.clone();
    kept.sort_by(f32::total_cmp);
    kept.dedup();
    assert_eq!(kept, [0.0, 0.25, 0.5, 0.75, 1.0]);
    // And the model goes through GOMB unchanged.
    let back = gom::gomb::read(&gom::gomb::write(&model).unwrap())
        .unwrap()
        .model;
    assert_eq!(back.meshes[0].vertices.dq_weights, mesh.vertices.dq_weights);
    assert_eq!(back.meshes[0].skinning, SkinningMethod::Blended);
}

/// Bones of [`many_clusters_fbx`], each a cluster on every vertex.
const CLUSTERS: usize = 10;
/// The triangle of [`many_clusters_fbx`], in cm.
const TRIANGLE: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]];

/// Cluster `k`'s weight on vertex `v`: 10, 9, …, 1 (÷ 55) over the clusters, turned
/// by `v`, so each vertex drops two other clusters.
fn cluster_weight(k: usize, v: usize) -> f64 {
    (CLUSTERS - (k + v) % CLUSTERS) as f64 / 55.0
}

/// Bone `k`'s stored translation; every bone is bound at the origin.
fn cluster_offset(k: usize) -> DVec3 {
    DVec3::new(k as f64, 2.0 * (k % 3) as f64, -(k as f64) / 2.0)
}

/// A linearly skinned triangle on [`CLUSTERS`] sibling bones, every vertex weighted
/// by every cluster ([`cluster_weight`]).
fn many_clusters_fbx() -> String {
    let mut objects = String::new();
    let mut conns = String::new();
    for k in 0..CLUSTERS {
        let id = 1001 + k as i64;
        objects += &joint(id, &format!("J{k}"), cluster_offset(k).to_array(), [0.0; 3]);
        conns += &format!("\tC: \"OO\",{},{id}\n\tC: \"OO\",{id},0\n", id + 100);
    }
    objects += &format!(
        "\tGeometry: 3000, \"Geometry::Tri\", \"Mesh\" {{\n\t\tVertices: *9 {{\n\t\t\ta: {}\n\t\t}}\n\t\tPolygonVertexIndex: *3 {{\n\t\t\ta: 0,1,-3\n\t\t}}\n\t}}\n\tModel: 3001, \"Model::Tri\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n",
        list(TRIANGLE.iter().flatten().copied())
    );
    objects += "\tDeformer: 4000, \"Deformer::Skin\", \"Skin\" {\n\t\tVersion: 101\n\t\tLink_DeformAcuracy: 50\n\t\tSkinningType: \"Linear\"\n\t}\n";
    conns += "\tC: \"OO\",3000,3001\n\tC: \"OO\",3001,0\n\tC: \"OO\",4000,3000\n";
    for k in 0..CLUSTERS {
        let weights: Vec<f64> = (0..TRIANGLE.len()).map(|v| cluster_weight(k, v)).collect();
        let id = 4001 + k as i64;
        objects += &cluster(id, &weights, [0.0; 3]);
        conns += &format!("\tC: \"OO\",{id},4000\n\tC: \"OO\",{},{id}\n", 1001 + k);
    }
    fbx_file(&objects, &conns)
}

#[test]
fn fbx_clusters_past_four_are_kept_up_to_eight_and_the_lightest_dropped_with_the_report_line() {
    let (model, report) = convert(
        many_clusters_fbx().as_bytes(),
        "clusters.fbx",
        &FbxOptions::default(),
    )
    .expect("convert");
    let mesh = &model.meshes[0];
    assert_eq!(mesh.influence_count(), 8);
    let d = &report.dropped_influences;
    assert_eq!((d.vertices, d.influences), (3, 6));
    let line = "influences: 6 dropped on 3 vertices with more than eight";
    assert!(
        report.summary().iter().any(|l| l.contains(line)),
        "{:?}",
        report.summary()
    );
    let at = PoseAt {
        clip: Some(STORED_POSE_CLIP.into()),
        time: 0.0,
        looped: false,
    };
    let posed = pose_model(&model, &at).expect("pose");
    for (v, p) in TRIANGLE.iter().enumerate() {
        // Independently: the eight heaviest clusters, renormalised, move the vertex by
        // their bones' offsets (every bone bound at the origin, unturned).
        let kept: Vec<usize> = (0..CLUSTERS).filter(|&k| (k + v) % CLUSTERS < 8).collect();
        let sum: f64 = kept.iter().map(|&k| cluster_weight(k, v)).sum();
        let moved: DVec3 = kept
            .iter()
            .map(|&k| cluster_offset(k) * (cluster_weight(k, v) / sum))
            .sum();
        let want = to_gom(DVec3::from(*p));
        let i = mesh
            .vertices
            .positions
            .iter()
            .position(|b| (0..3).all(|k| (f64::from(b[k]) - want[k]).abs() < 1e-6))
            .expect("every FBX vertex is in the mesh");
        let got = posed[0].positions[i].map(f64::from);
        assert_near(got, to_gom(DVec3::from(*p) + moved), &format!("vertex {v}"));
    }
}
