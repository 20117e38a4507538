//! `gom build SRC OUT`: convert a whole folder, in parallel and incrementally; one
//! shard of it (`--shard K/N`), through a shared cache (`--cache DIR`), or only its
//! plan (`--plan`); `gom build OUT --merge-manifests` joins shards' manifest parts.

use crate::input::CliError;
use gom_import::build::shard::Shard;
use gom_import::build::{self, BuildOptions, BuildReport, FileReport, Outcome, Progress};
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
    /// The folder of source models (FBX, glTF, GOM, JPOG .tmd); with
    /// `--merge-manifests`, the output folder alone.
    src: PathBuf,
    /// The folder to write into, with the same relative layout.
    out: Option<PathBuf>,
    /// Build only shard K of N (1 <= K <= N): a deterministic share of the sources,
    /// balanced by size. Each shard writes its own manifest part.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// A shared cache of conversions (also GOM_CACHE_DIR): a hit copies the cached
    /// output instead of converting.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// List the jobs (source, companions, output, cache key, up to date) without
    /// converting or writing anything.
    #[arg(long)]
    plan: bool,
    /// With --plan: print the plan as JSON.
    #[arg(long, requires = "plan")]
    json: bool,
    /// Join the manifest parts that shards wrote into the output folder (the only
    /// path given) into its manifest.
    #[arg(long, conflicts_with_all = ["plan", "shard"])]
    merge_manifests: bool,
    /// Worker threads (default: every core).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Output format: gom, gomt, glb or gltf.
    #[arg(long, default_value = "gom")]
    format: String,
    /// Rebuild everything, even outputs that are up to date.
    #[arg(long)]
    force: bool,
    /// Print nothing but errors and the summary (not each file's warnings).
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
    if args.merge_manifests {
        return merge(&args);
    }
    let Some(out) = args.out.clone() else {
        return Err("gom build needs SRC and OUT (or OUT alone with --merge-manifests)".into());
    };
    let format = OutputFormat::from_name(&args.format).ok_or_else(|| {
        format!(
            "unknown output format '{}' (gom writes {})",
            args.format,
            super::convert::OUTPUT_FORMATS
        )
    })?;
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
        shard: args.shard,
        cache: cache_dir(args.cache.as_ref()),
    };
    if args.plan {
        return print_plan(&args, &out, &options, &import);
    }
    // The work and the manifest come first: a closed output only loses lines.
    crate::closed_output_ends_process(false);
    let report = build_all(&args, &out, &options, &import);
    crate::closed_output_ends_process(true);
    let report = report?;
    if args.report.is_some() {
        println!("{}", serde_json::to_string_pretty(&report.to_json())?);
    } else {
        print_summary(&report, args.quiet);
    }
    Ok(if report.failed() > 0 || report.cancelled() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A line on standard error that a closed output does not turn into a panic.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Converts the folder, with progress on standard error.
fn build_all(
    args: &Args,
    out: &std::path::Path,
    options: &BuildOptions,
    import: &ImportOptions,
) -> Result<BuildReport, CliError> {
    let format = options.format;
    if build::output_inside_source(&args.src, out) && !args.quiet {
        say(&format!(
            "note: the output folder {} lies inside the source folder; it is left out of \
             the sources",
            out.display()
        ));
    }

    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = Arc::clone(&cancel);
        // A second Ctrl-C while stopping falls through to the default handler.
        let _ = ctrlc::set_handler(move || {
            if cancel.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            say("\nstopping: finishing the files in progress…");
        });
    }

    let terminal = std::io::stderr().is_terminal() && !args.quiet;
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if terminal {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} files  {msg}  {rate}  ETA {eta}")
                .map(|style| {
                    style.with_key(
                        "rate",
                        |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = w.write_str(&rate(state.per_sec()));
                        },
                    )
                })
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
    }
    let bytes_done = std::sync::atomic::AtomicU64::new(0);
    let quiet = args.quiet;
    let report = build::config::run_with_configs(
        &args.src,
        out,
        options,
        import,
        |path, import| source::convert_path(path, import, format),
        source::companions_of,
        &cancel,
        |p| match p {
            Progress::Planned { files, bytes } => {
                bar.set_length(files as u64);
                if !terminal && !quiet {
                    say(&format!(
                        "{}, {}",
                        super::plural(files, "file", "files"),
                        super::plural(
                            usize::try_from(bytes).unwrap_or(usize::MAX),
                            "byte",
                            "bytes"
                        )
                    ));
                }
            }
            Progress::Done(f) => {
                let done = bytes_done.fetch_add(f.source_bytes, Ordering::Relaxed) + f.source_bytes;
                bar.inc(1);
                bar.set_message(format!("{:.1} MB", done as f64 / 1e6));
                let failed = matches!(f.outcome, Outcome::Failed { .. });
                let warned = !f.outcome.warnings().is_empty();
                let text = file_lines(f);
                if terminal {
                    if failed || warned {
                        bar.println(text);
                    }
                } else if !quiet || failed {
                    say(&text);
                }
            }
        },
    )?;
    bar.finish_and_clear();
    Ok(report)
}

