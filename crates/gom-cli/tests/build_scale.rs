//! `gom build` over many machines: shards, manifest parts and their merge, the shared
//! cache, the plan, and the scheduler recipes of docs/scaling.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::build_tree::{mixed_inputs, report, statuses, tree};
use common::{gom, s};

/// Builds `src` into `out` with `extra` arguments; returns the JSON report.
fn build(src: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["build", s(src), s(out), "--report", "json", "-q"];
    args.extend_from_slice(extra);
    let o = gom(&args);
    let r = report(&o);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {r:#}");
    r
}

/// Copies every file under `from` into `to`, keeping the layout.
fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// Source → shard number, from each shard's `--plan --json`.
fn assignment(src: &Path, out: &Path, n: usize) -> BTreeMap<String, usize> {
    let mut out_map = BTreeMap::new();
    for k in 1..=n {
        let shard = format!("{k}/{n}");
        let o = gom(&[
            "build",
            s(src),
            s(out),
            "--plan",
            "--json",
            "--shard",
            &shard,
        ]);
        let plan = report(&o);
        for job in plan["jobs"].as_array().unwrap() {
            let source = job["source"].as_str().unwrap().to_string();
            assert!(out_map.insert(source, k).is_none(), "in two shards");
        }
    }
    out_map
}

#[test]
fn shards_in_any_order_into_one_or_four_folders_give_the_full_build() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let n = mixed_inputs(&src) as u64;
    let full = tmp.path().join("full");
    assert_eq!(build(&src, &full, &[])["converted"].as_u64(), Some(n));

    // Into one folder, in shuffled order: each shard writes its part, not the manifest.
    let one = tmp.path().join("one");
    let mut converted = 0;
    for k in [3, 1, 4, 2] {
        let r = build(&src, &one, &["--shard", &format!("{k}/4")]);
        converted += r["converted"].as_u64().unwrap();
        assert!(one.join(format!("gom-build.shard-{k}-of-4.json")).is_file());
    }
    assert_eq!(converted, n, "every source converted exactly once");
    assert!(!one.join("gom-build.json").exists());
    let merged = gom(&["build", s(&one), "--merge-manifests"]);
    assert_eq!(merged.status.code(), Some(0), "{merged:?}");
    assert_eq!(tree(&one), tree(&full), "one folder, merged");

    // Into four folders copied together afterwards.
    let four = tmp.path().join("four");
    for k in [2, 4, 1, 3] {
        let part = tmp.path().join(format!("part{k}"));
        build(&src, &part, &["--shard", &format!("{k}/4")]);
        copy_tree(&part, &four);
    }
    gom(&["build", s(&four), "--merge-manifests"]);
    assert_eq!(tree(&four), tree(&full), "four folders, merged");
    let again = build(&src, &four, &[]);
    assert_eq!(again["converted"].as_u64(), Some(0), "{again:#}");
    assert_eq!(again["upToDate"].as_u64(), Some(n));
}

#[test]
fn the_next_ordinary_build_merges_the_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let n = mixed_inputs(&src) as u64;
    let out = tmp.path().join("out");
    build(&src, &out, &["--shard", "1/2"]);
    build(&src, &out, &["--shard", "2/2"]);
    let r = build(&src, &out, &[]);
    assert_eq!(r["upToDate"].as_u64(), Some(n), "{r:#}");
    let names: Vec<String> = tree(&out)
        .into_keys()
        .filter(|k| k.starts_with("gom-build"))
        .collect();
    assert_eq!(names, ["gom-build.json"]);
}

/// Writes `count` files the plan treats as sources (it reads but does not parse
/// them), of sizes from 100 bytes to about 50 kB.
fn fake_sources(dir: &Path, count: usize) {
    for i in 0..count {
        let p = dir.join(format!("set{}/model{i:04}.gomt", i % 7));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, vec![b'x'; 100 + (i * 7919) % 50_000]).unwrap();
    }
}

#[test]
fn adding_an_unrelated_file_moves_few_assignments() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let out = tmp.path().join("out");
    fake_sources(&src, 200);
    let before = assignment(&src, &out, 4);
    assert_eq!(before.len(), 200);
    for k in 1..=4 {
        let size = before.values().filter(|&&v| v == k).count();
        assert!((25..=75).contains(&size), "shard {k} has {size} of 200");
    }
    std::fs::write(src.join("aaa-new.gomt"), vec![b'y'; 30_000]).unwrap();
    let after = assignment(&src, &out, 4);
    let moved = before.iter().filter(|(k, v)| after[*k] != **v).count();
    // Cutting the sorted list into four runs would move about a quarter: the new
    // file sorts first and shifts every boundary.
    assert!(moved <= 10, "{moved} of 200 moved");
}

