//! The page in headless Chromium (software WebGL2): it draws the model, scrubbing
//! moves it, and its GPU skinning equals the CPU runtime's.

mod common;

use common::browser::{chromium, Browser};
use common::{changed_pixels, images};
use std::time::Duration;

/// Runs the page's test mode `query` on `server` and returns its report.
fn run_page(server: &gom_view::ViewServer, query: &str) -> serde_json::Value {
    let binary = chromium().expect("checked by the caller");
    let _browser = Browser::open(&binary, &format!("{}?{query}", server.url()));
    let report = server
        .next_report(Duration::from_secs(90))
        .expect("the page reports within 90 s");
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["errors"], serde_json::json!([]), "console errors");
    report
}

/// The browser tests' own script, which the page runs in its test mode.
const TEST_SCRIPT: &str = include_str!("page/test.js");

fn test_config() -> gom_view::Config {
    gom_view::Config {
        accept_reports: true,
        test_script: Some(TEST_SCRIPT.to_string()),
        ..Default::default()
    }
}

#[test]
fn the_demo_is_drawn_and_scrubbing_moves_the_tentacle() {
    if chromium().is_none() {
        return;
    }
    let (server, model) = common::demo_server(test_config());
    let clip = &model.clips[0];
    let report = run_page(
        &server,
        &format!("test=render&clip={}&times=0.2,0.7&size=320x240", clip.name),
    );
    let images = images(&report);
    if let Some(dir) = std::env::var_os("GOM_VIEW_DUMP") {
        for (k, i) in images.iter().enumerate() {
            let mut ppm = format!("P6 {} {} 255\n", i.width, i.height).into_bytes();
            for y in (0..i.height).rev() {
                for x in 0..i.width {
                    ppm.extend_from_slice(&i.rgba[(y * i.width + x) * 4..][..3]);
                }
            }
            std::fs::write(std::path::Path::new(&dir).join(format!("{k}.ppm")), ppm).unwrap();
        }
    }
    let [empty, early, late] = images.as_slice() else {
        panic!("three images")
    };
    assert_eq!((empty.width, empty.height), (320, 240));
    assert_eq!((early.label.as_str(), late.label.as_str()), ("0.2", "0.7"));
    // The model covers a good part of the picture where the empty scene has only the
    // background and the grid.
    let drawn = changed_pixels(empty, early, 24);
    assert!(
        drawn.len() > 320 * 240 / 50,
        "only {} pixels differ from the empty scene",
        drawn.len()
    );
    // Scrubbing changes the picture, and only where the model is: the tentacle moves,
    // the base stays. Pixels that change between the times lie in the drawn region of
    // one of them.
    let moved = changed_pixels(early, late, 24);
    assert!(
        moved.len() > 100,
        "only {} pixels changed between 0.2 s and 0.7 s",
        moved.len()
    );
    let late_drawn = changed_pixels(empty, late, 24);
    let outside = moved
        .iter()
        .filter(|p| !drawn.contains(p) && !late_drawn.contains(p))
        .count();
    assert!(
        outside * 50 < moved.len(),
        "{outside} of {} changed pixels are outside the model",
        moved.len()
    );
    // The tentacle, the upper part, moves and the base does not: the changed pixels
    // lie higher on average than the drawn ones (rows run bottom-up).
    let mean_row =
        |ps: &[(usize, usize)]| ps.iter().map(|p| p.1 as f64).sum::<f64>() / ps.len() as f64;
    let (moved_row, drawn_row) = (mean_row(&moved), mean_row(&drawn));
    assert!(
        moved_row > drawn_row + 10.0,
        "changes around row {moved_row}, model around row {drawn_row}"
    );
}

