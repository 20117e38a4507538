//! The one decoder: PNG and JPEG into RGBA8, sizes checked before allocating, every
//! malformed input an error.

use gom_image::{decode, decode_jpeg, decode_png, encode_png, Image, ImageError};

fn encode_raw(color: png::ColorType, depth: png::BitDepth, w: u32, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, 1);
    e.set_color(color);
    e.set_depth(depth);
    let mut wr = e.write_header().unwrap();
    wr.write_image_data(data).unwrap();
    wr.finish().unwrap();
    out
}

#[test]
fn png_round_trips_and_has_no_time_chunk() {
    let mut img = Image::new(3, 2, [10, 20, 30, 255]).unwrap();
    img.set_pixel(1, 1, [200, 100, 0, 128]);
    let bytes = encode_png(&img).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(!bytes.windows(4).any(|w| w == b"tIME"));
    assert_eq!(decode_png(&bytes).unwrap(), img);
    assert_eq!(decode(&bytes).unwrap(), img);
}

#[test]
fn grey_rgb_palette_and_16_bit_pngs_become_rgba8() {
    use png::{BitDepth, ColorType};
    let rgb = encode_raw(ColorType::Rgb, BitDepth::Eight, 2, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(
        decode_png(&rgb).unwrap().data(),
        &[1, 2, 3, 255, 4, 5, 6, 255]
    );
    let grey = encode_raw(ColorType::Grayscale, BitDepth::Eight, 2, &[7, 200]);
    assert_eq!(
        decode_png(&grey).unwrap().data(),
        &[7, 7, 7, 255, 200, 200, 200, 255]
    );
    let ga = encode_raw(ColorType::GrayscaleAlpha, BitDepth::Eight, 1, &[9, 99]);
    assert_eq!(decode_png(&ga).unwrap().data(), &[9, 9, 9, 99]);
    // 16-bit samples keep their high byte.
    let wide = encode_raw(
        ColorType::Rgba,
        BitDepth::Sixteen,
        1,
        &[1, 0, 2, 0, 3, 0, 255, 255],
    );
    assert_eq!(decode_png(&wide).unwrap().data(), &[1, 2, 3, 255]);
    // A palette image comes out as its entries' colours.
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, 2, 1);
        e.set_color(ColorType::Indexed);
        e.set_depth(BitDepth::Eight);
        e.set_palette(vec![10, 20, 30, 40, 50, 60]);
        let mut wr = e.write_header().unwrap();
        wr.write_image_data(&[1, 0]).unwrap();
    }
    assert_eq!(
        decode_png(&out).unwrap().data(),
        &[40, 50, 60, 255, 10, 20, 30, 255]
    );
}

use gom_test_support::png::crc32;

/// A PNG of the given chunks, each with its CRC.
fn png_of(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let chunks: Vec<(&[u8; 4], &[u8])> = chunks.iter().map(|(k, d)| (*k, &d[..])).collect();
    gom_test_support::png::file(&chunks)
}

fn ihdr(w: u32, h: u32, depth: u8, color: u8) -> Vec<u8> {
    [
        &w.to_be_bytes()[..],
        &h.to_be_bytes(),
        &[depth, color, 0, 0, 0],
    ]
    .concat()
}

