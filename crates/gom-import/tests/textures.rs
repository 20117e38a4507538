//! One rule for the textures a model names, whatever the source and the output: a
//! glTF output embeds them; a GOM output has them beside it (extracted images always,
//! files beside the source when the output goes to another folder); a texture found
//! nowhere is a warning; a build's manifest knows the files written beside an output.
//! FBX files' embedded images are extracted under safe names, bytes unchanged.

use base64::Engine;
use gom_import::build::{self, BuildOptions};
use gom_import::source::{self, Destination, Imported, OutputFormat, SideFile};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// A small PNG of one colour, made by the one PNG encoder.
fn png(color: [u8; 4]) -> Vec<u8> {
    gom_image::encode_png(&gom_image::Image::new(2, 2, color).unwrap()).unwrap()
}

/// The demo model with its materials naming `textures` (in order).
fn demo_naming(textures: &[&str]) -> gom::Model {
    let mut model = gom_demo::build();
    for (m, t) in model.materials.iter_mut().zip(textures) {
        m.base_color_texture = Some(t.to_string());
    }
    model
}

fn imported(model: gom::Model) -> Imported {
    Imported {
        model,
        ..Default::default()
    }
}

fn side_names(files: &[SideFile]) -> Vec<String> {
    files
        .iter()
        .map(|s| s.relative_path.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_gom_output_in_another_folder_gets_the_texture_files_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("tex")).unwrap();
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    std::fs::write(src.join("tex/skin.png"), png([200, 0, 0, 255])).unwrap();
    let model = imported(demo_naming(&["tex/skin.png", "gone.png"]));
    let source = src.join("m.gomt");
    for format in [OutputFormat::Gomb, OutputFormat::Gomt] {
        let out = dir.path().join("out/m").with_extension(format.extension());
        let e = source::export_imported(&model, &source, format, &out).unwrap();
        assert_eq!(side_names(&e.side_files), ["tex/skin.png"], "{format:?}");
        assert_eq!(e.side_files[0].bytes, png([200, 0, 0, 255]));
        let missing: Vec<&String> = e
            .warnings
            .iter()
            .filter(|w| w.contains("gone.png"))
            .collect();
        assert_eq!(missing.len(), 1, "{:?}", e.warnings);
        assert!(missing[0].contains("not found"), "{missing:?}");
    }
}

#[test]
fn a_gom_output_beside_its_source_copies_nothing_and_still_warns_of_a_missing_texture() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("skin.png"), png([0, 0, 200, 255])).unwrap();
    let model = imported(demo_naming(&["skin.png", "gone.png"]));
    let source = dir.path().join("m.gomt");
    let out = dir.path().join("m.gom");
    assert_eq!(Destination::of(&source, &out), Destination::SourceFolder);
    let e = source::export_imported(&model, &source, OutputFormat::Gomb, &out).unwrap();
    assert!(e.side_files.is_empty(), "{:?}", side_names(&e.side_files));
    assert_eq!(
        e.warnings.iter().filter(|w| w.contains("gone.png")).count(),
        1
    );
}

#[test]
fn a_texture_named_outside_the_source_folder_is_not_copied_out_of_the_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("a/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(dir.path().join("a/up.png"), png([9, 9, 9, 255])).unwrap();
    let model = imported(demo_naming(&["../up.png"]));
    let out = dir.path().join("b/m.gom");
    let e = source::export_to(
        &model,
        &src.join("m.gomt"),
        OutputFormat::Gomb,
        &out,
        Destination::OtherFolder,
    )
    .unwrap();
    assert!(e.side_files.is_empty(), "{:?}", side_names(&e.side_files));
    assert!(
        e.warnings
            .iter()
            .any(|w| w.contains("../up.png") && w.contains("outside")),
        "{:?}",
        e.warnings
    );
}

