//! Locating the shared test data, `../shared/data/<kind>` beside the checkout.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/data/<kind>` beside the checkout, or `None` after printing that the
/// test skips what needs it.
pub fn dir(kind: &str) -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(kind);
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("skipping: {} is absent", d.display());
        None
    }
}

/// The FBX files of the shared data (`../shared/data/fbx`).
pub fn fbx_dir() -> Option<PathBuf> {
    dir("fbx")
}

/// The game files of the shared data (`../shared/data/jpog`).
pub fn jpog_dir() -> Option<PathBuf> {
    dir("jpog")
}
