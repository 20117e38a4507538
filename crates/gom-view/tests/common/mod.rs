//! Helpers shared by the viewer's tests: a server on the demo model, raw HTTP
//! requests (so that the Host header and the body are exactly what a test says).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A status, headers and body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The value of header `name` (any case), or "".
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// The body as JSON.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

/// The demo model written as GOMB and served, with the model for expectations.
pub fn demo_server(config: gom_view::Config) -> (gom_view::ViewServer, gom::Model) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.gom");
    let model = gom_demo::build();
    std::fs::write(&path, gom::gomb::write(&model).unwrap()).unwrap();
    let loaded = gom_view::load_path(&path, &config.options).unwrap();
    let server = gom_view::ViewServer::start(vec![loaded], config).unwrap();
    let model = gom::gomb::read(&std::fs::read(&path).unwrap())
        .unwrap()
        .model;
    (server, model)
}

/// Sends one HTTP/1.1 request with `Host: host` (none when empty) and reads the answer.
pub fn request(port: u16, method: &str, path: &str, host: &str, body: &[u8]) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !host.is_empty() {
        head += &format!("Host: {host}\r\n");
    }
    head += &format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before reading the whole body.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse(&raw)
}

fn parse(raw: &[u8]) -> Answer {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 4 + size..];
    }
}

pub mod browser;

/// One image the page read back: RGBA rows, bottom row first.
pub struct Image {
    pub label: String,
    pub width: usize,
    pub height: usize,
    pub rgba: Vec<u8>,
}

/// The images of a render report.
pub fn images(report: &serde_json::Value) -> Vec<Image> {
    use base64::Engine;
    report["images"]
        .as_array()
        .expect("images in the report")
        .iter()
        .map(|i| Image {
            label: i["label"].as_str().unwrap().to_string(),
            width: i["width"].as_u64().unwrap() as usize,
            height: i["height"].as_u64().unwrap() as usize,
            rgba: base64::engine::general_purpose::STANDARD
                .decode(i["rgba"].as_str().unwrap())
                .unwrap(),
        })
        .collect()
}

/// Pixels whose colour differs by more than `threshold` in any channel.
pub fn changed_pixels(a: &Image, b: &Image, threshold: u8) -> Vec<(usize, usize)> {
    assert_eq!((a.width, a.height), (b.width, b.height));
    (0..a.width * a.height)
        .filter(|&i| (0..3).any(|c| a.rgba[i * 4 + c].abs_diff(b.rgba[i * 4 + c]) > threshold))
        .map(|i| (i % a.width, i / a.width))
        .collect()
}

/// The shared test files of `sub` (`gltf`, `fbx`, `jpog`) ending in `.ext`, sorted;
/// empty, with a message, when `../shared/data` is absent (a failure under
/// `GOM_REQUIRE_TEST_DATA=1`).
pub fn shared(sub: &str, ext: &str) -> Vec<std::path::PathBuf> {
    let Some(dir) = gom_test_support::shared_data(sub) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        gom_test_support::skip(format_args!("{} cannot be read", dir.display()));
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// `GET path` on 127.0.0.1:`port`, its JSON body.
pub fn request_json<T: serde::de::DeserializeOwned>(port: u16, path: &str) -> T {
    request(port, "GET", path, &format!("127.0.0.1:{port}"), &[]).json()
}
