//! Tests of the FBX evaluator: hand-computed curves, and agreement with ufbx.

use super::curve::{Curve, Ext};
use super::rotation::{euler_to_quat, quat_to_euler, rotate_vec3};
use super::*;

fn key(time: f64, value: f64, interpolation: ufbx::Interpolation) -> ufbx::Keyframe {
    ufbx::Keyframe {
        time,
        value,
        interpolation,
        left: ufbx::Tangent { dx: 0.0, dy: 0.0 },
        right: ufbx::Tangent { dx: 0.0, dy: 0.0 },
    }
}

fn ext(mode: ufbx::ExtrapolationMode, repeat_count: i32) -> Ext {
    Ext { mode, repeat_count }
}

const CONSTANT: ufbx::ExtrapolationMode = ufbx::ExtrapolationMode::Constant;

#[test]
fn linear_and_step_keys_interpolate_by_hand() {
    use ufbx::Interpolation::*;
    let keys = [
        key(0.0, 1.0, Linear),
        key(1.0, 3.0, ConstantPrev),
        key(2.0, 5.0, ConstantNext),
        key(3.0, 7.0, Linear),
    ];
    let mut c = Curve::new(&keys, ext(CONSTANT, -1), ext(CONSTANT, -1), 0.0, 3.0, 1.0);
    assert_eq!(c.eval(0.0, 0.0), 1.0);
    assert_eq!(c.eval(0.25, 0.0), 1.5);
    assert_eq!(c.eval(1.0, 0.0), 3.0);
    assert_eq!(c.eval(1.5, 0.0), 3.0); // holds the previous key
    assert_eq!(c.eval(2.0, 0.0), 5.0); // exactly on a key
    assert_eq!(c.eval(2.5, 0.0), 7.0); // takes the next key
    assert_eq!(c.eval(3.0, 0.0), 7.0);
    // Backwards in time: the cursor searches again.
    assert_eq!(c.eval(0.5, 0.0), 2.0);
    // Outside the range, constant extrapolation holds the end keys.
    assert_eq!(c.eval(-1.0, 0.0), 1.0);
    assert_eq!(c.eval(9.0, 0.0), 7.0);
    // No keys: the default; one key: its value everywhere.
    let mut none = Curve::new(&[], ext(CONSTANT, -1), ext(CONSTANT, -1), 0.0, 0.0, 1.0);
    assert_eq!(none.eval(0.5, 4.0), 4.0);
    let one = [key(1.0, 2.0, Linear)];
    let mut one = Curve::new(&one, ext(CONSTANT, -1), ext(CONSTANT, -1), 1.0, 1.0, 1.0);
    assert_eq!(one.eval(-5.0, 4.0), 2.0);
    assert!(one.is_constant());
}

#[test]
fn cubic_keys_with_straight_tangents_are_linear_and_eased_ones_are_not() {
    use ufbx::Interpolation::*;
    // Tangents along the chord (a third of the 3 s span, a third of the rise): the
    // Bézier is the straight line from (0, 0) to (3, 9).
    let mut a = key(0.0, 0.0, Cubic);
    a.right = ufbx::Tangent { dx: 1.0, dy: 3.0 };
    let mut b = key(3.0, 9.0, Cubic);
    b.left = ufbx::Tangent { dx: 1.0, dy: 3.0 };
    let keys = [a, b];
    let mut c = Curve::new(&keys, ext(CONSTANT, -1), ext(CONSTANT, -1), 0.0, 3.0, 1.0);
    for i in 0..=30 {
        let t = f64::from(i) / 10.0;
        assert!((c.eval(t, 0.0) - 3.0 * t).abs() < 1e-12, "t = {t}");
    }
    // Flat tangents a third long (ease in and out): x(s) = 3 s exactly, so the value
    // at time t is the Bézier in y at s = t / 3: 9 (3 s² - 2 s³).
    let mut a = key(0.0, 0.0, Cubic);
    a.right = ufbx::Tangent { dx: 1.0, dy: 0.0 };
    let mut b = key(3.0, 9.0, Cubic);
    b.left = ufbx::Tangent { dx: 1.0, dy: 0.0 };
    let keys = [a, b];
    let mut c = Curve::new(&keys, ext(CONSTANT, -1), ext(CONSTANT, -1), 0.0, 3.0, 1.0);
    for t in [0.3, 0.75, 1.5, 2.9] {
        let s = t / 3.0;
        let want = 9.0 * (3.0 * s * s - 2.0 * s * s * s);
        assert!((c.eval(t, 0.0) - want).abs() < 1e-12, "t = {t}");
    }
    assert!((c.eval(1.5, 0.0) - 4.5).abs() < 1e-12);
}

