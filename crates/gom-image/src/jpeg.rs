//! JPEG through `zune-jpeg` (the decoder the `image` crate uses), into RGBA8.

use crate::error::ImageError;
use crate::image::Image;
use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;

/// Most pixels one byte of a JPEG file can stand for: every 8×8 block of every
/// component needs at least one bit of entropy-coded data (its DC difference), so a
/// byte covers at most 8 blocks, 512 pixels.
const MAX_PIXELS_PER_BYTE: u64 = 8 * 64;

/// Decodes a baseline or progressive JPEG (grey, YCbCr, CMYK) into an RGBA8 image,
/// alpha 255.
///
/// The size in the frame header is checked against [`Image::MAX_PIXELS`], and against
/// what the file's bytes could hold, before any pixel is allocated.
pub fn decode_jpeg(bytes: &[u8]) -> Result<Image, ImageError> {
    let side = Image::MAX_PIXELS as usize;
    let options = DecoderOptions::default()
        .set_max_width(side)
        .set_max_height(side)
        .jpeg_set_out_colorspace(ColorSpace::RGBA);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder.decode_headers().map_err(ImageError::Jpeg)?;
    let (width, height) = decoder.dimensions().unwrap_or((0, 0));
    let pixels = Image::check_size(width as u64, height as u64)? as u64;
    if pixels > (bytes.len() as u64).saturating_mul(MAX_PIXELS_PER_BYTE) {
        return Err(ImageError::Size {
            width: width as u64,
            height: height as u64,
            reason: "the JPEG file is too small to hold that many pixels",
        });
    }
    let rgba = decoder.decode().map_err(ImageError::Jpeg)?;
    Image::from_rgba8(width as u32, height as u32, rgba)
}
