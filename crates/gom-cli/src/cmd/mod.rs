//! One module per subcommand.

pub mod convert;
pub mod demo;
pub mod info;
pub mod validate;
