//! The viewer's HTTP server: every endpoint, and what it refuses.

mod common;

use common::{demo_server, request, Answer};
use gom_import::pose::{pose_model, PoseAt};

fn get(port: u16, path: &str) -> Answer {
    request(port, "GET", path, &format!("127.0.0.1:{port}"), &[])
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn page_script_and_style_are_served_from_the_binary() {
    let (server, _) = demo_server(Default::default());
    let page = get(server.port(), "/");
    assert_eq!(page.status, 200);
    assert!(page.header("content-type").starts_with("text/html"));
    assert_eq!(page.body, gom_view::page::served().unwrap().as_bytes());
    let js = get(server.port(), "/viewer.js");
    assert_eq!(js.status, 200);
    assert_eq!(js.body, gom_view::page::VIEWER_JS.as_bytes());
    assert!(js.header("content-type").starts_with("text/javascript"));
    let morph = get(server.port(), "/morph.js");
    assert_eq!(morph.status, 200);
    assert_eq!(morph.body, gom_view::page::MORPH_JS.as_bytes());
    assert!(morph.header("content-type").starts_with("text/javascript"));
    let events = get(server.port(), "/events.js");
    assert_eq!(events.status, 200);
    assert_eq!(events.body, gom_view::page::EVENTS_JS.as_bytes());
    assert!(events.header("content-type").starts_with("text/javascript"));
    let css = get(server.port(), "/style.css");
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").starts_with("text/css"));
}

#[test]
fn model_list_and_manifest_describe_the_demo() {
    let (server, model) = demo_server(Default::default());
    let list: serde_json::Value = get(server.port(), "/api/models").json();
    assert_eq!(
        list,
        serde_json::json!([{ "index": 0, "name": "demo.gom" }])
    );
    let m: serde_json::Value = get(server.port(), "/api/model/0").json();
    assert_eq!(
        m["bones"].as_array().unwrap().len(),
        model.skeleton.bones.len()
    );
    assert_eq!(m["meshes"].as_array().unwrap().len(), model.meshes.len());
    let clip = &model.clips[0];
    assert_eq!(m["clips"][0]["name"], clip.name.as_str());
    // Frames at 1/rate from 0 to the end, the end included.
    let frames = (clip.duration * clip.sample_rate).ceil() as u64 + 1;
    assert_eq!(m["clips"][0]["frames"], frames);
    let vertices: usize = model.meshes.iter().map(|p| p.vertices.len()).sum();
    assert_eq!(m["info"]["vertices"], vertices);
    assert_eq!(m["info"]["findings"], serde_json::json!([]));
}

#[test]
fn geometry_holds_the_model_positions_and_indices_at_the_manifest_offsets() {
    let (server, model) = demo_server(Default::default());
    let m: serde_json::Value = get(server.port(), "/api/model/0").json();
    let geometry = get(server.port(), "/api/model/0/geometry");
    assert_eq!(geometry.status, 200);
    for (part, json) in model.meshes.iter().zip(m["meshes"].as_array().unwrap()) {
        let at = json["position"].as_u64().unwrap() as usize;
        let n = part.vertices.positions.len();
        let got = f32s(&geometry.body[at..at + n * 12]);
        let want: Vec<f32> = part.vertices.positions.iter().flatten().copied().collect();
        assert_eq!(got, want, "{}", part.name);
        let at = json["index"].as_u64().unwrap() as usize;
        let got: Vec<u32> = geometry.body[at..at + part.indices.len() * 4]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(got, part.indices);
    }
}

/// Skins the model's vertices with a pose record the way the page's vertex shader
/// does (four influences, `p'_j = dot(column_j, [p, 1])`).
fn skin_with_record(
    model: &gom::Model,
    manifest: &serde_json::Value,
    record: &[f32],
) -> Vec<Vec<[f32; 3]>> {
    model
        .meshes
        .iter()
        .zip(manifest["meshes"].as_array().unwrap())
        .map(|(part, json)| {
            let base = json["palette_base"].as_u64().unwrap() as usize;
            let rigid = gom::model::SkinWeights {
                bones: [0; 4],
                weights: [1.0, 0.0, 0.0, 0.0],
            };
            (0..part.vertices.len())
                .map(|v| {
                    let p = part.vertices.positions[v];
                    let s = match &part.vertices.skin {
                        Some(s) if part.is_skinned() => s[v],
                        _ => rigid,
                    };
                    let mut out = [0.0f32; 3];
                    for k in 0..4 {
                        let e = (base + s.bones[k] as usize) * 12;
                        for (j, o) in out.iter_mut().enumerate() {
                            let c = &record[e + j * 4..e + j * 4 + 4];
                            *o += s.weights[k] * (c[0] * p[0] + c[1] * p[1] + c[2] * p[2] + c[3]);
                        }
                    }
                    out
                })
                .collect()
        })
        .collect()
}

#[test]
fn pose_at_an_exact_time_skins_as_the_cpu_runtime_does() {
    let (server, model) = demo_server(Default::default());
    let manifest: serde_json::Value = get(server.port(), "/api/model/0").json();
    let answer = get(server.port(), "/api/model/0/pose?clip=0&t=0.37");
    assert_eq!(answer.status, 200);
    let record = f32s(&answer.body);
    let entries = manifest["palette_entries"].as_u64().unwrap() as usize;
    assert_eq!(record.len(), entries * 12 + model.skeleton.bones.len() * 3);
    let skinned = skin_with_record(&model, &manifest, &record);
    let cpu = pose_model(
        &model,
        &PoseAt {
            clip: Some(model.clips[0].name.clone()),
            time: 0.37,
            looped: false,
        },
    )
    .unwrap();
    let mut moved = 0.0f32;
    for (mesh, want) in skinned.iter().zip(&cpu) {
        for (a, b) in mesh.iter().zip(&want.positions) {
            for k in 0..3 {
                assert!((a[k] - b[k]).abs() < 1e-5, "{a:?} vs {b:?}");
            }
        }
    }
    // The clip moves the tentacle: the pose is not the bind pose.
    let bind = f32s(&get(server.port(), "/api/model/0/pose").body);
    for (a, b) in record.iter().zip(&bind) {
        moved = moved.max((a - b).abs());
    }
    assert!(moved > 0.01, "the pose at 0.37 s equals the bind pose");
}

#[test]
fn baked_frames_are_the_poses_at_frame_times() {
    let (server, model) = demo_server(Default::default());
    let clip = &model.clips[0];
    let baked = f32s(&get(server.port(), "/api/model/0/clip/0/baked").body);
    let frames = (clip.duration * clip.sample_rate).ceil() as usize + 1;
    assert_eq!(baked.len() % frames, 0);
    let n = baked.len() / frames;
    for f in [0, 3, frames - 1] {
        let t = (f as f32 / clip.sample_rate).min(clip.duration);
        let exact = f32s(&get(server.port(), &format!("/api/model/0/pose?clip=0&t={t}")).body);
        assert_eq!(&baked[f * n..(f + 1) * n], exact.as_slice(), "frame {f}");
    }
}

#[test]
fn bad_indices_times_and_unknown_paths_are_refused() {
    let (server, _) = demo_server(Default::default());
    let port = server.port();
    for path in [
        "/nothing",
        "/api/model/1",
        "/api/model/-0",
        "/api/model/+0",
        "/api/model/0/clip/9/baked",
        "/api/model/0/texture/0",
        "/api/model/0/geometry/x",
        "/index.html",
    ] {
        assert_eq!(get(port, path).status, 404, "{path}");
    }
    assert_eq!(get(port, "/api/model/0/pose?clip=0&t=NaN").status, 400);
    assert_eq!(get(port, "/api/model/0/pose?clip=0&t=inf").status, 400);
    assert_eq!(get(port, "/api/model/0/pose?clip=7&t=0").status, 404);
    let put = request(port, "PUT", "/", &format!("127.0.0.1:{port}"), b"x");
    assert_eq!(put.status, 405);
    // Test reports are off unless asked for.
    let report = request(
        port,
        "POST",
        "/api/report",
        &format!("127.0.0.1:{port}"),
        b"{}",
    );
    assert_eq!(report.status, 404);
}

#[test]
fn path_traversal_reaches_no_file() {
    let (server, _) = demo_server(Default::default());
    let port = server.port();
    for path in [
        "/../Cargo.toml",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/api/model/0/../../../Cargo.toml",
        "/api/model/0/texture/..%2f..%2fCargo.toml",
        "//etc/passwd",
        "/viewer.js/../../Cargo.toml",
    ] {
        let a = get(port, path);
        assert_eq!(a.status, 404, "{path}");
        let body = String::from_utf8_lossy(&a.body);
        assert!(
            !body.contains("root:") && !body.contains("[package]"),
            "{path}: {body}"
        );
    }
}

#[test]
fn a_wrong_or_missing_host_is_refused() {
    let (server, _) = demo_server(Default::default());
    let port = server.port();
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("127.0.0.1.evil.example:{port}"),
        "127.0.0.1".to_string(),
        String::new(),
    ] {
        let a = request(port, "GET", "/api/models", &host, &[]);
        assert_eq!(a.status, 403, "Host: {host:?}");
    }
    let a = request(
        port,
        "GET",
        "/api/models",
        &format!("localhost:{port}"),
        &[],
    );
    assert_eq!(a.status, 200);
}