/// The ids and text of one mesh with a material whose diffuse texture embeds `image`.
fn fbx_part(id: u32, name: &str, recorded: &str, image: &[u8]) -> (String, String) {
    let b64 = base64::engine::general_purpose::STANDARD.encode(image);
    let (g, m, mat, tex, vid) = (id, id + 1, id + 2, id + 3, id + 4);
    let objects = format!(
        "\tGeometry: {g}, \"Geometry::{name}\", \"Mesh\" {{\n\t\tVertices: *9 {{\n\t\t\ta: 0,0,0,1,0,0,0,1,0\n\t\t}}\n\t\tPolygonVertexIndex: *3 {{\n\t\t\ta: 0,1,-3\n\t\t}}\n\
         \t\tLayerElementMaterial: 0 {{\n\t\t\tVersion: 101\n\t\t\tName: \"\"\n\t\t\tMappingInformationType: \"AllSame\"\n\t\t\tReferenceInformationType: \"IndexToDirect\"\n\t\t\tMaterials: *1 {{\n\t\t\t\ta: 0\n\t\t\t}}\n\t\t}}\n\
         \t\tLayer: 0 {{\n\t\t\tVersion: 100\n\t\t\tLayerElement:  {{\n\t\t\t\tType: \"LayerElementMaterial\"\n\t\t\t\tTypedIndex: 0\n\t\t\t}}\n\t\t}}\n\t}}\n\
         \tModel: {m}, \"Model::{name}\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n\
         \tMaterial: {mat}, \"Material::{name}\", \"\" {{\n\t\tVersion: 102\n\t\tShadingModel: \"phong\"\n\t}}\n\
         \tTexture: {tex}, \"Texture::{name}\", \"\" {{\n\t\tType: \"TextureVideoClip\"\n\t\tVersion: 202\n\t\tTextureName: \"Texture::{name}\"\n\t\tFileName: \"{recorded}\"\n\t\tRelativeFilename: \"{recorded}\"\n\t}}\n\
         \tVideo: {vid}, \"Video::{name}\", \"Clip\" {{\n\t\tType: \"Clip\"\n\t\tFileName: \"{recorded}\"\n\t\tRelativeFilename: \"{recorded}\"\n\t\tContent: , \"{b64}\"\n\t}}\n"
    );
    let connections = format!(
        "\tC: \"OO\",{m},0\n\tC: \"OO\",{g},{m}\n\tC: \"OO\",{mat},{m}\n\tC: \"OP\",{tex},{mat}, \"DiffuseColor\"\n\tC: \"OO\",{vid},{tex}\n"
    );
    (objects, connections)
}

/// An ASCII FBX 7.4 file of two triangles, one with an embedded PNG texture recorded
/// under an absolute Windows path, one with an embedded JPEG under a relative one.
fn fbx_with_embedded(png: &[u8], jpeg: &[u8]) -> String {
    let a = fbx_part(100, "skin", "C:\\\\art\\\\..\\\\skin.png", png);
    let b = fbx_part(200, "eyes", "..\\\\tex\\\\eyes.jpg", jpeg);
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nObjects:  {{\n{}{}}}\nConnections:  {{\n{}{}}}\n",
        a.0, b.0, a.1, b.1
    )
}

/// Bytes that start as a JPEG does (SOI, APP0): the importer and exporters pass them
/// through without decoding, which is what is checked.
const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xFF\xD9";

