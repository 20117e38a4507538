//! GOMT0001, the text form of GOM v1 (draft §5, decision D10).
//!
//! A UTF-8 document whose first line is `GOMT0001`, followed by the top-level
//! assignments `Header`, `Skeleton`, `Materials`, `Meshes` and `Animations`. Values are
//! tables `{ key = value, }`, arrays `[ … ]`, strings, JSON numbers and `true`/`false`;
//! `#` starts a comment. [`write()`] produces one canonical layout (described with an
//! example in `docs/gomt.md`); [`read()`] accepts any layout and reports the line and
//! column of the first problem.

mod error;
mod float;
mod lexer;
mod names;
mod read;
mod structure;
mod write;

pub use crate::error::WriteError;
pub use error::{TextError, TextErrorKind};
pub use float::{format_f32, push_f32};
pub use read::{read, read_bytes};
pub use write::write;
