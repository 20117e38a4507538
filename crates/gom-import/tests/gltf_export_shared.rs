//! Every shared FBX, glTF and JPOG model, exported to `.glb` and to `.gltf` + `.bin`
//! the way `gom convert` does: the Khronos glTF Validator finds no error in any of
//! them (skipped when it is not installed), textures are embedded or left out with a
//! warning, never written as a dangling URI, and the `.glb` imported back poses like
//! the model it was written from.

mod gltf_common;

use std::path::{Path, PathBuf};

use gltf_common::*;
use gom_import::source::{self, ImportOptions, OutputFormat};

/// `../shared/data/<sub>`'s files with extension `ext`, sorted.
fn shared(sub: &str, ext: &str) -> Vec<PathBuf> {
    let Some(dir) = gom_test_support::shared_data(sub) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        gom_test_support::skip(format_args!("{} cannot be read", dir.display()));
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext)))
        .collect();
    v.sort();
    v
}

fn shared_models() -> Vec<PathBuf> {
    let mut v = shared("fbx", "fbx");
    v.extend(shared("gltf", "gltf"));
    v.extend(shared("jpog", "tmd"));
    v
}

/// Converts `source` to `format` into `dir` as `gom convert` would; returns the output
/// path and the conversion's warnings.
fn convert(source: &Path, format: OutputFormat, dir: &Path) -> (PathBuf, Vec<String>) {
    let imported = source::import_path(source, &ImportOptions::default()).unwrap();
    let stem = source.file_stem().unwrap().to_str().unwrap();
    let out = dir.join(format!("{stem}.{}", format.extension()));
    let exported = source::export_imported(&imported, source, format, &out).unwrap();
    for side in &exported.side_files {
        std::fs::write(dir.join(&side.relative_path), &side.bytes).unwrap();
    }
    std::fs::write(&out, &exported.bytes).unwrap();
    (out, exported.warnings)
}

/// Every image of a glTF JSON document: none refers to a file.
fn image_uris(json: &serde_json::Value) -> Vec<String> {
    json["images"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["uri"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn every_shared_model_exports_to_gltf_that_the_khronos_validator_accepts() {
    let models = shared_models();
    if models.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut validated = 0;
    for model in &models {
        for format in [OutputFormat::Glb, OutputFormat::Gltf] {
            let (out, _) = convert(model, format, dir.path());
            if format == OutputFormat::Gltf {
                let json: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
                assert_eq!(image_uris(&json), Vec::<String>::new(), "{}", out.display());
            }
            let Some(report) = validate_with_khronos(&out) else {
                continue;
            };
            validated += 1;
            let errors = validator_errors(&report);
            if !errors.is_empty() {
                failures.push(format!("{}: {errors:#?}", out.display()));
            }
        }
    }
    if validated == 0 {
        gom_test_support::skip(
            "gltf-validator is not installed (npm install gltf-validator in GLTF_VALIDATOR_DIR)",
        );
    }
    assert!(
        failures.is_empty(),
        "validator errors:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_texture_missing_beside_its_source_is_a_warning_and_left_out() {
    let Some(source) = data_dir().map(|d| d.join("InterpolationTest.gltf")) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, warnings) = convert(&source, OutputFormat::Gltf, dir.path());
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("\"l.jpg\"") && w.contains("not found")),
        "{warnings:#?}"
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(json.get("images").is_none(), "{}", json["images"]);
    let materials = json["materials"].as_array().unwrap();
    assert!(materials
        .iter()
        .all(|m| m["pbrMetallicRoughness"].get("baseColorTexture").is_none()));
}

#[test]
fn a_glb_holds_the_images_of_its_textures() {
    let Some(source) = shared("jpog", "tmd").into_iter().next() else {
        return;
    };
    let imported = source::import_path(&source, &ImportOptions::default()).unwrap();
    let named: Vec<&String> = imported
        .model
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture.as_ref())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = convert(&source, OutputFormat::Glb, dir.path());
    let glb = gltf::Gltf::open(&out).unwrap();
    let images: Vec<_> = glb.document.images().collect();
    for image in &images {
        match image.source() {
            gltf::image::Source::View { mime_type, .. } => {
                assert!(["image/png", "image/jpeg"].contains(&mime_type))
            }
            gltf::image::Source::Uri { uri, .. } => panic!("image refers to the file {uri}"),
        }
    }
    if !named.is_empty() {
        assert!(!images.is_empty(), "{} names {named:?}", source.display());
    }
    // Nothing but the .glb is written beside it.
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1);
}

#[test]
fn every_shared_model_poses_the_same_after_a_glb_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for path in shared_models() {
        let imported = source::import_path(&path, &ImportOptions::default()).unwrap();
        let model = &imported.model;
        let (out, _) = convert(&path, OutputFormat::Glb, dir.path());
        let (back, _) =
            gom_import::gltf::import(&out, &gom_import::gltf::GltfOptions::default()).unwrap();
        let extent = model
            .meshes
            .iter()
            .flat_map(|m| m.vertices.positions.iter().flatten())
            .fold(0.0f32, |a, v| a.max(v.abs()));
        let tol = 1e-4 * (1.0 + extent);
        let mut cases = vec![(None, None, 0.0)];
        for (ci, clip) in model.clips.iter().enumerate() {
            let Some(bi) = back.clips.iter().position(|c| c.name == clip.name) else {
                continue; // a clip without tracks is not exported
            };
            let d = clip.duration;
            for t in [0.0, 0.37 * d, 0.81 * d] {
                cases.push((Some(ci), Some(bi), t));
            }
        }
        for (ca, cb, t) in cases {
            let a = gom_triangles(model, ca, t);
            let b = gom_triangles(&back, cb, t);
            same_triangles(&b, &a, tol)
                .unwrap_or_else(|e| panic!("{}: clip {ca:?} at {t}: {e}", path.display()));
        }
    }
}
