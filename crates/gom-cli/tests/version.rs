//! `gom --version`: the version, the commit built from, and what this CPU runs.

use std::process::Command;

#[test]
fn version_names_the_package_version_the_commit_and_every_stage_path() {
    let out = Command::new(env!("CARGO_BIN_EXE_gom"))
        .arg("--version")
        .output()
        .expect("gom runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with(&format!("gom {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{first}"
    );
    // The commit is the checkout's when git can tell (every test run of this
    // repository is in a checkout; a published package has no tests).
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs");
    let head = String::from_utf8(head.stdout).unwrap();
    assert!(
        first.ends_with(&format!("(commit {})", head.trim())),
        "{first}"
    );
    let stages: Vec<&str> = lines.map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(stages, ["sampling", "local to model", "skinning"]);
}
