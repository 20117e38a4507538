//! The file formats gom reads and writes, named by extension.

use std::path::Path;

/// The source formats gom reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceFormat {
    /// GOM binary (`.gom`, `.gomb`).
    Gomb,
    /// GOM text (`.gomt`).
    Gomt,
    /// FBX, binary or ASCII (`.fbx`).
    Fbx,
    /// glTF 2.0 JSON (`.gltf`).
    Gltf,
    /// glTF 2.0 binary (`.glb`).
    Glb,
    /// Jurassic Park: Operation Genesis model (`.tmd`).
    Tmd,
    /// BVH motion capture (`.bvh`).
    Bvh,
}

impl SourceFormat {
    /// The format named by `path`'s extension, if gom reads it.
    pub fn of_path(path: &Path) -> Option<SourceFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "gom" | "gomb" => SourceFormat::Gomb,
            "gomt" => SourceFormat::Gomt,
            "fbx" => SourceFormat::Fbx,
            "gltf" => SourceFormat::Gltf,
            "glb" => SourceFormat::Glb,
            "tmd" => SourceFormat::Tmd,
            "bvh" => SourceFormat::Bvh,
            _ => return None,
        })
    }
}

/// The output formats gom writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutputFormat {
    /// GOM binary.
    Gomb,
    /// GOM text.
    Gomt,
    /// glTF 2.0 binary.
    Glb,
    /// glTF 2.0 JSON with embedded buffers.
    Gltf,
}

impl OutputFormat {
    /// The format named by an extension or a `--to`/`--format` value.
    pub fn from_name(name: &str) -> Option<OutputFormat> {
        Some(match name.to_ascii_lowercase().as_str() {
            "gom" | "gomb" => OutputFormat::Gomb,
            "gomt" => OutputFormat::Gomt,
            "glb" => OutputFormat::Glb,
            "gltf" => OutputFormat::Gltf,
            _ => return None,
        })
    }

    /// The format named by `path`'s extension.
    pub fn of_path(path: &Path) -> Option<OutputFormat> {
        OutputFormat::from_name(path.extension()?.to_str()?)
    }

    /// The file extension written for this format.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Gomb => "gom",
            OutputFormat::Gomt => "gomt",
            OutputFormat::Glb => "glb",
            OutputFormat::Gltf => "gltf",
        }
    }
}