#[test]
fn extrapolation_modes_follow_their_definitions() {
    use ufbx::ExtrapolationMode::*;
    use ufbx::Interpolation::*;
    // Ramp 0 -> 10 over [1, 2] s, 100 ticks a second.
    let keys = [key(1.0, 0.0, Linear), key(2.0, 10.0, Linear)];
    let curve = |pre, post| Curve::new(&keys, pre, post, 1.0, 2.0, 100.0);
    let mut c = curve(ext(Repeat, -1), ext(Repeat, -1));
    assert!((c.eval(2.25, 0.0) - 2.5).abs() < 1e-12);
    assert!((c.eval(0.75, 0.0) - 7.5).abs() < 1e-12);
    let mut c = curve(ext(Mirror, -1), ext(Mirror, -1));
    assert!((c.eval(2.25, 0.0) - 7.5).abs() < 1e-12);
    assert!((c.eval(3.25, 0.0) - 2.5).abs() < 1e-12);
    let mut c = curve(ext(RepeatRelative, -1), ext(RepeatRelative, -1));
    assert!((c.eval(2.25, 0.0) - 12.5).abs() < 1e-12);
    assert!((c.eval(0.75, 0.0) - -2.5).abs() < 1e-12);
    // A repeat count ends the repetition on the last repeated value.
    let mut c = curve(ext(Repeat, 1), ext(Repeat, 1));
    assert!((c.eval(5.5, 0.0) - 10.0).abs() < 1e-12);
    // No repetition allowed: the end key holds.
    let mut c = curve(ext(Repeat, 0), ext(Repeat, 0));
    assert_eq!(c.eval(5.5, 0.0), 10.0);
    // Slope: along the end tangent.
    let mut k = keys;
    k[1].left = ufbx::Tangent { dx: 0.5, dy: 1.0 };
    let mut c = Curve::new(&k, ext(CONSTANT, -1), ext(Slope, -1), 1.0, 2.0, 100.0);
    assert!((c.eval(3.0, 0.0) - 12.0).abs() < 1e-12);
}

#[test]
fn euler_angles_compose_in_their_rotation_order() {
    // Rotating (1, 0, 0) by 90° about Z then 90° about X (order XYZ applies X first):
    // XYZ order means R = Rz * Ry * Rx for column vectors; a point is rotated about
    // X first. (1, 0, 0) about X stays, then about Z goes to (0, 1, 0).
    let q = euler_to_quat([90.0, 0.0, 90.0], ufbx::RotationOrder::Xyz);
    let v = rotate_vec3(q, [1.0, 0.0, 0.0]);
    assert!((v[0]).abs() < 1e-15 && (v[1] - 1.0).abs() < 1e-15 && v[2].abs() < 1e-15);
    // ZYX applies Z first: (1, 0, 0) -> (0, 1, 0) -> about X -> (0, 0, 1).
    let q = euler_to_quat([90.0, 0.0, 90.0], ufbx::RotationOrder::Zyx);
    let v = rotate_vec3(q, [1.0, 0.0, 0.0]);
    assert!(v[0].abs() < 1e-15 && v[1].abs() < 1e-15 && (v[2] - 1.0).abs() < 1e-15);
    // Back to angles (degrees) for every order.
    use ufbx::RotationOrder::*;
    for order in [Xyz, Xzy, Yzx, Yxz, Zxy, Zyx] {
        let e = [10.0, -35.0, 70.0];
        let back = quat_to_euler(euler_to_quat(e, order), order);
        for k in 0..3 {
            assert!((back[k] - e[k]).abs() < 1e-9, "{order:?}: {back:?}");
        }
    }
}

