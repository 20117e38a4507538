//! PNG helpers for extracting and replacing textures, through gom's one image codec
//! ([`gom_image`]).

use crate::error::{Error, Result};
use crate::texture::Image;

/// Encodes an RGBA8 image as an 8-bit RGBA PNG (the same image, the same bytes).
pub fn encode_png(img: &Image) -> Result<Vec<u8>> {
    gom_image::encode_png(img).map_err(|source| Error::Image {
        context: "PNG encode",
        source,
    })
}

/// Decodes any PNG (grey, grey+alpha, RGB, RGBA, palette; 1-16 bits) to RGBA8,
/// refusing an image larger than its file could hold before allocating it.
pub fn decode_png(bytes: &[u8]) -> Result<Image> {
    gom_image::decode_png(bytes).map_err(|source| Error::Image {
        context: "PNG decode",
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip() {
        let img = Image::from_rgba8(3, 2, (0..24).map(|i| (i * 10) as u8).collect()).unwrap();
        let back = decode_png(&encode_png(&img).unwrap()).unwrap();
        assert_eq!(back, img);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(matches!(decode_png(b"not a png"), Err(Error::Image { .. })));
    }
}
