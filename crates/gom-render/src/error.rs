//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while rendering, encoding or loading images.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// An image of this size cannot be made: a side is zero, or the image would exceed
    /// [`crate::Image::MAX_PIXELS`].
    #[error("an image of {width}x{height} pixels cannot be made: {reason}")]
    ImageSize {
        /// Requested width.
        width: u64,
        /// Requested height.
        height: u64,
        /// Why the size is refused.
        reason: &'static str,
    },
    /// An image could not be made (its size, its data's length).
    #[error(transparent)]
    Image(#[from] gom_image::ImageError),
    /// The model has no clip of this name.
    #[error("no clip named \"{name}\" (the model has: {available})")]
    UnknownClip {
        /// The clip asked for.
        name: String,
        /// The clip names the model has ([`gom::Model::clip_names_listed`]).
        available: String,
    },
    /// A filmstrip or sheet asked for zero frames or cells, or too many.
    #[error("{what} must be between 1 and {max}, but it is {actual}")]
    Count {
        /// What was counted.
        what: &'static str,
        /// Largest accepted value.
        max: u32,
        /// The value given.
        actual: u64,
    },
    /// The runtime refused the model's skeleton or clip.
    #[error("the model cannot be animated: {0}")]
    Runtime(#[from] gom_runtime::Error),
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    PngEncode(#[from] png::EncodingError),
    /// A PNG could not be decoded.
    #[error("PNG {source_name} could not be decoded: {source}")]
    PngDecode {
        /// The file path, or `<memory>`.
        source_name: String,
        /// The decoder's error.
        source: gom_image::ImageError,
    },
    /// A file could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A frame rate that is not a positive number up to [`crate::animation::MAX_FPS`].
    #[error(
        "clip {clip:?}: frame rate {rate} (from {from}) must be above 0 and at most {max}",
        max = crate::animation::MAX_FPS
    )]
    FrameRate {
        /// The clip.
        clip: String,
        /// The rate.
        rate: f32,
        /// Where the rate came from.
        from: &'static str,
    },
    /// GIF encoding failed.
    #[error("GIF encoding failed: {0}")]
    GifEncode(#[from] gif::EncodingError),
}
