//! Texture codecs: the TML pixel formats to and from RGBA8.
//!
//! Formats: 0 (RGBA 8888), 2 (RGBA 5551), 6 (a complete DDS with DXT3 or DXT5), 7 (RGBA 4444).
//! Anything else is reported as unsupported and its bytes are kept by the TML reader.

use crate::dds;
use crate::error::{Error, Result};

/// An RGBA8 image: 4 bytes R, G, B, A per pixel, rows top to bottom in stored order
/// (gom's one image type).
pub use gom_image::Image;

/// [`Image::from_rgba8`], its error as this crate's.
pub(crate) fn image(width: u32, height: u32, rgba: Vec<u8>) -> Result<Image> {
    Image::from_rgba8(width, height, rgba).map_err(|source| Error::Image {
        context: "image",
        source,
    })
}

/// Byte order of format 0 (RGBA 8888), an open question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order8888 {
    /// Bytes R, G, B, A (the default: the 2003 write-up and the public tools).
    #[default]
    Rgba,
    /// Bytes A, R, G, B (one decompiled engine path).
    Argb,
}

/// Nibble order of format 7 (RGBA 4444, alpha in the high nibble), an open question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order4444 {
    /// R in bits 0-3, G 4-7, B 8-11 (the default, as the engine reads it).
    #[default]
    RLow,
    /// B in bits 0-3, G 4-7, R 8-11 (one public tool).
    BLow,
}

/// DXT flavour used when encoding format 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dxt {
    /// DXT3: explicit 4-bit alpha.
    Dxt3,
    /// DXT5: interpolated alpha.
    Dxt5,
}

/// Channel-order choices for the formats whose order is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodecOptions {
    /// Format 0 byte order.
    pub order_8888: Order8888,
    /// Format 7 nibble order.
    pub order_4444: Order4444,
}

/// Whether this crate can decode and encode a format number.
pub fn is_supported(format: u16) -> bool {
    matches!(format, 0 | 2 | 6 | 7)
}

/// Bytes per pixel of the uncompressed formats (0, 2, 7).
pub fn bytes_per_pixel(format: u16) -> Option<usize> {
    match format {
        0 => Some(4),
        2 | 7 => Some(2),
        _ => None,
    }
}

fn pixel_count(width: u16, height: u16) -> usize {
    width as usize * height as usize
}

fn expand5(v: u16) -> u8 {
    let v = (v & 31) as u8;
    (v << 3) | (v >> 2)
}