/// The positions the page captured with transform feedback, per mesh.
fn captured(model: &serde_json::Value) -> Vec<Vec<f32>> {
    use base64::Engine;
    model["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            base64::engine::general_purpose::STANDARD
                .decode(m.as_str().unwrap())
                .unwrap()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect()
}

/// A test server for `files`, loaded as `gom view` loads them.
fn serve_files(files: &[std::path::PathBuf]) -> gom_view::ViewServer {
    let options = gom_import::source::ImportOptions::default();
    let loaded = files
        .iter()
        .map(|f| gom_view::load_path(f, &options).unwrap())
        .collect();
    gom_view::ViewServer::start(loaded, test_config()).unwrap()
}

/// The demo with every skinned mesh skinned by `method`, with eight influence slots
/// when `eight` ([`gom_test_support::model::skinned_with`]).
fn demo_skinned(method: gom::SkinningMethod, eight: bool) -> gom::Model {
    let mut model = gom_demo::build();
    gom_test_support::model::skinned_with(&mut model, method, eight);
    model
}

/// The largest coordinate difference allowed between the page's GPU skinning and
/// the runtime's.
const GPU_TOLERANCE: f32 = 1e-4;

#[test]
fn gpu_skinning_equals_gom_pose_for_the_demo_and_each_shared_gltf_sample() {
    if chromium().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The demo as it is (linear, four influences), and skinned with dual quaternions,
    // with eight linear influences and blended with eight.
    use gom::SkinningMethod::{Blended, DualQuaternion, Linear};
    let variants = [
        ("demo", Linear, false),
        ("demo_dq", DualQuaternion, false),
        ("demo_eight", Linear, true),
        ("demo_blended_eight", Blended, true),
    ];
    let mut files = Vec::new();
    for (name, method, eight) in variants {
        let path = dir.path().join(format!("{name}.gom"));
        let model = demo_skinned(method, eight);
        std::fs::write(&path, gom::gomb::write(&model).unwrap()).unwrap();
        files.push(path);
    }
    files.extend(common::shared("gltf", "gltf"));
    let options = gom_import::source::ImportOptions::default();
    let server = serve_files(&files);
    let t = "0.4";
    let report = run_page(&server, &format!("test=skin&t={t}"));
    let models = report["models"].as_array().unwrap();
    assert_eq!(models.len(), files.len());
    for (file, got) in files.iter().zip(models) {
        // The CPU runtime's answer, as `gom pose` computes it.
        let model = gom_import::source::import_path(file, &options)
            .unwrap()
            .model;
        let clip = got["clip"].as_str().map(str::to_string);
        assert_eq!(
            clip,
            model.clips.first().map(|c| c.name.clone()),
            "{}",
            file.display()
        );
        let at = gom_import::pose::PoseAt {
            clip,
            time: t.parse().unwrap(),
            looped: false,
        };
        let cpu = gom_import::pose::pose_model(&model, &at).unwrap();
        let gpu = captured(got);
        let worst = largest_gap(&gpu, &positions(&cpu));
        if model.meshes.iter().any(|m| m.uses_skin_extension()) {
            // The method shows: the same model skinned linearly with its first four
            // influences (renormalised) lies several tolerances away.
            let mut linear = model.clone();
            for m in &mut linear.meshes {
                m.skinning = Linear;
                m.vertices.dq_weights = None;
                m.vertices.skin_extra = None;
                for s in m.vertices.skin.iter_mut().flatten() {
                    let sum: f32 = s.weights.iter().sum();
                    s.weights = s.weights.map(|w| w / sum);
                }
            }
            let lbs = gom_import::pose::pose_model(&linear, &at).unwrap();
            let apart = largest_gap(&gpu, &positions(&lbs));
            assert!(
                apart > 4.0 * GPU_TOLERANCE,
                "{}: only {apart} from LBS",
                file.display()
            );
            eprintln!("{}: {apart:e} from LBS", file.display());
        }
        assert!(
            worst <= GPU_TOLERANCE,
            "{}: GPU and CPU differ by {worst}",
            file.display()
        );
        eprintln!("{}: largest difference {worst:e}", file.display());
    }
}

/// The positions of each posed mesh.
fn positions(posed: &[gom_import::pose::PosedMesh]) -> Vec<Vec<[f32; 3]>> {
    posed.iter().map(|m| m.positions.clone()).collect()
}

/// The largest difference of the page's skinned positions from the CPU's (both
/// per mesh, flattened), after checking that they are as many.
fn largest_gap(gpu: &[Vec<f32>], cpu: &[Vec<[f32; 3]>]) -> f32 {
    assert_eq!(gpu.len(), cpu.len());
    let mut worst = 0.0f32;
    for (g, c) in gpu.iter().zip(cpu) {
        assert_eq!(g.len(), c.len() * 3);
        for (a, b) in g.iter().zip(c.iter().flatten()) {
            worst = worst.max((a - b).abs());
        }
    }
    worst
}

/// The largest difference between two captures of the same meshes.
fn farthest(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn gpu_morph_then_skin_equals_gom_pose_at_the_clips_weights_and_at_pinned_sliders() {
    if chromium().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("morphs.gom");
    let model = gom_demo::with_morphs(gom_demo::build());
    std::fs::write(&path, gom::gomb::write(&model).unwrap()).unwrap();
    let server = serve_files(&[path]);
    // The clip keying `flatten`, at two times of different weights; then `bulge` and
    // `flatten` pinned by their sliders.
    let clip = &model.clips[1];
    let times = [0.3 * clip.duration, 0.8 * clip.duration].map(|t| format!("{t}"));
    let pins = [(0usize, 1.0f32), (1, 0.5)];
    let pin_query: Vec<String> = pins.iter().map(|(k, w)| format!("{k}:{w}")).collect();
    let report = run_page(
        &server,
        &format!(
            "test=morph&clip={}&times={}&pin={}",
            clip.name,
            times.join(","),
            pin_query.join(",")
        ),
    );
    let asset = gom_runtime::Asset::from_model(&model).unwrap();
    let mut clip_results = Vec::new();
    for (t, got) in times.iter().zip(report["captures"].as_array().unwrap()) {
        let at = gom_import::pose::PoseAt {
            clip: Some(clip.name.clone()),
            time: t.parse().unwrap(),
            looped: false,
        };
        let cpu: Vec<Vec<[f32; 3]>> = gom_import::pose::pose_model(&model, &at)
            .unwrap()
            .into_iter()
            .map(|m| m.positions)
            .collect();
        let gpu = captured(got);
        let worst = largest_gap(&gpu, &cpu);
        assert!(
            worst <= GPU_TOLERANCE,
            "at {t} s: GPU and CPU differ by {worst}"
        );
        eprintln!("morph at {t} s: largest difference {worst:e}");
        // The sliders show the weights the runtime samples.
        let mut expected = vec![0.0; 2];
        asset
            .sample_weights(
                Some(1),
                0,
                at.time,
                gom_runtime::Playback::Once,
                &mut expected,
            )
            .unwrap();
        let weights: Vec<f32> = serde_json::from_value(got["weights"].clone()).unwrap();
        let sliders: Vec<f32> = serde_json::from_value(got["sliders"].clone()).unwrap();
        assert_eq!(weights, expected, "at {t} s");
        assert_eq!(sliders, expected, "at {t} s");
        clip_results.push(gpu);
    }
    // The two times pose the tentacle differently, far past the tolerance.
    let apart = farthest(&clip_results[0], &clip_results[1]);
    assert!(apart > 1e-2, "the two times differ by {apart} only");
    // Pinned: the runtime's morpher at the pinned weights, then skinning, at the last
    // time of the clip.
    let pinned = &report["pinned"];
    let t: f32 = pinned["t"].as_str().unwrap().parse().unwrap();
    let mut weights = vec![0.0; 2];
    asset
        .sample_weights(Some(1), 0, t, gom_runtime::Playback::Once, &mut weights)
        .unwrap();
    for (k, w) in pins {
        weights[k] = w;
    }
    let mut meshes = asset.meshes().to_vec();
    let mut morpher = gom_runtime::Morpher::new(&meshes[0]);
    meshes[0] = morpher
        .apply(&asset.meshes()[0], asset.morph_targets(0), &weights)
        .unwrap()
        .clone();
    let pose = asset
        .model_pose(Some(1), t, gom_runtime::Playback::Once)
        .unwrap();
    let cpu: Vec<Vec<[f32; 3]>> = gom_runtime::skin_all(&meshes, &pose)
        .unwrap()
        .into_iter()
        .map(|m| m.positions)
        .collect();
    let gpu = captured(pinned);
    let worst = largest_gap(&gpu, &cpu);
    assert!(
        worst <= GPU_TOLERANCE,
        "pinned: GPU and CPU differ by {worst}"
    );
    let got: Vec<f32> = serde_json::from_value(pinned["weights"].clone()).unwrap();
    assert_eq!(got, weights, "a pose arriving after the pins keeps them");
    // Pinning moved the mesh: the clip's own weights at that time pose it elsewhere.
    let moved = farthest(&clip_results[1], &gpu);
    assert!(moved > 1e-2, "pinning moved the mesh by {moved} only");
}

/// Serves one page at `/` and collects what it posts to `/api/report`: the stand-in
/// for a person's browser opening a file, on a server that is not gom's.
fn serve_page(page: String) -> (u16, std::sync::mpsc::Receiver<String>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for mut request in server.incoming_requests() {
            let reply = if request.url().starts_with("/api/report") {
                let mut body = String::new();
                let _ = std::io::Read::read_to_string(request.as_reader(), &mut body);
                let _ = tx.send(body);
                tiny_http::Response::from_string("ok")
            } else if request.url() == "/test.js" {
                tiny_http::Response::from_string(TEST_SCRIPT)
            } else {
                tiny_http::Response::from_string(page.clone()).with_header(
                    tiny_http::Header::from_bytes("Content-Type", "text/html").unwrap(),
                )
            };
            let _ = request.respond(reply);
        }
    });
    (port, rx)
}

