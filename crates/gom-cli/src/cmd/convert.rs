//! `gom convert IN OUT`: any format gom reads into any format it writes, chosen by
//! extension.

use crate::input::CliError;
use gom_import::source::{self, OutputFormat};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gom convert`.
#[derive(clap::Args)]
pub struct Args {
    /// The file to convert (.gom, .gomt, .fbx, .gltf, .glb, .tmd).
    input: PathBuf,
    /// Where to write the result (.gom, .gomt, .glb, .gltf, or .tmd with its .tkl and
    /// .tml beside it).
    output: PathBuf,
    /// Output format, overriding OUT's extension.
    #[arg(long)]
    to: Option<String>,
    /// Print the conversion report as JSON on stderr (`--report json`) instead of as
    /// text.
    #[arg(long, value_name = "FORMAT")]
    report: Option<String>,
    #[command(flatten)]
    import: super::ImportArgs,
    #[command(flatten)]
    tmd: super::jpog_out::TmdArgs,
}

/// Whether the output is a game model (`.tmd`, or `--to tmd`).
fn is_tmd(args: &Args) -> bool {
    let ext = args.output.extension().and_then(|e| e.to_str());
    args.to
        .as_deref()
        .or(ext)
        .is_some_and(|e| e.eq_ignore_ascii_case("tmd"))
}

/// Runs `gom convert`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if is_tmd(&args) {
        let imported = source::import_path(&args.input, &args.import.options())?;
        let import = &args.import;
        let lines = super::jpog_out::run(
            &imported,
            &args.input,
            &args.output,
            import.tkl.as_deref(),
            import.handedness,
            &args.tmd,
        )?;
        for w in imported.warnings.iter().chain(&lines) {
            eprintln!("{w}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let format = match &args.to {
        Some(name) => OutputFormat::from_name(name)
            .ok_or_else(|| format!("unknown output format '{name}'"))?,
        None => OutputFormat::of_path(&args.output).ok_or_else(|| {
            format!(
                "{}: cannot tell the output format from the extension; use --to",
                args.output.display()
            )
        })?,
    };
    let imported = source::import_path(&args.input, &args.import.options())?;
    let (bytes, exported_side_files) = source::export(&imported.model, format, &args.output)
        .map_err(|e| format!("{}: {e}", args.output.display()))?;
    let dir = args
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    for side in imported.side_files.iter().chain(&exported_side_files) {
        gom_import::build::write_atomic(&dir.join(&side.relative_path), &side.bytes)?;
    }
    gom_import::build::write_atomic(&args.output, &bytes)?;
    match args.report.as_deref() {
        Some("json") => eprintln!("{}", serde_json::to_string_pretty(&imported.report)?),
        Some(other) => return Err(format!("unknown report format '{other}'").into()),
        None => {
            for line in &imported.summary {
                eprintln!("{line}");
            }
            for w in &imported.warnings {
                eprintln!("warning: {w}");
            }
        }
    }
    eprintln!("wrote {} ({} bytes)", args.output.display(), bytes.len());
    Ok(ExitCode::SUCCESS)
}
