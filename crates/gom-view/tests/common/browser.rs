//! Headless Chromium for the page's tests: launched on a URL, it runs the page's test
//! mode, which posts its results back to the test's server.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The Chromium binary: `GOM_CHROMIUM`, else the first of the usual names on PATH.
/// `None` (with a message) when there is none: the caller skips, or under
/// `GOM_REQUIRE_TEST_DATA=1` the test fails ([`gom_test_support::skip`]).
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GOM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    gom_test_support::skip(
        "no chromium on PATH (install the system's chromium package, or set GOM_CHROMIUM)",
    );
    None
}

/// A running headless Chromium, ended when dropped.
pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Opens `url` in a fresh profile with software WebGL2 (SwiftShader).
    pub fn open(binary: &PathBuf, url: &str) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--force-device-scale-factor=1",
                "--window-size=1000,800",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        Browser {
            child,
            _profile: profile,
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
