//! Animated custom properties of FBX nodes become float tracks of their stack's clip,
//! checked against the curves' values computed by hand.

use gom::events::{FloatTrack, Interpolation};
use gom_import::fbx::{convert, FbxOptions};

/// FBX time units per second.
const SEC: i64 = 46_186_158_000;

/// One curve node animating `prop` of model 3001 (channel defaults `defaults`), with
/// one curve on its first channel: `keys` (seconds, value), interpolation `flags`
/// (4 linear, 2 constant).
fn curve(
    id: i64,
    prop: &str,
    channels: &[(&str, f64)],
    keys: &[(f64, f64)],
    flags: u32,
) -> (String, String) {
    let defaults: String = channels
        .iter()
        .map(|(c, v)| format!("\t\t\tP: \"d|{c}\", \"Number\", \"\", \"A\",{v:?}\n"))
        .collect();
    let times: Vec<String> = keys
        .iter()
        .map(|k| ((k.0 * SEC as f64) as i64).to_string())
        .collect();
    let values: Vec<String> = keys.iter().map(|k| format!("{:?}", k.1)).collect();
    let objects = format!(
        "\tAnimationCurveNode: {id}, \"AnimCurveNode::{prop}\", \"\" {{\n\t\tProperties70:  {{\n{defaults}\t\t}}\n\t}}\n\tAnimationCurve: {c}, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *{n} {{\n\t\t\ta: {times}\n\t\t}}\n\t\tKeyValueFloat: *{n} {{\n\t\t\ta: {values}\n\t\t}}\n\t\tKeyAttrFlags: *1 {{\n\t\t\ta: {flags}\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,0,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {n}\n\t\t}}\n\t}}\n",
        c = id + 1,
        n = keys.len(),
        times = times.join(","),
        values = values.join(","),
    );
    let conns = format!(
        "\tC: \"OO\",{id},7001\n\tC: \"OP\",{id},3001, \"{prop}\"\n\tC: \"OP\",{c},{id}, \"d|{first}\"\n",
        c = id + 1,
        first = channels[0].0
    );
    (objects, conns)
}

/// An ASCII FBX 7.4 file: a null "Head" with three custom properties — `blink` (a
/// number: 0 at 0 s, 1 at 0.5 s, 0.25 at 1 s, linear), `visible` (a bool: 1, 0 at
/// 0.4 s, 1 at 0.8 s, constant) and `offset` (a vector whose X goes linearly from 0
/// to 4 over the second, Y and Z at 2 and 3) — animated by a stack "idle" of 1 s that
/// moves no node; a custom property `held` keyed at its stored value (as Maya keys
/// its own attributes), and a property that is not a custom one, animated too.
fn props_fbx() -> String {
    let mut objects = String::from(
        "\tModel: 3001, \"Model::Head\", \"Null\" {\n\t\tVersion: 232\n\t\tProperties70:  {\n\t\t\tP: \"blink\", \"Number\", \"\", \"A+U\",0\n\t\t\tP: \"visible\", \"bool\", \"\", \"A+U\",1\n\t\t\tP: \"offset\", \"Vector3D\", \"Vector\", \"A+U\",0,2,3\n\t\t\tP: \"held\", \"Number\", \"\", \"A+U\",0.5\n\t\t}\n\t}\n",
    );
    objects += &format!(
        "\tAnimationStack: 7000, \"AnimStack::idle\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{SEC}\n\t\t}}\n\t}}\n\tAnimationLayer: 7001, \"AnimLayer::Base\", \"\" {{\n\t}}\n"
    );
    let mut conns = String::from("\tC: \"OO\",3001,0\n\tC: \"OO\",7001,7000\n");
    for (o, c) in [
        curve(
            7010,
            "blink",
            &[("blink", 0.0)],
            &[(0.0, 0.0), (0.5, 1.0), (1.0, 0.25)],
            4,
        ),
        curve(
            7020,
            "visible",
            &[("visible", 1.0)],
            &[(0.0, 1.0), (0.4, 0.0), (0.8, 1.0)],
            2,
        ),
        curve(
            7030,
            "offset",
            &[("X", 0.0), ("Y", 2.0), ("Z", 3.0)],
            &[(0.0, 0.0), (1.0, 4.0)],
            4,
        ),
        curve(
            7040,
            "Visibility",
            &[("Visibility", 1.0)],
            &[(0.0, 1.0), (1.0, 0.0)],
            4,
        ),
        curve(7050, "held", &[("held", 0.5)], &[(0.0, 0.5), (1.0, 0.5)], 4),
    ] {
        objects += &o;
        conns += &c;
    }
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nGlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{conns}}}\n"
    )
}

fn find<'a>(tracks: &'a [FloatTrack], name: &str) -> &'a FloatTrack {
    tracks
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no float track {name}"))
}

#[test]
fn animated_custom_properties_become_float_tracks_with_the_curves_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("props.fbx");
    std::fs::write(&path, props_fbx()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let (model, report) = convert(&bytes, "props.fbx", &FbxOptions::default()).expect("convert");
    let clip = model
        .clips
        .iter()
        .find(|c| c.name == "idle")
        .unwrap_or_else(|| panic!("no clip idle: {:?}", report.warnings));
    assert!((clip.duration - 1.0).abs() < 1e-6);
    let tracks = &clip.extras.float_tracks;
    let mut names: Vec<&str> = tracks.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    // Visibility is the node's own property, not a custom one; `held` never leaves
    // its stored value.
    assert_eq!(names, ["blink", "offset", "visible"]);
    // The converted properties are not reported as dropped; Visibility is.
    let dropped: Vec<&String> = report
        .warnings
        .iter()
        .filter(|w| w.contains("not converted"))
        .collect();
    assert_eq!(dropped.len(), 2, "{:?}", report.warnings);
    assert!(
        dropped.iter().any(|w| w.contains("\"Visibility\"")),
        "{dropped:?}"
    );
    assert!(
        dropped.iter().any(|w| w.contains("\"held\"")),
        "{dropped:?}"
    );
    let blink = find(tracks, "blink");
    let visible = find(tracks, "visible");
    let offset = find(tracks, "offset");
    assert_eq!(
        (blink.components, blink.interpolation),
        (1, Interpolation::Linear)
    );
    assert_eq!(
        (visible.components, visible.interpolation),
        (1, Interpolation::Step)
    );
    assert_eq!(
        (offset.components, offset.interpolation),
        (3, Interpolation::Linear)
    );
    for t in [
        0.0f32, 0.123, 0.25, 0.39, 0.4, 0.5, 0.61, 0.79, 0.8, 0.95, 1.0,
    ] {
        let t64 = f64::from(t);
        let want_blink = if t64 <= 0.5 {
            2.0 * t64
        } else {
            1.0 - 1.5 * (t64 - 0.5)
        };
        let got = blink.sample(t)[0];
        assert!(
            (f64::from(got) - want_blink).abs() < 1e-5,
            "blink at {t}: {got} vs {want_blink}"
        );
        let want_visible = if (0.4..0.8).contains(&t) { 0.0 } else { 1.0 };
        assert_eq!(visible.sample(t)[0], want_visible, "visible at {t}");
        let o = offset.sample(t);
        let want = [4.0 * t64, 2.0, 3.0];
        for k in 0..3 {
            assert!(
                (f64::from(o[k]) - want[k]).abs() < 1e-5,
                "offset at {t}: {o:?}"
            );
        }
    }
    // The step track keeps only the keys where the value changes.
    assert_eq!(visible.times.len(), 3, "{:?}", visible.times);
}