#[test]
fn a_small_png_claiming_a_large_image_is_refused_before_allocating() {
    assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    // 8192×8192 RGBA (256 MiB of pixels, within MAX_PIXELS) claimed by a file of
    // 59 bytes whose IDAT holds a bare zlib header.
    let png = png_of(&[
        (b"IHDR", ihdr(8192, 8192, 8, 6)),
        (b"IDAT", vec![0x78, 0x01]),
        (b"IEND", vec![]),
    ]);
    match decode_png(&png) {
        Err(ImageError::Size {
            width: 8192,
            height: 8192,
            reason,
        }) => assert!(reason.contains("too small"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_palette_of_more_than_256_entries_is_an_error_not_a_panic() {
    let png = png_of(&[
        (b"IHDR", ihdr(1, 1, 8, 3)),
        (b"PLTE", vec![0; 769]),
        (
            b"IDAT",
            vec![
                0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x01,
            ],
        ),
        (b"IEND", vec![]),
    ]);
    match decode_png(&png) {
        Err(ImageError::PngPalette { bytes: 769 }) => {}
        other => panic!("{other:?}"),
    }
}

/// `image`'s JPEG encoder at quality 100: an input made independently of the decoder.
fn jpeg_of(width: u32, height: u32, rgb: &[u8], color: image::ExtendedColorType) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 100)
        .encode(rgb, width, height, color)
        .unwrap();
    out
}

#[test]
fn a_jpeg_decodes_to_its_colours_within_rounding() {
    // Left half red, right half blue: 16×8, two 8×8 blocks per row of blocks.
    let (w, h) = (16u32, 8u32);
    let mut rgb = Vec::new();
    for _y in 0..h {
        for x in 0..w {
            rgb.extend_from_slice(if x < 8 {
                &[200, 30, 40]
            } else {
                &[20, 60, 220]
            });
        }
    }
    let jpeg = jpeg_of(w, h, &rgb, image::ExtendedColorType::Rgb8);
    let img = decode(&jpeg).unwrap();
    assert_eq!((img.width(), img.height()), (w, h));
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let want: [u8; 3] = if x < 8 { [200, 30, 40] } else { [20, 60, 220] };
            let got = img.pixel(x, y).unwrap();
            assert_eq!(got[3], 255);
            for c in 0..3 {
                let d = (i32::from(got[c]) - i32::from(want[c])).abs();
                // Chroma is subsampled 2×2 by the encoder: the edge between the halves
                // blurs by a pixel, the rest keeps its colour within rounding.
                let limit = if (7..=8).contains(&x) { 60 } else { 4 };
                assert!(d <= limit, "({x}, {y}) channel {c}: {got:?} vs {want:?}");
            }
        }
    }
}

#[test]
fn a_grey_jpeg_becomes_grey_rgba() {
    let jpeg = jpeg_of(8, 8, &[90; 64], image::ExtendedColorType::L8);
    let img = decode_jpeg(&jpeg).unwrap();
    for p in img.data().chunks_exact(4) {
        assert_eq!(p[0], p[1]);
        assert_eq!(p[1], p[2]);
        assert!((i32::from(p[0]) - 90).abs() <= 2, "{p:?}");
        assert_eq!(p[3], 255);
    }
}

/// The offset of the first SOF0 marker's height field.
fn sof0_size_offset(jpeg: &[u8]) -> usize {
    jpeg.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap() + 5
}

#[test]
fn a_small_jpeg_claiming_a_large_image_is_refused_before_allocating() {
    let mut jpeg = jpeg_of(8, 8, &[90; 64], image::ExtendedColorType::L8);
    let at = sof0_size_offset(&jpeg);
    jpeg[at..at + 4].copy_from_slice(&[0x1F, 0x40, 0x1F, 0x40]); // 8000 × 8000
    match decode_jpeg(&jpeg) {
        Err(ImageError::Size {
            width: 8000,
            height: 8000,
            reason,
        }) => assert!(reason.contains("too small"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn truncated_and_mutated_jpegs_are_errors_not_panics() {
    let mut rgb = Vec::new();
    for i in 0..(24 * 16) {
        rgb.extend_from_slice(&[(i * 7) as u8, (i * 13) as u8, (i * 29) as u8]);
    }
    let jpeg = jpeg_of(24, 16, &rgb, image::ExtendedColorType::Rgb8);
    for end in 0..jpeg.len() {
        let _ = decode(&jpeg[..end]);
    }
    for i in 0..jpeg.len() {
        let mut m = jpeg.clone();
        m[i] ^= 0x5A;
        let _ = decode(&m);
    }
    assert!(matches!(
        decode_jpeg(b"\xFF\xD8\xFFnot really"),
        Err(ImageError::Jpeg(_))
    ));
}
