//! Headless, deterministic CPU rendering of GOM models to RGBA8 images and PNG files:
//! single poses, filmstrips of a clip, contact sheets of many models and texture
//! sheets. No GPU and no window are involved; the same input gives the same bytes.
//!
//! Conventions follow GOM (D2): model space is left-handed, +Y up, +Z forward;
//! triangles that are clockwise as the camera sees them are front faces and the others
//! are culled; texture coordinates have their origin at the top-left of the image.
//! Shading multiplies the material's base-colour factor, the base-colour texture (when
//! the caller supplies one) and the vertex colours, then applies a fixed directional
//! light ([`render::LIGHT_DIRECTION`]) with Lambert's law plus an ambient term. Colour
//! values are used as stored; no colour-space conversion takes place.
//!
//! ```
//! use gom_render::{encode_png, render, RenderOptions, View};
//!
//! # fn main() -> Result<(), gom_render::RenderError> {
//! let model = gom::Model::default(); // normally read from a GOMB file
//! let options = RenderOptions {
//!     size: (128, 128),
//!     view: View::ThreeQuarter,
//!     ..Default::default()
//! };
//! let png = encode_png(&render(&model, &options)?)?;
//! assert_eq!(&png[1..4], b"PNG");
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod animation;
pub mod camera;
pub mod error;
pub mod filmstrip;
pub mod font;
pub mod image;
pub mod layout;
pub mod png_file;
pub mod pose;
mod raster;
pub mod render;
pub mod sheet;
pub mod texture;

pub use animation::{
    write_animation, AnimationFormat, AnimationInfo, AnimationOptions, FrameDelay,
};
pub use camera::{Aabb, Camera, Projection, View};
pub use error::RenderError;
pub use filmstrip::{filmstrip, FilmFrame, Filmstrip, FilmstripOptions};
pub use image::Image;
pub use png_file::{decode_png, encode_png, load_png, save_png};
pub use pose::{ClipSampler, Pose};
pub use render::{render, render_pose, RenderOptions, TextureSource};
pub use sheet::{contact_sheet, texture_sheet, SheetItem, SheetOptions, TextureSheetOptions};
pub use texture::Filter;
