//! Runs one FBX conversion, or ufbx's own load of the file, many times on one thread:
//! a driver for profilers. Under `valgrind --tool=callgrind` the instruction counts of
//! the two give the conversion's cost over the load without the timing noise of a
//! shared machine (see docs/performance.md).
//!
//! `cargo run --release -p gom-import --example fbx_repeat -- FILE.fbx N MODE`, where MODE
//! is `convert` (without meshopt), `convert-meshopt` (the defaults) or `load` (ufbx's
//! default load).

use gom_import::fbx::{convert, FbxOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: fbx_repeat FILE.fbx N (convert|convert-meshopt|load)";
    let (Some(path), Some(n), Some(mode)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let Ok(n) = n.parse::<usize>() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let options = FbxOptions {
        optimize_meshes: false,
        ..Default::default()
    };
    // One thread: the source hash runs after the conversion instead of beside it.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    pool.install(|| {
        for _ in 0..n {
            let ok = match mode.as_str() {
                "convert" => convert(&bytes, path, &options).is_ok(),
                "convert-meshopt" => convert(&bytes, path, &FbxOptions::default()).is_ok(),
                "load" => ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).is_ok(),
                _ => {
                    eprintln!("{usage}");
                    std::process::exit(2);
                }
            };
            if !ok {
                eprintln!("{path}: does not load");
                std::process::exit(2);
            }
        }
    });
}
