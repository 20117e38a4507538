//! Helpers shared by the `gom` binary's end-to-end tests.

use std::path::{Path, PathBuf};

#[allow(dead_code)] // used by the build tests only
pub mod build_tree;
use std::process::{Command, Output};

/// Runs the `gom` binary with `args` and returns what it did.
pub fn gom(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gom"))
        .args(args)
        .output()
        .expect("the gom binary runs")
}

/// `p` as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

/// `../shared/data/<sub>` beside the checkout, or `None` (with a note that the test
/// skips its third-party part) when it is absent; a failure under
/// `GOM_REQUIRE_TEST_DATA=1`.
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    gom_test_support::shared_data(sub)
}

/// The width and height a PNG file declares.
#[allow(dead_code)] // not every test file draws pictures
pub fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[1..4], b"PNG", "{} is a PNG", path.display());
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}
