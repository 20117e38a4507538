//! `gom view`: serving until Ctrl-C, and the self-contained HTML file.

use std::io::{BufRead, Read, Write};
use std::process::{Command, Stdio};

fn demo_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("demo.gom");
    std::fs::write(&path, gom::gomb::write(&gom_demo::build()).unwrap()).unwrap();
    path
}

#[test]
fn html_writes_one_file_with_the_model_and_its_palettes() {
    let dir = tempfile::tempdir().unwrap();
    let input = demo_file(dir.path());
    let out = dir.path().join("demo.html");
    let status = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args([
            "view",
            input.to_str().unwrap(),
            "--html",
            out.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("window.GOM_EMBED = {"));
    assert!(!page.contains("src=\"viewer.js\""), "the script is inline");
    let clip = &gom_demo::build().clips[0];
    assert!(page.contains(&format!("\"name\":\"{}\"", clip.name)));
    // Refuses two files and its own input.
    let two = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args([
            "view",
            input.to_str().unwrap(),
            input.to_str().unwrap(),
            "--html",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(two.status.code(), Some(2));
    let over = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args([
            "view",
            input.to_str().unwrap(),
            "--html",
            input.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(over.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn serves_on_loopback_until_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let input = demo_file(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args(["view", input.to_str().unwrap(), "--no-open"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET /api/models HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("demo.gom"));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a clean stop on Ctrl-C");
    assert!(std::net::TcpStream::connect(host).is_err());
}
