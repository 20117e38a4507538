//! `gom`: convert, validate, inspect, pose, render and batch-build game models.
//!
//! This binary holds argument parsing, progress and reporting only; every format rule
//! lives in the library crates.
#![deny(unsafe_code)]

mod cmd;
mod input;

use clap::{Parser, Subcommand};
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
    /// Convert between formats, chosen by extension (`--to` overrides).
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
        Command::Tkl(c) => cmd::tkl::run(c),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