fn data_dir() -> Option<std::path::PathBuf> {
    gom_test_support::shared_data("fbx")
}

/// The shared FBX files in name order (none when `../shared` is absent).
pub(crate) fn shared_fbx_files() -> Vec<std::path::PathBuf> {
    let Some(dir) = data_dir() else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fbx"))
        .collect();
    files.sort();
    files
}

/// The independent check of the port: on every node of every shared FBX file, for
/// every stack, at key times, between them, before the start and after the end,
/// this evaluation equals ufbx's own up to the last bits of `sin`/`cos`.
#[test]
fn agrees_with_ufbx_on_every_shared_file() {
    let files = shared_fbx_files();
    if files.is_empty() {
        return;
    }
    let mut checked = 0usize;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let scene = super::super::load(&bytes, "test").unwrap();
        for stack in scene.anim_stacks.iter() {
            let anim: &ufbx::Anim = &stack.anim;
            let (b, e) = (stack.time_begin, stack.time_end);
            let mut times: Vec<f64> = (0..=97)
                .map(|i| b + (e - b) * f64::from(i) / 97.0)
                .collect();
            times.extend([b - 0.7, b - 0.01, e + 0.013, e + 1.9]);
            for node in scene.nodes.iter() {
                let st = NodeStatic::new(&scene, node);
                let Some(mut ev) = NodeEval::new(&scene, anim, node, &st) else {
                    // Nothing animated: ufbx gives the stored transform.
                    for &t in &times {
                        let u = ufbx::evaluate_transform(anim, node, t);
                        assert_same(&u, &node.local_transform, &path, node, t);
                    }
                    continue;
                };
                assert!(
                    !ev.is_fallback(),
                    "{}: {} needs ufbx",
                    path.display(),
                    &*node.element.name
                );
                let mut keys = Vec::new();
                ev.key_times(&mut keys);
                let mut all: Vec<f64> = times.clone();
                all.extend(keys.iter().map(|k| k.time));
                all.sort_by(f64::total_cmp);
                for &t in &all {
                    let u = ufbx::evaluate_transform(anim, node, t);
                    assert_same(&ev.eval(t), &u, &path, node, t);
                    checked += 1;
                }
                // Out of order too (the cursor searches back).
                for &t in all.iter().rev().step_by(7) {
                    let u = ufbx::evaluate_transform(anim, node, t);
                    assert_same(&ev.eval(t), &u, &path, node, t);
                }
            }
        }
    }
    eprintln!("{checked} node samples agree with ufbx");
    assert!(checked > 1000, "only {checked} samples checked");
}

fn assert_same(
    a: &ufbx::Transform,
    b: &ufbx::Transform,
    path: &std::path::Path,
    node: &ufbx::Node,
    t: f64,
) {
    // NaN where ufbx gives NaN too (slope extrapolation along a zero-length tangent).
    let close = |x: f64, y: f64| {
        (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0) || (x.is_nan() && y.is_nan())
    };
    let ok = close(a.translation.x, b.translation.x)
        && close(a.translation.y, b.translation.y)
        && close(a.translation.z, b.translation.z)
        && close(a.rotation.x, b.rotation.x)
        && close(a.rotation.y, b.rotation.y)
        && close(a.rotation.z, b.rotation.z)
        && close(a.rotation.w, b.rotation.w)
        && close(a.scale.x, b.scale.x)
        && close(a.scale.y, b.scale.y)
        && close(a.scale.z, b.scale.z);
    assert!(
        ok,
        "{} node {} at {t}: gom {:?} {:?} {:?} vs ufbx {:?} {:?} {:?}",
        path.display(),
        &*node.element.name,
        a.translation,
        a.rotation,
        a.scale,
        b.translation,
        b.rotation,
        b.scale
    );
}

