//! PNG files: gom's one PNG codec ([`gom_image`]) with errors that name the file.

use std::path::Path;

use crate::error::RenderError;
use crate::image::Image;

/// Encodes `image` as an 8-bit RGBA PNG with fixed settings, so the same image
/// always gives the same bytes ([`gom_image::encode_png`]).
pub fn encode_png(image: &Image) -> Result<Vec<u8>, RenderError> {
    Ok(gom_image::encode_png(image)?)
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

fn decode_named(bytes: &[u8], name: &str) -> Result<Image, RenderError> {
    gom_image::decode_png(bytes).map_err(|source| RenderError::PngDecode {
        source_name: name.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips_and_errors_name_the_file() {
        let mut img = Image::new(3, 2, [10, 20, 30, 255]).unwrap();
        img.set_pixel(1, 1, [200, 100, 0, 128]);
        assert_eq!(decode_png(&encode_png(&img).unwrap()).unwrap(), img);
        assert!(decode_png(b"\x89PNG\r\n\x1a\nnot really").is_err());
        let path = Path::new("/nonexistent/texture.png");
        let e = load_png(path).unwrap_err().to_string();
        assert!(e.contains("texture.png"), "{e}");
    }
}
