//! No command writes over a file it reads: each command that writes a file, pointed at
//! one of its inputs (directly, or through a hard link), refuses before writing
//! anything and leaves the input byte for byte as it was.

mod common;

use common::{gom, s};
use std::path::{Path, PathBuf};

/// Runs `args` and checks that gom refused it as writing over an input (exit 2, the
/// shared message) and that every file of `kept` is unchanged.
fn assert_refused(args: &[&str], kept: &[&Path]) {
    let before: Vec<Vec<u8>> = kept.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let out = gom(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains("would replace the input"), "{args:?}: {err}");
    for (p, b) in kept.iter().zip(before) {
        assert_eq!(std::fs::read(p).unwrap(), b, "{} changed", p.display());
    }
}

/// The demo model (`demo.gom`, `demo.png`, …) in `dir`.
fn demo(dir: &Path) -> PathBuf {
    let out = gom(&["demo", s(dir)]);
    assert!(out.status.success(), "{out:?}");
    dir.join("demo.gom")
}

/// A material library `dir/lib.tml` with one material `name`, its texture the demo's
/// picture.
fn library(dir: &Path, name: &str) -> PathBuf {
    demo(dir);
    let tml = dir.join("lib.tml");
    let spec = format!("{name}={}", s(&dir.join("demo.png")));
    let out = gom(&["tml", "pack", s(&tml), "--material", &spec, "--format", "0"]);
    assert!(out.status.success(), "{out:?}");
    tml
}

#[test]
fn render_refuses_to_write_over_its_material_library() {
    let tmp = tempfile::tempdir().unwrap();
    let tml = library(tmp.path(), "A");
    let model = tmp.path().join("demo.gom");
    assert_refused(
        &["render", s(&model), "--tml", s(&tml), "-o", s(&tml)],
        &[&tml, &model],
    );
}

#[test]
fn tml_sheet_refuses_to_write_over_its_library() {
    let tmp = tempfile::tempdir().unwrap();
    let tml = library(tmp.path(), "A");
    assert_refused(&["tml", "sheet", s(&tml), "-o", s(&tml)], &[&tml]);
}

#[test]
fn tml_pack_refuses_to_write_over_a_source_image() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let png = tmp.path().join("demo.png");
    let spec = format!("A={}", s(&png));
    assert_refused(&["tml", "pack", s(&png), "--material", &spec], &[&png]);
}

#[test]
fn tml_replace_refuses_to_write_over_its_image() {
    let tmp = tempfile::tempdir().unwrap();
    let tml = library(tmp.path(), "A");
    let png = tmp.path().join("demo.png");
    assert_refused(
        &[
            "tml",
            "replace",
            s(&tml),
            "A",
            s(&png),
            "--allow-resize",
            "--out",
            s(&png),
        ],
        &[&tml, &png],
    );
}

#[test]
fn tml_extract_refuses_to_write_over_its_library_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let tml = library(tmp.path(), "A");
    let outdir = tmp.path().join("textures");
    std::fs::create_dir(&outdir).unwrap();
    // The texture's file name is its material's: a hard link there names the library.
    std::fs::hard_link(&tml, outdir.join("A.png")).unwrap();
    assert_refused(&["tml", "extract", s(&tml), s(&outdir)], &[&tml]);
}

#[test]
fn convert_to_tmd_refuses_to_write_over_its_template() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let game = tmp.path().join("game");
    std::fs::create_dir(&game).unwrap();
    let template = game.join("demo.tmd");
    let first = gom(&["convert", s(&model), s(&template)]);
    assert!(
        first.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_refused(
        &[
            "convert",
            s(&model),
            s(&template),
            "--template",
            s(&template),
        ],
        &[&template],
    );
}

#[test]
fn view_html_refuses_to_write_over_its_model() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let link = tmp.path().join("page.html");
    std::fs::hard_link(&model, &link).unwrap();
    assert_refused(&["view", s(&model), "--html", s(&link)], &[&model]);
}

#[test]
fn pose_refuses_to_write_over_its_model_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let model = demo(tmp.path());
    let link = tmp.path().join("pose.obj");
    std::fs::hard_link(&model, &link).unwrap();
    assert_refused(&["pose", s(&model), "-o", s(&link)], &[&model]);
}