/// The largest colour difference allowed between the served page and the
/// self-contained file for one pixel, and the share of pixels allowed past it.
const HTML_PIXEL_TOLERANCE: u8 = 8;
const HTML_PIXELS_BEYOND: f64 = 0.002;

#[test]
fn the_self_contained_html_draws_what_the_served_page_draws() {
    let Some(binary) = chromium() else {
        return;
    };
    let (server, model) = common::demo_server(test_config());
    let clip = &model.clips[0];
    // A time on a baked frame: the file shows baked frames, the server exact times.
    let frame = 12;
    let t = frame as f32 / clip.sample_rate;
    let query = format!("test=render&clip={}&times={t}&size=320x240", clip.name);
    let served = images(&run_page(&server, &query));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.gom");
    std::fs::write(&path, gom::gomb::write(&model).unwrap()).unwrap();
    let viewed = gom_view::load_path(&path, &Default::default()).unwrap();
    let page = gom_view::html::self_contained(&viewed).unwrap();
    assert!(!page.contains("src=\"viewer.js\"") && !page.contains("href=\"style.css\""));
    assert!(!page.contains("src=\"events.js\""));
    assert_eq!(
        page.matches(gom_view::page::EVENTS_JS.lines().nth(8).unwrap())
            .count(),
        1
    );
    assert!(!page.contains("<!-- gom:"));
    assert_eq!(
        page.matches(gom_view::page::VIEWER_JS.lines().nth(5).unwrap())
            .count(),
        1
    );
    let (port, reports) = serve_page(page);
    let _browser = Browser::open(&binary, &format!("http://127.0.0.1:{port}/?{query}"));
    let report = reports
        .recv_timeout(Duration::from_secs(90))
        .expect("the file reports");
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["errors"], serde_json::json!([]), "console errors");
    let file = images(&report);
    assert_eq!(file.len(), 2);
    // The model is there at all (not two empty scenes).
    assert!(changed_pixels(&file[0], &file[1], 24).len() > 320 * 240 / 50);
    let beyond = changed_pixels(&served[1], &file[1], HTML_PIXEL_TOLERANCE).len();
    let share = beyond as f64 / (320.0 * 240.0);
    assert!(
        share <= HTML_PIXELS_BEYOND,
        "{beyond} pixels differ by more than {HTML_PIXEL_TOLERANCE}"
    );
}

