//! GOM → glTF: exported files pass the Khronos glTF Validator with zero errors (skipped
//! when it is not installed), and glTF → GOM → glTF → GOM keeps the mesh, skeleton,
//! clips and posed positions.

mod gltf_common;

use std::collections::BTreeMap;
use std::path::Path;

use gltf_common::*;
use gom_import::gltf::{
    export, import, import_slice, ExportFormat, Exported, GltfExportOptions, GltfOptions,
};

/// `model` as a `.glb` whose textures are `images`.
fn glb(model: &gom::Model, images: BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let options = GltfExportOptions {
        images,
        ..Default::default()
    };
    match export(model, &options).unwrap() {
        Exported::Glb(b) => b,
        Exported::Gltf { .. } => unreachable!("asked for a .glb"),
    }
}

/// Writes `model` as `.glb` and as `.gltf` + `.bin` into `dir` and validates both.
/// Returns whether the validator ran.
fn export_and_validate(
    model: &gom::Model,
    dir: &Path,
    stem: &str,
    source_dir: Option<&Path>,
) -> bool {
    // The textures found beside the source are embedded; the missing ones left out.
    let images = source_dir
        .map(|d| gom_import::source::texture_images(model, d, &[]))
        .unwrap_or_default();
    let glb_path = dir.join(format!("{stem}.glb"));
    std::fs::write(&glb_path, glb(model, images.clone())).unwrap();
    let opts = GltfExportOptions {
        format: ExportFormat::Gltf {
            bin_uri: format!("{stem} data.bin"),
        },
        images,
    };
    let Exported::Gltf { json, bin } = export(model, &opts).unwrap() else {
        unreachable!("asked for a .gltf")
    };
    let gltf_path = dir.join(format!("{stem}.gltf"));
    std::fs::write(&gltf_path, json).unwrap();
    std::fs::write(dir.join(format!("{stem} data.bin")), bin).unwrap();
    // A second reader, available everywhere: the `gltf` crate's loader checks the
    // schema and every index, and reads the buffers back.
    for file in [&glb_path, &gltf_path] {
        let g = gltf::Gltf::open(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        gltf::import_buffers(&g.document, Some(dir), g.blob)
            .unwrap_or_else(|e| panic!("{}: buffers: {e}", file.display()));
    }
    let mut ran = false;
    for file in [&glb_path, &gltf_path] {
        let Some(report) = validate_with_khronos(file) else {
            return false;
        };
        ran = true;
        let errors = validator_errors(&report);
        assert!(
            errors.is_empty(),
            "{}: {} validator errors: {errors:#?}",
            file.display(),
            errors.len()
        );
        let warnings = report["issues"]["numWarnings"].as_u64().unwrap_or(0);
        if warnings > 0 {
            eprintln!("{}: {warnings} warnings", file.display());
        }
    }
    ran
}

#[test]
fn exported_samples_pass_the_khronos_validator() {
    let samples = samples();
    if samples.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for path in &samples {
        let (model, _) = import(path, &GltfOptions::default()).unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        if !export_and_validate(&model, dir.path(), stem, path.parent()) {
            gom_test_support::skip(
                "gltf-validator is not installed (npm install gltf-validator in GLTF_VALIDATOR_DIR)",
            );
            return;
        }
    }
}

#[test]
fn exported_demo_models_pass_the_khronos_validator() {
    let dir = tempfile::tempdir().unwrap();
    let demo = gom_demo::build();
    // A static variant: no skeleton, no clips, a mesh placed by its GBTM.
    let mut still = demo.clone();
    still.clips.clear();
    still.skeleton.bones.clear();
    still.meshes.retain(|m| m.mesh_bind_geo_to_model.is_some());
    for m in &mut still.meshes {
        m.vertices.skin = None;
        m.inverse_bind.clear();
    }
    // With blend shapes: targets, default weights, names and a weights channel.
    let morph = gom_demo::with_morphs(demo.clone());
    for (stem, model) in [("demo", &demo), ("still", &still), ("morph", &morph)] {
        if !export_and_validate(model, dir.path(), stem, None) {
            gom_test_support::skip(
                "gltf-validator is not installed (npm install gltf-validator in GLTF_VALIDATOR_DIR)",
            );
            return;
        }
    }
}

/// A 1x1 PNG.
fn tiny_png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 1, 1);
    enc.set_color(png::ColorType::Rgba);
    enc.write_header()
        .unwrap()
        .write_image_data(&[200, 100, 50, 255])
        .unwrap();
    out
}

