//! FBX blend shapes become morph targets (`docs/extensions.md` §4.4), not baked: the
//! shared Blender file posed with its stored weight equals its reference `.obj`, and
//! a hand-written file with an in-between and an animated `DeformPercent` poses as
//! FBX's in-between rule, computed here by hand, says.

use gom_import::fbx::{convert, FbxOptions};
use gom_import::pose::{pose_model, PoseAt};

mod shared_data;

/// The `v` lines of an OBJ, mapped into GOM space for a Y-up right-handed file in
/// metres (D2: z mirrored).
fn obj_positions(text: &str) -> Vec<[f64; 3]> {
    text.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let n: Vec<f64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [n[0], n[1], -n[2]]
        })
        .collect()
}

/// Every vertex of every part, posed at `at`.
fn posed(model: &gom::Model, at: &PoseAt) -> Vec<[f64; 3]> {
    pose_model(model, at)
        .expect("pose")
        .iter()
        .flat_map(|m| m.positions.iter().map(|p| p.map(f64::from)))
        .collect()
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

/// Whether every point of each set has one of the other within `tol`.
fn same_points(a: &[[f64; 3]], b: &[[f64; 3]], tol: f64) -> bool {
    let near = |p: &[f64; 3], set: &[[f64; 3]]| set.iter().any(|q| dist(*p, *q) < tol);
    a.iter().all(|p| near(p, b)) && b.iter().all(|p| near(p, a))
}

const BIND: PoseAt = PoseAt {
    clip: None,
    time: 0.0,
    looped: false,
};

#[test]
fn a_static_blend_shape_is_a_morph_target_at_its_stored_weight() {
    let Some(dir) = shared_data::fbx_dir() else {
        return;
    };
    let name = "blender_331_static_blend_shape_7400_binary.fbx";
    let bytes = std::fs::read(dir.join(name)).expect("read");
    let (model, report) = convert(&bytes, name, &FbxOptions::default()).expect("convert");
    assert!(
        !report.warnings.iter().any(|w| w.contains("baked")),
        "{:?}",
        report.warnings
    );
    // ufbx's own reading of the file: the channels and their stored weights.
    let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).expect("ufbx");
    let channels: Vec<(String, f64)> = scene
        .blend_channels
        .iter()
        .map(|c| (c.element.name.to_string(), c.weight))
        .collect();
    assert!(!channels.is_empty() && channels.iter().any(|c| c.1 != 0.0));
    let part = model
        .meshes
        .iter()
        .find(|m| !m.morph_targets.is_empty())
        .expect("a part with morph targets");
    let got: Vec<(String, f64)> = part
        .morph_targets
        .iter()
        .map(|t| (t.name.clone(), f64::from(t.default_weight)))
        .collect();
    assert_eq!(got.len(), channels.len());
    for (g, c) in got.iter().zip(&channels) {
        assert_eq!(g.0, c.0);
        assert!((g.1 - c.1).abs() < 1e-6, "{g:?} vs {c:?}");
    }
    let want = obj_positions(
        &std::fs::read_to_string(dir.join("blender_331_static_blend_shape.obj")).expect("obj"),
    );
    // Posed with the default weights: the reference frame, within its tolerance.
    assert!(same_points(&posed(&model, &BIND), &want, 1e-3));
    // Not baked: at weight 0 the mesh is the base shape, away from the frame.
    let mut base = model.clone();
    for t in base.meshes.iter_mut().flat_map(|m| &mut m.morph_targets) {
        t.default_weight = 0.0;
    }
    assert!(!same_points(&posed(&base, &BIND), &want, 1e-3));
    // What the `.tmd` writer does: the default weights baked in give the frame too.
    let mut baked = model.clone();
    gom::morph::bake_defaults(&mut baked);
    assert!(baked.meshes.iter().all(|m| m.morph_targets.is_empty()));
    assert!(same_points(&posed(&baked, &BIND), &want, 1e-3));
}

