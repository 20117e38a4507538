//! RGBA8 images and the one way gom decodes and encodes them.
//!
//! Every crate of gom that handles pixels uses [`Image`]: the JPOG texture codecs, the
//! renderer's pictures and the textures it draws. [`decode`] reads PNG (through the
//! `png` crate) and JPEG (through `zune-jpeg`), refusing an image larger than
//! [`Image::MAX_PIXELS`] or than its file could hold before allocating its pixels;
//! [`encode_png`] writes the same bytes for the same image.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod image;
mod jpeg;
mod png_codec;

pub use error::ImageError;
pub use image::Image;
pub use jpeg::decode_jpeg;
pub use png_codec::{decode_png, encode_png, palette_check};

/// The encodings [`decode`] reads, told apart by their first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// PNG (`\x89PNG\r\n\x1a\n`).
    Png,
    /// JPEG (`FF D8 FF`).
    Jpeg,
}

impl Encoding {
    /// The encoding `bytes` start with, if [`decode`] reads it.
    pub fn sniff(bytes: &[u8]) -> Option<Encoding> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Encoding::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Encoding::Jpeg)
        } else {
            None
        }
    }

    /// The encoding's MIME type, as glTF and browsers name it.
    pub fn mime_type(self) -> &'static str {
        match self {
            Encoding::Png => "image/png",
            Encoding::Jpeg => "image/jpeg",
        }
    }
}

/// Decodes a PNG or JPEG image (told apart by its first bytes) into RGBA8.
pub fn decode(bytes: &[u8]) -> Result<Image, ImageError> {
    match Encoding::sniff(bytes) {
        Some(Encoding::Png) => decode_png(bytes),
        Some(Encoding::Jpeg) => decode_jpeg(bytes),
        None => Err(ImageError::UnknownEncoding {
            first_bytes: bytes.iter().take(8).copied().collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_encoding_is_sniffed_and_named_by_its_mime_type() {
        let png = encode_png(&Image::new(1, 1, [1, 2, 3, 4]).unwrap()).unwrap();
        assert_eq!(
            Encoding::sniff(&png).map(Encoding::mime_type),
            Some("image/png")
        );
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0];
        assert_eq!(
            Encoding::sniff(&jpeg).map(Encoding::mime_type),
            Some("image/jpeg")
        );
        assert_eq!(Encoding::sniff(b"GIF89a"), None);
    }

    #[test]
    fn unknown_bytes_are_named_not_guessed() {
        match decode(b"GIF89a....") {
            Err(ImageError::UnknownEncoding { first_bytes }) => {
                assert_eq!(first_bytes, b"GIF89a..")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            decode(&[]),
            Err(ImageError::UnknownEncoding { .. })
        ));
    }
}
