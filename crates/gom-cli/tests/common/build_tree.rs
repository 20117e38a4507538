//! Source trees and reports shared by the `gom build` tests.

use super::shared_data;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

/// Fills `dir` with generated models (binary and text, in subfolders) and, when
/// `../shared/data` is present, FBX, glTF and JPOG files from it.
pub fn mixed_inputs(dir: &Path) -> usize {
    let mut n = 0;
    let demo = gom_demo::build();
    for i in 0..3 {
        let mut m = demo.clone();
        m.meshes.truncate(1 + i % 2);
        m.skeleton.bones[0].name = format!("root{i}");
        let sub = dir.join(format!("gen/set{}", i % 2));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("m{i}.gom")), gom::gomb::write(&m).unwrap()).unwrap();
        std::fs::write(
            sub.join(format!("t{i}.gomt")),
            gom::gomt::write(&m).unwrap(),
        )
        .unwrap();
        n += 2;
    }
    if let Some(data) = shared_data("") {
        let copies = [
            ("gltf/SimpleSkin.gltf", "gltf/SimpleSkin.gltf"),
            ("gltf/BoxAnimated.gltf", "gltf/BoxAnimated.gltf"),
            ("gltf/InterpolationTest.gltf", "gltf/InterpolationTest.gltf"),
            ("gltf/interpolation.bin", "gltf/interpolation.bin"),
            ("fbx/maya_cube_7500_binary.fbx", "fbx/cube.fbx"),
            ("fbx/blender_279_sausage_7400_binary.fbx", "fbx/sausage.fbx"),
            ("jpog/tmd_static.tmd", "jpog/tmd_static.tmd"),
        ];
        for (from, to) in copies {
            let to = dir.join(to);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(data.join(from), &to).unwrap();
            if !from.ends_with(".bin") {
                n += 1;
            }
        }
    }
    n
}

/// Every file under `dir` (relative path → bytes).
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

pub fn report(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "report is JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn statuses(r: &serde_json::Value) -> BTreeMap<String, String> {
    r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["source"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
