//! End-to-end tests of `gom tml …` and `gom tmd info` on the synthetic JPOG files
//! (copied into a temporary folder; the shared data is read-only).

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{gom, s};

fn shared() -> Option<PathBuf> {
    common::shared_data("jpog")
}

fn copy(dir: &Path, name: &str) -> Option<PathBuf> {
    let src = shared()?.join(name);
    let dst = dir.join(name);
    std::fs::copy(&src, &dst).expect("copy test data");
    Some(dst)
}

/// A temporary folder holding a copy of the shared file `name`, and the copy's path;
/// `None` (the test skips) when the shared data is absent.
fn copied(name: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    let tmp = tempfile::tempdir().unwrap();
    let file = copy(tmp.path(), name)?;
    Some((tmp, file))
}

fn expected(name: &str) -> serde_json::Value {
    let p = shared().expect("shared data").join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "gom failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The JSON `gom` prints for `args`, which must succeed.
fn gom_json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(&gom(args))).unwrap()
}

/// The `"name"` of every entry of a JSON array.
fn names(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect()
}

fn decode_png(path: &Path) -> jpog::Image {
    jpog::png_io::decode_png(&std::fs::read(path).unwrap()).unwrap()
}

fn write_png(path: &Path, w: u32, h: u32, rgba: Vec<u8>) -> jpog::Image {
    let img = jpog::Image::from_rgba8(w, h, rgba).unwrap();
    std::fs::write(path, jpog::png_io::encode_png(&img).unwrap()).unwrap();
    img
}

