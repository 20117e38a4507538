//! Importers that turn source files (FBX, glTF 2.0, Jurassic Park: Operation Genesis
//! models) into a [`gom::Model`], and exporters from it (glTF 2.0).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod fbx;
pub mod gltf;
pub mod jpog;
pub mod optimize;
pub mod pipeline;
pub mod pose;
pub mod report;
pub mod source;
