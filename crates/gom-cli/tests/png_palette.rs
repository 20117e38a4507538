//! A PNG whose PLTE chunk holds 769 bytes (256 entries and one byte more) made the
//! `png` crate panic while expanding the palette (found by fuzzing `png_texture`;
//! docs/reliability.md). Both PNG decoders must refuse it with an error instead, and
//! still decode the same file with a well-formed 768-byte palette.

use gom_test_support::png::crc32;

/// A 2×2 palette image with 256 entries, and the same file with one more byte in
/// its PLTE chunk (length and CRC rewritten).
fn palette_pngs() -> (Vec<u8>, Vec<u8>) {
    let mut good = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut good, 2, 2);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette((0..768).map(|i| (i % 251) as u8).collect::<Vec<u8>>());
        let mut w = enc.write_header().expect("header");
        w.write_image_data(&[0, 1, 2, 255]).expect("pixels");
    }
    let at = good
        .windows(4)
        .position(|w| w == b"PLTE")
        .expect("a PLTE chunk")
        - 4;
    let len = u32::from_be_bytes(good[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(len, 768);
    let mut body = good[at + 4..at + 8 + len].to_vec();
    body.push(7);
    let mut bad = good[..at].to_vec();
    bad.extend_from_slice(&((len + 1) as u32).to_be_bytes());
    bad.extend_from_slice(&body);
    bad.extend_from_slice(&crc32(&body).to_be_bytes());
    bad.extend_from_slice(&good[at + 12 + len..]);
    (good, bad)
}

#[test]
fn a_palette_of_769_bytes_is_an_error_in_both_png_decoders() {
    let (good, bad) = palette_pngs();
    let ok = jpog::png_io::decode_png(&good).expect("the 768-byte palette decodes");
    assert_eq!((ok.width(), ok.height()), (2, 2));
    // Pixel 1 is entry 1: bytes 3, 4, 5 of the palette.
    assert_eq!(&ok.data()[4..8], &[3, 4, 5, 255]);
    let e = jpog::png_io::decode_png(&bad).expect_err("769 bytes of palette");
    assert!(e.to_string().contains("PLTE chunk holds 769 bytes"), "{e}");

    let ok = gom_render::png_file::decode_png(&good).expect("the 768-byte palette decodes");
    assert_eq!((ok.width(), ok.height()), (2, 2));
    assert_eq!(ok.pixel(1, 0), Some([3, 4, 5, 255]));
    let e = gom_render::png_file::decode_png(&bad).expect_err("769 bytes of palette");
    assert!(e.to_string().contains("PLTE chunk holds 769 bytes"), "{e}");
}
