//! GOMT0001, the text form of GOM v1 (`docs/gomt.md`, decision D10).
//!
//! A UTF-8 document whose first line is `GOMT0001`, followed by the top-level
//! assignments `Header`, `Skeleton`, `Materials`, `Meshes` and `Animations`. Values are
//! tables `{ key = value, }`, arrays `[ … ]`, strings, JSON numbers and `true`/`false`;
//! `#` starts a comment. [`write()`] produces one canonical layout (described with an
//! example in `docs/gomt.md`); [`read()`] accepts any layout and reports the line and
//! column of the first problem.
//!
//! ```
//! let model = gom_demo::build();
//! let text = gom::gomt::write(&model).unwrap();
//! assert!(text.starts_with("GOMT0001\n"));
//! let back = gom::gomt::read(&text).unwrap();
//! assert_eq!(gom::gomt::write(&back).unwrap(), text);
//!
//! let err = gom::gomt::read("GOMT0001\nHeader = [").unwrap_err();
//! assert_eq!((err.line, err.column), (2, 10));
//! ```

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
