//! Records the commit the binary is built from, for `gom --version`: from git in a
//! checkout, from the `.cargo_vcs_info.json` that `cargo package` writes in a
//! published package, else "unknown".

use std::path::Path;
use std::process::Command;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    // A published package first: its directory may sit inside some other checkout.
    let commit = from_vcs_info(Path::new(&dir))
        .or_else(|| from_git(&dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=GOM_COMMIT={commit}");
}

/// `git rev-parse` output, or `None` outside a checkout (or without git).
fn git(dir: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// The checkout's commit (12 hex digits), and the files whose change means another
/// commit, for Cargo to watch.
fn from_git(dir: &str) -> Option<String> {
    let commit = git(dir, &["rev-parse", "--short=12", "HEAD"])?;
    for name in ["HEAD", "packed-refs"] {
        if let Some(path) = git(dir, &["rev-parse", "--git-path", name]) {
            println!(
                "cargo:rerun-if-changed={}",
                Path::new(dir).join(path).display()
            );
        }
    }
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(dir, &["rev-parse", "--git-path", &branch]) {
            println!(
                "cargo:rerun-if-changed={}",
                Path::new(dir).join(path).display()
            );
        }
    }
    Some(commit)
}

/// The `"sha1"` of a published package's `.cargo_vcs_info.json`. A plain search
/// rather than a JSON parser: the file is Cargo's, one flat field is read, and a
/// build script should not add a dependency for it.
fn from_vcs_info(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let after = text.split("\"sha1\"").nth(1)?;
    let hex: String = after
        .chars()
        .skip_while(|c| !c.is_ascii_hexdigit())
        .take_while(|c| c.is_ascii_hexdigit())
        .collect();
    (hex.len() >= 12).then(|| hex[..12].to_string())
}