/// Not a check but the measurement docs/performance.md reports: frames per second of
/// the page playing the largest shared FBX model, and the time from converting it to
/// the page's first drawn frame. Run with `--ignored --nocapture`.
#[test]
#[ignore]
fn measure_fps_and_time_to_first_frame() {
    let Some(binary) = chromium() else {
        return;
    };
    let Some(file) = common::shared("fbx", "fbx")
        .into_iter()
        .max_by_key(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
    else {
        return;
    };
    let start = std::time::Instant::now();
    let model = gom_view::load_path(&file, &Default::default()).unwrap();
    let converted = start.elapsed();
    let server = gom_view::ViewServer::start(vec![model], test_config()).unwrap();
    let _browser = Browser::open(&binary, &format!("{}?test=first", server.url()));
    let first = server
        .next_report(Duration::from_secs(90))
        .expect("a first frame");
    let to_first = start.elapsed();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    drop(_browser);
    let report = run_page(&server, "test=fps&seconds=10&size=1280x720");
    println!(
        "{}: converted in {:.0} ms; first frame {:.0} ms after the start (page: {:.0} ms after navigation); {:.1} frames per second at 1280x720",
        file.display(),
        converted.as_secs_f64() * 1e3,
        to_first.as_secs_f64() * 1e3,
        first["firstFrameMs"].as_f64().unwrap_or(f64::NAN),
        report["fps"].as_f64().unwrap()
    );
}

#[test]
fn wireframe_skeleton_and_weights_change_the_picture_without_errors() {
    if chromium().is_none() {
        return;
    }
    let (server, model) = common::demo_server(test_config());
    let clip = &model.clips[0].name;
    let query = format!("test=render&clip={clip}&times=0.2&size=320x240");
    let plain = images(&run_page(&server, &query));
    let drawn = changed_pixels(&plain[0], &plain[1], 24).len();
    for option in ["wireframe=1", "skeleton=1", "bone=3"] {
        let with = images(&run_page(&server, &format!("{query}&{option}")));
        let changed = changed_pixels(&plain[1], &with[1], 24).len();
        // Visible, and on the model (a share of the drawn pixels, not the whole view).
        assert!(changed > 20, "{option}: {changed} pixels changed");
        assert!(
            changed <= drawn + drawn / 10,
            "{option}: {changed} pixels changed, {drawn} drawn"
        );
    }
}

/// One triangle as glTF with its buffer embedded (positions, then u16 indices).
fn triangle_gltf() -> String {
    use base64::Engine;
    let mut buffer = Vec::new();
    for v in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        buffer.extend(v.to_le_bytes());
    }
    for i in [0u16, 1, 2] {
        buffer.extend(i.to_le_bytes());
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&buffer);
    serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "buffers": [{ "byteLength": buffer.len(), "uri": format!("data:application/octet-stream;base64,{data}") }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 6 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0] },
            { "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" }
        ]
    })
    .to_string()
}