/// An ASCII FBX 7.4 file built to reach every branch the shared files do not: a Z-up
/// file in inches (space conversion adjusts the root), pivots, offsets, pre- and
/// post-rotation with a non-XYZ rotation order, three layers (base, additive with
/// composed rotation and multiplied scale, blended by channel), repeat, mirror,
/// relative-repeat and slope extrapolation, step keys, and children that ignore their
/// parent's animated scale or inherit it component-wise (ufbx adds scale helpers).
pub(crate) fn synthetic_fbx() -> String {
    const SEC: i64 = 46_186_158_000;
    let mut objects = String::new();
    let mut conns = String::new();
    let model = |id: i64, name: &str, props: &str| {
        format!("\tModel: {id}, \"Model::{name}\", \"Null\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n{props}\t\t}}\n\t}}\n")
    };
    let p3 = |name: &str, v: [f64; 3]| {
        format!(
            "\t\t\tP: \"{name}\", \"Vector3D\", \"Vector\", \"A\",{},{},{}\n",
            v[0], v[1], v[2]
        )
    };
    let pint = |name: &str, v: i64| format!("\t\t\tP: \"{name}\", \"enum\", \"\", \"\",{v}\n");
    let root_props = [
        p3("Lcl Translation", [1.0, 2.0, 3.0]),
        p3("Lcl Rotation", [10.0, 20.0, 30.0]),
        p3("Lcl Scaling", [1.0, 2.0, 0.5]),
        p3("PreRotation", [10.0, -20.0, 30.0]),
        p3("PostRotation", [5.0, -15.0, 25.0]),
        p3("RotationPivot", [1.0, 2.0, 3.0]),
        p3("ScalingPivot", [0.5, 0.0, 1.0]),
        p3("RotationOffset", [0.1, 0.2, 0.3]),
        p3("ScalingOffset", [0.3, 0.2, 0.1]),
        pint("RotationOrder", 3),
        pint("RotationActive", 1),
    ]
    .concat();
    objects += &model(1001, "Root", &root_props);
    let child_props = [
        p3("Lcl Translation", [4.0, 0.0, 1.0]),
        p3("Lcl Rotation", [0.0, 45.0, 0.0]),
        pint("InheritType", 2),
    ]
    .concat();
    objects += &model(1002, "Child", &child_props);
    let grand_props = [
        p3("Lcl Translation", [0.0, 3.0, 0.0]),
        p3("Lcl Scaling", [1.5, 1.0, 1.0]),
        pint("InheritType", 0),
    ]
    .concat();
    objects += &model(1003, "Grand", &grand_props);
    objects += &model(1004, "Leaf", &p3("Lcl Translation", [0.0, 0.0, 2.0]));
    conns +=
        "\tC: \"OO\",1001,0\n\tC: \"OO\",1002,1001\n\tC: \"OO\",1003,1002\n\tC: \"OO\",1004,1003\n";

    objects += &format!(
        "\tAnimationStack: 2001, \"AnimStack::take\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{}\n\t\t}}\n\t}}\n",
        2 * SEC
    );
    // (id, blend mode, weight %, rotation accumulation, scale accumulation)
    let layers = [
        (3001, 0, 100, 0, 0),
        (3002, 0, 50, 0, 0),
        (3003, 2, 30, 1, 1),
    ];
    for (id, mode, weight, rot, scale) in layers {
        objects += &format!(
            "\tAnimationLayer: {id}, \"AnimLayer::l{id}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"Weight\", \"Number\", \"\", \"A\",{weight}\n\t\t\tP: \"BlendMode\", \"enum\", \"\", \"\",{mode}\n\t\t\tP: \"RotationAccumulationMode\", \"enum\", \"\", \"\",{rot}\n\t\t\tP: \"ScaleAccumulationMode\", \"enum\", \"\", \"\",{scale}\n\t\t}}\n\t}}\n"
        );
        conns += &format!("\tC: \"OO\",{id},2001\n");
    }
    // Key flags: 2 constant, 4 linear, 8 | 0x400 cubic with user tangents.
    /// (key flags, keys (time, value), pre- and post-extrapolation) per axis.
    type Axis<'a> = (i32, &'a [(f64, f64)], char, char);
    let mut next_id = 5000;
    let mut curve_node = |layer: i64, model: i64, prop: &str, curves: [Axis; 3]| {
        next_id += 1;
        let cn = next_id;
        objects += &format!("\tAnimationCurveNode: {cn}, \"AnimCurveNode::n{cn}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",0\n\t\t}}\n\t}}\n");
        conns += &format!("\tC: \"OO\",{cn},{layer}\n\tC: \"OP\",{cn},{model}, \"{prop}\"\n");
        for (axis, (flags, keys, pre, post)) in ["X", "Y", "Z"].iter().zip(curves) {
            next_id += 1;
            let c = next_id;
            let times: Vec<String> = keys
                .iter()
                .map(|k| ((k.0 * SEC as f64) as i64).to_string())
                .collect();
            let values: Vec<String> = keys.iter().map(|k| k.1.to_string()).collect();
            objects += &format!(
                "\tAnimationCurve: {c}, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tKeyValueFloat: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tKeyAttrFlags: *1 {{\n\t\t\ta: {flags}\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 1.5,-2,218434821,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {n}\n\t\t}}\n\t\tPre-Extrapolation:  {{\n\t\t\tType: {}\n\t\t\tRepetition: -1\n\t\t}}\n\t\tPost-Extrapolation:  {{\n\t\t\tType: {}\n\t\t\tRepetition: 2\n\t\t}}\n\t}}\n",
                times.join(","),
                values.join(","),
                pre as u32,
                post as u32,
                n = keys.len()
            );
            conns += &format!("\tC: \"OP\",{c},{cn}, \"d|{axis}\"\n");
        }
    };
    let ramp: &[(f64, f64)] = &[(0.5, 0.0), (0.9, 3.0), (1.5, -2.0)];
    let swing: &[(f64, f64)] = &[(0.4, -30.0), (1.0, 60.0), (1.3, 20.0), (1.6, 80.0)];
    let grow: &[(f64, f64)] = &[(0.5, 1.0), (1.5, 2.5)];
    let steps: &[(f64, f64)] = &[(0.3, 0.0), (0.8, 40.0), (1.4, -10.0)];
    curve_node(
        3001,
        1001,
        "Lcl Translation",
        [
            (4, ramp, 'R', 'M'),
            (4, grow, 'A', 'A'),
            (1032, ramp, 'K', 'K'),
        ],
    );
    curve_node(
        3001,
        1001,
        "Lcl Rotation",
        [
            (1032, swing, 'C', 'R'),
            (1032, ramp, 'M', 'C'),
            (4, swing, 'A', 'K'),
        ],
    );
    curve_node(
        3001,
        1001,
        "Lcl Scaling",
        [
            (1032, grow, 'C', 'C'),
            (4, grow, 'R', 'M'),
            (1032, grow, 'K', 'C'),
        ],
    );
    curve_node(
        3001,
        1001,
        "RotationPivot",
        [
            (4, ramp, 'C', 'C'),
            (4, ramp, 'C', 'C'),
            (4, ramp, 'C', 'C'),
        ],
    );
    curve_node(
        3001,
        1002,
        "Lcl Rotation",
        [
            (2, steps, 'C', 'K'),
            (2, steps, 'R', 'C'),
            (4, steps, 'C', 'C'),
        ],
    );
    curve_node(
        3001,
        1002,
        "Lcl Scaling",
        [
            (4, grow, 'C', 'C'),
            (4, grow, 'C', 'C'),
            (4, grow, 'C', 'C'),
        ],
    );
    curve_node(
        3002,
        1001,
        "Lcl Rotation",
        [
            (1032, ramp, 'C', 'C'),
            (4, swing, 'C', 'C'),
            (1032, ramp, 'C', 'C'),
        ],
    );
    curve_node(
        3002,
        1001,
        "Lcl Scaling",
        [
            (4, grow, 'C', 'C'),
            (4, grow, 'C', 'C'),
            (4, grow, 'C', 'C'),
        ],
    );
    curve_node(
        3003,
        1001,
        "Lcl Rotation",
        [
            (4, swing, 'C', 'C'),
            (4, ramp, 'C', 'C'),
            (4, swing, 'C', 'C'),
        ],
    );
    curve_node(
        3003,
        1001,
        "Lcl Scaling",
        [
            (4, grow, 'C', 'C'),
            (4, grow, 'C', 'C'),
            (4, grow, 'C', 'C'),
        ],
    );
    curve_node(
        3003,
        1001,
        "Lcl Translation",
        [
            (4, ramp, 'C', 'C'),
            (4, ramp, 'C', 'C'),
            (4, ramp, 'C', 'C'),
        ],
    );
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nGlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",-1\n\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",2.54\n\t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{conns}}}\n"
    )
}