/// Ticks per second in FBX times.
const SEC: i64 = 46_186_158_000;
/// The quad's corners (cm, FBX space).
const QUAD: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [100.0, 0.0, 0.0],
    [100.0, 100.0, 0.0],
    [0.0, 100.0, 0.0],
];
/// The in-between shape at 50 % moves vertex 2 by this, the full shape vertices 2 and
/// 3 by [`FULL`] (cm).
const HALF: [f64; 3] = [0.0, 0.0, 40.0];
const FULL: [[f64; 3]; 2] = [[0.0, 0.0, 100.0], [0.0, 20.0, 0.0]];

fn list(v: impl IntoIterator<Item = f64>) -> String {
    v.into_iter()
        .map(|x| format!("{x:?}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// An ASCII FBX 7.4 file: a static quad with one blend channel "smile" (an in-between
/// at 50 % and the full shape), stored at 25 %, and a stack "talk" of 1 s whose
/// `DeformPercent` goes linearly from 0 to 100.
fn smile_fbx() -> String {
    let shape = |id: i64, name: &str, indexes: &[f64], offsets: &[[f64; 3]]| {
        format!(
            "\tGeometry: {id}, \"Geometry::{name}\", \"Shape\" {{\n\t\tVersion: 100\n\t\tIndexes: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tVertices: *{m} {{\n\t\t\ta: {}\n\t\t}}\n\t}}\n",
            indexes.iter().map(|i| (*i as i64).to_string()).collect::<Vec<_>>().join(","),
            list(offsets.iter().flatten().copied()),
            n = indexes.len(),
            m = 3 * offsets.len()
        )
    };
    let mut objects = format!(
        "\tGeometry: 3000, \"Geometry::Quad\", \"Mesh\" {{\n\t\tVertices: *12 {{\n\t\t\ta: {}\n\t\t}}\n\t\tPolygonVertexIndex: *4 {{\n\t\t\ta: 0,1,2,-4\n\t\t}}\n\t}}\n\tModel: 3001, \"Model::Quad\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n",
        list(QUAD.iter().flatten().copied())
    );
    objects += "\tDeformer: 6000, \"Deformer::Blend\", \"BlendShape\" {\n\t\tVersion: 100\n\t}\n";
    objects += "\tDeformer: 6001, \"SubDeformer::smile\", \"BlendShapeChannel\" {\n\t\tVersion: 100\n\t\tDeformPercent: 25\n\t\tFullWeights: *2 {\n\t\t\ta: 50,100\n\t\t}\n\t\tProperties70:  {\n\t\t\tP: \"DeformPercent\", \"Number\", \"\", \"A\",25\n\t\t}\n\t}\n";
    objects += &shape(5000, "half", &[2.0], &[HALF]);
    objects += &shape(5001, "full", &[2.0, 3.0], &FULL);
    objects += &format!(
        "\tAnimationStack: 7000, \"AnimStack::talk\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{SEC}\n\t\t}}\n\t}}\n\tAnimationLayer: 7001, \"AnimLayer::Base\", \"\" {{\n\t}}\n\tAnimationCurveNode: 7002, \"AnimCurveNode::DeformPercent\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|DeformPercent\", \"Number\", \"\", \"A\",25\n\t\t}}\n\t}}\n\tAnimationCurve: 7003, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *2 {{\n\t\t\ta: 0,{SEC}\n\t\t}}\n\t\tKeyValueFloat: *2 {{\n\t\t\ta: 0,100\n\t\t}}\n\t\tKeyAttrFlags: *1 {{\n\t\t\ta: 4\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,0,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: 2\n\t\t}}\n\t}}\n"
    );
    let conns = "\tC: \"OO\",3000,3001\n\tC: \"OO\",3001,0\n\tC: \"OO\",6000,3000\n\tC: \"OO\",6001,6000\n\tC: \"OO\",5000,6001\n\tC: \"OO\",5001,6001\n\tC: \"OO\",7001,7000\n\tC: \"OO\",7002,7001\n\tC: \"OP\",7002,6001, \"DeformPercent\"\n\tC: \"OP\",7003,7002, \"d|DeformPercent\"\n";
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nGlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{conns}}}\n"
    )
}

