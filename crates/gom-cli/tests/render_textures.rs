//! `gom render` draws the textures `gom view` shows: embedded in a `.glb`, JPEG files
//! beside a model; and says which texture it cannot draw.

mod common;
use common::{gom, s};
use gom_import::source::{self, OutputFormat};
use std::collections::BTreeMap;
use std::path::Path;

/// A 4×4 image of one colour.
fn solid(color: [u8; 4]) -> gom_image::Image {
    gom_image::Image::new(4, 4, color).unwrap()
}

/// The demo model with white materials, every one naming `texture`.
fn demo_naming(texture: &str) -> gom::Model {
    let mut model = gom_demo::build();
    for m in &mut model.materials {
        m.base_color_texture = Some(texture.to_string());
        m.base_color_factor = [1.0; 4];
    }
    model
}

/// Renders `model_file` and returns how many pixels are plainly red, and stderr.
fn red_pixels(model_file: &Path) -> (usize, String) {
    let out = model_file.with_extension("render.png");
    let run = gom(&["render", s(model_file), "-o", s(&out), "--no-grid"]);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{stderr}");
    let image = gom_image::decode(&std::fs::read(&out).unwrap()).unwrap();
    let red = image
        .data()
        .chunks_exact(4)
        .filter(|p| p[0] > 120 && p[1] < 60 && p[2] < 60)
        .count();
    (red, stderr)
}

#[test]
fn a_texture_embedded_in_a_glb_is_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo_naming("skin.png");
    let png = gom_image::encode_png(&solid([230, 0, 0, 255])).unwrap();
    let images = BTreeMap::from([("skin.png".to_string(), png)]);
    let glb = dir.path().join("m.glb");
    let e = source::export_with_images(&model, OutputFormat::Glb, &glb, &images).unwrap();
    std::fs::write(&glb, e.bytes).unwrap();
    let (red, stderr) = red_pixels(&glb);
    assert!(red > 500, "{red} red pixels; {stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_jpeg_texture_beside_the_model_is_drawn_and_a_missing_one_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo_naming("skin.jpg");
    let gomb = gom::gomb::write(&model).unwrap();
    let file = dir.path().join("m.gom");
    std::fs::write(&file, &gomb).unwrap();

    let (red, stderr) = red_pixels(&file);
    assert_eq!(red, 0, "{stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains("skin.jpg") && stderr.contains("not found"),
        "{stderr}"
    );

    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95)
        .encode(
            &[230, 0, 0].repeat(64),
            8,
            8,
            image::ExtendedColorType::Rgb8,
        )
        .unwrap();
    std::fs::write(dir.path().join("skin.jpg"), jpeg).unwrap();
    let (red, stderr) = red_pixels(&file);
    assert!(red > 500, "{red} red pixels; {stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_texture_that_cannot_be_decoded_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.gom");
    std::fs::write(&file, gom::gomb::write(&demo_naming("skin.png")).unwrap()).unwrap();
    std::fs::write(dir.path().join("skin.png"), b"not an image").unwrap();
    let (red, stderr) = red_pixels(&file);
    assert_eq!(red, 0);
    assert!(
        stderr.contains("skin.png") && stderr.contains("cannot be drawn"),
        "{stderr}"
    );
}
