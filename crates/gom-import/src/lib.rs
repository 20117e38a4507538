//! Importers that turn source files (FBX, glTF 2.0, BVH motion capture, Jurassic Park:
//! Operation Genesis models) into a [`gom::Model`], and exporters from it (glTF 2.0).
//!
//! [`source`] is the entry point: it picks the importer by extension and re-exports
//! what a caller needs from the modules around it ([`options`], [`format`](mod@format),
//! [`imported`], [`error`], [`texture`], [`export`]), none of which depends on it.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod bvh;
pub mod compress;
pub mod error;
pub mod export;
pub mod fbx;
pub mod format;
pub mod gltf;
pub mod imported;
pub mod jpog;
pub mod optimize;
pub mod options;
pub mod pipeline;
pub mod pose;
pub mod report;
pub mod source;
pub mod texture;
