//! PNG helpers for extracting and replacing textures.

use crate::error::{Error, PngError, Result};
use crate::texture::Image;

fn png_err(context: &'static str, e: impl Into<PngError>) -> Error {
    Error::Png {
        context,
        source: e.into(),
    }
}

/// Encodes an RGBA8 image as an 8-bit RGBA PNG.
pub fn encode_png(img: &Image) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| png_err("encode", e))?;
        w.write_image_data(&img.rgba)
            .map_err(|e| png_err("encode", e))?;
        w.finish().map_err(|e| png_err("encode", e))?;
    }
    Ok(out)
}

/// Most bytes deflate can expand one compressed byte into (RFC 1951: a 258-byte match
/// costs at least 2 bits, so at most 1032 bytes come from one input byte).
const DEFLATE_MAX_RATIO: u128 = 1032;

/// Checks the palette's length: three bytes an entry, at most 256 entries (PNG, PLTE).
/// The `png` crate (0.17 and 0.18) does not, and panics expanding a palette of 769
/// bytes (found by fuzzing; docs/reliability.md), so the check runs before it does.
pub fn palette_check(info: &png::Info<'_>) -> std::result::Result<(), PngError> {
    match info.palette.as_deref() {
        Some(p) if p.len() % 3 != 0 || p.len() > 3 * 256 => Err(PngError::Palette(p.len())),
        _ => Ok(()),
    }
}

/// Decodes any PNG (grey, grey+alpha, RGB, RGBA, palette; 1-16 bits) to RGBA8.
///
/// The header's dimensions are checked against the bytes present before any pixel
/// buffer is allocated: the image data cannot be larger than deflate can expand the
/// whole file into, so a small file claiming a huge image is refused.
pub fn decode_png(bytes: &[u8]) -> Result<Image> {
    let mut dec = png::Decoder::new(bytes);
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| png_err("decode", e))?;
    palette_check(reader.info()).map_err(|e| png_err("decode", e))?;
    {
        let info = reader.info();
        // fewest bytes of filtered image data the header's dimensions need
        let pixel_bits =
            u128::from(info.width) * u128::from(info.height) * info.bits_per_pixel() as u128;
        let at_most = bytes.len() as u128 * DEFLATE_MAX_RATIO;
        if pixel_bits / 8 > at_most {
            return Err(png_err(
                "decode",
                PngError::TooLarge {
                    width: info.width,
                    height: info.height,
                    bytes: bytes.len(),
                },
            ));
        }
    }
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| png_err("decode", e))?;
    buf.truncate(info.buffer_size());
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err(png_err("decode", PngError::NotExpanded)),
    };
    Image::new(info.width, info.height, rgba)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip() {
        let img = Image::new(3, 2, (0..24).map(|i| (i * 10) as u8).collect()).unwrap();
        let back = decode_png(&encode_png(&img).unwrap()).unwrap();
        assert_eq!(back, img);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode_png(b"not a png").is_err());
    }
}
