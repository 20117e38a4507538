//! PNG encoding with fixed settings (the same image always gives the same bytes) and
//! PNG decoding to RGBA8.

use std::path::Path;

use crate::error::RenderError;
use crate::image::Image;

/// Encodes `image` as an 8-bit RGBA PNG. The settings are fixed (default compression,
/// the Paeth filter on every row, no ancillary chunks, no time stamps), so the same
/// image always gives the same bytes.
pub fn encode_png(image: &Image) -> Result<Vec<u8>, RenderError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, image.width(), image.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Default);
        encoder.set_filter(png::FilterType::Paeth);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::NonAdaptive);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(image.data())?;
        writer.finish()?;
    }
    Ok(out)
}

/// Encodes `image` (see [`encode_png`]) and writes it to `path`.
pub fn save_png(image: &Image, path: &Path) -> Result<(), RenderError> {
    let bytes = encode_png(image)?;
    std::fs::write(path, bytes).map_err(|source| RenderError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Decodes PNG bytes into an RGBA8 image. Palette, grey and 16-bit images are
/// converted; images larger than [`Image::MAX_PIXELS`], or larger than the file's
/// compressed data can hold, are refused before their pixels are allocated.
pub fn decode_png(bytes: &[u8]) -> Result<Image, RenderError> {
    decode_named(bytes, "<memory>")
}

/// Reads and decodes the PNG file at `path` (see [`decode_png`]).
pub fn load_png(path: &Path) -> Result<Image, RenderError> {
    let bytes = std::fs::read(path).map_err(|source| RenderError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode_named(&bytes, &path.display().to_string())
}

/// Most bytes deflate can expand one compressed byte into (RFC 1951: a 258-byte match
/// costs at least 2 bits, so at most 1032 bytes come from one input byte).
const DEFLATE_MAX_RATIO: u128 = 1032;

/// Checks the palette's length: three bytes an entry, at most 256 entries (PNG, PLTE).
/// The `png` crate (0.17 and 0.18) does not, and panics expanding a palette of 769
/// bytes (found by fuzzing; docs/reliability.md), so the check runs before it does.
fn palette_check(info: &png::Info<'_>) -> Result<(), png::DecodingError> {
    match info.palette.as_deref() {
        Some(p) if p.len() % 3 != 0 || p.len() > 3 * 256 => {
            Err(png::DecodingError::IoError(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the PLTE chunk holds {} bytes: not three an entry for at most 256 entries",
                    p.len()
                ),
            )))
        }
        _ => Ok(()),
    }
}

fn decode_named(bytes: &[u8], name: &str) -> Result<Image, RenderError> {
    let err = |source| RenderError::PngDecode {
        source_name: name.to_string(),
        source,
    };
    // The decoder's own allocation limit: the largest RGBA8 image we accept, with room
    // for 16-bit intermediate rows.
    let limits = png::Limits {
        bytes: (Image::MAX_PIXELS as usize).saturating_mul(8),
    };
    let mut decoder = png::Decoder::new_with_limits(bytes, limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(err)?;
    palette_check(reader.info()).map_err(err)?;
    let (width, height, bits_per_pixel) = {
        let info = reader.info();
        (info.width, info.height, info.bits_per_pixel())
    };
    Image::check_size(u64::from(width), u64::from(height))?;
    // The image data is deflated: it cannot be larger than the file expands into, so a
    // small file that claims a large image is refused before its pixels are allocated.
    let pixel_bytes = u128::from(width) * u128::from(height) * bits_per_pixel as u128 / 8;
    if pixel_bytes > bytes.len() as u128 * DEFLATE_MAX_RATIO {
        return Err(RenderError::ImageSize {
            width: u64::from(width),
            height: u64::from(height),
            reason: "the PNG file is too small to hold that many pixels",
        });
    }
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(err)?;
    let n = width as usize * height as usize;
    let src = buf.get(..frame.buffer_size()).unwrap_or(&[]);
    let mut rgba = Vec::with_capacity(n * 4);
    match frame.color_type {
        png::ColorType::Rgba => rgba.extend_from_slice(src),
        png::ColorType::Rgb => {
            for p in src.chunks_exact(3) {
                rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
            }
        }
        png::ColorType::GrayscaleAlpha => {
            for p in src.chunks_exact(2) {
                rgba.extend_from_slice(&[p[0], p[0], p[0], p[1]]);
            }
        }
        png::ColorType::Grayscale | png::ColorType::Indexed => {
            for p in src {
                rgba.extend_from_slice(&[*p, *p, *p, 255]);
            }
        }
    }
    Image::from_rgba8(width, height, rgba)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips_and_has_no_time_chunk() {
        let mut img = Image::new(3, 2, [10, 20, 30, 255]).unwrap();
        img.set_pixel(1, 1, [200, 100, 0, 128]);
        let bytes = encode_png(&img).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert!(!bytes.windows(4).any(|w| w == b"tIME"));
        assert_eq!(decode_png(&bytes).unwrap(), img);
    }

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
    fn grey_rgb_and_16_bit_pngs_become_rgba8() {
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
    }

    /// CRC-32 of PNG chunks, bit by bit.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn a_small_file_claiming_a_large_image_is_refused_before_allocating() {
        // 8192×8192 RGBA (256 MiB of pixels, within MAX_PIXELS) claimed by a file of
        // 59 bytes whose IDAT holds a bare zlib header.
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut chunk = |kind: &[u8; 4], data: &[u8]| {
            png.extend_from_slice(&(data.len() as u32).to_be_bytes());
            let body = [&kind[..], data].concat();
            png.extend_from_slice(&body);
            png.extend_from_slice(&crc32(&body).to_be_bytes());
        };
        let ihdr = [
            &8192u32.to_be_bytes()[..],
            &8192u32.to_be_bytes(),
            &[8, 6, 0, 0, 0],
        ]
        .concat();
        chunk(b"IHDR", &ihdr);
        chunk(b"IDAT", &[0x78, 0x01]);
        chunk(b"IEND", &[]);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        match decode_png(&png) {
            Err(RenderError::ImageSize {
                width: 8192,
                height: 8192,
                reason,
            }) => {
                assert!(reason.contains("too small"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode_png(b"\x89PNG\r\n\x1a\nnot really").is_err());
        assert!(decode_png(&[]).is_err());
        let path = Path::new("/nonexistent/texture.png");
        let e = load_png(path).unwrap_err().to_string();
        assert!(e.contains("texture.png"), "{e}");
    }
}