/// Decodes the bytes of one texture to RGBA8. `width`/`height` are the TML header's; for
/// format 6 the DDS header's own dimensions are used (level 0).
/// `record` names the texture in errors.
pub fn decode(
    format: u16,
    width: u16,
    height: u16,
    data: &[u8],
    opts: CodecOptions,
    record: &str,
) -> Result<Image> {
    if format == 6 {
        let d = dds::Dds::parse(data, record)?;
        return d.decode_level(0, data, record);
    }
    let bpp = match bytes_per_pixel(format) {
        Some(b) => b,
        None => {
            return Err(Error::UnsupportedFormat {
                record: record.to_string(),
                format,
            })
        }
    };
    let n = pixel_count(width, height);
    let need = n * bpp;
    if data.len() != need {
        return Err(Error::malformed(
            crate::FileKind::Tml,
            record,
            "dataSize",
            0,
            format!(
                "format {format} at {width}×{height} needs {need} bytes, the texture has {}",
                data.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(n * 4);
    match format {
        0 => {
            for p in data.chunks_exact(4) {
                match opts.order_8888 {
                    Order8888::Rgba => out.extend_from_slice(p),
                    Order8888::Argb => out.extend_from_slice(&[p[1], p[2], p[3], p[0]]),
                }
            }
        }
        2 => {
            for p in data.chunks_exact(2) {
                let v = u16::from_le_bytes([p[0], p[1]]);
                let a = if v & 0x8000 != 0 { 255 } else { 0 };
                out.extend_from_slice(&[expand5(v), expand5(v >> 5), expand5(v >> 10), a]);
            }
        }
        _ => {
            for p in data.chunks_exact(2) {
                let v = u16::from_le_bytes([p[0], p[1]]);
                let n = |s: u16| ((v >> s) & 15) as u8 * 17;
                let (r, b) = match opts.order_4444 {
                    Order4444::RLow => (n(0), n(8)),
                    Order4444::BLow => (n(8), n(0)),
                };
                out.extend_from_slice(&[r, n(4), b, n(12)]);
            }
        }
    }
    image(u32::from(width), u32::from(height), out)
}

/// Round-to-nearest quantisation of an 8-bit channel to `bits` bits.
fn quant(v: u8, bits: u32) -> u16 {
    let max = (1u32 << bits) - 1;
    ((u32::from(v) * max + 127) / 255) as u16
}

/// How to encode format 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DdsOptions {
    /// DXT3 or DXT5.
    pub dxt: Dxt,
    /// Write a full mip chain down to 1×1 (else a single level).
    pub mipmaps: bool,
}

/// Encodes an RGBA8 image in `format`. Formats 0, 2 and 7 need the image to fit a `u16`
/// width and height; format 6 uses `dds` (default DXT5 with a full mip chain).
pub fn encode(
    format: u16,
    image: &Image,
    opts: CodecOptions,
    dds_opts: Option<DdsOptions>,
    record: &str,
) -> Result<Vec<u8>> {
    // An image has at least one pixel a side and exactly its pixels' bytes.
    if image.width() > 65535 || image.height() > 65535 {
        return Err(Error::refused(
            crate::FileKind::Tml,
            record,
            "width/height",
            format!(
                "{}×{} is outside 1..=65535 in each dimension",
                image.width(),
                image.height()
            ),
        ));
    }
    match format {
        0 => Ok(match opts.order_8888 {
            Order8888::Rgba => image.data().to_vec(),
            Order8888::Argb => image
                .data()
                .chunks_exact(4)
                .flat_map(|p| [p[3], p[0], p[1], p[2]])
                .collect(),
        }),
        2 => Ok(image
            .data()
            .chunks_exact(4)
            .flat_map(|p| {
                let v = quant(p[0], 5)
                    | (quant(p[1], 5) << 5)
                    | (quant(p[2], 5) << 10)
                    | if p[3] >= 128 { 0x8000 } else { 0 };
                v.to_le_bytes()
            })
            .collect()),
        7 => Ok(image
            .data()
            .chunks_exact(4)
            .flat_map(|p| {
                let (lo, hi) = match opts.order_4444 {
                    Order4444::RLow => (p[0], p[2]),
                    Order4444::BLow => (p[2], p[0]),
                };
                let v = quant(lo, 4)
                    | (quant(p[1], 4) << 4)
                    | (quant(hi, 4) << 8)
                    | (quant(p[3], 4) << 12);
                v.to_le_bytes()
            })
            .collect()),
        6 => {
            let o = dds_opts.unwrap_or(DdsOptions {
                dxt: Dxt::Dxt5,
                mipmaps: true,
            });
            dds::encode(image, o.dxt, o.mipmaps)
        }
        _ => Err(Error::UnsupportedFormat {
            record: record.to_string(),
            format,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format2_hand_computed() {
        // R=31, G=0, B=16, A=1 -> 0x8000 | 16<<10 | 31 = 0xC01F
        let img = decode(2, 1, 1, &[0x1F, 0xC0], CodecOptions::default(), "t").unwrap();
        assert_eq!(img.data(), vec![255, 0, 132, 255]);
    }

    #[test]
    fn format7_both_orders() {
        // nibbles from low: 1, 2, 3, 4 -> 0x4321
        let d = [0x21, 0x43];
        let a = decode(7, 1, 1, &d, CodecOptions::default(), "t").unwrap();
        assert_eq!(a.data(), vec![17, 34, 51, 68]);
        let o = CodecOptions {
            order_4444: Order4444::BLow,
            ..Default::default()
        };
        let b = decode(7, 1, 1, &d, o, "t").unwrap();
        assert_eq!(b.data(), vec![51, 34, 17, 68]);
    }

    #[test]
    fn format0_argb_option() {
        let d = [1, 2, 3, 4];
        let o = CodecOptions {
            order_8888: Order8888::Argb,
            ..Default::default()
        };
        assert_eq!(
            decode(0, 1, 1, &d, o, "t").unwrap().data(),
            vec![2, 3, 4, 1]
        );
        let img = Image::from_rgba8(1, 1, vec![2, 3, 4, 1]).unwrap();
        assert_eq!(encode(0, &img, o, None, "t").unwrap(), d.to_vec());
    }

    #[test]
    fn lossless_round_trips_of_representable_values() {
        // every 5-bit value expanded then re-quantised gives itself back
        for v in 0..32u16 {
            assert_eq!(quant(expand5(v), 5), v);
        }
        for v in 0..16u16 {
            assert_eq!(quant((v * 17) as u8, 4), v);
        }
    }

    #[test]
    fn images_too_large_for_a_tml_are_refused() {
        // A side above 65535 does not fit the header's u16.
        let wide = Image::new(65536, 1, [0; 4]).unwrap();
        for format in [0, 2, 7] {
            assert!(matches!(
                encode(format, &wide, CodecOptions::default(), None, "t"),
                Err(Error::Refused {
                    field: "width/height",
                    ..
                })
            ));
        }
        assert!(dds::encode(&wide, Dxt::Dxt5, false).is_err());
    }

    #[test]
    fn wrong_size_and_unknown_format_are_errors() {
        assert!(decode(2, 2, 2, &[0; 7], CodecOptions::default(), "t").is_err());
        assert!(matches!(
            decode(9, 1, 1, &[0; 2], CodecOptions::default(), "t"),
            Err(Error::UnsupportedFormat { format: 9, .. })
        ));
    }
}
