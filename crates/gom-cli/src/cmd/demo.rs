//! `gom demo OUTDIR`: builds the procedural demo model and writes it.

use crate::cmd::convert::{encode, write_atomic};
use crate::input::{self, CliError, Kind};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gom demo`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder to write into (created when missing).
    outdir: PathBuf,
}

/// Runs `gom demo`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(&args.outdir)
        .map_err(|e| format!("{}: {e}", args.outdir.display()))?;
    let model = gom::demo::build();
    let mut ok = true;
    for (name, kind) in [("demo.gom", Kind::Gomb), ("demo.gomt", Kind::Gomt)] {
        let path = args.outdir.join(name);
        let bytes = encode(&model, kind)?;
        write_atomic(&path, &bytes)?;
        let read = input::load_gom(&path)?;
        let verdict = if read.findings.is_empty() && read.model == model {
            "valid, reads back identical"
        } else {
            ok = false;
            "INVALID"
        };
        println!("wrote {} ({} bytes): {verdict}", path.display(), bytes.len());
    }
    let keys: usize = model
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| t.keys.len())
        .sum();
    println!(
        "demo model: {} bones, {} meshes ({} vertices), {} materials, {} clips ({} keys)",
        model.skeleton.bones.len(),
        model.meshes.len(),
        model.meshes.iter().map(|m| m.vertices.len()).sum::<usize>(),
        model.materials.len(),
        model.clips.len(),
        keys
    );
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
