//! `gom view`: a browser viewer for game models, driven by the GOM runtime.
//!
//! A local HTTP server ([`server::ViewServer`], 127.0.0.1 only) serves an embedded
//! WebGL2 page ([`page`]) and each model as the page draws it ([`data::ViewModel`]):
//! geometry, materials, textures, what `gom info` says, and skinning palettes that the
//! runtime computes (sampling, local to model, palette), baked per clip at its sample
//! rate and at exact times for scrubbing. The page skins in its vertex shader with
//! four influences, as a game does. [`html::self_contained`] writes the same page with
//! one model and every clip's palettes embedded, for opening without gom.
#![forbid(unsafe_code)]

pub mod data;
pub mod html;
pub mod load;
pub mod page;
pub mod server;

pub use data::ViewModel;
pub use load::{load_path, load_upload};
pub use server::{Config, ViewServer};

/// Why the viewer could not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// A model could not be read; the message names the file.
    #[error("{0}")]
    Import(String),
    /// The runtime refused a model.
    #[error("{name}: {reason}")]
    Model {
        /// The model's name.
        name: String,
        /// What the runtime said.
        reason: String,
    },
    /// The server could not listen.
    #[error("cannot listen on {0}")]
    Bind(String),
    /// No such model, clip or texture.
    #[error("not found")]
    NotFound,
    /// The page's template lacks a marker (a fault of this build, not of the input).
    #[error(transparent)]
    Template(#[from] page::TemplateError),
}
