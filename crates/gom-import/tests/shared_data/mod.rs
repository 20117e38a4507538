//! Locating the shared test data, `../shared/data/<kind>` beside the checkout.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/data/<kind>` beside the checkout, or `None` after printing that the
/// test skips what needs it (a failure under `GOM_REQUIRE_TEST_DATA=1`).
pub fn dir(kind: &str) -> Option<PathBuf> {
    gom_test_support::shared_data(kind)
}

/// The FBX files of the shared data (`../shared/data/fbx`).
pub fn fbx_dir() -> Option<PathBuf> {
    dir("fbx")
}

/// The game files of the shared data (`../shared/data/jpog`).
pub fn jpog_dir() -> Option<PathBuf> {
    dir("jpog")
}
