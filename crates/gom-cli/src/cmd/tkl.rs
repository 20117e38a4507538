//! `gom tkl …`: inspect a Jurassic Park: Operation Genesis keyframe library (`.tkl`).

use crate::input::CliError;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The `gom tkl` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Summarise a library: its name, key counts and size, and for each model given
    /// the range of translation and rotation indices its animations use (as JSON).
    Info {
        /// The library.
        file: PathBuf,
        /// Models animating from it.
        models: Vec<PathBuf>,
    },
}

fn read(p: &Path) -> Result<Vec<u8>, CliError> {
    Ok(std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?)
}

/// The lowest and highest index and how many distinct indices, or null when none.
fn range(mut v: Vec<u16>) -> Value {
    v.sort_unstable();
    v.dedup();
    match (v.first(), v.last()) {
        (Some(lo), Some(hi)) => json!({ "first": lo, "last": hi, "distinct": v.len() }),
        _ => Value::Null,
    }
}

/// What model `p` uses of the library.
fn model_use(p: &Path, lib: &jpog::Tkl) -> Result<Value, CliError> {
    let tmd = jpog::Tmd::read(&read(p)?).map_err(|e| format!("{}: {e}", p.display()))?;
    let keys = || {
        tmd.animations
            .iter()
            .flat_map(|a| &a.channels)
            .flat_map(|c| &c.keys)
    };
    let locs: Vec<u16> = keys().map(|k| k.loc_index).collect();
    let rots: Vec<u16> = keys().map(|k| k.rot_index).collect();
    let past = locs.iter().any(|&i| usize::from(i) >= lib.locations.len())
        || rots.iter().any(|&i| usize::from(i) >= lib.rotations.len());
    Ok(json!({
        "file": p.display().to_string(),
        "tklName": tmd.header.tkl_name(),
        "animations": tmd.animations.len(),
        "keys": locs.len(),
        "locations": range(locs),
        "rotations": range(rots),
        "indicesPastTheEnd": past,
    }))
}

/// Runs a `gom tkl` subcommand.
pub fn run(cmd: Command) -> Result<ExitCode, CliError> {
    match cmd {
        Command::Info { file, models } => {
            let bytes = read(&file)?;
            let lib = jpog::Tkl::read(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            let used = models
                .iter()
                .map(|m| model_use(m, &lib))
                .collect::<Result<Vec<_>, _>>()?;
            let v = json!({
                "name": lib.name(),
                "locations": lib.locations.len(),
                "rotations": lib.rotations.len(),
                "scales": lib.scales.len(),
                "bytes": bytes.len(),
                "models": used,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}
