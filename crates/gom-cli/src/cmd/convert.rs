//! `gom convert IN OUT`: between GOM binary and text, chosen by extension.

use crate::input::{self, CliError, Kind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gom convert`.
#[derive(clap::Args)]
pub struct Args {
    /// The file to convert.
    input: PathBuf,
    /// Where to write the result.
    output: PathBuf,
    /// Output format (`gom`, `gomt`), overriding OUT's extension.
    #[arg(long)]
    to: Option<String>,
}

/// Runs `gom convert`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let kind = match &args.to {
        Some(name) => Kind::from_name(name).ok_or_else(|| format!("unknown output format '{name}'"))?,
        None => Kind::of_path(&args.output).ok_or_else(|| {
            format!(
                "{}: cannot tell the output format from the extension; use --to",
                args.output.display()
            )
        })?,
    };
    let read = input::load_gom(&args.input)?;
    let bytes = encode(&read.model, kind)?;
    write_atomic(&args.output, &bytes)?;
    eprintln!(
        "wrote {} ({} bytes)",
        args.output.display(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Encodes `model` in `kind`.
pub fn encode(model: &gom::Model, kind: Kind) -> Result<Vec<u8>, CliError> {
    Ok(match kind {
        Kind::Gomb => gom::gomb::write(model)?,
        Kind::Gomt => gom::gomt::write(model)?.into_bytes(),
    })
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`, so
/// that an interrupted write never leaves a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", path.display()).into());
    }
    Ok(())
}
