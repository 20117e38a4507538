#![forbid(unsafe_code)]
//! Readers and writers for the asset formats of Jurassic Park: Operation Genesis (2003):
//! material libraries (`.tml`), models (`.tmd`), keyframe libraries (`.tkl`) and their
//! texture codecs. Unmodified files are written back byte for byte; edited ones are laid
//! out again under the game's rules or refused. See `docs/jpog.md`.

mod bytes;
pub mod dds;
pub mod error;
pub mod texture;

pub use error::{Error, FileKind, Result};
pub use texture::{CodecOptions, Dxt, Image, Order4444, Order8888};
