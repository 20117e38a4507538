//! Headless, deterministic CPU rendering of GOM models to RGBA8 images and PNG files:
//! single poses, filmstrips of a clip, contact sheets of many models and texture
//! sheets. No GPU and no window are involved; the same input gives the same bytes.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod font;
pub mod image;
pub mod png_file;

pub use error::RenderError;
pub use image::Image;
pub use png_file::{decode_png, encode_png, load_png};
