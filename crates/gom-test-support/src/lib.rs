//! What gom's tests and benchmarks share.
//!
//! Tests that read third-party files from `../shared/data` beside the checkout, or that
//! need a tool (a C compiler, Chromium, the Khronos glTF validator), skip with a message
//! when it is missing on a developer's machine. Under CI they must not: with
//! [`REQUIRE_VAR`] set to `1` (as `.ci/run` sets it), every such skip fails the test
//! instead, naming what was missing.
//!
//! [`rng::Rng`] is the one generator of the data tests and benchmarks make up; with the
//! feature `model`, `model` holds pieces of small models several test files build.
#![forbid(unsafe_code)]

#[cfg(feature = "model")]
pub mod model;
pub mod png;
pub mod rng;

use std::fmt::Display;
use std::path::{Path, PathBuf};

/// The environment variable that turns every skip into a failure.
pub const REQUIRE_VAR: &str = "GOM_REQUIRE_TEST_DATA";

/// Whether skips are failures in this run ([`REQUIRE_VAR`] is `1`).
pub fn required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1")
}

/// Reports that a test cannot do what it needs because `what` is missing: prints
/// `skipping: …` and returns, or, when [`required`], panics with the same text.
///
/// # Panics
/// When [`REQUIRE_VAR`] is `1`.
#[track_caller]
pub fn skip(what: impl Display) {
    skip_when(required(), what);
}

#[track_caller]
fn skip_when(required: bool, what: impl Display) {
    assert!(
        !required,
        "{what} (and {REQUIRE_VAR}=1 forbids skipping it)"
    );
    eprintln!("skipping: {what}");
}

/// The shared test data folder, `../shared/data` beside the checkout.
pub fn shared_data_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// `../shared/data/SUB` when it exists; otherwise [`skip`]s and returns `None`.
///
/// # Panics
/// When the folder is missing and [`REQUIRE_VAR`] is `1`.
#[track_caller]
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    existing_or_skip(required(), shared_data_root().join(sub))
}

#[track_caller]
fn existing_or_skip(required: bool, path: PathBuf) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    skip_when(required, format_args!("{} is absent", path.display()));
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MISSING: &str = "/nonexistent/gom-test-support/surely-absent";

    #[test]
    fn an_existing_path_is_returned_in_either_mode() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(existing_or_skip(false, here.clone()), Some(here.clone()));
        assert_eq!(existing_or_skip(true, here.clone()), Some(here));
    }

    #[test]
    fn a_missing_path_is_skipped_when_skips_are_allowed() {
        assert_eq!(existing_or_skip(false, PathBuf::from(MISSING)), None);
    }

    #[test]
    #[should_panic(expected = "surely-absent is absent (and GOM_REQUIRE_TEST_DATA=1")]
    fn a_missing_path_fails_when_skips_are_forbidden() {
        existing_or_skip(true, PathBuf::from(MISSING));
    }

    #[test]
    fn the_root_is_the_data_folder_beside_the_checkout() {
        let root = shared_data_root();
        assert!(root.ends_with("shared/data"));
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        assert!(checkout.join("Cargo.toml").exists());
    }
}
