//! `gom build` with `gom.toml` and `FILE.gom.toml`: the options apply where they
//! should, a changed config rebuilds exactly what it covers, a changed file a config
//! names rebuilds its model, and a bad key stops the build with a clear error.

use std::collections::BTreeMap;
use std::path::Path;

mod common;
use common::{gom, s, shared_data};

/// `gom build SRC OUT --report json -j 1`: each source's status.
fn build(src: &Path, out: &Path) -> BTreeMap<String, String> {
    let o = gom(&["build", s(src), s(out), "--report", "json", "-j", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["source"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn statuses(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// `gom convert IN OUT FLAGS...`, returning OUT's bytes.
fn convert(input: &Path, out: &Path, flags: &[&str]) -> Vec<u8> {
    let mut args = vec!["convert", s(input), s(out)];
    args.extend_from_slice(flags);
    let o = gom(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out).unwrap()
}

/// A glTF copy of the demo model at `path` (its clips are resampled on import at the
/// sample rate).
fn demo_glb(dir: &Path, path: &Path) {
    let gomb = dir.join("demo-source.gom");
    std::fs::write(&gomb, gom::gomb::write(&gom_demo::build()).unwrap()).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    convert(&gomb, path, &[]);
}

#[test]
fn a_folder_config_applies_below_it_and_a_change_rebuilds_exactly_what_it_covers() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    for rel in ["a/x.glb", "a/deep/z.glb", "b/y.glb"] {
        demo_glb(dir.path(), &src.join(rel));
    }
    let config = src.join("a/gom.toml");
    std::fs::write(&config, "# slow motion capture\nsample_rate = 10\n").unwrap();

    let all_converted = statuses(&[
        ("a/deep/z.glb", "converted"),
        ("a/x.glb", "converted"),
        ("b/y.glb", "converted"),
    ]);
    assert_eq!(build(&src, &out), all_converted);
    // The second path: `gom convert` with the same option on the command line.
    let at_10_hz = convert(
        &src.join("a/x.glb"),
        &dir.path().join("at-10-hz.gom"),
        &["--sample-rate", "10"],
    );
    let default = convert(&src.join("b/y.glb"), &dir.path().join("default.gom"), &[]);
    assert!(at_10_hz != default, "the option shows in the output");
    assert_eq!(std::fs::read(out.join("a/x.gom")).unwrap(), at_10_hz);
    assert_eq!(std::fs::read(out.join("a/deep/z.gom")).unwrap(), at_10_hz);
    assert_eq!(std::fs::read(out.join("b/y.gom")).unwrap(), default);

    let none = statuses(&[
        ("a/deep/z.glb", "up-to-date"),
        ("a/x.glb", "up-to-date"),
        ("b/y.glb", "up-to-date"),
    ]);
    assert_eq!(build(&src, &out), none);

    // A deeper config overrides the folder's; only the source below it rebuilds.
    std::fs::write(src.join("a/deep/gom.toml"), "sample_rate = 30\n").unwrap();
    assert_eq!(
        build(&src, &out),
        statuses(&[
            ("a/deep/z.glb", "converted"),
            ("a/x.glb", "up-to-date"),
            ("b/y.glb", "up-to-date"),
        ])
    );
    assert_eq!(std::fs::read(out.join("a/deep/z.gom")).unwrap(), default);

    // Changing the folder config rebuilds both sources under it, and no other.
    std::fs::write(&config, "sample_rate = 10\nkey_tolerance = 0\n").unwrap();
    assert_eq!(
        build(&src, &out),
        statuses(&[
            ("a/deep/z.glb", "converted"),
            ("a/x.glb", "converted"),
            ("b/y.glb", "up-to-date"),
        ])
    );

    // A file's own config wins over the folder configs, and rebuilds that file only.
    std::fs::write(src.join("a/x.glb.gom.toml"), "sample_rate = 30\n").unwrap();
    assert_eq!(
        build(&src, &out),
        statuses(&[
            ("a/deep/z.glb", "up-to-date"),
            ("a/x.glb", "converted"),
            ("b/y.glb", "up-to-date"),
        ])
    );
    assert_eq!(std::fs::read(out.join("a/x.gom")).unwrap(), default);
}

#[test]
fn a_changed_file_named_in_a_config_rebuilds_the_model_that_uses_it() {
    let Some(data) = shared_data("jpog") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    for sub in ["dinos", "props", "libs"] {
        std::fs::create_dir_all(src.join(sub)).unwrap();
    }
    std::fs::copy(
        data.join("tmd_creature.tmd"),
        src.join("dinos/creature.tmd"),
    )
    .unwrap();
    std::fs::copy(data.join("tmd_static.tmd"), src.join("props/static.tmd")).unwrap();
    let tkl = src.join("libs/keys.tkl");
    std::fs::copy(data.join("Ddev.tkl"), &tkl).unwrap();
    std::fs::write(
        src.join("dinos/creature.tmd.gom.toml"),
        "tkl = \"../libs/keys.tkl\"\n",
    )
    .unwrap();
    let first = build(&src, &out);
    assert_eq!(first["dinos/creature.tmd"], "converted");
    // The library the config names was read: the clips are there.
    let o = gom(&["info", s(&out.join("dinos/creature.gom")), "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        !info["clips"].as_array().unwrap().is_empty(),
        "the keyframe library was found through the config"
    );
    assert!(build(&src, &out).values().all(|v| v == "up-to-date"));

    // Another byte at the end of the library: the creature is converted again (or
    // fails to be), the prop is not.
    let mut bytes = std::fs::read(&tkl).unwrap();
    bytes.push(0);
    std::fs::write(&tkl, bytes).unwrap();
    let o = gom(&["build", s(&src), s(&out), "--report", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let status = |name: &str| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["source"] == name)
            .map(|f| f["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_ne!(status("dinos/creature.tmd"), "up-to-date");
    assert_eq!(status("props/static.tmd"), "up-to-date");
}

#[test]
fn a_bad_key_stops_the_build_naming_the_config_the_line_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    demo_glb(dir.path(), &src.join("m/x.glb"));
    let config = src.join("m/gom.toml");
    std::fs::write(&config, "sample_rate = 60\nkey_tolerance_mm = 2\n").unwrap();
    let o = gom(&["build", s(&src), s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "{}: line 2: unknown key `key_tolerance_mm`",
            config.display()
        )),
        "{err}"
    );
    assert!(!out.join("m/x.gom").exists(), "nothing converted");
}
