//! End-to-end tests of the `gom` binary.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{gom, png_size, s, shared_data};

fn demo(dir: &Path) -> PathBuf {
    let out = gom(&["demo", s(dir)]);
    assert!(
        out.status.success(),
        "gom demo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.to_path_buf()
}

#[test]
fn demo_writes_files_that_validate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    for name in ["demo.gom", "demo.gomt"] {
        let path = dir.join(name);
        assert!(path.exists(), "{name} was not written");
        let out = gom(&["validate", s(&path)]);
        assert_eq!(out.status.code(), Some(0), "{name}: {:?}", out);
    }
}

#[test]
fn validate_exits_1_on_findings_and_2_on_unreadable_files() {
    let tmp = tempfile::tempdir().unwrap();
    // A model whose weights do not sum to 1: readable, but the weights check fails.
    let mut model = gom_demo::build();
    let skinned = model
        .meshes
        .iter_mut()
        .find(|m| m.vertices.skin.is_some())
        .expect("the demo has a skinned mesh");
    skinned.vertices.skin.as_mut().unwrap()[0].weights = [0.5, 0.0, 0.0, 0.0];
    let bad = tmp.path().join("bad-weights.gom");
    std::fs::write(&bad, gom::gomb::write(&model).unwrap()).unwrap();
    let out = gom(&["validate", s(&bad)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("weightsPass"));

    let junk = tmp.path().join("junk.gom");
    std::fs::write(&junk, b"GOMB0001 but not really").unwrap();
    let out = gom(&["validate", s(&junk)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn convert_binary_to_text_and_back_is_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    let text = tmp.path().join("again.gomt");
    let bin = tmp.path().join("again.gom");
    assert!(gom(&["convert", s(&dir.join("demo.gom")), s(&text)])
        .status
        .success());
    assert!(gom(&["convert", s(&text), s(&bin)]).status.success());
    assert_eq!(
        std::fs::read(dir.join("demo.gom")).unwrap(),
        std::fs::read(&bin).unwrap()
    );
    // `--to` overrides the extension.
    let forced = tmp.path().join("forced.txt");
    assert!(gom(&["convert", s(&bin), s(&forced), "--to", "gomt"])
        .status
        .success());
    assert!(std::fs::read(&forced).unwrap().starts_with(b"GOMT0001\n"));
}

#[test]
fn info_json_describes_the_demo() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    let out = gom(&["info", "--json", s(&dir.join("demo.gom"))]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let model = gom_demo::build();
    assert_eq!(
        v["skeleton"]["boneCount"].as_u64(),
        Some(model.skeleton.bones.len() as u64)
    );
    assert_eq!(v["meshes"].as_array().unwrap().len(), model.meshes.len());
    assert_eq!(v["clips"].as_array().unwrap().len(), model.clips.len());
    assert_eq!(
        v["validationFlags"].as_array().unwrap().len(),
        3,
        "the demo passes all three checks"
    );
}

#[test]
fn convert_of_a_broken_file_leaves_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("broken.gom");
    std::fs::write(&bad, b"GOMB0001").unwrap();
    let out_path = tmp.path().join("out.gomt");
    let out = gom(&["convert", s(&bad), s(&out_path)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!out_path.exists());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.gom"),
        "the error names the file: {stderr}"
    );
}

/// Parses the `v` lines of an OBJ file.
fn obj_positions(path: &Path) -> Vec<[f32; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

#[test]
fn pose_at_time_zero_of_every_demo_clip_is_the_bind_pose() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    let model = dir.join("demo.gom");
    let bind_obj = tmp.path().join("bind.obj");
    assert!(gom(&["pose", s(&model), "-o", s(&bind_obj)])
        .status
        .success());
    let bind = obj_positions(&bind_obj);
    // The bind pose itself, independently: the demo's vertices as built, through GBTM.
    let built = gom_demo::build();
    let expected: Vec<[f32; 3]> = built
        .meshes
        .iter()
        .flat_map(|m| {
            let g = m.mesh_bind_geo_to_model.unwrap_or(gom::IDENTITY);
            m.vertices
                .positions
                .iter()
                .map(move |p| gom::math::transform_point(&g, *p))
        })
        .collect();
    assert_eq!(bind.len(), expected.len());
    for (a, b) in bind.iter().zip(&expected) {
        for k in 0..3 {
            assert!((a[k] - b[k]).abs() < 1e-5, "bind pose {a:?} vs built {b:?}");
        }
    }
    for clip in &built.clips {
        let out = tmp.path().join(format!("{}.obj", clip.name));
        let o = gom(&[
            "pose",
            s(&model),
            "--clip",
            &clip.name,
            "--time",
            "0",
            "-o",
            s(&out),
        ]);
        assert!(o.status.success(), "{o:?}");
        for (a, b) in obj_positions(&out).iter().zip(&bind) {
            for k in 0..3 {
                assert!(
                    (a[k] - b[k]).abs() < 1e-5,
                    "clip {} at t=0: {a:?} vs bind {b:?}",
                    clip.name
                );
            }
        }
    }
}

#[test]
fn pose_and_render_to_standard_output_write_the_bytes_of_the_file_and_no_file_named_dash() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    let model = dir.join("demo.gom");
    let (obj, png) = (tmp.path().join("a.obj"), tmp.path().join("a.png"));
    let pose = ["pose", s(&model), "--clip", "curl", "--time", "0.5", "-o"];
    let render = ["render", s(&model), "--size", "64x48", "-o"];
    for (args, file) in [(&pose[..], &obj), (&render[..], &png)] {
        let to_file = gom(&[args, &[s(file)]].concat());
        assert!(to_file.status.success(), "{to_file:?}");
        let out = Command::new(env!("CARGO_BIN_EXE_gom"))
            .args([args, &["-"]].concat())
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(out.stdout, std::fs::read(file).unwrap(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("wrote <standard output>"));
        assert!(!tmp.path().join("-").exists(), "{args:?}");
    }
}

#[test]
fn pose_frame_and_fps_equal_the_same_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    let model = dir.join("demo.gom");
    let a = tmp.path().join("a.obj");
    let b = tmp.path().join("b.obj");
    assert!(gom(&[
        "pose",
        s(&model),
        "--clip",
        "curl",
        "--time",
        "0.5",
        "-o",
        s(&a)
    ])
    .status
    .success());
    assert!(gom(&[
        "pose",
        s(&model),
        "--clip",
        "curl",
        "--frame",
        "15",
        "--fps",
        "30",
        "-o",
        s(&b)
    ])
    .status
    .success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let bad = gom(&["pose", s(&model), "--clip", "nope", "-o", s(&a)]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("curl"),
        "lists the clips"
    );
}

#[test]
fn render_writes_the_same_png_twice_and_filmstrips_have_one_cell_per_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo(tmp.path());
    let model = dir.join("demo.gom");
    let a = tmp.path().join("a.png");
    let b = tmp.path().join("b.png");
    for out in [&a, &b] {
        let o = gom(&[
            "render",
            s(&model),
            "--size",
            "160x120",
            "--skeleton",
            "-o",
            s(out),
        ]);
        assert!(o.status.success(), "{o:?}");
    }
    assert_eq!(png_size(&a), (160, 120));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let strip = tmp.path().join("strip.png");
    let o = gom(&[
        "render",
        s(&model),
        "--clip",
        "swish",
        "--frames",
        "4",
        "--size",
        "100x80",
        "-o",
        s(&strip),
    ]);
    assert!(o.status.success(), "{o:?}");
    let (w, h) = png_size(&strip);
    assert!(w >= 4 * 100 && h >= 80, "4 frames of 100x80 fit in {w}x{h}");
    // The demo itself draws a picture.
    assert!(png_size(&dir.join("demo.png")).0 > 0);
}

#[test]
fn the_readme_s_demo_picture_is_the_one_the_demo_draws() {
    let dir = tempfile::tempdir().unwrap();
    let o = gom(&["demo", s(dir.path())]);
    assert!(o.status.success(), "{o:?}");
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/demo.png");
    assert_eq!(png_size(&docs), png_size(&dir.path().join("demo.png")));
    assert!(
        std::fs::read(&docs).unwrap() == std::fs::read(dir.path().join("demo.png")).unwrap(),
        "docs/demo.png is not what `gom demo` draws: copy demo-out/demo.png over it"
    );
}

#[test]
fn tml_sheet_draws_every_texture() {
    let Some(lib) = shared_data("jpog").map(|d| d.join("tml_main.tml")) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sheet.png");
    let o = gom(&["tml", "sheet", s(&lib), "--cell", "64", "-o", s(&out)]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("6 textures"));
    let (w, h) = png_size(&out);
    assert!(
        w >= 3 * 64 && h >= 2 * 64,
        "six 64-pixel cells fit in {w}x{h}"
    );
}

/// `gom convert` prints a report on stderr by default; its counts are those of the
/// file it wrote, read back with `gom info --json`.
#[test]
fn convert_reports_what_the_written_file_holds() {
    let Some(fbx) = shared_data("fbx") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "max_transformed_skin_7500_binary.fbx",
        "blender_suzanne_multimaterial_7400_binary.fbx",
    ] {
        let out_path = tmp.path().join(name.replace(".fbx", ".gom"));
        let src = fbx.join(name);
        let out = gom(&["convert", s(&src), s(&out_path)]);
        assert!(out.status.success());
        let report = String::from_utf8_lossy(&out.stderr).to_string();
        let info = gom(&["info", s(&out_path), "--json"]);
        let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        let bones = info["skeleton"]["boneCount"].as_u64().unwrap();
        let plural = if bones == 1 { "bone" } else { "bones" };
        assert!(
            report.contains(&format!("{}: {bones} {plural}\n", s(&src))),
            "{report}"
        );
        for mesh in info["meshes"].as_array().unwrap() {
            let line = format!(
                "mesh \"{}\": {} vertices, {} triangles,",
                mesh["name"].as_str().unwrap(),
                mesh["vertexCount"],
                mesh["triangleCount"]
            );
            assert!(report.contains(&line), "{line} not in\n{report}");
        }
        for clip in info["clips"].as_array().unwrap() {
            let line = format!("{} kept\n", clip["keyCount"]);
            let head = format!("clip \"{}\":", clip["name"].as_str().unwrap());
            assert!(
                report
                    .lines()
                    .any(|l| l.contains(&head) && format!("{l}\n").ends_with(&line)),
                "{head} … {line} not in\n{report}"
            );
        }
        assert!(report.ends_with(&format!(
            "wrote {} ({} bytes)\n",
            s(&out_path),
            std::fs::metadata(&out_path).unwrap().len()
        )));
    }
}