/// The quad at channel weight `w` by FBX's in-between rule, by hand: up to 0.5 the
/// half shape grows from the base (`2w`); from 0.5 to 1 it hands over to the full
/// shape (`2 − 2w` and `2w − 1`). In GOM space (metres, z mirrored).
fn quad_at(w: f64) -> Vec<[f64; 3]> {
    let (half, full) = if w <= 0.5 {
        (2.0 * w, 0.0)
    } else {
        (2.0 - 2.0 * w, 2.0 * w - 1.0)
    };
    QUAD.iter()
        .enumerate()
        .map(|(v, p)| {
            let mut q = *p;
            for k in 0..3 {
                if v == 2 {
                    q[k] += half * HALF[k] + full * FULL[0][k];
                }
                if v == 3 {
                    q[k] += full * FULL[1][k];
                }
            }
            [q[0] / 100.0, q[1] / 100.0, -q[2] / 100.0]
        })
        .collect()
}

#[test]
fn in_betweens_and_animated_deform_percent_pose_as_fbx_defines() {
    let text = smile_fbx();
    let (model, report) =
        convert(text.as_bytes(), "smile.fbx", &FbxOptions::default()).expect("convert");
    let part = &model.meshes[0];
    let names: Vec<&str> = part.morph_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["smile@0.5", "smile"]);
    let defaults: Vec<f32> = part
        .morph_targets
        .iter()
        .map(|t| t.default_weight)
        .collect();
    assert_eq!(defaults, [0.5, 0.0]);
    assert!(same_points(&posed(&model, &BIND), &quad_at(0.25), 1e-6));
    // The stack moves no node, yet its clip is written: it moves the weights.
    let clip = model.clips.iter().find(|c| c.name == "talk").expect("clip");
    assert!(clip.tracks.is_empty() && clip.weight_tracks.len() == 2);
    assert!(
        !report.warnings.iter().any(|w| w.contains("talk")),
        "{:?}",
        report.warnings
    );
    for t in [0.0f32, 0.2, 0.5, 0.8, 1.0] {
        let at = PoseAt {
            clip: Some("talk".into()),
            time: t,
            looped: false,
        };
        let got = posed(&model, &at);
        assert!(
            same_points(&got, &quad_at(f64::from(t)), 1e-5),
            "t = {t}: {got:?} vs {:?}",
            quad_at(f64::from(t))
        );
    }
    // Key reduction keeps the rule's corner at 0.5 and drops the straight samples.
    for track in &clip.weight_tracks {
        assert!(track.keys.len() <= 3, "{:?}", track.keys);
    }
}

/// [`smile_fbx`] with the weight animated as the model's property "smile", which a
/// property-to-property connection feeds into the channel's `DeformPercent` (how FBX
/// 5 files from 3ds Max animate a morph channel, as a property of the model named
/// after the shape).
fn smile_through_model_fbx() -> String {
    smile_fbx()
        .replace(
            "\"Model::Quad\", \"Mesh\" {\n\t\tVersion: 232\n",
            "\"Model::Quad\", \"Mesh\" {\n\t\tVersion: 232\n\t\tProperties70:  {\n\t\t\tP: \"smile\", \"Number\", \"\", \"A+U\",25\n\t\t}\n",
        )
        .replace(
            "C: \"OP\",7002,6001, \"DeformPercent\"",
            "C: \"OP\",7002,3001, \"smile\"\n\tC: \"PP\",3001,\"smile\",6001,\"DeformPercent\"",
        )
}

#[test]
fn a_model_property_feeding_deform_percent_animates_the_weights_without_a_warning() {
    let text = smile_through_model_fbx();
    assert!(text.contains("\"PP\"") && text.contains("P: \"smile\""));
    let (model, report) =
        convert(text.as_bytes(), "smile.fbx", &FbxOptions::default()).expect("convert");
    assert!(
        !report.warnings.iter().any(|w| w.contains("talk")),
        "{:?}",
        report.warnings
    );
    for t in [0.2f32, 0.8] {
        let at = PoseAt {
            clip: Some("talk".into()),
            time: t,
            looped: false,
        };
        assert!(same_points(
            &posed(&model, &at),
            &quad_at(f64::from(t)),
            1e-5
        ));
    }
}
