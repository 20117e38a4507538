//! Every JSON output of `gom` is JSON: names holding quotes, backslashes, control
//! characters and non-ASCII text come back exactly when the output is parsed.

use std::process::Output;

mod common;
use common::{gom, s, shared_data};

/// A name every JSON writer must escape: a quote, a backslash, a control character, a
/// tab and non-ASCII text (short enough for the game's 15-byte name fields).
const NAME: &str = "q\"b\\c\u{1}\té";

/// Standard output parsed as JSON, after checking success: every JSON output is
/// alone on standard output.
fn parsed(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The demo model with `NAME` in its first bone, mesh part and clip.
fn hostile_model() -> gom::Model {
    let mut m = gom_demo::build();
    m.skeleton.bones[0].name = NAME.to_string();
    m.meshes[0].name = NAME.to_string();
    m.clips[0].name = NAME.to_string();
    m
}

#[test]
fn info_json_keeps_bone_mesh_and_clip_names() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("m.gom");
    std::fs::write(&path, gom::gomb::write(&hostile_model()).unwrap()).unwrap();
    let v = parsed(&gom(&["info", s(&path), "--json"]));
    let text = v.to_string();
    // Whatever the summary's layout, the name must be a string value in it, exactly.
    let found = strings(&v);
    assert!(found.contains(&NAME), "{text}");
}

#[test]
fn info_json_of_several_files_is_one_array_of_the_single_file_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.gom");
    let b = tmp.path().join("b.gomt");
    std::fs::write(&a, gom::gomb::write(&hostile_model()).unwrap()).unwrap();
    std::fs::write(&b, gom::gomt::write(&gom_demo::build()).unwrap()).unwrap();
    let one_a = parsed(&gom(&["info", s(&a), "--json"]));
    let one_b = parsed(&gom(&["info", s(&b), "--json"]));
    assert!(one_a.is_object() && one_b.is_object());
    let both = parsed(&gom(&["info", s(&b), s(&a), "--json"]));
    assert_eq!(both, serde_json::Value::Array(vec![one_b, one_a.clone()]));

    // Each entry names its file; an unreadable file is reported on stderr (exit 2)
    // and has an entry of its own with the error.
    let files: Vec<&serde_json::Value> = both
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["file"])
        .collect();
    assert_eq!(files, [s(&b), s(&a)]);
    let missing = tmp.path().join("missing.gom");
    let out = gom(&["info", s(&a), s(&missing), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v[0], one_a);
    assert_eq!(v[1]["file"], s(&missing), "{v:#}");
    assert!(
        v[1]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{v:#}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.gom"));
}

#[test]
fn convert_report_json_is_alone_on_stdout_for_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("m.gom");
    std::fs::write(&model, gom::gomb::write(&gom_demo::build()).unwrap()).unwrap();
    for out in ["x.gom", "x.gomt", "x.glb", "game/x.tmd"] {
        let out = tmp.path().join(out);
        let run = gom(&["convert", s(&model), s(&out), "--report", "json"]);
        let v = parsed(&run);
        assert!(v["warnings"].is_array(), "{}: {v:#}", out.display());
        assert!(v["validation"].is_array(), "{}: {v:#}", out.display());
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("wrote "), "{err}");
    }
}

#[test]
fn a_tmd_output_reports_as_every_output_does() {
    let tmp = tempfile::tempdir().unwrap();
    // Two clips of one name: a validation finding (and a warning of the export: the
    // game's keys hold no scale).
    let mut model = gom_demo::build();
    model.clips[1].name = model.clips[0].name.clone();
    let dup = tmp.path().join("dup.gom");
    std::fs::write(&dup, gom::gomb::write(&model).unwrap()).unwrap();
    let out = tmp.path().join("game/dup.tmd");
    let run = gom(&["convert", s(&dup), s(&out)]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("warning: validation: uniqueClipNames"),
        "{err}"
    );
    let scale = err
        .lines()
        .find(|l| l.contains("scale their bone"))
        .unwrap();
    assert!(scale.starts_with("warning: "), "{err}");
    assert!(out.is_file());
}