#[test]
fn a_shared_cache_makes_a_second_build_copy_only() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let n = mixed_inputs(&src) as u64;
    let cache = tmp.path().join("cache");
    let c = ["--cache", s(&cache)];
    let first = build(&src, &tmp.path().join("a"), &c);
    assert_eq!(first["converted"].as_u64(), Some(n), "{first:#}");
    let second = build(&src, &tmp.path().join("b"), &c);
    assert_eq!(second["converted"].as_u64(), Some(0), "{second:#}");
    assert_eq!(second["cached"].as_u64(), Some(n));
    assert_eq!(tree(&tmp.path().join("a")), tree(&tmp.path().join("b")));

    // GOM_CACHE_DIR stands for --cache.
    let env = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args([
            "build",
            s(&src),
            s(&tmp.path().join("e")),
            "--report",
            "json",
        ])
        .env("GOM_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert_eq!(report(&env)["cached"].as_u64(), Some(n));

    // One changed source is the only one converted.
    let touched = src.join("gen/set0/t0.gomt");
    let mut text = std::fs::read_to_string(&touched).unwrap();
    text.push_str("# edited\n");
    std::fs::write(&touched, text).unwrap();
    let third = build(&src, &tmp.path().join("c"), &c);
    for (source, status) in statuses(&third) {
        let expected = if source == "gen/set0/t0.gomt" {
            "converted"
        } else {
            "cached"
        };
        assert_eq!(status, expected, "{source}");
    }
}

/// The cache entry file of each source, from the plan's cache keys.
fn entries(src: &Path, cache: &Path) -> BTreeMap<String, PathBuf> {
    let plan = report(&gom(&[
        "build",
        s(src),
        s(&src.with_extension("x")),
        "--plan",
        "--json",
    ]));
    plan["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let key = j["cacheKey"].as_str().unwrap();
            let path = cache.join(&key[..2]).join(format!("{key}.gomcache"));
            (j["source"].as_str().unwrap().to_string(), path)
        })
        .collect()
}

#[test]
fn a_corrupt_or_truncated_cache_entry_is_rebuilt_and_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let n = mixed_inputs(&src) as u64;
    let cache = tmp.path().join("cache");
    let c = ["--cache", s(&cache)];
    let reference = tmp.path().join("ref");
    build(&src, &reference, &c);
    let files = entries(&src, &cache);
    let flipped = &files["gen/set0/m0.gom"];
    let cut = &files["gen/set1/t1.gomt"];
    let mut bytes = std::fs::read(flipped).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(flipped, bytes).unwrap();
    let whole = std::fs::read(cut).unwrap();
    std::fs::write(cut, &whole[..whole.len() / 2]).unwrap();

    let out = tmp.path().join("out");
    let r = build(&src, &out, &c);
    for (source, status) in statuses(&r) {
        let damaged = source == "gen/set0/m0.gom" || source == "gen/set1/t1.gomt";
        let expected = if damaged { "converted" } else { "cached" };
        assert_eq!(status, expected, "{source}");
    }
    assert_eq!(tree(&out), tree(&reference));
    // The entries were replaced: the next build copies everything.
    assert_eq!(std::fs::read(cut).unwrap(), whole);
    let next = build(&src, &tmp.path().join("next"), &c);
    assert_eq!(next["cached"].as_u64(), Some(n), "{next:#}");
}

/// Files whose name marks a write in progress.
fn temporary_files(dir: &Path) -> Vec<String> {
    tree(dir)
        .into_keys()
        .filter(|k| k.rsplit('/').next().unwrap().starts_with('.') || k.ends_with(".tmp"))
        .collect()
}

#[test]
fn four_builds_at_once_share_one_cache_without_partial_files() {
    use gom_import::build::cache::{Cache, Lookup};
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    mixed_inputs(&src);
    let reference = tmp.path().join("ref");
    build(&src, &reference, &[]);
    let expected = tree(&reference);
    let cache_dir = tmp.path().join("cache");
    let keys: Vec<String> = entries(&src, &cache_dir)
        .values()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let outs: Vec<PathBuf> = (0..4).map(|i| tmp.path().join(format!("out{i}"))).collect();
    let mut children: Vec<_> = outs
        .iter()
        .map(|o| {
            Command::new(env!("CARGO_BIN_EXE_gom"))
                .args([
                    "build",
                    s(&src),
                    s(o),
                    "-q",
                    "-j",
                    "1",
                    "--cache",
                    s(&cache_dir),
                ])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    // While they run, every entry and output that is visible is whole.
    let cache = Cache::open(&cache_dir).unwrap();
    let mut checks = 0;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        for k in &keys {
            if let Lookup::Corrupt(why) = cache.get(k) {
                panic!("a partial cache entry is visible: {why}");
            }
        }
        for o in &outs {
            for (rel, bytes) in tree_if_present(o) {
                // The manifest, temp files and the build's short-lived probe of whether
                // the folder ignores case are not outputs.
                let visible_model = !rel.starts_with("gom-build")
                    && !rel.starts_with(".gom-case-probe")
                    && !rel.ends_with(".tmp");
                if visible_model {
                    assert_eq!(Some(&bytes), expected.get(&rel), "{rel} in {}", o.display());
                }
            }
        }
        checks += 1;
    }
    assert!(checks > 0);
    for c in &mut children {
        assert!(c.wait().unwrap().success());
    }
    for o in &outs {
        assert_eq!(tree(o), expected, "{}", o.display());
    }
    assert_eq!(temporary_files(&cache_dir), Vec::<String>::new());
    for k in &keys {
        assert!(matches!(cache.get(k), Lookup::Hit(_)), "{k}");
    }
}

/// [`tree`] of a folder that may not exist yet, tolerating files renamed or replaced
/// while it is read.
fn tree_if_present(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, bytes);
            }
        }
    }
    out
}

