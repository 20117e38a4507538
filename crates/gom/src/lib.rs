//! GOM v1, the Game Oriented Model Format: the in-memory [`Model`], the binary form
//! GOMB0001 and the text form GOMT0001, and validation.
//!
//! See `docs/format.md` for the format itself.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod additive;
pub mod bounds;
pub mod clip_extras;
pub mod compressed;
pub mod error;
pub mod events;
pub mod gomb;
pub mod gomt;
pub mod layout;
pub mod limits;
pub mod math;
pub mod model;
pub mod morph;
pub mod skinning;
pub mod validate;

pub use clip_extras::ClipExtras;
pub use model::*;

/// The converter version string written into the headers of files this toolkit
/// produces: `gom <crate version>`.
pub const CONVERTER_VERSION: &str = concat!("gom ", env!("CARGO_PKG_VERSION"));