/// `model` as `.gltf` JSON (parsed) and its buffer.
fn gltf_json(
    model: &gom::Model,
    images: BTreeMap<String, Vec<u8>>,
) -> (serde_json::Value, Vec<u8>) {
    let options = GltfExportOptions {
        format: ExportFormat::Gltf {
            bin_uri: "demo.bin".into(),
        },
        images,
    };
    let Exported::Gltf { json, bin } = export(model, &options).unwrap() else {
        unreachable!("asked for a .gltf")
    };
    (serde_json::from_str(&json).unwrap(), bin)
}

#[test]
fn the_same_model_gives_the_same_bytes_every_time_in_both_containers() {
    let mut demo = gom_demo::build();
    demo.materials[0].base_color_texture = Some("skin.png".into());
    let images: BTreeMap<String, Vec<u8>> = [("skin.png".to_string(), tiny_png())].into();
    let first = glb(&demo, images.clone());
    let text = |m: &gom::Model| {
        let options = GltfExportOptions {
            format: ExportFormat::Gltf {
                bin_uri: "demo.bin".into(),
            },
            images: images.clone(),
        };
        export(m, &options).unwrap()
    };
    let first_text = text(&demo);
    for _ in 0..3 {
        assert_eq!(glb(&demo, images.clone()), first);
        assert_eq!(text(&demo.clone()), first_text);
    }
}