/// Drops `bytes` named `name` on the page and returns its report.
fn drop_on_page(server: &gom_view::ViewServer, name: &str, bytes: &[u8]) -> serde_json::Value {
    use base64::Engine;
    let binary = chromium().expect("checked by the caller");
    // The standard alphabet, percent-encoded ('+' would read as a space).
    let file = base64::engine::general_purpose::STANDARD
        .encode(bytes)
        .replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D");
    let _browser = Browser::open(
        &binary,
        &format!("{}?test=drop&name={name}&file={file}", server.url()),
    );
    let report = server
        .next_report(Duration::from_secs(90))
        .expect("the page reports within 90 s");
    serde_json::from_str(&report).unwrap()
}

#[test]
fn a_file_dropped_on_the_page_is_added_and_a_broken_one_is_shown_as_an_error() {
    if chromium().is_none() {
        return;
    }
    let (server, _) = common::demo_server(test_config());
    let good = drop_on_page(&server, "triangle.gltf", triangle_gltf().as_bytes());
    assert_eq!(good["errors"], serde_json::json!([]));
    assert_eq!(
        good["models"],
        serde_json::json!(["demo.gom", "triangle.gltf"])
    );
    assert_eq!(good["current"], 1, "the dropped model is shown");
    let bad = drop_on_page(&server, "broken.glb", b"glTF and then nothing");
    let shown = bad["shown"].as_str().unwrap();
    assert!(shown.contains("broken.glb"), "{shown}");
    // The page and the server go on: the list still holds both models.
    assert_eq!(
        bad["models"],
        serde_json::json!(["demo.gom", "triangle.gltf"])
    );
}

