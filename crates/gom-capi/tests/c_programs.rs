//! The C API from C: `tests/c/api_test.c` and `examples/c/gom_pose.c` compiled by the
//! system C compiler against `libgom.a`, the test program with the address and
//! undefined-behaviour sanitizers.
//!
//! The test program poses the demo model (also with compressed clips) and every shared
//! sample (converted to GOM here) at several moments of each clip and compares with what `gom pose` writes
//! (`gom_import::pose`, the library behind the command); calls every entry point with
//! NULLs, wrong counts and out-of-range indices; opens every truncation of a small file
//! and 10,000 corrupted copies; samples and skins one asset on several threads; and
//! checks the ownership contract of `gom_asset_open`. Skips with a message when there
//! is no `cc`. Shared samples are read from `../shared/data` beside the checkout (or
//! the folder named by `GOM_SHARED_DATA`); without it only the demo model is used.

use std::path::{Path, PathBuf};
use std::process::Command;

use gom_import::pose::{pose_model, write_obj, PoseAt};
use gom_import::source::{convert_path, ImportOptions, OutputFormat};

#[path = "c_programs/extensions.rs"]
mod extensions;

const CRATE: &str = env!("CARGO_MANIFEST_DIR");

/// Whether the C compiler `cc` runs.
fn have_cc() -> bool {
    have_tool("cc")
}

/// Builds `libgom.a` with cargo (the test binary is built before it) and returns the
/// folder holding it: the test binary's profile folder.
fn build_libgom() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>")
        .to_path_buf();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["build", "-p", "gom-capi", "--lib"])
        .current_dir(CRATE);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("run cargo build -p gom-capi");
    assert!(status.success(), "cargo build -p gom-capi failed");
    let lib = profile_dir.join("libgom.a");
    assert!(lib.is_file(), "{} was not built", lib.display());
    profile_dir
}

