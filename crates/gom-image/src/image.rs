//! RGBA8 images.

use crate::error::ImageError;

/// An RGBA8 image, rows top to bottom, 4 bytes per pixel, no padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    data: Vec<u8>,
}

impl Image {
    /// The largest number of pixels an image may have (64 Mi pixels, 256 MiB).
    pub const MAX_PIXELS: u64 = 1 << 26;

    /// An image of `width`×`height` pixels, all `fill`.
    pub fn new(width: u32, height: u32, fill: [u8; 4]) -> Result<Image, ImageError> {
        let n = Self::check_size(u64::from(width), u64::from(height))?;
        let mut data = Vec::with_capacity(n * 4);
        for _ in 0..n {
            data.extend_from_slice(&fill);
        }
        Ok(Image {
            width,
            height,
            data,
        })
    }

    /// Wraps RGBA8 bytes (`width × height × 4` of them, rows top to bottom).
    pub fn from_rgba8(width: u32, height: u32, data: Vec<u8>) -> Result<Image, ImageError> {
        let n = Self::check_size(u64::from(width), u64::from(height))?;
        if data.len() != n * 4 {
            return Err(ImageError::DataLength {
                width,
                height,
                expected: n as u64 * 4,
                actual: data.len(),
            });
        }
        Ok(Image {
            width,
            height,
            data,
        })
    }

    /// Checks that an image of `width`×`height` may be made (both sides at least 1,
    /// at most [`Image::MAX_PIXELS`] pixels) and returns its pixel count.
    pub fn check_size(width: u64, height: u64) -> Result<usize, ImageError> {
        let err = |reason| ImageError::Size {
            width,
            height,
            reason,
        };
        if width == 0 || height == 0 {
            return Err(err("both sides must be at least one pixel"));
        }
        if width > u64::from(u32::MAX) || height > u64::from(u32::MAX) {
            return Err(err("a side is larger than 2^32 - 1"));
        }
        let n = width
            .checked_mul(height)
            .ok_or(err("the pixel count overflows"))?;
        if n > Self::MAX_PIXELS {
            return Err(err("it has more than 2^26 pixels"));
        }
        usize::try_from(n).map_err(|_| err("the pixel count does not fit in memory"))
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The RGBA8 bytes, rows top to bottom.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The RGBA8 bytes, consuming the image.
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    fn offset(&self, x: i64, y: i64) -> Option<usize> {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return None;
        }
        Some((y as usize * self.width as usize + x as usize) * 4)
    }

    /// The pixel at (`x`, `y`), or `None` outside the image.
    pub fn pixel(&self, x: i64, y: i64) -> Option<[u8; 4]> {
        let o = self.offset(x, y)?;
        let p = self.data.get(o..o + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Sets the pixel at (`x`, `y`); does nothing outside the image.
    pub fn set_pixel(&mut self, x: i64, y: i64, color: [u8; 4]) {
        if let Some(o) = self.offset(x, y) {
            if let Some(p) = self.data.get_mut(o..o + 4) {
                p.copy_from_slice(&color);
            }
        }
    }

    /// Fills the rectangle with top-left (`x`, `y`) and size `w`×`h`, clipped to the image.
    pub fn fill_rect(&mut self, x: i64, y: i64, w: i64, h: i64, color: [u8; 4]) {
        let x0 = x.max(0);
        let y0 = y.max(0);
        let x1 = x.saturating_add(w).min(i64::from(self.width));
        let y1 = y.saturating_add(h).min(i64::from(self.height));
        for yy in y0..y1 {
            for xx in x0..x1 {
                self.set_pixel(xx, yy, color);
            }
        }
    }

    /// Copies `src` with its top-left corner at (`x`, `y`), clipped to this image.
    pub fn blit(&mut self, src: &Image, x: i64, y: i64) {
        let x0 = x.max(0);
        let x1 = x
            .saturating_add(i64::from(src.width))
            .min(i64::from(self.width));
        if x1 <= x0 {
            return;
        }
        let row_bytes = (x1 - x0) as usize * 4;
        for sy in 0..i64::from(src.height) {
            let dy = y + sy;
            let (Some(d), Some(s)) = (self.offset(x0, dy), src.offset(x0 - x, sy)) else {
                continue;
            };
            if let (Some(dst), Some(from)) = (
                self.data.get_mut(d..d + row_bytes),
                src.data.get(s..s + row_bytes),
            ) {
                dst.copy_from_slice(from);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert!(Image::new(0, 4, [0; 4]).is_err());
        assert!(Image::new(1 << 14, 1 << 13, [0; 4]).is_err());
        assert!(Image::from_rgba8(2, 2, vec![0; 15]).is_err());
        assert!(Image::from_rgba8(2, 2, vec![0; 16]).is_ok());
    }

    #[test]
    fn blit_clips_at_every_edge() {
        let mut dst = Image::new(4, 4, [0, 0, 0, 255]).unwrap();
        let src = Image::new(3, 3, [9, 9, 9, 255]).unwrap();
        dst.blit(&src, -1, 2);
        let lit: Vec<(i64, i64)> = (0..4)
            .flat_map(|y| (0..4).map(move |x| (x, y)))
            .filter(|&(x, y)| dst.pixel(x, y) == Some([9, 9, 9, 255]))
            .collect();
        assert_eq!(lit, vec![(0, 2), (1, 2), (0, 3), (1, 3)]);
    }
}