#[test]
fn the_page_opens_playing_the_first_clip_framed_on_the_whole_clip() {
    if chromium().is_none() {
        return;
    }
    let (server, model) = common::demo_server(test_config());
    let report = run_page(&server, "test=open");
    assert_eq!(report["playing"], true, "plays on open");
    assert_eq!(report["clip"], model.clips[0].name.as_str());
    // The camera's sphere holds every vertex of every baked frame of the clip (the
    // page frames a sphere around the box it is given: its centre, half its diagonal).
    let b: [[f32; 3]; 2] = common::request_json(server.port(), "/api/model/0/clip/0/bounds");
    let target: Vec<f64> = serde_json::from_value(report["camera"]["target"].clone()).unwrap();
    let radius = report["camera"]["radius"].as_f64().unwrap();
    for corner in 0..8 {
        let p: Vec<f64> = (0..3).map(|k| f64::from(b[(corner >> k) & 1][k])).collect();
        // The page's Z is mirrored (GOM is left-handed).
        let d =
            ((p[0] - target[0]).powi(2) + (p[1] - target[1]).powi(2) + (-p[2] - target[2]).powi(2))
                .sqrt();
        assert!(
            d <= radius * (1.0 + 1e-4),
            "corner {p:?} is {d} from {target:?}, radius {radius}"
        );
    }
}

#[test]
fn gl_objects_stay_as_many_over_a_thousand_frames_and_reloads() {
    if chromium().is_none() {
        return;
    }
    let (server, _) = common::demo_server(test_config());
    let report = run_page(&server, "test=gl&frames=1000");
    assert_eq!(report["frames"], 1000);
    assert_eq!(
        report["before"], report["after"],
        "GL objects alive after one round and after four"
    );
}