#[test]
fn the_document_holds_the_model_section_by_section() {
    let mut demo = gom_demo::build();
    demo.materials[0].base_color_texture = Some("skin.png".into());
    let png = tiny_png();
    let (doc, bin) = gltf_json(&demo, [("skin.png".to_string(), png.clone())].into());
    assert_eq!(doc["asset"]["version"], "2.0");
    assert_eq!(doc["asset"]["generator"], gom::CONVERTER_VERSION);
    assert_eq!(doc["buffers"][0]["byteLength"], bin.len());
    assert_eq!(doc["buffers"][0]["uri"], "demo.bin");
    // Nodes: the bones first, in order, with their children.
    let nodes = doc["nodes"].as_array().unwrap();
    for (i, bone) in demo.skeleton.bones.iter().enumerate() {
        assert_eq!(nodes[i]["name"], bone.name.as_str(), "node {i}");
        let children: Vec<usize> = (0..demo.skeleton.bones.len())
            .filter(|&k| demo.skeleton.bones[k].parent == i as i32)
            .collect();
        let written: Vec<usize> = nodes[i]["children"]
            .as_array()
            .map(|c| c.iter().map(|v| v.as_u64().unwrap() as usize).collect())
            .unwrap_or_default();
        assert_eq!(written, children, "children of node {i}");
    }
    // Materials: name, factor, and the texture embedded once, bytes unchanged.
    let materials = doc["materials"].as_array().unwrap();
    assert_eq!(materials.len(), demo.materials.len());
    for (m, written) in demo.materials.iter().zip(materials) {
        assert_eq!(written["name"], m.name.as_str());
        let factor: Vec<f32> = written["pbrMetallicRoughness"]["baseColorFactor"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(factor, m.base_color_factor);
    }
    let info = &materials[0]["pbrMetallicRoughness"]["baseColorTexture"];
    let image = &doc["images"][doc["textures"][info["index"].as_u64().unwrap() as usize]["source"]
        .as_u64()
        .unwrap() as usize];
    assert_eq!(image["mimeType"], "image/png");
    let view = &doc["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    let end = start + view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(&bin[start..end], &png[..]);
    // Animations: one per clip with tracks, three LINEAR channels per track on its bone.
    let animations = doc["animations"].as_array().unwrap();
    let clips: Vec<&gom::Clip> = demo.clips.iter().filter(|c| !c.tracks.is_empty()).collect();
    assert_eq!(animations.len(), clips.len());
    for (clip, a) in clips.iter().zip(animations) {
        assert_eq!(a["name"], clip.name.as_str());
        let channels = a["channels"].as_array().unwrap();
        assert_eq!(channels.len(), 3 * clip.tracks.len());
        for (k, ch) in channels.iter().enumerate() {
            let track = &clip.tracks[k / 3];
            assert_eq!(ch["target"]["node"], track.bone);
            assert_eq!(
                ch["target"]["path"],
                ["translation", "rotation", "scale"][k % 3]
            );
            let sampler = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
            assert_eq!(sampler["interpolation"], "LINEAR");
            let input = &doc["accessors"][sampler["input"].as_u64().unwrap() as usize];
            assert_eq!(input["count"], track.keys.len());
            assert_eq!(
                input["max"][0].as_f64().unwrap() as f32,
                track.keys.last().unwrap().time
            );
        }
    }
}

#[test]
fn demo_model_exports_and_poses_the_same_after_reimport() {
    let mut demo = gom_demo::build();
    // The texture's image is embedded in the .glb and comes back out of it.
    let texture = "maps/skin colour #1.png";
    demo.materials[0].base_color_texture = Some(texture.into());
    let png = tiny_png();
    let bytes = glb(&demo, [(texture.to_string(), png.clone())].into());
    let (back, report) = import_slice(&bytes, "demo.glb", None, &GltfOptions::default()).unwrap();
    assert_eq!(back.skeleton.bones.len(), demo.skeleton.bones.len());
    for (a, b) in demo.skeleton.bones.iter().zip(&back.skeleton.bones) {
        assert_eq!((&a.name, &a.path, a.parent), (&b.name, &b.path, b.parent));
    }
    assert_eq!(back.clips.len(), demo.clips.len());
    assert_eq!(report.images.len(), 1);
    assert_eq!(report.images[0].bytes, png);
    assert_eq!(report.images[0].mime_type, "image/png");
    let mut expected = demo.materials.clone();
    expected[0].base_color_texture = Some(report.images[0].file_name.clone());
    assert_eq!(back.materials, expected);
    // Rest pose and clip poses agree: the GBTM of the rigid base is baked on export.
    let cases: Vec<(Option<usize>, f32)> = std::iter::once((None, 0.0))
        .chain((0..demo.clips.len()).flat_map(|c| {
            let d = demo.clips[c].duration;
            [0.0, 0.21 * d, 0.5 * d, 0.93 * d].map(move |t| (Some(c), t))
        }))
        .collect();
    for (clip, t) in cases {
        let a = gom_triangles(&demo, clip, t);
        let b = gom_triangles(&back, clip, t);
        same_triangles(&b, &a, 1e-5).unwrap_or_else(|e| panic!("clip {clip:?} at {t}: {e}"));
    }
}

fn assert_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol, "{what}[{i}]: {x} vs {y}");
    }
}