/// Compiles C sources against `libgom.a`; `sanitize` adds ASan and UBSan.
fn compile(sources: &[PathBuf], lib_dir: &Path, out: &Path, sanitize: bool) {
    let mut cmd = Command::new("cc");
    cmd.args([
        "-std=c99",
        "-D_POSIX_C_SOURCE=200809L",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
    ])
    .arg("-I")
    .arg(Path::new(CRATE).join("include"))
    .arg("-I")
    .arg(Path::new(CRATE).join("tests/c"));
    if sanitize {
        cmd.args([
            "-O1",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
        ])
        .arg("-fno-omit-frame-pointer");
    } else {
        cmd.arg("-O2");
    }
    cmd.args(sources)
        .arg(lib_dir.join("libgom.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(out);
    let o = cmd.output().expect("run cc");
    assert!(
        o.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The shared data folder, if present.
/// The shared data folder (`GOM_SHARED_DATA` when set), or `None` after saying that
/// only the demo model is tested (a failure under `GOM_REQUIRE_TEST_DATA=1`).
fn shared_data() -> Option<PathBuf> {
    let Some(d) = std::env::var_os("GOM_SHARED_DATA").map(PathBuf::from) else {
        return gom_test_support::shared_data("");
    };
    if d.is_dir() {
        return Some(d);
    }
    gom_test_support::skip(format_args!(
        "{} is absent: only the demo model is tested",
        d.display()
    ));
    None
}

/// The demo model (as built, and with its clips compressed: `docs/extensions.md`) and
/// every shared glTF and FBX sample, converted to GOMB in `dir`.
fn gom_files(dir: &Path) -> Vec<PathBuf> {
    let demo = dir.join("demo.gom");
    std::fs::write(&demo, gom::gomb::write(&gom_demo::build()).expect("demo")).expect("write");
    let mut compressed = gom_demo::build();
    let settings = ImportOptions {
        compress: true,
        ..ImportOptions::default()
    }
    .compress_settings();
    gom_import::compress::compress_model(&mut compressed, settings).expect("compress");
    assert!(compressed.clips.iter().all(|c| c.compressed.is_some()));
    let demo_compressed = dir.join("demo-compressed.gom");
    let bytes = gom::gomb::write(&compressed).expect("compressed demo");
    std::fs::write(&demo_compressed, bytes).expect("write");
    let mut files = vec![demo, demo_compressed];
    // The demo skinned with dual quaternions, and blended with eight influences (the
    // SKNX extension): `gom_skin` against `gom pose` for every method.
    for (name, model) in [
        ("demo_dq", skinning_demo(false)),
        ("demo_blended8", skinning_demo(true)),
    ] {
        let f = dir.join(format!("{name}.gom"));
        std::fs::write(&f, gom::gomb::write(&model).expect(name)).expect("write");
        files.push(f);
    }
    let Some(data) = shared_data() else {
        return files;
    };
    let mut sources: Vec<PathBuf> = ["gltf", "fbx"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(data.join(sub)).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gltf" || x == "fbx"))
        .collect();
    sources.sort();
    for src in sources {
        let converted = convert_path(&src, &ImportOptions::default(), OutputFormat::Gomb)
            .unwrap_or_else(|e| panic!("gom convert {}: {e}", src.display()));
        let stem = src.file_stem().unwrap().to_string_lossy();
        let out = dir.join(format!("{stem}.gom"));
        std::fs::write(&out, converted.bytes).expect("write");
        files.push(out);
    }
    files
}

/// The demo model with every skinned mesh skinned with dual quaternions, or, when
/// `blended`, blended with eight influence slots per vertex
/// ([`gom_test_support::model::skinned_with`]).
fn skinning_demo(blended: bool) -> gom::Model {
    let mut model = gom_demo::build();
    let method = if blended {
        gom::SkinningMethod::Blended
    } else {
        gom::SkinningMethod::DualQuaternion
    };
    gom_test_support::model::skinned_with(&mut model, method, blended);
    model
}

/// `gom pose FILE [--clip NAME --time T [--loop]]`'s OBJ, written to `out`.
fn expected_pose(model: &gom::Model, clip: Option<&str>, time: f32, looped: bool, out: &Path) {
    let at = PoseAt {
        clip: clip.map(str::to_string),
        time,
        looped,
    };
    let meshes = pose_model(model, &at).expect("gom pose");
    std::fs::write(out, write_obj(&meshes)).expect("write OBJ");
}

/// The test program's task list for `files`, with the expected OBJs written in `dir`.
fn tasks(files: &[PathBuf], dir: &Path) -> String {
    let mut t = String::new();
    for (fi, f) in files.iter().enumerate() {
        let model = gom::gomb::read(&std::fs::read(f).expect("read"))
            .expect("GOMB")
            .model;
        let bind = dir.join(format!("{fi}-bind.obj"));
        expected_pose(&model, None, 0.0, false, &bind);
        t += &format!("P {} -1 0 0 {}\n", f.display(), bind.display());
        for (ci, clip) in model.clips.iter().enumerate() {
            // `gom pose --clip NAME` poses the first clip of that name.
            if model.clips.iter().position(|c| c.name == clip.name) != Some(ci) {
                continue;
            }
            let d = clip.duration;
            for (k, (time, looped)) in [
                (0.0, false),
                (0.25 * d, false),
                (0.5 * d + 0.013, true),
                (d, false),
                (1.37 * d + 0.02, true),
                (-0.3, false),
            ]
            .into_iter()
            .enumerate()
            {
                let obj = dir.join(format!("{fi}-{ci}-{k}.obj"));
                expected_pose(&model, Some(&clip.name), time, looped, &obj);
                t += &format!(
                    "P {} {ci} {time:?} {} {}\n",
                    f.display(),
                    looped as i32,
                    obj.display()
                );
            }
        }
        t += &format!("N {}\nC {}\n", f.display(), f.display());
    }
    // Several threads on the demo model, as built and compressed, and on the largest
    // sample.
    t += &format!("T {}\nT {}\n", files[0].display(), files[1].display());
    if let Some(big) = files
        .iter()
        .skip(1)
        .max_by_key(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
    {
        t += &format!("T {}\n", big.display());
    }
    // Truncations and corruptions of the smallest animated skinned file.
    let small = files
        .iter()
        .filter(|f| {
            let m = gom::gomb::read(&std::fs::read(f).unwrap()).unwrap().model;
            !m.clips.is_empty() && m.meshes.iter().any(|x| x.vertices.skin.is_some())
        })
        .min_by_key(|f| std::fs::metadata(f).map_or(u64::MAX, |m| m.len()))
        .unwrap_or(&files[0]);
    t += &format!("F {}\n", small.display());
    t
}

/// Runs a sanitized program; fails on a nonzero exit or any sanitizer report.
fn run_sanitized(cmd: &mut Command) -> String {
    let o = cmd
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=0:abort_on_error=0:halt_on_error=1",
        )
        .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        .output()
        .expect("run the C test program");
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "the C test program failed:\n{stderr}");
    for report in ["AddressSanitizer", "runtime error:", "LeakSanitizer"] {
        assert!(!stderr.contains(report), "sanitizer report:\n{stderr}");
    }
    stderr
}

#[test]
fn c_test_program_passes_under_sanitizers() {
    if !have_cc() {
        return;
    }
    let lib = build_libgom();
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = dir.path().join("api_test");
    compile(
        &[Path::new(CRATE).join("tests/c/api_test.c")],
        &lib,
        &exe,
        true,
    );
    let files = gom_files(dir.path());
    let list = dir.path().join("tasks.txt");
    std::fs::write(&list, tasks(&files, dir.path())).expect("write tasks");
    let log = run_sanitized(Command::new(&exe).arg(&list));
    eprintln!("{log}");
    assert!(log.contains("0 failed checks"), "{log}");
}

/// The numbers of an OBJ line after its keyword.
fn numbers(line: &str) -> Vec<f32> {
    line.split_whitespace()
        .skip(1)
        .map(|x| x.parse().expect("a number"))
        .collect()
}

/// Two OBJ texts are the same model: the same lines, numbers within 1e-5.
fn assert_same_obj(got: &str, want: &str) {
    let strip = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    let (got, want) = (strip(got), strip(want));
    assert_eq!(got.len(), want.len(), "line counts differ");
    for (g, w) in got.iter().zip(&want) {
        let keyword = w.split_whitespace().next().unwrap_or("");
        if matches!(keyword, "v" | "vt" | "vn") {
            let (a, b) = (numbers(g), numbers(w));
            assert_eq!(a.len(), b.len(), "{g} vs {w}");
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-5, "{g} vs {w}");
            }
        } else {
            assert_eq!(g, w);
        }
    }
}

#[test]
fn c_example_writes_what_gom_pose_writes() {
    if !have_cc() {
        return;
    }
    let lib = build_libgom();
    let dir = tempfile::tempdir().expect("temp dir");
    // The example's own Makefile, run from the temp folder so that it builds there.
    let makefile = Path::new(CRATE).join("../../examples/c/Makefile");
    let made = Command::new("make")
        .arg("-f")
        .arg(&makefile)
        .arg(format!("LIBDIR={}", lib.display()))
        .current_dir(dir.path())
        .output();
    let exe = dir.path().join("gom_pose");
    match made {
        Ok(o) => assert!(
            o.status.success(),
            "make failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) => {
            eprintln!("note: no `make`: compiling the example with cc directly");
            compile(
                &[Path::new(CRATE).join("../../examples/c/gom_pose.c")],
                &lib,
                &exe,
                false,
            );
        }
    }
    assert_example_poses_like_gom(&exe, dir.path(), None);
}

/// Runs the built example on the demo model, in the bind pose and at a looped moment
/// of a clip, and compares its OBJ with what `gom pose` writes. `lib_path` is where a
/// shared libgom is found at run time, when the example links it.
fn assert_example_poses_like_gom(exe: &Path, dir: &Path, lib_path: Option<&Path>) {
    let model = gom_demo::build();
    let file = dir.join("demo.gom");
    std::fs::write(&file, gom::gomb::write(&model).expect("demo")).expect("write");
    let clip = model
        .clips
        .first()
        .expect("the demo has a clip")
        .name
        .clone();
    for (args, at) in [
        (
            vec![],
            PoseAt {
                clip: None,
                time: 0.0,
                looped: false,
            },
        ),
        (
            vec!["--clip", clip.as_str(), "--time", "0.7", "--loop"],
            PoseAt {
                clip: Some(clip.clone()),
                time: 0.7,
                looped: true,
            },
        ),
    ] {
        let out = dir.join("posed.obj");
        let o = example(exe, lib_path)
            .arg(&file)
            .args(&args)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("run gom_pose");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let listing = String::from_utf8_lossy(&o.stdout);
        assert!(listing.contains(&format!("{} bones", model.skeleton.bones.len())));
        assert!(listing.contains(&clip));
        let want = write_obj(&pose_model(&model, &at).expect("gom pose"));
        assert_same_obj(&std::fs::read_to_string(&out).expect("OBJ"), &want);
    }
}

/// The example as a command, with `lib_path` on the loader's search path.
fn example(exe: &Path, lib_path: Option<&Path>) -> Command {
    let mut cmd = Command::new(exe);
    if let Some(dir) = lib_path {
        cmd.env("LD_LIBRARY_PATH", dir);
    }
    cmd
}

/// Whether `tool --version` runs; else skips (a failure under CI).
fn have_tool(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        gom_test_support::skip(format!("no `{tool}` on PATH"));
    }
    ok
}

/// `package/install.sh` from the checkout into a temporary prefix, with the libraries
/// cargo built in `lib`.
fn install_package(lib: &Path, prefix: &Path) {
    run_install(
        &Path::new(CRATE).join("package/install.sh"),
        prefix,
        Some(lib),
    );
}

/// Runs an `install.sh` into `prefix`, with `lib` as its LIBDIR argument if given.
fn run_install(script: &Path, prefix: &Path, lib: Option<&Path>) {
    let o = Command::new("sh")
        .arg(script)
        .arg(prefix)
        .args(lib)
        .output()
        .expect("run install.sh");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Lays libgom out in `dir` as the release archive `gom-capi-<target>.tar.xz` holds it
/// (`[package.metadata.dist]` in Cargo.toml, docs/shipping.md): the libraries and
/// `gom.h` at the top, the `package` folder beside them. Returns its `install.sh`.
fn unpacked_archive(lib: &Path, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("package")).expect("archive folder");
    for name in ["libgom.a", "libgom.so"] {
        std::fs::copy(lib.join(name), dir.join(name)).expect("copy a library");
    }
    std::fs::copy(Path::new(CRATE).join("include/gom.h"), dir.join("gom.h")).expect("copy gom.h");
    for entry in std::fs::read_dir(Path::new(CRATE).join("package")).expect("package folder") {
        let path = entry.expect("package entry").path();
        let name = path.file_name().expect("file name");
        std::fs::copy(&path, dir.join("package").join(name)).expect("copy a package file");
    }
    dir.join("package/install.sh")
}

#[cfg(unix)]
#[test]
fn package_installed_from_a_release_archive_is_found_by_cmake_find_package_and_poses_like_gom() {
    if !have_cc() || !have_tool("cmake") {
        return;
    }
    let lib = build_libgom();
    let dir = tempfile::tempdir().expect("temp dir");
    // Installed from an unpacked release archive (no checkout, no LIBDIR), then moved:
    // the package must find itself where it is, not where it was installed.
    let archive = unpacked_archive(&lib, &dir.path().join("archive"));
    let first = dir.path().join("first");
    run_install(&archive, &first, None);
    let prefix = dir.path().join("moved");
    std::fs::rename(&first, &prefix).expect("move the prefix");
    let build = dir.path().join("build");
    let run = |args: &[&std::ffi::OsStr]| {
        let o = Command::new("cmake")
            .args(args)
            .output()
            .expect("run cmake");
        assert!(
            o.status.success(),
            "cmake {:?}:\n{}{}",
            args,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let configured = run(&[
        "-S".as_ref(),
        Path::new(CRATE).join("../../examples/c").as_os_str(),
        "-B".as_ref(),
        build.as_os_str(),
        format!("-DCMAKE_PREFIX_PATH={}", prefix.display()).as_ref(),
        "-DGOM_FROM_PACKAGE=ON".as_ref(),
    ]);
    assert!(
        configured.contains(&format!(
            "libgom {} from {}",
            env!("CARGO_PKG_VERSION"),
            prefix.join("lib/cmake/gom").display()
        )),
        "{configured}"
    );
    run(&["--build".as_ref(), build.as_os_str()]);
    assert_example_poses_like_gom(&build.join("gom_pose"), dir.path(), None);
}

#[cfg(unix)]
#[test]
fn installed_package_links_through_pkg_config_with_the_shared_library() {
    if !have_cc() || !have_tool("pkg-config") {
        return;
    }
    let lib = build_libgom();
    let dir = tempfile::tempdir().expect("temp dir");
    let prefix = dir.path().join("prefix");
    install_package(&lib, &prefix);
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "gom"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .expect("run pkg-config");
    assert!(
        flags.status.success(),
        "{}",
        String::from_utf8_lossy(&flags.stderr)
    );
    let flags = String::from_utf8(flags.stdout).expect("flags");
    let exe = dir.path().join("gom_pose");
    let o = Command::new("cc")
        .arg("-std=c99")
        .arg(Path::new(CRATE).join("../../examples/c/gom_pose.c"))
        .arg("-o")
        .arg(&exe)
        .args(flags.split_whitespace())
        .output()
        .expect("run cc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Linked against the installed shared library (the linker prefers it to the
    // static one), and loaded from the prefix.
    let lib_dir = prefix.join("lib");
    let ldd = Command::new("ldd")
        .arg(&exe)
        .env("LD_LIBRARY_PATH", &lib_dir)
        .output()
        .expect("run ldd");
    let ldd = String::from_utf8_lossy(&ldd.stdout);
    assert!(
        ldd.contains(&format!("{}", lib_dir.join("libgom.so").display())),
        "{ldd}"
    );
    assert_example_poses_like_gom(&exe, dir.path(), Some(&lib_dir));
}

#[test]
fn header_compiles_as_c99_and_cpp() {
    if !have_cc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("use.c");
    std::fs::write(
        &src,
        "#include \"gom.h\"\n#include \"gom.h\"\nint main(void) { gom_error e; e.code = GOM_OK; \
         return (int)gom_version() * 0 + e.code; }\n",
    )
    .expect("write");
    let include = Path::new(CRATE).join("include");
    for (compiler, args) in [
        (
            "cc",
            vec![
                "-std=c99",
                "-pedantic-errors",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsyntax-only",
            ],
        ),
        (
            "c++",
            vec![
                "-x",
                "c++",
                "-std=c++11",
                "-pedantic-errors",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsyntax-only",
            ],
        ),
    ] {
        let Ok(o) = Command::new(compiler)
            .args(&args)
            .arg("-I")
            .arg(&include)
            .arg(&src)
            .output()
        else {
            gom_test_support::skip(format_args!("{compiler} is not installed"));
            continue;
        };
        assert!(
            o.status.success(),
            "{compiler}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