#[test]
fn agrees_with_ufbx_on_layers_helpers_pivots_and_extrapolation() {
    let text = synthetic_fbx();
    let scene = super::super::load(text.as_bytes(), "synthetic.fbx").unwrap();
    // The file reaches what it is built for.
    let stack = &scene.anim_stacks[0];
    assert_eq!(stack.layers.count, 3);
    let l = &stack.layers;
    assert!(l[1].additive && l[1].compose_rotation && l[1].compose_scale);
    assert!(l[2].blended && !l[2].additive && !l[2].compose_rotation && !l[2].compose_scale);
    assert!((l[1].weight - 0.5).abs() < 1e-12 && (l[2].weight - 0.3).abs() < 1e-12);
    let node = |name: &str| {
        scene
            .nodes
            .iter()
            .find(|n| &*n.element.name == name)
            .unwrap()
    };
    assert!(
        node("Root").has_adjust_transform,
        "space conversion adjusts the root"
    );
    assert!(node("Root").use_rotation_space);
    assert_eq!(node("Root").rotation_order, ufbx::RotationOrder::Yxz);
    assert!(
        scene.nodes.iter().any(|n| n.is_scale_helper),
        "ufbx added scale helpers"
    );
    assert!(scene.nodes.iter().any(|n| n.inherit_scale_node.is_some()));
    let modes: Vec<ufbx::ExtrapolationMode> = scene
        .anim_curves
        .iter()
        .flat_map(|c| [c.pre_extrapolation.mode, c.post_extrapolation.mode])
        .collect();
    use ufbx::ExtrapolationMode::*;
    for m in [Constant, Repeat, Mirror, Slope, RepeatRelative] {
        assert!(modes.contains(&m), "{m:?} not reached");
    }
    let anim: &ufbx::Anim = &stack.anim;
    let mut checked = 0;
    let mut moving = 0;
    let mut finite = 0;
    for n in scene.nodes.iter() {
        let st = NodeStatic::new(&scene, n);
        let ev = NodeEval::new(&scene, anim, n, &st);
        moving += usize::from(ev.is_some());
        let mut ev = ev;
        for i in -40..=120 {
            let t = f64::from(i) * 0.025 + 0.0013;
            let u = ufbx::evaluate_transform(anim, n, t);
            match &mut ev {
                Some(e) => {
                    assert!(!e.is_fallback());
                    let g = e.eval(t);
                    finite += usize::from(g.translation.x.is_finite() && g.rotation.w.is_finite());
                    assert_same(&g, &u, std::path::Path::new("synthetic.fbx"), n, t)
                }
                None => assert_same(
                    &n.local_transform,
                    &u,
                    std::path::Path::new("synthetic.fbx"),
                    n,
                    t,
                ),
            }
            checked += 1;
        }
    }
    assert!(moving >= 4, "{moving} moving nodes");
    eprintln!("{checked} samples, {finite} finite animated ones");
    assert!(finite > 500, "{finite} finite samples");
    assert!(checked > 600);
}

