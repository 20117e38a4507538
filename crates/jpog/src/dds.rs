//! The DDS container of format-6 textures (DXT3 or DXT5, optional mipmaps).

use crate::bytes::Reader;
use crate::error::{Error, FileKind, Result};
use crate::texture::{Dxt, Image};

/// Size of "DDS " plus the 124-byte header.
pub const HEADER_SIZE: usize = 128;
const FLAGS_BASE: u32 = 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000; // caps, height, width, pixelformat, linear size
const FLAG_MIPMAPCOUNT: u32 = 0x20000;
const CAPS_TEXTURE: u32 = 0x1000;
const CAPS_COMPLEX_MIPMAP: u32 = 0x8 | 0x40_0000;
/// More levels than any `u32` size can have: a bound for corrupt headers.
const MAX_LEVELS: u32 = 32;

/// The parsed header of a DDS file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dds {
    /// DXT3 or DXT5.
    pub dxt: Dxt,
    /// Header flags.
    pub flags: u32,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// The pitch-or-linear-size field.
    pub pitch_or_linear_size: u32,
    /// The stored mip-map count field.
    pub mip_map_count_field: u32,
    /// The caps field.
    pub caps: u32,
    /// Byte ranges (relative to the DDS start) of each level present.
    pub levels: Vec<DdsLevel>,
}

/// One mip level of a DDS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DdsLevel {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Offset of its blocks from the start of the DDS.
    pub offset: usize,
    /// Size of its blocks in bytes.
    pub size: usize,
}

fn level_size(w: u32, h: u32) -> Option<usize> {
    let bw = (w as usize).div_ceil(4).max(1);
    let bh = (h as usize).div_ceil(4).max(1);
    bw.checked_mul(bh)?.checked_mul(16)
}

impl Dds {
    /// Parses the header of a DDS and locates its levels; `record` names the texture.
    pub fn parse(data: &[u8], record: &str) -> Result<Dds> {
        let mut r = Reader::new(data, FileKind::Dds);
        r.record = record.to_string();
        if r.array::<4>("magic")? != *b"DDS " {
            return Err(r.err_at("magic", 0, "is not \"DDS \""));
        }
        let size = r.u32("dwSize")?;
        if size != 124 {
            return Err(r.err_at("dwSize", 4, format!("is {size}, expected 124")));
        }
        let flags = r.u32("dwFlags")?;
        let height = r.u32("dwHeight")?;
        let width = r.u32("dwWidth")?;
        let pitch_or_linear_size = r.u32("dwPitchOrLinearSize")?;
        let _depth = r.u32("dwDepth")?;
        let mip_map_count_field = r.u32("dwMipMapCount")?;
        r.seek(76, "ddspf")?;
        let pf_size = r.u32("ddspf.dwSize")?;
        let pf_flags = r.u32("ddspf.dwFlags")?;
        let fourcc = r.array::<4>("ddspf.dwFourCC")?;
        if pf_size != 32 || pf_flags & 0x4 == 0 {
            return Err(r.err_at("ddspf", 76, "is not a FourCC pixel format"));
        }
        let dxt = match &fourcc {
            b"DXT3" => Dxt::Dxt3,
            b"DXT5" => Dxt::Dxt5,
            _ => {
                return Err(r.err_at(
                    "ddspf.dwFourCC",
                    84,
                    format!("is {:?}; only DXT3 and DXT5 are known in TML files", fourcc),
                ))
            }
        };
        r.seek(108, "dwCaps")?;
        let caps = r.u32("dwCaps")?;
        if width == 0 || height == 0 || width > 65535 || height > 65535 {
            return Err(r.err_at(
                "dwWidth/dwHeight",
                12,
                format!("{width}×{height} is outside 1..=65535"),
            ));
        }
        let count = if flags & FLAG_MIPMAPCOUNT != 0 || mip_map_count_field > 1 {
            mip_map_count_field.max(1)
        } else {
            1
        };
        if count > MAX_LEVELS {
            return Err(r.err_at(
                "dwMipMapCount",
                28,
                format!("{count} levels is more than a texture can have"),
            ));
        }
        let mut levels = Vec::new();
        let (mut w, mut h, mut off) = (width, height, HEADER_SIZE);
        for i in 0..count {
            let size = level_size(w, h).unwrap_or(usize::MAX);
            let end = off.checked_add(size).filter(|&e| e <= data.len());
            let Some(end) = end else {
                return Err(r.err_at(
                    "level data",
                    off,
                    format!(
                        "mip level {i} ({w}×{h}) needs {size} bytes, only {} are left",
                        data.len().saturating_sub(off)
                    ),
                ));
            };
            levels.push(DdsLevel {
                width: w,
                height: h,
                offset: off,
                size,
            });
            off = end;
            if w == 1 && h == 1 && i + 1 < count {
                return Err(r.err_at("dwMipMapCount", 28, format!("{count} levels go past 1×1")));
            }
            w = (w / 2).max(1);
            h = (h / 2).max(1);
        }
        Ok(Dds {
            dxt,
            flags,
            width,
            height,
            pitch_or_linear_size,
            mip_map_count_field,
            caps,
            levels,
        })
    }