#[test]
fn an_oversized_upload_is_refused_and_the_server_keeps_serving() {
    let config = gom_view::Config {
        max_upload: 1000,
        ..Default::default()
    };
    let (server, _) = demo_server(config);
    let port = server.port();
    let big = vec![b'x'; 5000];
    let a = request(
        port,
        "POST",
        "/api/upload?name=big.glb",
        &format!("127.0.0.1:{port}"),
        &big,
    );
    assert_eq!(a.status, 413);
    assert!(String::from_utf8_lossy(&a.body).contains("1000 bytes"));
    assert_eq!(
        get(port, "/api/models")
            .json::<serde_json::Value>()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_corrupt_upload_gets_a_clear_error_and_a_good_one_is_added() {
    let (server, model) = demo_server(Default::default());
    let port = server.port();
    let host = format!("127.0.0.1:{port}");
    let mut bytes = gom::gomb::write(&model).unwrap();
    let a = request(
        port,
        "POST",
        "/api/upload?name=broken.gom",
        &host,
        &bytes[..bytes.len() / 2],
    );
    assert_eq!(a.status, 422);
    let error = a.json::<serde_json::Value>()["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.starts_with("broken.gom: "), "{error}");
    let a = request(
        port,
        "POST",
        "/api/upload?name=junk.glb",
        &host,
        b"glTF not really",
    );
    assert_eq!(a.status, 422);
    assert!(a.json::<serde_json::Value>()["error"]
        .as_str()
        .unwrap()
        .contains("junk.glb"));
    let a = request(port, "POST", "/api/upload?name=m.tmd", &host, b"TMDL");
    assert_eq!(a.status, 422);
    assert!(a.json::<serde_json::Value>()["error"]
        .as_str()
        .unwrap()
        .contains(".tkl"));
    let a = request(port, "POST", "/api/upload?name=notes.txt", &host, b"hello");
    assert_eq!(a.status, 422);
    // Still serving, and a good upload (named with a path: only its name is kept).
    let a = request(
        port,
        "POST",
        "/api/upload?name=..%2F..%2Fup.gom",
        &host,
        &bytes,
    );
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.json::<serde_json::Value>()["index"], 1);
    let list: serde_json::Value = get(port, "/api/models").json();
    assert_eq!(list[1]["name"], "up.gom");
    let up: serde_json::Value = get(port, "/api/model/1").json();
    let demo: serde_json::Value = get(port, "/api/model/0").json();
    assert_eq!(up["meshes"], demo["meshes"]);
    assert_eq!(
        get(port, "/api/model/1/geometry").body,
        get(port, "/api/model/0/geometry").body
    );
    bytes.clear();
}

#[test]
fn the_favicon_is_answered_without_content_not_with_a_404() {
    let (server, _) = demo_server(Default::default());
    assert_eq!(get(server.port(), "/favicon.ico").status, 204);
    // The page names an icon of its own, so that browsers need not ask at all.
    let page = String::from_utf8(get(server.port(), "/").body).unwrap();
    assert!(page.contains(r#"<link rel="icon" href="data:,">"#));
}

#[test]
fn a_clip_s_bounds_hold_every_vertex_of_every_baked_frame() {
    let (server, model) = demo_server(Default::default());
    let b: [[f32; 3]; 2] = get(server.port(), "/api/model/0/clip/0/bounds").json();
    let clip = &model.clips[0];
    let frames = (clip.duration * clip.sample_rate).ceil() as usize + 1;
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for f in 0..frames {
        let t = (f as f32 / clip.sample_rate).min(clip.duration);
        let at = PoseAt {
            clip: Some(clip.name.clone()),
            time: t,
            looped: false,
        };
        for mesh in pose_model(&model, &at).unwrap() {
            for p in mesh.positions {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
        }
    }
    for k in 0..3 {
        assert!(
            (b[0][k] - lo[k]).abs() <= 1e-5 && (b[1][k] - hi[k]).abs() <= 1e-5,
            "{b:?} against {lo:?} {hi:?}"
        );
    }
    // The swish reaches beyond the bind pose.
    let bind: serde_json::Value = get(server.port(), "/api/model/0").json();
    let bind: [[f32; 3]; 2] = serde_json::from_value(bind["bounds"].clone()).unwrap();
    assert!((0..3).any(|k| b[0][k] < bind[0][k] - 1e-3 || b[1][k] > bind[1][k] + 1e-3));
    assert_eq!(get(server.port(), "/api/model/0/clip/9/bounds").status, 404);
}

#[test]
fn a_slow_upload_does_not_hold_up_the_page() {
    use std::io::Write;
    let (server, _) = demo_server(Default::default());
    let port = server.port();
    // An upload that announces a megabyte and sends ten bytes, then waits.
    let mut slow = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        slow,
        "POST /api/upload?name=slow.glb HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 1048576\r\n\r\n0123456789"
    )
    .unwrap();
    slow.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(get(port, "/").status);
    });
    let status = rx.recv_timeout(std::time::Duration::from_secs(10));
    assert_eq!(status, Ok(200), "GET / waited behind the upload");
    drop(slow);
}

#[test]
fn every_connection_of_a_burst_is_answered_while_the_client_keeps_what_it_may() {
    // A browser opens several connections at once for a page's scripts and keeps each
    // open after its answer unless the answer says `Connection: close`. With more at
    // once than the server has idle connection threads, each still gets its answer.
    // Whether a connection would be left waiting depends on thread timing: a burst
    // on each of three servers.
    for round in 0..3 {
        let (server, _) = demo_server(Default::default());
        if let Err(unanswered) = burst(server.port(), 12) {
            panic!("round {round}: {unanswered}");
        }
    }
}

/// Opens `n` connections to `port` at once, sends a GET on each, and reads the
/// answers in turn within 20 s in all, closing a connection whose answer says
/// `Connection: close` and keeping the others open.
fn burst(port: u16, n: usize) -> Result<(), String> {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let mut open: Vec<Option<std::net::TcpStream>> = (0..n)
        .map(|_| Some(std::net::TcpStream::connect(("127.0.0.1", port)).unwrap()))
        .collect();
    for s in open.iter_mut().flatten() {
        write!(
            s,
            "GET /style.css HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        )
        .unwrap();
    }
    let start = Instant::now();
    for (k, slot) in open.iter_mut().enumerate() {
        let Some(s) = slot.as_mut() else { continue };
        let left = Duration::from_secs(20).saturating_sub(start.elapsed());
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        // The answer's head, byte by byte up to its blank line.
        let mut head = Vec::new();
        let mut byte = [0u8];
        while !head.ends_with(b"\r\n\r\n") && s.read_exact(&mut byte).is_ok() {
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
        if !head.starts_with("http/1.1 200") {
            return Err(format!(
                "connection {k} of {n} unanswered after {:?}",
                start.elapsed()
            ));
        }
        if head.contains("\r\nconnection: close\r\n") {
            *slot = None;
        }
    }
    Ok(())
}
