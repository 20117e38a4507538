//! The demo model's starting inputs for every target: the demo as GOMB, GOMT, `.glb`
//! and `.gltf` (its buffer as a data URI) and as the game's three files, small PNGs of
//! every colour type, and a few byte strings for the structured target. `fuzz/run`
//! asks any target for them (see [`crate::init`]) and adds the files of
//! `../shared/data` beside them.

use std::fs;
use std::path::Path;

use gom_import::source::{export, OutputFormat};

/// Writes every target's demo inputs into `out/<target>/`.
pub fn write_all(out: &Path) {
    let demo = gom_demo::build();
    let gomb = gom::gomb::write(&demo).expect("the demo writes as GOMB");
    put(out, "gomb", "demo.gom", &gomb);
    put(out, "capi_open", "demo.gom", &gomb);
    put(
        out,
        "gomb",
        "empty.gom",
        &gom::gomb::write(&gom::Model::default()).unwrap(),
    );
    let morph = gom_demo::with_morphs(demo.clone());
    put(out, "gomb", "morph.gom", &gom::gomb::write(&morph).expect("morph GOMB"));
    let text = gom::gomt::write(&morph).expect("morph GOMT");
    put(out, "gomt", "morph.gomt", text.as_bytes());
    let gomt = gom::gomt::write(&demo).expect("the demo writes as GOMT");
    put(out, "gomt", "demo.gomt", gomt.as_bytes());
    put(
        out,
        "gomt",
        "empty.gomt",
        gom::gomt::write(&gom::Model::default()).unwrap().as_bytes(),
    );
    let (glb, _) = export(&demo, OutputFormat::Glb, Path::new("demo.glb")).expect("glb");
    put(out, "gltf", "demo.glb", &glb);
    let (json, side) = export(&demo, OutputFormat::Gltf, Path::new("demo.gltf")).expect("gltf");
    let mut text = String::from_utf8(json).expect("glTF JSON is UTF-8");
    for f in &side {
        let name = f.relative_path.display().to_string();
        let uri = format!("data:application/octet-stream;base64,{}", base64(&f.bytes));
        text = text.replace(&format!("\"{name}\""), &format!("\"{uri}\""));
    }
    put(out, "gltf", "demo.gltf", text.as_bytes());
    let (tmd, tkl, tml) = crate::demo_jpog();
    put(out, "tmd", "demo.tmd", tmd);
    put(out, "tkl", "demo.tkl", tkl);
    put(out, "tml", "demo.tml", tml);
    for (name, bytes) in pngs() {
        put(out, "png_texture", &name, &bytes);
    }
    // The structured target reads choices, not a file format: a few byte strings of
    // different lengths and patterns to start from.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for len in [16usize, 64, 256, 1024, 4096] {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        put(out, "model_roundtrip", &format!("random-{len}"), &bytes);
    }
}

fn put(out: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = out.join(target);
    fs::create_dir_all(&dir).expect("create the seed folder");
    fs::write(dir.join(name), bytes).expect("write a seed");
}

/// Small images in every PNG colour type and depth the decoder expands, one interlaced.
fn pngs() -> Vec<(String, Vec<u8>)> {
    use png::{BitDepth, ColorType};
    let kinds = [
        (ColorType::Rgba, BitDepth::Eight, 4),
        (ColorType::Rgb, BitDepth::Eight, 3),
        (ColorType::Grayscale, BitDepth::Eight, 1),
        (ColorType::GrayscaleAlpha, BitDepth::Eight, 2),
        (ColorType::Rgba, BitDepth::Sixteen, 8),
        (ColorType::Grayscale, BitDepth::Four, 1),
        (ColorType::Indexed, BitDepth::Eight, 1),
    ];
    let (w, h) = (8u32, 4u32);
    let mut out = Vec::new();
    for (i, (color, depth, bytes_per_pixel)) in kinds.into_iter().enumerate() {
        let row_bytes = match depth {
            BitDepth::Four => (w as usize).div_ceil(2),
            _ => w as usize * bytes_per_pixel,
        };
        let data: Vec<u8> = (0..row_bytes * h as usize)
            .map(|k| (k * 37 + i) as u8)
            .collect();
        let mut bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut bytes, w, h);
            enc.set_color(color);
            enc.set_depth(depth);
            if color == ColorType::Indexed {
                enc.set_palette((0..768).map(|k| (k * 7) as u8).collect::<Vec<u8>>());
                enc.set_trns(vec![0u8, 128, 255]);
            }
            let mut wr = enc.write_header().expect("png header");
            wr.write_image_data(&data).expect("png data");
        }
        out.push((format!("{i}-{color:?}-{depth:?}.png"), bytes));
    }
    out
}

/// Standard base64 with padding (RFC 4648), for the glTF's data URI: a dozen lines
/// rather than a dependency of the seed writer.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                s.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}