    /// Decodes one level to RGBA8; `data` is the whole DDS.
    pub fn decode_level(&self, level: usize, data: &[u8], record: &str) -> Result<Image> {
        let lv = self.levels.get(level).ok_or_else(|| Error::NotFound {
            kind: FileKind::Dds,
            what: format!("{record} mip level {level}"),
        })?;
        let (w, h) = (lv.width as usize, lv.height as usize);
        let blocks = lv
            .offset
            .checked_add(lv.size)
            .and_then(|end| data.get(lv.offset..end))
            .filter(|b| level_size(lv.width, lv.height) == Some(b.len()) && w > 0 && h > 0)
            .ok_or_else(|| {
                Error::malformed(
                    FileKind::Dds,
                    record,
                    "level data",
                    lv.offset,
                    format!("does not hold the {w}×{h} level's blocks"),
                )
            })?;
        let fmt = match self.dxt {
            Dxt::Dxt3 => texpresso::Format::Bc2,
            Dxt::Dxt5 => texpresso::Format::Bc3,
        };
        let mut out = vec![0u8; w * h * 4];
        let bw = w.div_ceil(4);
        for (bi, block) in blocks.chunks_exact(16).enumerate() {
            let (bx, by) = (bi % bw, bi / bw);
            let px = fmt.decompress_block(block);
            for (i, p) in px.iter().enumerate() {
                let (x, y) = (bx * 4 + i % 4, by * 4 + i / 4);
                if x < w && y < h {
                    let o = (y * w + x) * 4;
                    out[o..o + 4].copy_from_slice(p);
                }
            }
        }
        crate::texture::image(lv.width, lv.height, out)
    }
}

/// Halves an image with a 2×2 box filter (odd edges reuse the last row/column).
fn downsample(img: &Image) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let rgba = img.data();
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = Vec::with_capacity(nw * nh * 4);
    for y in 0..nh {
        for x in 0..nw {
            for c in 0..4 {
                let mut sum = 0u32;
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let sx = (x * 2 + dx).min(w - 1);
                    let sy = (y * 2 + dy).min(h - 1);
                    sum += u32::from(rgba[(sy * w + sx) * 4 + c]);
                }
                out.push(((sum + 2) / 4) as u8);
            }
        }
    }
    crate::texture::image(nw as u32, nh as u32, out)
}

/// Encodes an image as a complete DDS, with a full mip chain down to 1×1 when `mipmaps` is
/// set; refuses sizes beyond 65535.
pub fn encode(image: &Image, dxt: Dxt, mipmaps: bool) -> Result<Vec<u8>> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w > 65535 || h > 65535 {
        return Err(Error::refused(
            FileKind::Dds,
            "image",
            "width/height",
            format!("a {w}×{h} image cannot be encoded (at most 65535 pixels each way)"),
        ));
    }
    let fmt = match dxt {
        Dxt::Dxt3 => texpresso::Format::Bc2,
        Dxt::Dxt5 => texpresso::Format::Bc3,
    };
    let mut chain = vec![image.clone()];
    if mipmaps {
        while let Some(last) = chain.last() {
            if last.width() <= 1 && last.height() <= 1 {
                break;
            }
            let next = downsample(last)?;
            chain.push(next);
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"DDS ");
    let mut flags = FLAGS_BASE;
    let mut caps = CAPS_TEXTURE;
    if mipmaps {
        flags |= FLAG_MIPMAPCOUNT;
        caps |= CAPS_COMPLEX_MIPMAP;
    }
    let linear = level_size(image.width(), image.height()).unwrap_or(0) as u32;
    let mut header = [0u32; 31];
    header[0] = 124;
    header[1] = flags;
    header[2] = image.height();
    header[3] = image.width();
    header[4] = linear;
    header[6] = chain.len() as u32;
    // pixel format at dword 18
    header[18] = 32;
    header[19] = 0x4;
    header[20] = u32::from_le_bytes(match dxt {
        Dxt::Dxt3 => *b"DXT3",
        Dxt::Dxt5 => *b"DXT5",
    });
    header[26] = caps;
    for v in header {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for lv in &chain {
        let (w, h) = (lv.width() as usize, lv.height() as usize);
        let mut blocks = vec![0u8; fmt.compressed_size(w, h)];
        fmt.compress(lv.data(), w, h, texpresso::Params::default(), &mut blocks);
        out.extend_from_slice(&blocks);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_full_chain_and_parse_back() {
        let rgba: Vec<u8> = (0..8 * 4)
            .flat_map(|i| [i as u8 * 7, 100, 50, 255])
            .collect();
        let img = Image::from_rgba8(8, 4, rgba).unwrap();
        let dds = encode(&img, Dxt::Dxt5, true).unwrap();
        let d = Dds::parse(&dds, "t").unwrap();
        // 8×4 (two blocks), 4×2, 2×1, 1×1 (one block each)
        assert_eq!(d.levels.len(), 4);
        assert_eq!(dds.len(), HEADER_SIZE + 5 * 16);
        assert_eq!((d.width, d.height), (8, 4));
        let back = d.decode_level(0, &dds, "t").unwrap();
        assert_eq!((back.width(), back.height()), (8, 4));
        // uniform green/blue/alpha survive DXT5 exactly
        for p in back.data().chunks_exact(4) {
            assert_eq!(p[3], 255);
        }
    }

    #[test]
    fn truncated_levels_are_errors() {
        let img = Image::from_rgba8(4, 4, vec![9; 64]).unwrap();
        let dds = encode(&img, Dxt::Dxt3, true).unwrap();
        assert!(Dds::parse(&dds[..dds.len() - 1], "t").is_err());
    }
}