#[test]
fn a_changed_texture_beside_the_source_rebuilds_a_gltf_output() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let mut m = gom_demo::build();
    m.materials[0].base_color_texture = Some("skin.png".into());
    std::fs::write(src.join("m.gomt"), gom::gomt::write(&m).unwrap()).unwrap();
    let png = |tail: &[u8]| [b"\x89PNG\r\n\x1a\n".as_slice(), tail].concat();
    std::fs::write(src.join("skin.png"), png(b"one")).unwrap();
    let out = tmp.path().join("out");
    let glb = ["--format", "glb"];
    assert_eq!(build(&src, &out, &glb)["converted"].as_u64(), Some(1));
    assert_eq!(build(&src, &out, &glb)["upToDate"].as_u64(), Some(1));
    std::fs::write(src.join("skin.png"), png(b"two")).unwrap();
    let r = build(&src, &out, &glb);
    assert_eq!(r["converted"].as_u64(), Some(1), "{r:#}");
    let written = std::fs::read(out.join("m.glb")).unwrap();
    assert!(
        written.windows(3).any(|w| w == b"two"),
        "the new texture is embedded"
    );
    // A GOM output carries a copy of the texture beside it: changing the texture
    // rebuilds it, and the copy follows.
    let gom_out = tmp.path().join("gom");
    build(&src, &gom_out, &[]);
    std::fs::write(src.join("skin.png"), png(b"three")).unwrap();
    assert_eq!(build(&src, &gom_out, &[])["converted"].as_u64(), Some(1));
    assert_eq!(
        std::fs::read(gom_out.join("skin.png")).unwrap(),
        png(b"three")
    );
}

#[test]
fn a_percent_encoded_buffer_uri_is_a_companion() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let name = src.join("a b.gltf");
    let (json, side) = gom_import::source::export(
        &gom_demo::build(),
        gom_import::source::OutputFormat::Gltf,
        &name,
    )
    .unwrap();
    assert!(
        String::from_utf8_lossy(&json).contains("a%20b.bin"),
        "the URI is encoded"
    );
    std::fs::write(&name, json).unwrap();
    std::fs::write(src.join(&side[0].relative_path), &side[0].bytes).unwrap();
    let plan = report(&gom(&[
        "build",
        s(&src),
        s(&tmp.path().join("o")),
        "--plan",
        "--json",
    ]));
    assert_eq!(
        plan["jobs"][0]["companions"],
        serde_json::json!(["a b.bin"])
    );
    let out = tmp.path().join("out");
    build(&src, &out, &[]);
    let mut bin = side[0].bytes.clone();
    bin.push(0);
    std::fs::write(src.join("a b.bin"), bin).unwrap();
    assert_eq!(build(&src, &out, &[])["converted"].as_u64(), Some(1));
}

/// Runs `script` with `sh`, `gom` on the path and `vars` set, in `dir`.
fn shell(dir: &Path, script: &str, vars: &[(&str, &str)]) {
    let bin = Path::new(env!("CARGO_BIN_EXE_gom")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    assert!(o.status.success(), "{script}: {o:?}");
}

/// The command lines of docs/scaling.md, run with the variables each scheduler sets.
#[test]
fn the_scheduler_recipes_build_the_whole_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("assets");
    mixed_inputs(&src);
    let full = tmp.path().join("full");
    build(&src, &full, &[]);
    let recipes: [(&str, &str, [&str; 4]); 3] = [
        (
            "gha",
            "gom build assets gha --shard \"$MATRIX_K/4\" --cache cache",
            ["1", "2", "3", "4"],
        ),
        (
            "k8s",
            "gom build assets k8s --shard \"$((JOB_COMPLETION_INDEX + 1))/4\" --cache cache",
            ["0", "1", "2", "3"],
        ),
        (
            "slurm",
            "gom build assets slurm --shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\"",
            ["1", "2", "3", "4"],
        ),
    ];
    for (out, script, values) in recipes {
        for v in values {
            let vars = [
                ("MATRIX_K", v),
                ("JOB_COMPLETION_INDEX", v),
                ("SLURM_ARRAY_TASK_ID", v),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ];
            shell(tmp.path(), script, &vars);
        }
        shell(
            tmp.path(),
            &format!("gom build {out} --merge-manifests"),
            &[],
        );
        assert_eq!(tree(&tmp.path().join(out)), tree(&full), "{out}");
    }
    // GNU parallel's {} becomes the shard number; here xargs stands in for it.
    shell(
        tmp.path(),
        "seq 1 4 | xargs -P 4 -I{} gom build assets par --shard {}/4 -q && \
         gom build assets par -q",
        &[],
    );
    assert_eq!(tree(&tmp.path().join("par")), tree(&full));
}