/// The demo with events and float tracks on its first clip and its second clip made
/// additive (against the bind pose), written into `dir` and served.
fn extras_server(dir: &std::path::Path) -> (gom_view::ViewServer, gom::Model) {
    use gom::events::{Event, FloatTrack, Interpolation};
    let mut model = gom_demo::build();
    let d = model.clips[0].duration;
    let extras = &mut model.clips[0].extras;
    extras.events = [
        (0.0, "start"),
        (d * 0.25, "step"),
        (d * 0.6, "hit"),
        (d, "end"),
    ]
    .into_iter()
    .map(|(time, name)| Event {
        time,
        name: name.into(),
        payload: (name == "step").then(|| "left".into()),
    })
    .collect();
    extras.float_tracks = vec![
        FloatTrack {
            name: "blink".into(),
            components: 1,
            interpolation: Interpolation::Linear,
            times: vec![0.0, d * 0.5, d],
            values: vec![0.0, 1.0, 0.25],
        },
        FloatTrack {
            name: "tint".into(),
            components: 3,
            interpolation: Interpolation::Step,
            times: vec![0.0, d * 0.4],
            values: vec![1.0, 0.5, 0.0, 0.0, 0.5, 1.0],
        },
    ];
    let reference = gom::additive::Reference::BindPose;
    let pose = gom::additive::reference_pose(&model, &reference).unwrap();
    model.clips[1] =
        gom::additive::make_additive(&model, &model.clips[1], reference, &pose).unwrap();
    let path = dir.join("extras.gom");
    std::fs::write(&path, gom::gomb::write(&model).unwrap()).unwrap();
    let config = test_config();
    let loaded = gom_view::load_path(&path, &config.options).unwrap();
    (
        gom_view::ViewServer::start(vec![loaded], config).unwrap(),
        model,
    )
}

#[test]
fn event_ticks_sit_on_the_slider_at_their_times_and_float_tracks_show_their_values() {
    if chromium().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (server, model) = extras_server(dir.path());
    let clip = &model.clips[0];
    let times = [0.0f32, 0.3, 0.75, 1.2];
    let list: Vec<String> = times.iter().map(|t| t.to_string()).collect();
    let report = run_page(
        &server,
        &format!(
            "test=extras&clip={}&times={}&size=640x240",
            clip.name,
            list.join(",")
        ),
    );
    // Each tick's centre is where the slider's thumb centre is at the event's time:
    // the thumb travels from half its width to the slider's width less half its width.
    let left = report["slider"]["left"].as_f64().unwrap();
    let width = report["slider"]["width"].as_f64().unwrap();
    let thumb = report["thumb"].as_f64().unwrap();
    assert!(width > 100.0 && thumb > 0.0, "{report}");
    let ticks = report["ticks"].as_array().unwrap();
    assert_eq!(ticks.len(), clip.extras.events.len());
    for (tick, e) in ticks.iter().zip(&clip.extras.events) {
        let f = f64::from(e.time) / f64::from(clip.duration);
        let want = left + thumb / 2.0 + f * (width - thumb);
        let centre = tick["centre"].as_f64().unwrap();
        assert!(
            (centre - want).abs() < 0.5,
            "{}: {centre} vs {want}",
            e.name
        );
        assert!(tick["height"].as_f64().unwrap() > 0.0);
        let title = tick["title"].as_str().unwrap();
        assert!(title.starts_with(&e.name), "{title}");
    }
    assert_eq!(
        ticks[1]["title"],
        format!("step (left) at {} s", clip.extras.events[1].time)
    );
    // The float tracks' values at each time, as the runtime samples them.
    let runtime = gom_runtime::Clip::from_model(clip).unwrap();
    let values = report["values"].as_array().unwrap();
    assert_eq!(values.len(), times.len());
    for (shown, &t) in values.iter().zip(&times) {
        let shown = shown.as_array().unwrap();
        assert_eq!(shown.len(), clip.extras.float_tracks.len());
        for (k, (line, track)) in shown.iter().zip(&clip.extras.float_tracks).enumerate() {
            assert_eq!(line["name"], track.name.as_str());
            let got: Vec<f32> = serde_json::from_value(line["values"].clone()).unwrap();
            let want = runtime
                .sample_float_track(k, t, gom_runtime::Playback::Once)
                .unwrap();
            assert_eq!(got.len(), track.components as usize);
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() < 1e-5,
                    "{} at {t}: {got:?} vs {want:?}",
                    track.name
                );
            }
        }
    }
    // The clip list marks the additive clip.
    let labels: Vec<&str> = report["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(!labels[0].contains("additive"), "{labels:?}");
    assert!(labels[1].ends_with(", additive)"), "{labels:?}");
}
