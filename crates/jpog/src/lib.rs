#![forbid(unsafe_code)]
#![deny(missing_docs)]
//! Readers and writers for the asset formats of Jurassic Park: Operation Genesis (2003):
//! material libraries (`.tml`), models (`.tmd`), keyframe libraries (`.tkl`) and their
//! texture codecs. Unmodified files are written back byte for byte; edited ones are laid
//! out again under the game's rules or refused. See `docs/jpog.md`.

mod bytes;
pub mod dds;
pub mod error;
mod open;
pub mod ops;
pub mod png_io;
pub mod scene;
pub mod texture;
pub mod tkl;
pub mod tmd;
pub mod tml;

pub use error::{Error, FileKind, Result};
pub use open::OpenField;
pub use texture::{CodecOptions, DdsOptions, Dxt, Image, Order4444, Order8888};
pub use tkl::Tkl;
pub use tmd::Tmd;
pub use tml::Tml;
