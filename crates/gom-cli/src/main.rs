//! `gom`: convert, validate, inspect, pose, render and batch-build game models.
//!
//! This binary holds argument parsing, progress and reporting only; every format rule
//! lives in the library crates.
// Unsafe code is denied everywhere but in one place: restoring SIGPIPE's default
// action (`end_quietly_on_closed_output`), which has no safe interface in std.
#![deny(unsafe_code)]

mod cmd;
mod input;
mod output;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// Game models, loaded instantly and animated safely.
#[derive(Parser)]
#[command(name = "gom", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a model: skeleton, meshes, materials, clips, flags and warnings.
    Info(cmd::info::Args),
    /// Check files against GOM v1: exit 0 when valid, 1 with findings, 2 when unreadable.
    Validate(cmd::validate::Args),
    /// Convert between formats, chosen by extension (`--to` for a name without one).
    Convert(cmd::convert::Args),
    /// Build the procedural demo model and write it in every output format.
    Demo(cmd::demo::Args),
    /// Convert every model in a folder, in parallel and incrementally.
    Build(cmd::build::Args),
    /// Skin every mesh at one moment of a clip and write it as OBJ.
    Pose(cmd::pose::Args),
    /// Draw a model, a pose, a clip's filmstrip or a folder's contact sheet as PNG.
    Render(cmd::render::Args),
    /// Jurassic Park: Operation Genesis material libraries (.tml).
    #[command(subcommand)]
    Tml(cmd::tml::Command),
    /// Jurassic Park: Operation Genesis models (.tmd).
    #[command(subcommand)]
    Tmd(cmd::tmd::Command),
    /// Jurassic Park: Operation Genesis keyframe libraries (.tkl).
    #[command(subcommand)]
    Tkl(cmd::tkl::Command),
    /// A shared build cache: its size and age, and trimming it.
    #[command(subcommand)]
    Cache(cmd::cache::Command),
    /// Look at models in the browser, animated and skinned on the GPU.
    View(cmd::view::Args),
}

/// With `true`, lets a closed standard output end the program quietly, as Unix tools
/// do (`gom info x.gom | head -1`): Rust ignores SIGPIPE, which turns every later
/// write into an error and `println!` into a panic; the default action ends the
/// process. With `false`, a write to a closed output is an error the caller handles
/// (`gom build` finishes its work and its manifest whatever becomes of its output).
#[cfg(unix)]
#[allow(unsafe_code)]
fn closed_output_ends_process(ends: bool) {
    let action = if ends { libc::SIG_DFL } else { libc::SIG_IGN };
    // SAFETY: `signal` only replaces the process's disposition of SIGPIPE with the
    // system default or with "ignore"; no handler code of ours runs, so there is no
    // signal-safety requirement. It is called on the main thread, from `main` and from
    // `gom build` before and after its workers run. `tests/messages.rs` checks that a
    // closed pipe ends `gom info` without a panic, and `tests/build.rs` that it does
    // not stop a build.
    unsafe {
        libc::signal(libc::SIGPIPE, action);
    }
}

#[cfg(not(unix))]
fn closed_output_ends_process(_ends: bool) {}

/// The arguments, with `--version` saying what was built and what this CPU runs.
fn parse_args() -> Cli {
    let matches = Cli::command().long_version(long_version()).get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// `gom --version`: the version, the commit it was built from, and the path each
/// runtime stage takes on this CPU.
fn long_version() -> String {
    let mut text = format!(
        "{} (commit {})",
        env!("CARGO_PKG_VERSION"),
        env!("GOM_COMMIT")
    );
    for p in gom_runtime::cpu::stage_paths() {
        text.push_str(&format!("\n{}: {}", p.stage, p.path));
    }
    text
}

fn main() -> ExitCode {
    closed_output_ends_process(true);
    let cli = parse_args();
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Convert(a) => cmd::convert::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Build(a) => cmd::build::run(a),
        Command::Pose(a) => cmd::pose::run(a),
        Command::Render(a) => cmd::render::run(a),
        Command::Tml(c) => cmd::tml::run(c),
        Command::Tmd(c) => cmd::tmd::run(c),
        Command::Cache(c) => cmd::cache::run(c),
        Command::Tkl(c) => cmd::tkl::run(c),
        Command::View(a) => cmd::view::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