#[test]
fn tml_list_shows_the_expected_textures_and_materials() {
    let Some((tmp, tml)) = copied("tml_main.tml") else {
        return;
    };
    let exp = expected("tml_main.expected.json");
    let listing = gom_json(&["tml", "list", s(&tml), "--json"]);
    let textures = listing["textures"].as_array().unwrap();
    let exp_textures = exp["textures"].as_array().unwrap();
    assert_eq!(textures.len(), exp_textures.len());
    for (t, e) in textures.iter().zip(exp_textures) {
        for key in ["id", "format", "width", "height", "data_size"] {
            assert_eq!(t[key], e[key], "{key}");
        }
    }
    assert_eq!(names(&listing["materials"]), names(&exp["materials"]));
    let text = ok(&gom(&["tml", "list", s(&tml)]));
    assert!(text.contains("Fern_b"), "{text}");
    // not a material library: an error, exit 2
    let out = gom(&["tml", "list", s(&tmp.path().join("missing.tml"))]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn tml_extract_writes_each_texture_under_its_first_materials_name() {
    let Some((tmp, tml)) = copied("tml_main.tml") else {
        return;
    };
    let exp = expected("tml_main.expected.json");
    let outdir = tmp.path().join("png");
    let manifest = gom_json(&["tml", "extract", s(&tml), s(&outdir), "--json"]);
    let materials = exp["materials"].as_array().unwrap();
    let mut used: Vec<String> = Vec::new();
    for (i, t) in exp["textures"].as_array().unwrap().iter().enumerate() {
        // the first material (in material order) listing this texture's id names it;
        // a name already taken (case-insensitively) gets "-2", "-3"…
        let id = t["id"].as_u64().unwrap();
        let stem = materials
            .iter()
            .find(|m| {
                m["texture_ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x.as_u64() == Some(id))
            })
            .map(|m| m["name"].as_str().unwrap().to_string())
            .unwrap_or_else(|| format!("texture-{id}"));
        let mut name = format!("{stem}.png");
        let mut k = 2;
        while used.contains(&name.to_lowercase()) {
            name = format!("{stem}-{k}.png");
            k += 1;
        }
        used.push(name.to_lowercase());
        let file = outdir.join(&name);
        assert_eq!(manifest["textures"][i]["file"], name.as_str());
        let img = decode_png(&file);
        assert_eq!(
            (u64::from(img.width()), u64::from(img.height())),
            (t["width"].as_u64().unwrap(), t["height"].as_u64().unwrap())
        );
        assert_eq!(
            hex::encode(img.data()),
            t["rgba_hex"].as_str().unwrap(),
            "texture {i}"
        );
    }
    // the open byte order of format 0, as an option
    let alt = tmp.path().join("alt");
    ok(&gom(&[
        "tml",
        "extract",
        s(&tml),
        s(&alt),
        "--order-8888",
        "argb",
    ]));
    let t0 = &exp["textures"][0];
    assert_eq!(t0["format"], 0);
    let img = decode_png(&alt.join(manifest["textures"][0]["file"].as_str().unwrap()));
    assert_eq!(
        hex::encode(img.data()),
        t0["rgba_hex_alt"]["rgba_hex"].as_str().unwrap()
    );
}

#[test]
fn tml_pack_then_extract_gives_the_images_back_and_names_stay_inside_outdir() {
    let tmp = tempfile::tempdir().unwrap();
    // values 0 and 255 survive RGBA 5551 exactly
    let red = write_png(
        &tmp.path().join("red.png"),
        2,
        2,
        [255, 0, 0, 255].repeat(4),
    );
    let mixed = write_png(
        &tmp.path().join("mixed.png"),
        2,
        1,
        vec![0, 255, 0, 255, 255, 255, 255, 0],
    );
    let lib = tmp.path().join("lib.tml");
    ok(&gom(&[
        "tml",
        "pack",
        s(&lib),
        "--format",
        "2",
        "--material",
        &format!("zeta={}", s(&tmp.path().join("red.png"))),
        "--material",
        &format!("../../evil={}", s(&tmp.path().join("mixed.png"))),
    ]));
    let listing = gom_json(&["tml", "list", s(&lib), "--json"]);
    // sorted by lower-cased bytes: '.' (0x2e) before 'z'
    assert_eq!(names(&listing["materials"]), ["../../evil", "zeta"]);

    // extract into a folder two levels down: "../../evil" must not climb out of it
    let outdir = tmp.path().join("a").join("b").join("out");
    ok(&gom(&["tml", "extract", s(&lib), s(&outdir)]));
    assert!(!tmp.path().join("a").join("evil.png").exists());
    assert!(!tmp.path().join("evil.png").exists());
    let mut written = Vec::new();
    let mut stack = vec![tmp.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                written.push(p);
            }
        }
    }
    let inputs = [
        tmp.path().join("red.png"),
        tmp.path().join("mixed.png"),
        lib.clone(),
    ];
    for p in &written {
        assert!(
            inputs.contains(p) || p.starts_with(&outdir),
            "{} written outside OUTDIR",
            p.display()
        );
    }
    let pngs: Vec<&PathBuf> = written.iter().filter(|p| p.starts_with(&outdir)).collect();
    assert_eq!(pngs.len(), 2);
    assert_eq!(decode_png(&outdir.join("zeta.png")), red);
    let evil = pngs.iter().find(|p| !p.ends_with("zeta.png")).unwrap();
    assert_eq!(decode_png(evil), mixed);

    // a name the game cannot hold is refused
    let long = format!("{}={}", "x".repeat(32), s(&tmp.path().join("red.png")));
    let out = gom(&[
        "tml",
        "pack",
        s(&tmp.path().join("bad.tml")),
        "--material",
        &long,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!tmp.path().join("bad.tml").exists());
}

#[test]
fn tml_replace_reencodes_in_the_textures_format() {
    let Some((tmp, tml)) = copied("tml_main.tml") else {
        return;
    };
    let exp = expected("tml_main.expected.json");
    // "Sand" uses texture id 5: find its size and format in the expected file
    let t = exp["textures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == 5)
        .unwrap()
        .clone();
    assert_eq!(t["format"], 0);
    let (w, h) = (
        t["width"].as_u64().unwrap() as u32,
        t["height"].as_u64().unwrap() as u32,
    );
    let pixels: Vec<u8> = (0..w * h * 4).map(|i| (i * 37 % 251) as u8).collect();
    let new = write_png(&tmp.path().join("new.png"), w, h, pixels);
    let edited = tmp.path().join("edited.tml");
    ok(&gom(&[
        "tml",
        "replace",
        s(&tml),
        "sand",
        s(&tmp.path().join("new.png")),
        "--out",
        s(&edited),
    ]));
    let out = tmp.path().join("out");
    ok(&gom(&["tml", "extract", s(&edited), s(&out)]));
    // format 0 stores 8 bits per channel: the image comes back exactly
    assert_eq!(decode_png(&out.join("Sand.png")), new);
    // the other textures are untouched
    let orig = tmp.path().join("orig");
    ok(&gom(&["tml", "extract", s(&tml), s(&orig)]));
    assert_eq!(
        decode_png(&out.join("Gate01.png")),
        decode_png(&orig.join("Gate01.png"))
    );

    // a different size is refused by default, and the file is left as it was
    let before = std::fs::read(&tml).unwrap();
    write_png(
        &tmp.path().join("big.png"),
        w + 1,
        h,
        vec![0; ((w + 1) * h * 4) as usize],
    );
    let r = gom(&[
        "tml",
        "replace",
        s(&tml),
        "Sand",
        s(&tmp.path().join("big.png")),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(std::fs::read(&tml).unwrap(), before);
    // an unknown material is an error
    let r = gom(&[
        "tml",
        "replace",
        s(&tml),
        "Nope",
        s(&tmp.path().join("new.png")),
    ]);
    assert_eq!(r.status.code(), Some(2));
}

#[test]
fn tmd_info_summarises_the_synthetic_model() {
    let Some((tmp, tmd)) = copied("tmd_static.tmd") else {
        return;
    };
    let exp = expected("tmd_static.expected.json");
    let info = gom_json(&["tmd", "info", s(&tmd), "--json"]);
    assert_eq!(info["tkl_name"], exp["header"]["tkl_name"]);
    assert_eq!(names(&info["nodes"]), names(&exp["nodes"]));
    let m = &info["lods"][0]["meshes"][0];
    let em = &exp["lods"][0]["meshes"][0];
    assert_eq!(m["material"], em["material"]);
    assert_eq!(m["vertices"], em["total_vertices"]);
    assert_eq!(
        m["triangles"].as_u64().unwrap() as usize,
        em["triangles"].as_array().unwrap().len()
    );
    let text = ok(&gom(&["tmd", "info", s(&tmd), "--open-fields"]));
    assert!(text.contains("Rock01") && text.contains("MISC"), "{text}");
    assert!(text.contains("u1"), "open fields listed: {text}");
    // a truncated model is an error naming the problem, exit 2
    let bytes = std::fs::read(&tmd).unwrap();
    let cut = tmp.path().join("cut.tmd");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = gom(&["tmd", "info", s(&cut)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TMD"));
}

#[test]
fn convert_turns_the_synthetic_model_into_a_valid_gom_file() {
    let Some((tmp, tmd)) = copied("tmd_static.tmd") else {
        return;
    };
    let out = tmp.path().join("rock.gom");
    ok(&gom(&["convert", s(&tmd), s(&out)]));
    let v = gom(&["validate", s(&out)]);
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
    let model = gom::gomb::read(&std::fs::read(&out).unwrap())
        .unwrap()
        .model;
    assert_eq!(model.skeleton.bones.len(), 2);
    assert_eq!(model.materials[0].name, "SynthRock");
}

/// The files in a folder, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn convert_writes_a_model_and_its_libraries_that_read_back() {
    let Some((tmp, tmd)) = copied("tmd_creature.tmd") else {
        return;
    };
    copy(tmp.path(), "Ddev.tkl").unwrap();
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("Raptor.tmd");
    let tkl_out = out_dir.join("Herd.tkl");
    ok(&gom(&[
        "convert",
        s(&tmd),
        s(&out),
        "--tkl",
        s(&tmp.path().join("Ddev.tkl")),
        "--tkl-out",
        s(&tkl_out),
    ]));
    assert_eq!(listing(&out_dir), ["Herd.tkl", "Raptor.tmd", "Raptor.tml"]);
    let back = jpog::Tmd::read(&std::fs::read(&out).unwrap()).unwrap();
    let orig = jpog::Tmd::read(&std::fs::read(&tmd).unwrap()).unwrap();
    // the model animates from the library it was added to, which keeps its keys
    assert_eq!(back.header.tkl_name(), "Ddev");
    let old = jpog::Tkl::read(&std::fs::read(tmp.path().join("Ddev.tkl")).unwrap()).unwrap();
    let new = jpog::Tkl::read(&std::fs::read(&tkl_out).unwrap()).unwrap();
    assert_eq!(&new.locations[..old.locations.len()], &old.locations[..]);
    assert_eq!(&new.rotations[..old.rotations.len()], &old.rotations[..]);
    assert_eq!(back.animations.len(), orig.animations.len());
    jpog::Tml::read(&std::fs::read(out_dir.join("Raptor.tml")).unwrap()).unwrap();
}

#[test]
fn convert_refuses_an_output_name_the_game_cannot_hold_and_writes_nothing() {
    let Some((tmp, tmd)) = copied("tmd_static.tmd") else {
        return;
    };
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("A_name_too_long_x.tmd");
    let r = gom(&["convert", s(&tmd), s(&out)]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("at most 15"), "{err}");
    assert!(listing(&out_dir).is_empty());
}

#[test]
fn tkl_info_counts_keys_and_shows_the_ranges_a_model_uses() {
    let Some((tmp, tmd)) = copied("tmd_creature.tmd") else {
        return;
    };
    let tkl = copy(tmp.path(), "Ddev.tkl").unwrap();
    let v = gom_json(&["tkl", "info", s(&tkl), s(&tmd)]);
    let lib = jpog::Tkl::read(&std::fs::read(&tkl).unwrap()).unwrap();
    assert_eq!(v["name"], "Ddev");
    assert_eq!(v["locations"], lib.locations.len());
    assert_eq!(v["rotations"], lib.rotations.len());
    // the expected file lists every key's indices: their extremes are the ranges
    let e = expected("tmd_creature.expected.json");
    let keys: Vec<&serde_json::Value> = e["animations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["channels"].as_array().unwrap())
        .flat_map(|c| c["keys"].as_array().unwrap())
        .collect();
    let max = |f: &str| keys.iter().map(|k| k[f].as_u64().unwrap()).max().unwrap();
    let m = &v["models"][0];
    assert_eq!(m["keys"], keys.len());
    assert_eq!(m["locations"]["last"], max("loc_index"));
    assert_eq!(m["rotations"]["last"], max("rot_index"));
    assert_eq!(m["indicesPastTheEnd"], false);
}

#[test]
fn convert_that_fails_at_its_last_file_leaves_nothing_new_and_the_library_as_it_was() {
    let Some((tmp, tmd)) = copied("tmd_creature.tmd") else {
        return;
    };
    let lib = copy(tmp.path(), "Ddev.tkl").unwrap();
    let lib_before = std::fs::read(&lib).unwrap();
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    // the material library's destination is a folder: its file cannot be put there,
    // after the keyframe library (appended in place) has been written
    std::fs::create_dir(out_dir.join("Raptor.tml")).unwrap();
    let before = listing(tmp.path());
    let r = gom(&[
        "convert",
        s(&tmd),
        s(&out_dir.join("Raptor.tmd")),
        "--tkl",
        s(&lib),
    ]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("Raptor.tml"), "{err}");
    assert_eq!(std::fs::read(&lib).unwrap(), lib_before, "library changed");
    assert_eq!(listing(tmp.path()), before);
    assert_eq!(listing(&out_dir), ["Raptor.tml"]);
    assert!(listing(&out_dir.join("Raptor.tml")).is_empty());
    // the same command into a new folder, named relative to the working folder,
    // succeeds and grows the library in place
    let free = tmp.path().join("free");
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_gom"))
        .current_dir(tmp.path())
        .args(["convert", s(&tmd), "free/Raptor.tmd", "--tkl", s(&lib)])
        .output()
        .unwrap();
    ok(&made);
    assert_eq!(listing(&free), ["Raptor.tmd", "Raptor.tml"]);
    let grown = jpog::Tkl::read(&std::fs::read(&lib).unwrap()).unwrap();
    let old = jpog::Tkl::read(&lib_before).unwrap();
    assert_eq!(&grown.locations[..old.locations.len()], &old.locations[..]);
}

#[test]
fn info_on_a_tmd_gom_wrote_lists_its_open_fields_as_information_not_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("demo.gom");
    std::fs::write(&model, gom::gomb::write(&gom_demo::build()).unwrap()).unwrap();
    let out = tmp.path().join("Demo.tmd");
    ok(&gom(&["convert", s(&model), s(&out)]));
    let open = jpog::Tmd::read(&std::fs::read(&out).unwrap())
        .unwrap()
        .open_fields()
        .len();
    assert!(open > 0, "every .tmd has open fields");
    let text = ok(&gom(&["info", s(&out)]));
    assert!(!text.contains("warnings"), "{text}");
    assert!(text.contains(&format!("\ninformation: {open}\n")), "{text}");
    assert_eq!(text.matches("\n  open: ").count(), open, "{text}");
    let json = gom_json(&["info", s(&out), "--json"]);
    assert_eq!(json["warnings"], serde_json::json!([]));
    assert_eq!(json["information"].as_array().unwrap().len(), open);
}

#[test]
fn tmd_info_lists_each_piece_with_its_palette_strip_and_triangles() {
    let Some((tmp, tmd)) = copied("tmd_creature.tmd") else {
        return;
    };
    let tkl = copy(tmp.path(), "Ddev.tkl").unwrap();
    let out = tmp.path().join("out").join("Raptor.tmd");
    ok(&gom(&[
        "convert",
        s(&tmd),
        s(&out),
        "--tkl",
        s(&tkl),
        "--tkl-out",
        s(&tmp.path().join("out").join("Herd.tkl")),
        "--lods",
        "2",
    ]));
    let file = jpog::Tmd::read(&std::fs::read(&out).unwrap()).unwrap();
    let info = gom_json(&["tmd", "info", s(&out), "--json"]);
    let lods = info["lods"].as_array().unwrap();
    assert_eq!(lods.len(), 3);
    assert_eq!(
        info["lod_distance"].as_f64().unwrap() as f32,
        file.mesh.lod_distance
    );
    for (l, lod) in file.mesh.lods.iter().enumerate() {
        for (m, mesh) in lod.meshes.iter().enumerate() {
            let pieces = lods[l]["meshes"][m]["piece_details"].as_array().unwrap();
            assert_eq!(pieces.len(), mesh.pieces.len());
            for (p, j) in mesh.pieces.iter().zip(pieces) {
                let names: Vec<String> = p
                    .palette
                    .iter()
                    .map(|&n| file.nodes[n as usize].name())
                    .collect();
                let listed: Vec<&str> = j["palette_names"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap())
                    .collect();
                assert_eq!(listed, names);
                assert_eq!(j["strip_indices"], p.strip.len());
                let tris = jpog::scene::decode_strip(&p.strip).triangles.len();
                assert_eq!(j["triangles"], tris);
            }
        }
    }
    // the text lists every piece, and the levels
    let text = ok(&gom(&["tmd", "info", s(&out)]));
    let pieces: usize = file
        .mesh
        .lods
        .iter()
        .flat_map(|l| &l.meshes)
        .map(|m| m.pieces.len())
        .sum();
    assert_eq!(text.matches("        piece ").count(), pieces, "{text}");
    assert!(text.contains("LODs: 3"), "{text}");
    let first = &file.mesh.lods[0].meshes[0].pieces[0];
    let line = format!("strip of {} indices", first.strip.len());
    assert!(text.contains(&line), "{text}");
}

/// Runs `gom args` and checks that it fails and leaves `dir` as it found it.
fn refused_writing_nothing(dir: &Path, args: &[&str], says: &[&str]) {
    let before = listing(dir);
    let r = gom(args);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    for s in says {
        assert!(err.contains(s), "{s}: {err}");
    }
    assert_eq!(listing(dir), before);
}

#[test]
fn convert_refuses_a_long_bone_name_or_a_foreign_template_and_writes_nothing() {
    let Some((tmp, tmd)) = copied("tmd_creature.tmd") else {
        return;
    };
    let tkl = copy(tmp.path(), "Ddev.tkl").unwrap();
    let rock = copy(tmp.path(), "tmd_static.tmd").unwrap();
    // a model with a 16-byte bone name
    let gom_file = tmp.path().join("creature.gom");
    ok(&gom(&["convert", s(&tmd), s(&gom_file), "--tkl", s(&tkl)]));
    let mut model = gom::gomb::read(&std::fs::read(&gom_file).unwrap())
        .unwrap()
        .model;
    model.skeleton.bones[1].name = "Sixteen_chars_ab".into();
    std::fs::write(&gom_file, gom::gomb::write(&model).unwrap()).unwrap();
    let out = tmp.path().join("Long.tmd");
    refused_writing_nothing(
        tmp.path(),
        &["convert", s(&gom_file), s(&out)],
        &["bone 1", "Sixteen_chars_ab", "at most 15"],
    );
    // shortened with --rename, and the mapping reported
    let r = gom(&["convert", s(&gom_file), s(&out), "--rename"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(String::from_utf8_lossy(&r.stderr).contains("Sixteen_chars_a\""));
    // a template whose node names are not the model's
    let lib_before = std::fs::read(&tkl).unwrap();
    let rock_out = tmp.path().join("Rock.tmd");
    let args = ["convert", s(&rock), s(&rock_out), "--template", s(&tmd)];
    refused_writing_nothing(tmp.path(), &args, &["template", "node"]);
    // also when the keys would go into a shared library in place
    let with_lib = [&args[..], &["--tkl", s(&tkl)]].concat();
    refused_writing_nothing(tmp.path(), &with_lib, &["template", "node"]);
    assert_eq!(std::fs::read(&tkl).unwrap(), lib_before);
}

#[test]
fn convert_to_tmd_gives_the_same_bytes_on_one_thread_and_on_the_default_pool() {
    let Some((tmp, tmd)) = copied("tmd_creature.tmd") else {
        return;
    };
    let tkl = copy(tmp.path(), "Ddev.tkl").unwrap();
    let run = |dir: &str, threads: Option<&str>| {
        let out = tmp.path().join(dir).join("Raptor.tmd");
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gom"));
        c.args([
            "convert",
            s(&tmd),
            s(&out),
            "--tkl",
            s(&tkl),
            "--tkl-out",
            s(&tmp.path().join(dir).join("Herd.tkl")),
            "--lods",
            "2",
        ]);
        match threads {
            Some(n) => c.env("RAYON_NUM_THREADS", n),
            None => c.env_remove("RAYON_NUM_THREADS"),
        };
        ok(&c.output().unwrap());
        ["Raptor.tmd", "Herd.tkl", "Raptor.tml"]
            .map(|f| std::fs::read(tmp.path().join(dir).join(f)).unwrap())
    };
    let one = run("one", Some("1"));
    assert_eq!(run("default", None), one);
    assert_eq!(run("four", Some("4")), one);
}

#[test]
fn a_model_with_a_twelve_character_name_gets_a_library_named_in_eight_bytes() {
    let Some(gltf) = common::shared_data("gltf") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("RiggedFigure.tmd");
    let r = gom(&[
        "convert",
        s(&gltf.join("RiggedFigure.gltf")),
        s(&out),
        "--rename",
    ]);
    ok(&r);
    let tmd = jpog::Tmd::read(&std::fs::read(&out).unwrap()).unwrap();
    let name = tmd.header.tkl_name();
    assert!(
        !name.is_empty() && name.len() <= 8,
        "the header names {name:?}"
    );
    assert!(
        "RiggedFigure".starts_with(&name[..name.len().min(6)]),
        "{name:?}"
    );
    // the library beside the model has that name, and it is the one written
    let tkl_path = tmp.path().join(format!("{name}.tkl"));
    let tkl = jpog::Tkl::read(&std::fs::read(&tkl_path).unwrap()).unwrap();
    assert_eq!(tkl.name(), name);
    assert_eq!(listing(tmp.path()).len(), 3, "{:?}", listing(tmp.path()));
    // gom tmd info shows it
    let info = ok(&gom(&["tmd", "info", s(&out)]));
    assert!(
        info.contains(&format!("keyframe library: {name}")),
        "{info}"
    );
    // asking for a longer name is written, with a warning
    let long = tmp.path().join("long");
    std::fs::create_dir(&long).unwrap();
    let r = gom(&[
        "convert",
        s(&gltf.join("RiggedFigure.gltf")),
        s(&long.join("Fig.tmd")),
        "--rename",
        "--tkl-name",
        "RiggedFigure",
    ]);
    ok(&r);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("warning: keyframe library name \"RiggedFigure\" has 12 bytes")
            && !err.contains("warning: warning:"),
        "{err}"
    );
    assert!(long.join("RiggedFigure.tkl").exists());
}