#[test]
fn convert_report_json_keeps_mesh_and_clip_names() {
    let tmp = tempfile::tempdir().unwrap();
    let glb = tmp.path().join("m.glb");
    let (bytes, _) = gom_import::source::export(
        &hostile_model(),
        gom_import::source::OutputFormat::Glb,
        &glb,
    )
    .unwrap();
    std::fs::write(&glb, bytes).unwrap();
    let out = tmp.path().join("m.gom");
    let v = parsed(&gom(&["convert", s(&glb), s(&out), "--report", "json"]));
    let meshes: Vec<&str> = v["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(meshes.contains(&NAME), "{v:#}");
    assert_eq!(v["clips"][0]["name"], NAME, "{v:#}");
}

#[test]
fn build_report_json_keeps_file_names() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let file = format!("{NAME}.gom");
    std::fs::write(
        src.join(&file),
        gom::gomb::write(&gom_demo::build()).unwrap(),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let v = parsed(&gom(&["build", s(&src), s(&out), "--report", "json", "-q"]));
    assert_eq!(v["files"][0]["source"], file.as_str(), "{v:#}");
    assert_eq!(v["files"][0]["output"], file.as_str(), "{v:#}");
    // The manifest, read back as JSON, keeps the name too.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("gom-build.json")).unwrap()).unwrap();
    assert_eq!(manifest["entries"][0]["source"], file.as_str());
}

#[test]
fn game_library_json_keeps_material_and_library_names() {
    let Some(data) = shared_data("jpog") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut tml = jpog::Tml::read(&std::fs::read(data.join("tml_main.tml")).unwrap()).unwrap();
    // Material names are sorted (the game finds them by binary search): the last one
    // takes a name sorting after every letter.
    let material = format!("~{NAME}");
    let last = tml.materials.len() - 1;
    tml.materials[last].name_field = jpog::tml::Material::name_field_from(&material).unwrap();
    let tml_path = tmp.path().join("lib.tml");
    std::fs::write(&tml_path, tml.write().unwrap()).unwrap();

    let listing = parsed(&gom(&["tml", "list", s(&tml_path), "--json"]));
    assert_eq!(listing["materials"][last]["name"], material, "{listing:#}");
    let info = parsed(&gom(&["info", s(&tml_path), "--json"]));
    assert_eq!(
        info["listing"]["materials"][last]["name"], material,
        "{info:#}"
    );
    let outdir = tmp.path().join("textures");
    let manifest = parsed(&gom(&[
        "tml",
        "extract",
        s(&tml_path),
        s(&outdir),
        "--json",
    ]));
    assert!(strings(&manifest).contains(&&*material), "{manifest:#}");

    let mut tkl = jpog::Tkl::read(&std::fs::read(data.join("Ddev.tkl")).unwrap()).unwrap();
    tkl.name_field = [0; 16];
    tkl.name_field[..NAME.len()].copy_from_slice(NAME.as_bytes());
    let tkl_path = tmp.path().join("lib.tkl");
    std::fs::write(&tkl_path, tkl.write().unwrap()).unwrap();
    let info = parsed(&gom(&["info", s(&tkl_path), "--json"]));
    assert_eq!(info["name"], NAME, "{info:#}");
}

#[test]
fn tmd_json_keeps_node_and_library_names() {
    let Some(data) = shared_data("jpog") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut tmd = jpog::Tmd::read(&std::fs::read(data.join("tmd_static.tmd")).unwrap()).unwrap();
    tmd.nodes[0].set_name(NAME).unwrap();
    tmd.header.tkl_name = [0; 16];
    tmd.header.tkl_name[..NAME.len()].copy_from_slice(NAME.as_bytes());
    let path = tmp.path().join("m.tmd");
    std::fs::write(&path, tmd.write().unwrap()).unwrap();

    for extra in [&[][..], &["--open-fields"][..]] {
        let mut args = vec!["tmd", "info", s(&path), "--json"];
        args.extend_from_slice(extra);
        let v = parsed(&gom(&args));
        let info = if extra.is_empty() { &v } else { &v["info"] };
        assert_eq!(info["tkl_name"], NAME, "{v:#}");
        assert_eq!(info["nodes"][0]["name"], NAME, "{v:#}");
    }

    let out = tmp.path().join("m.gom");
    let report = parsed(&gom(&["convert", s(&path), s(&out), "--report", "json"]));
    assert_eq!(report["jpog"]["tklName"], NAME, "{report:#}");
}

/// Every string value anywhere in `v`.
fn strings(v: &serde_json::Value) -> Vec<&str> {
    match v {
        serde_json::Value::String(s) => vec![s.as_str()],
        serde_json::Value::Array(a) => a.iter().flat_map(strings).collect(),
        serde_json::Value::Object(o) => o.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}