#[test]
fn gltf_to_gom_to_gltf_to_gom_keeps_everything() {
    let samples = samples();
    if samples.is_empty() {
        return;
    }
    for path in &samples {
        let name = path.display().to_string();
        let (a, _) = import(path, &GltfOptions::default()).unwrap();
        let images = gom_import::source::texture_images(&a, path.parent().unwrap(), &[]);
        let bytes = glb(&a, images);
        let (b, _) = import_slice(&bytes, "round.glb", None, &GltfOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Skeleton.
        assert_eq!(
            a.skeleton.bones.len(),
            b.skeleton.bones.len(),
            "{name}: bones"
        );
        for (x, y) in a.skeleton.bones.iter().zip(&b.skeleton.bones) {
            assert_eq!(
                (&x.name, &x.path, x.parent),
                (&y.name, &y.path, y.parent),
                "{name}"
            );
            assert_close(
                &x.bind_local,
                &y.bind_local,
                1e-5,
                &format!("{name} {}", x.name),
            );
        }
        // Materials and meshes. A texture whose image is not beside the source (the
        // data set lacks InterpolationTest's `l.jpg`) is left out of the glTF.
        let dir = path.parent().unwrap();
        let expected: Vec<gom::Material> = a
            .materials
            .iter()
            .map(|m| gom::Material {
                base_color_texture: m
                    .base_color_texture
                    .clone()
                    .filter(|t| dir.join(t).is_file()),
                ..m.clone()
            })
            .collect();
        assert_eq!(expected, b.materials, "{name}: materials");
        assert_eq!(a.meshes.len(), b.meshes.len(), "{name}: meshes");
        for (x, y) in a.meshes.iter().zip(&b.meshes) {
            let what = format!("{name} mesh {}", x.name);
            assert_eq!(x.name, y.name);
            assert_eq!(x.indices, y.indices, "{what}: indices");
            assert_eq!(x.submeshes, y.submeshes, "{what}: submeshes");
            assert_eq!(x.vertices.format(), y.vertices.format(), "{what}: format");
            assert_eq!(
                x.vertices.positions, y.vertices.positions,
                "{what}: positions"
            );
            assert_eq!(x.vertices.uv0, y.vertices.uv0, "{what}: uv0");
            match (&x.vertices.skin, &y.vertices.skin) {
                (Some(p), Some(q)) => {
                    assert_eq!(p.len(), q.len(), "{what}: skin");
                    for (v, (s, t)) in p.iter().zip(q).enumerate() {
                        assert_eq!(s.bones, t.bones, "{what}: bones of vertex {v}");
                        assert_close(&s.weights, &t.weights, 1e-6, &format!("{what}: weights"));
                    }
                }
                (p, q) => assert_eq!(p.is_some(), q.is_some(), "{what}: skin"),
            }
            if let (Some(p), Some(q)) = (&x.vertices.normals, &y.vertices.normals) {
                let (p, q): (Vec<f32>, Vec<f32>) = (
                    p.iter().flatten().copied().collect(),
                    q.iter().flatten().copied().collect(),
                );
                assert_close(&p, &q, 1e-6, &format!("{what}: normals"));
            }
            assert_eq!(x.inverse_bind, y.inverse_bind, "{what}: inverse binds");
        }
        // Clips.
        assert_eq!(a.clips.len(), b.clips.len(), "{name}: clips");
        for (x, y) in a.clips.iter().zip(&b.clips) {
            let what = format!("{name} clip {}", x.name);
            assert_eq!(x.name, y.name);
            assert_eq!(x.duration, y.duration, "{what}: duration");
            assert_eq!(x.tracks.len(), y.tracks.len(), "{what}: tracks");
            for (s, t) in x.tracks.iter().zip(&y.tracks) {
                assert_eq!(s.bone, t.bone, "{what}");
                assert_eq!(
                    s.keys.len(),
                    t.keys.len(),
                    "{what}: keys of bone {}",
                    s.bone
                );
                for (k, l) in s.keys.iter().zip(&t.keys) {
                    assert_eq!(k.time, l.time, "{what}");
                    assert_close(&k.translation, &l.translation, 1e-6, &what);
                    assert_close(&k.rotation, &l.rotation, 1e-6, &what);
                    assert_close(&k.scale, &l.scale, 1e-6, &what);
                }
            }
        }
        // Posed positions.
        for (ci, clip) in a.clips.iter().enumerate() {
            for f in [0.0, 0.3, 0.61, 1.0] {
                let t = clip.duration * f;
                let pa = gom_triangles(&a, Some(ci), t);
                let pb = gom_triangles(&b, Some(ci), t);
                same_triangles(&pb, &pa, 1e-5)
                    .unwrap_or_else(|e| panic!("{name} clip {} at {t}: {e}", clip.name));
            }
        }
    }
}

#[test]
fn models_gltf_cannot_hold_are_refused_with_the_object_named() {
    let demo = gom_demo::build();
    let mut nan = demo.clone();
    nan.meshes[1].vertices.positions[3][1] = f32::NAN;
    let e = export(&nan, &GltfExportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("meshes[1]"), "{e}");
    let mut cyclic = demo.clone();
    cyclic.skeleton.bones[0].parent = 2;
    let e = export(&cyclic, &GltfExportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("skeleton.bones[0]"), "{e}");
    let mut out_of_range = demo;
    let n = out_of_range.meshes[0].vertices.len() as u32;
    out_of_range.meshes[0].indices[4] = n;
    let e = export(&out_of_range, &GltfExportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("meshes[0]"), "{e}");
}
