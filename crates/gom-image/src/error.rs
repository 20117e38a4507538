//! The crate's error type.

/// Why an image cannot be made, decoded or encoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// An image of this size cannot be made: a side is zero, or the image would exceed
    /// [`crate::Image::MAX_PIXELS`] (or the file it is read from could not hold it).
    #[error("an image of {width}x{height} pixels cannot be made: {reason}")]
    Size {
        /// Requested width.
        width: u64,
        /// Requested height.
        height: u64,
        /// Why the size is refused.
        reason: &'static str,
    },
    /// RGBA8 pixel data whose length does not match its size.
    #[error(
        "RGBA8 data for a {width}x{height} image must be {expected} bytes, but it is {actual}"
    )]
    DataLength {
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
        /// Bytes required (width × height × 4).
        expected: u64,
        /// Bytes given.
        actual: usize,
    },
    /// The PNG decoder refused the bytes.
    #[error("PNG: {0}")]
    PngDecode(#[source] png::DecodingError),
    /// The PNG's palette is malformed (checked before the decoder expands it).
    #[error("PNG: the PLTE chunk holds {bytes} bytes: not three an entry for at most 256 entries")]
    PngPalette {
        /// The palette's length in bytes.
        bytes: usize,
    },
    /// The PNG encoder failed.
    #[error("PNG encoding failed: {0}")]
    PngEncode(#[source] png::EncodingError),
    /// The JPEG decoder refused the bytes.
    #[error("JPEG: {0}")]
    Jpeg(#[source] zune_jpeg::errors::DecodeErrors),
    /// The bytes start like no encoding gom reads.
    #[error("not a PNG or JPEG image (it starts with the bytes {first_bytes:02x?})")]
    UnknownEncoding {
        /// The first bytes (at most 8).
        first_bytes: Vec<u8>,
    },
}
