//! A failure prints one line naming the file once, whatever the importer.

use std::path::Path;

// Not every helper is used here.
#[allow(dead_code)]
mod common;
use common::{gom, s};

/// How many times `needle` occurs in `hay`.
fn occurrences(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Writes `bytes` as `name` in `dir` and checks that `gom convert` and `gom validate`
/// name the file exactly once in their message.
fn names_the_file_once(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out_path = dir.join("out.gom");
    let convert = gom(&["convert", s(&path), s(&out_path)]);
    assert_eq!(convert.status.code(), Some(2), "{convert:?}");
    let message = String::from_utf8_lossy(&convert.stderr);
    assert_eq!(occurrences(&message, name), 1, "convert: {message}");
    assert_eq!(message.lines().count(), 1, "convert: {message}");

    let validate = gom(&["validate", s(&path)]);
    assert_eq!(validate.status.code(), Some(2), "{validate:?}");
    let message = String::from_utf8_lossy(&validate.stdout);
    assert_eq!(occurrences(&message, name), 1, "validate: {message}");
    assert!(message.contains("unreadable"), "validate: {message}");
}

#[test]
fn an_fbx_failure_names_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    names_the_file_once(tmp.path(), "empty-model.fbx", b"");
}

#[test]
fn a_gltf_failure_names_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    names_the_file_once(tmp.path(), "broken-model.gltf", b"{\"asset\":");
}

#[test]
fn a_gomb_failure_names_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    names_the_file_once(tmp.path(), "short-model.gom", b"GOMB0001 but not really");
}

#[test]
fn a_jpog_failure_names_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    names_the_file_once(tmp.path(), "not-a-model.tmd", b"TMDQ and nothing else");
}

#[test]
fn a_missing_file_is_named_once() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("missing-model.fbx");
    let out = gom(&["validate", s(&path)]);
    let message = String::from_utf8_lossy(&out.stdout);
    assert_eq!(occurrences(&message, "missing-model.fbx"), 1, "{message}");
}

/// A cause three layers down (the import, its pipeline step, the bone map's read, the
/// operating system's error) is printed once, on one line after `error:`.
#[test]
fn a_pipeline_failure_prints_its_cause_once() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(gom(&["demo", s(tmp.path())]).status.success());
    let model = tmp.path().join("demo.gom");
    let map = tmp.path().join("missing-bone-map.txt");
    let os_error = std::fs::read(&map).unwrap_err().to_string();
    let out_path = tmp.path().join("out.gom");
    let args = [
        "convert",
        s(&model),
        s(&out_path),
        "--anim",
        s(&model),
        "--bone-map",
        s(&map),
    ];
    let out = gom(&args);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert_eq!(occurrences(&message, "error:"), 1, "{message}");
    assert_eq!(
        occurrences(&message, "missing-bone-map.txt"),
        1,
        "{message}"
    );
    assert_eq!(occurrences(&message, &os_error), 1, "{message}");
    assert!(!out_path.exists());
}