/// The cache folder: `--cache`, else a non-empty `GOM_CACHE_DIR`.
pub fn cache_dir(flag: Option<&PathBuf>) -> Option<PathBuf> {
    flag.cloned().or_else(|| {
        std::env::var_os("GOM_CACHE_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

/// `gom build SRC OUT --plan [--json]`: the jobs, without converting.
fn print_plan(
    args: &Args,
    out: &std::path::Path,
    options: &BuildOptions,
    import: &ImportOptions,
) -> Result<ExitCode, CliError> {
    let plan =
        build::config::plan_with_configs(&args.src, out, options, import, source::companions_of)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&plan.to_json(&args.src))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    for job in &plan.jobs {
        let state = match (&job.conflict, &job.input_hash, job.up_to_date) {
            (Some(e), _, _) | (None, Err(e), _) => format!("cannot convert: {e}"),
            (None, Ok(_), true) => "up to date".to_string(),
            (None, Ok(_), false) => "to convert".to_string(),
        };
        println!("{} -> {}  {state}", job.rel, job.output_rel);
    }
    let up_to_date = plan.jobs.iter().filter(|j| j.up_to_date).count();
    let jobs = super::plural(plan.jobs.len(), "job", "jobs");
    println!("{jobs}, {up_to_date} up to date");
    Ok(ExitCode::SUCCESS)
}

/// `gom build OUT --merge-manifests`.
fn merge(args: &Args) -> Result<ExitCode, CliError> {
    if args.out.is_some() {
        return Err(
            "--merge-manifests takes the output folder alone: gom build OUT --merge-manifests"
                .into(),
        );
    }
    let merged = build::merge_manifests(&args.src)?;
    if merged.parts == 0 {
        println!(
            "no manifest parts in {}: nothing to merge",
            args.src.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "merged {} into {} ({})",
        super::plural(merged.parts, "manifest part", "manifest parts"),
        args.src.join(build::MANIFEST_NAME).display(),
        super::plural(merged.records, "record", "records")
    );
    Ok(ExitCode::SUCCESS)
}

/// What one file's line says, with each of its warnings on a line of its own below.
fn file_lines(f: &FileReport) -> String {
    let warnings = f.outcome.warnings();
    let mut text = match &f.outcome {
        Outcome::Converted { .. } if warnings.is_empty() => format!("converted {}", f.source),
        Outcome::Converted { .. } => format!(
            "converted {} ({})",
            f.source,
            super::plural(warnings.len(), "warning", "warnings")
        ),
        Outcome::Cached { .. } if warnings.is_empty() => format!("from cache {}", f.source),
        Outcome::Cached { .. } => format!(
            "from cache {} ({} when converted)",
            f.source,
            super::plural(warnings.len(), "warning", "warnings")
        ),
        Outcome::UpToDate { .. } if warnings.is_empty() => format!("up to date {}", f.source),
        Outcome::UpToDate { .. } => format!(
            "up to date {} ({} when converted)",
            f.source,
            super::plural(warnings.len(), "warning", "warnings")
        ),
        Outcome::Failed { error } => format!("FAILED {}: {error}", f.source),
        Outcome::Cancelled => format!("cancelled {}", f.source),
    };
    for w in warnings {
        text.push_str(&format!("\n  warning: {w}"));
    }
    text
}

/// A progress rate as the bar shows it: `12.3 files/s`.
fn rate(per_sec: f64) -> String {
    format!("{per_sec:.1} files/s")
}

fn print_summary(r: &BuildReport, quiet: bool) {
    println!("{:<12} {:>6}", "converted", r.converted());
    if r.cached() > 0 {
        println!("{:<12} {:>6}", "from cache", r.cached());
    }
    println!("{:<12} {:>6}", "up to date", r.up_to_date());
    println!("{:<12} {:>6}", "failed", r.failed());
    if r.cancelled() > 0 {
        println!("{:<12} {:>6}", "cancelled", r.cancelled());
    }
    let shown = if quiet && r.warnings() > 0 {
        "  (listed without --quiet)"
    } else {
        ""
    };
    println!("{:<12} {:>6}{shown}", "warnings", r.warnings());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_names_its_unit_once() {
        assert_eq!(rate(271.892_6), "271.9 files/s");
    }

    #[test]
    fn each_warning_is_listed_under_its_file() {
        let f = FileReport {
            source: "a/x.fbx".into(),
            output: "a/x.gom".into(),
            source_bytes: 10,
            output_bytes: 20,
            outcome: Outcome::UpToDate {
                warnings: vec!["w1".into()],
            },
        };
        assert_eq!(
            file_lines(&f),
            "up to date a/x.fbx (1 warning when converted)\n  warning: w1"
        );
    }
}
