//! PNG through the `png` crate: decoding any PNG to RGBA8, encoding RGBA8 with fixed
//! settings.

use crate::error::ImageError;
use crate::image::Image;

/// Encodes `image` as an 8-bit RGBA PNG. The settings are fixed (default compression,
/// the Paeth filter on every row, no ancillary chunks, no time stamps), so the same
/// image always gives the same bytes.
pub fn encode_png(image: &Image) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, image.width(), image.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Default);
        encoder.set_filter(png::FilterType::Paeth);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::NonAdaptive);
        let mut writer = encoder.write_header().map_err(ImageError::PngEncode)?;
        writer
            .write_image_data(image.data())
            .map_err(ImageError::PngEncode)?;
        writer.finish().map_err(ImageError::PngEncode)?;
    }
    Ok(out)
}

/// Most bytes deflate can expand one compressed byte into (RFC 1951: a 258-byte match
/// costs at least 2 bits, so at most 1032 bytes come from one input byte).
const DEFLATE_MAX_RATIO: u128 = 1032;

/// Checks the palette's length: three bytes an entry, at most 256 entries (PNG, PLTE).
/// The `png` crate (0.17 and 0.18) does not, and panics expanding a palette of 769
/// bytes (found by fuzzing; docs/reliability.md), so the check runs before it does.
pub fn palette_check(info: &png::Info<'_>) -> Result<(), ImageError> {
    match info.palette.as_deref() {
        Some(p) if p.len() % 3 != 0 || p.len() > 3 * 256 => {
            Err(ImageError::PngPalette { bytes: p.len() })
        }
        _ => Ok(()),
    }
}

/// Decodes any PNG (grey, grey and alpha, RGB, RGBA, palette; 1 to 16 bits) into an
/// RGBA8 image; 16-bit samples keep their high byte.
///
/// An image larger than [`Image::MAX_PIXELS`], or larger than the file's compressed
/// data can expand into, is refused before its pixels are allocated.
pub fn decode_png(bytes: &[u8]) -> Result<Image, ImageError> {
    // The decoder's own allocation limit: the largest RGBA8 image accepted, with room
    // for 16-bit intermediate rows.
    let limits = png::Limits {
        bytes: (Image::MAX_PIXELS as usize).saturating_mul(8),
    };
    let mut decoder = png::Decoder::new_with_limits(bytes, limits);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(ImageError::PngDecode)?;
    palette_check(reader.info())?;
    let (width, height, bits_per_pixel) = {
        let info = reader.info();
        (info.width, info.height, info.bits_per_pixel())
    };
    Image::check_size(u64::from(width), u64::from(height))?;
    let pixel_bytes = u128::from(width) * u128::from(height) * bits_per_pixel as u128 / 8;
    if pixel_bytes > bytes.len() as u128 * DEFLATE_MAX_RATIO {
        return Err(ImageError::Size {
            width: u64::from(width),
            height: u64::from(height),
            reason: "the PNG file is too small to hold that many pixels",
        });
    }
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(ImageError::PngDecode)?;
    let src = buf.get(..frame.buffer_size()).unwrap_or(&[]);
    let rgba = to_rgba8(src, frame.color_type);
    Image::from_rgba8(width, height, rgba)
}

/// Expanded 8-bit samples of `color` as RGBA8. An indexed image arrives expanded
/// (`Transformations::EXPAND`), so its case never occurs; it is read as grey rather
/// than trusted to be absent.
fn to_rgba8(src: &[u8], color: png::ColorType) -> Vec<u8> {
    match color {
        png::ColorType::Rgba => src.to_vec(),
        png::ColorType::Rgb => src
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => src
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale | png::ColorType::Indexed => {
            src.iter().flat_map(|&g| [g, g, g, 255]).collect()
        }
    }
}