/// The stored placement gom computes equals what ufbx's load stored: every node's
/// local transform and its node-to-world matrix, on every shared file and the
/// synthetic one.
#[test]
fn stored_transforms_agree_with_ufbx() {
    let mut files: Vec<(String, Vec<u8>)> =
        vec![("synthetic.fbx".into(), synthetic_fbx().into_bytes())];
    for p in shared_fbx_files() {
        files.push((p.display().to_string(), std::fs::read(&p).unwrap()));
    }
    let mut checked = 0;
    for (name, bytes) in &files {
        let scene = super::super::load(bytes, name).unwrap();
        let statics: Vec<NodeStatic> = scene
            .nodes
            .iter()
            .map(|n| NodeStatic::new(&scene, n))
            .collect();
        let stored = Stored::new(&scene, &statics);
        for (i, node) in scene.nodes.iter().enumerate() {
            let path = std::path::Path::new(name);
            assert_same(&stored.local[i], &node.local_transform, path, node, 0.0);
            if node.inherit_mode == ufbx::InheritMode::Normal {
                let want = super::super::mat::from_ufbx(&node.node_to_world).to_cols_array();
                let got = stored.world[i].to_cols_array();
                let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                for k in 0..16 {
                    assert!(
                        (got[k] - want[k]).abs() <= 1e-10 * scale,
                        "{name} node {}: world[{k}] {} vs {}",
                        &*node.element.name,
                        got[k],
                        want[k]
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} nodes");
}

/// Between the boundaries of its varying spans (and its keys), a node's transform is
/// the same at every time: on every moving node of every shared file and of the
/// generated one (layers, helpers, steps, every extrapolation), ufbx's evaluation at a
/// quarter, half and three quarters of every gap outside the spans agrees. So sampling
/// a held gap at its two ends only loses nothing.
#[test]
fn transforms_hold_still_outside_their_varying_spans() {
    let mut sources: Vec<(String, Vec<u8>)> = shared_fbx_files()
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    sources.push(("synthetic.fbx".into(), synthetic_fbx().into_bytes()));
    let (mut held, mut varying) = (0usize, 0usize);
    for (name, bytes) in &sources {
        let scene = super::super::load(bytes, "test").unwrap();
        for stack in scene.anim_stacks.iter() {
            let anim: &ufbx::Anim = &stack.anim;
            for node in scene.nodes.iter() {
                let st = NodeStatic::new(&scene, node);
                let Some(ev) = NodeEval::new(&scene, anim, node, &st) else {
                    continue;
                };
                let mut spans = Vec::new();
                ev.varying_spans(&mut spans);
                let mut keys = Vec::new();
                ev.key_times(&mut keys);
                let (b, e) = (stack.time_begin, stack.time_end);
                let mut cuts: Vec<f64> = vec![b - 2.0, b, e, e + 2.0];
                cuts.extend(keys.iter().map(|k| k.time));
                cuts.extend(spans.iter().flat_map(|s| [s.0, s.1]));
                cuts.retain(|t| t.is_finite());
                cuts.sort_by(f64::total_cmp);
                cuts.dedup();
                let inside = super::super::times::Varying::new(spans);
                for w in cuts.windows(2) {
                    let (a, c) = (w[0], w[1]);
                    if inside.meets(a, c) {
                        varying += 1;
                        continue;
                    }
                    held += 1;
                    let at = |f: f64| ufbx::evaluate_transform(anim, node, a + (c - a) * f);
                    let first = at(0.25);
                    for f in [0.5, 0.75] {
                        assert_same(&at(f), &first, std::path::Path::new(name), node, a);
                    }
                }
            }
        }
    }
    eprintln!("{held} held gaps, {varying} varying");
    assert!(held > 10 && varying > 10, "{held} held, {varying} varying");
}

/// The sample times of a clip, interpolated linearly as a GOM reader does, give the
/// curve itself at every time away from its jumps, on curves made of holds, steps, two
/// keys at one time, ramps and keys closer than one `f32` step (linear and constant
/// keys only, which interpolating the samples reproduces exactly): no jump and no ramp
/// falls inside a gap sampled at its ends only.
#[test]
fn samples_reproduce_holds_steps_and_same_time_keys() {
    use ufbx::Interpolation::*;
    let tiny = 1e-9;
    let curves: [&[ufbx::Keyframe]; 5] = [
        // A hold, then a jump made of two keys at one time, then a hold.
        &[
            key(0.0, 0.0, Linear),
            key(1.0, 0.0, Linear),
            key(1.0, 10.0, Linear),
            key(3.0, 10.0, Linear),
        ],
        // Steps both ways around a hold.
        &[
            key(0.2, 1.0, ConstantPrev),
            key(1.5, 4.0, ConstantNext),
            key(2.5, 6.0, Linear),
            key(2.8, 6.0, Linear),
        ],
        // A ramp between holds.
        &[
            key(0.5, 2.0, Linear),
            key(1.0, 2.0, Linear),
            key(1.4, 5.0, Linear),
            key(3.0, 5.0, Linear),
        ],
        // Two steps closer than one f32 step (one sample time), then a hold.
        &[
            key(0.0, 0.0, ConstantPrev),
            key(1.0, 5.0, ConstantPrev),
            key(1.0 + tiny, 7.0, Linear),
            key(3.0, 7.0, Linear),
        ],
        // One key: the same value everywhere.
        &[key(1.7, 3.0, Linear)],
    ];
    let (duration, rate) = (3.0, 30.0);
    for (ci, keys) in curves.iter().enumerate() {
        let (lo, hi) = (keys[0].time, keys[keys.len() - 1].time);
        let mut c = Curve::new(keys, ext(CONSTANT, -1), ext(CONSTANT, -1), lo, hi, 1.0);
        let mut times = Vec::new();
        c.key_times(&mut times);
        let mut spans = Vec::new();
        c.varying_spans(&mut spans);
        let varying = super::super::times::Varying::new(spans);
        let samples =
            super::super::times::key_sample_times(&times, &varying, 0.0, duration, rate, 100_000)
                .unwrap();
        let values: Vec<f64> = samples.iter().map(|s| c.eval(s.1, 0.0)).collect();
        // Sampled sparsely where it holds, densely where it ramps.
        assert!(
            samples.len() < 3 * (duration * rate) as usize / 4,
            "curve {ci}"
        );
        let near_jump = |t: f64| keys.iter().any(|k| (t - k.time).abs() <= 1.0 / rate + 1e-6);
        for i in 0..=3000 {
            let t = duration * f64::from(i) / 3000.0;
            if near_jump(t) {
                continue;
            }
            let j = samples
                .partition_point(|s| s.1 <= t)
                .clamp(1, samples.len() - 1);
            let (a, b) = (samples[j - 1].1, samples[j].1);
            let f = ((t - a) / (b - a)).clamp(0.0, 1.0);
            let got = values[j - 1] + (values[j] - values[j - 1]) * f;
            let want = c.eval(t, 0.0);
            assert!(
                (got - want).abs() <= 1e-9,
                "curve {ci} at {t}: samples give {got}, the curve {want}"
            );
        }
    }
}
