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
mod morph;
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
    #[error(transparent)]
    Import(#[from] Box<gom_import::source::ImportError>),
    /// An uploaded glTF file could not be read; the message names the file.
    #[error(transparent)]
    Gltf(#[from] gom_import::gltf::GltfError),
    /// An upload the viewer does not take.
    #[error("{name}: {refusal}")]
    Upload {
        /// The upload's file name.
        name: String,
        /// Why it is refused.
        refusal: Refusal,
    },
    /// The runtime refused a model.
    #[error("{name}: {reason}")]
    Model {
        /// The model's name.
        name: String,
        /// What the runtime said.
        reason: String,
    },
    /// The server could not listen.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: String,
        /// What the server library said.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No such model, clip or texture.
    #[error("not found")]
    NotFound,
    /// The page's template lacks a marker (a fault of this build, not of the input).
    #[error(transparent)]
    Template(#[from] page::TemplateError),
}

/// Why an upload is refused before it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// Its name has no extension of a format gom reads.
    #[error("unknown file type (an upload may be {})", load::UPLOAD_FORMATS)]
    UnknownType,
    /// A JPOG model, which needs its libraries beside it.
    #[error(
        "a JPOG model needs its .tkl and .tml libraries: give it to `gom view` on the \
         command line (an upload may be {})",
        load::UPLOAD_FORMATS
    )]
    NeedsLibraries,
    /// No bytes.
    #[error("the file is empty")]
    Empty,
}
