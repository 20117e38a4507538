//! `gom validate FILE...`: exit 0 when every file is valid, 1 when one has findings,
//! 2 when one cannot be read.

use crate::input::{self, CliError};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gom validate`.
#[derive(clap::Args)]
pub struct Args {
    /// The files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Runs `gom validate`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let mut worst = 0u8;
    for file in &args.files {
        if let Some(kind) = super::game_files::Library::of_path(file) {
            worst = worst.max(super::game_files::validate(file, kind));
            continue;
        }
        match input::load(file, &gom_import::source::ImportOptions::default()) {
            Err(e) => {
                println!(
                    "{}: unreadable: {}",
                    file.display(),
                    input::reason(file, &e)
                );
                worst = 2;
            }
            Ok(read) if read.findings.is_empty() => {
                println!("{}: valid", file.display());
            }
            Ok(read) => {
                println!(
                    "{}: {}",
                    file.display(),
                    super::plural(read.findings.len(), "finding", "findings")
                );
                for f in &read.findings {
                    println!("  {f}");
                }
                worst = worst.max(1);
            }
        }
    }
    Ok(ExitCode::from(worst))
}