#[test]
fn fbx_embedded_images_become_side_files_with_safe_names_and_unchanged_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let red = png([255, 0, 0, 255]);
    let path = dir.path().join("my model.fbx");
    std::fs::write(&path, fbx_with_embedded(&red, JPEG)).unwrap();
    let imported = source::import_path(&path, &Default::default()).unwrap();
    let textures: Vec<Option<&str>> = imported
        .model
        .materials
        .iter()
        .map(|m| m.base_color_texture.as_deref())
        .collect();
    assert_eq!(
        textures,
        [Some("my_model_image0.png"), Some("my_model_image1.jpg")]
    );
    assert_eq!(
        side_names(&imported.side_files),
        ["my_model_image0.png", "my_model_image1.jpg"]
    );
    assert_eq!(imported.side_files[0].bytes, red);
    assert_eq!(imported.side_files[1].bytes, JPEG);

    // A GOM output has them beside it, wherever it goes; no warning of a missing one.
    let out = dir.path().join("m.gom");
    let e = source::export_imported(&imported, &path, OutputFormat::Gomb, &out).unwrap();
    assert_eq!(
        side_names(&e.side_files),
        ["my_model_image0.png", "my_model_image1.jpg"]
    );
    assert!(
        !e.warnings.iter().any(|w| w.contains("not found")),
        "{:?}",
        e.warnings
    );

    // A .glb embeds them as they are: the JPEG stays a JPEG.
    let glb = source::export_imported(
        &imported,
        &path,
        OutputFormat::Glb,
        &dir.path().join("m.glb"),
    )
    .unwrap();
    assert!(glb.side_files.is_empty());
    // Read without decoding the images: their bytes are what is compared.
    let parsed = gltf::Gltf::from_slice(&glb.bytes).unwrap();
    let buffers = [parsed.blob.clone().unwrap()];
    let doc = parsed.document;
    let mut found: Vec<(String, Vec<u8>)> = doc
        .images()
        .map(|i| match i.source() {
            gltf::image::Source::View { view, mime_type } => {
                let b = &buffers[view.buffer().index()];
                (
                    mime_type.to_string(),
                    b[view.offset()..view.offset() + view.length()].to_vec(),
                )
            }
            gltf::image::Source::Uri { .. } => panic!("an image by URI"),
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("image/jpeg".to_string(), JPEG.to_vec()),
            ("image/png".to_string(), red)
        ]
    );
}

/// Converts `src` into `out` as GOM binary.
fn build_once(src: &Path, out: &Path) -> build::BuildReport {
    let options = BuildOptions {
        jobs: 1,
        format: OutputFormat::Gomb,
        force: false,
        options_fingerprint: "t".into(),
        shard: None,
        cache: None,
    };
    let import = gom_import::source::ImportOptions::default();
    build::run(
        src,
        out,
        &options,
        |p| source::convert_path(p, &import, OutputFormat::Gomb),
        |p, b| source::companions_of(p, b, &import),
        &AtomicBool::new(false),
        |_| {},
    )
    .unwrap()
}

#[test]
fn a_build_writes_the_textures_beside_its_outputs_and_its_manifest_knows_them() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    std::fs::create_dir_all(src.join("a")).unwrap();
    let model = demo_naming(&["skin.png"]);
    std::fs::write(src.join("a/m.gomt"), gom::gomt::write(&model).unwrap()).unwrap();
    std::fs::write(src.join("a/skin.png"), png([1, 2, 3, 255])).unwrap();

    let first = build_once(&src, &out);
    assert_eq!(first.converted(), 1, "{first:?}");
    let copied: PathBuf = out.join("a/skin.png");
    assert_eq!(std::fs::read(&copied).unwrap(), png([1, 2, 3, 255]));
    let manifest = std::fs::read_to_string(out.join(build::MANIFEST_NAME)).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let entry = &doc["entries"][0];
    assert!(entry["sideFiles"]["skin.png"].is_string(), "{manifest}");
    assert!(entry["textures"]["skin.png"].is_string(), "{manifest}");

    assert_eq!(build_once(&src, &out).up_to_date(), 1);
    // The copy removed: rebuilt and written again.
    std::fs::remove_file(&copied).unwrap();
    assert_eq!(build_once(&src, &out).converted(), 1);
    assert!(copied.is_file());
    // The source's texture changed: rebuilt with the new bytes.
    std::fs::write(src.join("a/skin.png"), png([7, 7, 7, 255])).unwrap();
    assert_eq!(build_once(&src, &out).converted(), 1);
    assert_eq!(std::fs::read(&copied).unwrap(), png([7, 7, 7, 255]));
}
