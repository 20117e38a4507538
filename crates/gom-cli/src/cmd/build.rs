//! `gom build SRC OUT`: convert a whole folder, in parallel and incrementally.

use crate::input::CliError;
use gom_import::build::{self, BuildOptions, BuildReport, Outcome, Progress};
use gom_import::source::{self, ImportOptions, OutputFormat};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Arguments of `gom build`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder of source models (FBX, glTF, GOM, JPOG .tmd).
    src: PathBuf,
    /// The folder to write into, with the same relative layout.
    out: PathBuf,
    /// Worker threads (default: every core).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Output format: gom, gomt, glb or gltf.
    #[arg(long, default_value = "gom")]
    format: String,
    /// Rebuild everything, even outputs that are up to date.
    #[arg(long)]
    force: bool,
    /// Print nothing but errors and the summary.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print the report as JSON (`--report json`).
    #[arg(long, value_name = "FORMAT")]
    report: Option<String>,
    #[command(flatten)]
    import: super::ImportArgs,
}

/// Runs `gom build`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let format = OutputFormat::from_name(&args.format)
        .ok_or_else(|| format!("unknown output format '{}'", args.format))?;
    if let Some(r) = &args.report {
        if r != "json" {
            return Err(format!("unknown report format '{r}' (expected json)").into());
        }
    }
    let import: ImportOptions = args.import.options();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let options = BuildOptions {
        jobs,
        format,
        force: args.force,
        options_fingerprint: format!("format={};{}", format.extension(), import.fingerprint()),
    };

    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = Arc::clone(&cancel);
        // A second Ctrl-C while stopping falls through to the default handler.
        let _ = ctrlc::set_handler(move || {
            if cancel.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\nstopping: finishing the files in progress…");
        });
    }

    let terminal = std::io::stderr().is_terminal() && !args.quiet;
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if terminal {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} files  {msg}  {per_sec} files/s  ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
    }
    let bytes_done = std::sync::atomic::AtomicU64::new(0);
    let quiet = args.quiet;
    let report = build::run(
        &args.src,
        &args.out,
        &options,
        |path| source::convert_path(path, &import, format),
        |path| source::companions(path, &import),
        &cancel,
        |p| match p {
            Progress::Planned { files, bytes } => {
                bar.set_length(files as u64);
                if !terminal && !quiet {
                    eprintln!("{files} files, {bytes} bytes");
                }
            }
            Progress::Done(f) => {
                let done = bytes_done.fetch_add(f.bytes, Ordering::Relaxed) + f.bytes;
                bar.inc(1);
                bar.set_message(format!("{:.1} MB", done as f64 / 1e6));
                let line = match &f.outcome {
                    Outcome::Converted { warnings } if warnings.is_empty() => {
                        format!("converted {}", f.source)
                    }
                    Outcome::Converted { warnings } => {
                        format!("converted {} ({} warnings)", f.source, warnings.len())
                    }
                    Outcome::UpToDate => format!("up to date {}", f.source),
                    Outcome::Failed { error } => format!("FAILED {}: {error}", f.source),
                    Outcome::Cancelled => format!("cancelled {}", f.source),
                };
                let failed = matches!(f.outcome, Outcome::Failed { .. });
                if terminal {
                    if failed {
                        bar.println(line);
                    }
                } else if !quiet || failed {
                    eprintln!("{line}");
                }
            }
        },
    )?;
    bar.finish_and_clear();
    if args.report.is_some() {
        println!("{}", serde_json::to_string_pretty(&report.to_json())?);
    } else {
        print_summary(&report);
    }
    Ok(if report.failed() > 0 || report.cancelled() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_summary(r: &BuildReport) {
    println!("{:<12} {:>6}", "converted", r.converted());
    println!("{:<12} {:>6}", "up to date", r.up_to_date());
    println!("{:<12} {:>6}", "failed", r.failed());
    if r.cancelled() > 0 {
        println!("{:<12} {:>6}", "cancelled", r.cancelled());
    }
    println!("{:<12} {:>6}", "warnings", r.warnings());
}
