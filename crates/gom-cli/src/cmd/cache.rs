//! `gom cache stats|prune`: the size and age of a shared build cache, and trimming it.

use crate::input::CliError;
use gom_import::build::cache::Cache;
use std::path::PathBuf;
use std::process::ExitCode;

/// `gom cache` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Number, total size and age of the cache's entries.
    Stats(Target),
    /// Remove the least recently used entries until the cache holds at most SIZE.
    Prune {
        #[command(flatten)]
        target: Target,
        /// The largest size to keep: bytes, or a number with K, M, G or T (powers of
        /// 1024, optionally followed by B or iB), such as 500M or 20G.
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_size: u64,
    },
}

/// Which cache, and how to print.
#[derive(clap::Args)]
pub struct Target {
    /// The cache folder (default: GOM_CACHE_DIR).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

impl Target {
    fn open(&self) -> Result<Cache, CliError> {
        let dir = super::build::cache_dir(self.cache.as_ref())
            .ok_or("no cache folder: give --cache DIR or set GOM_CACHE_DIR")?;
        if !dir.is_dir() {
            return Err(format!("{}: no such cache folder", dir.display()).into());
        }
        Ok(Cache::open(&dir)?)
    }
}

/// Runs `gom cache`.
pub fn run(command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::Stats(target) => {
            let stats = target.open()?.stats();
            if target.json {
                println!("{}", serde_json::to_string_pretty(&stats)?);
            } else {
                print_stats(&stats);
            }
        }
        Command::Prune { target, max_size } => {
            let pruned = target.open()?.prune(max_size);
            if target.json {
                println!("{}", serde_json::to_string_pretty(&pruned)?);
            } else {
                println!(
                    "removed {} ({}), {} abandoned temporary",
                    super::plural(pruned.removed as usize, "entry", "entries"),
                    size(pruned.freed),
                    pruned.temporary_files
                );
                print_stats(&pruned.left);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_stats(s: &gom_import::build::cache::Stats) {
    let age = |a: Option<u64>| a.map_or("-".to_string(), |s| format!("{s} s ago"));
    println!("{:<16} {}", "entries", s.entries);
    println!("{:<16} {}", "size", size(s.bytes));
    println!("{:<16} {}", "least recent", age(s.oldest_seconds));
    println!("{:<16} {}", "most recent", age(s.newest_seconds));
    println!("{:<16} {}", "temporary files", s.temporary_files);
}

/// A byte count with its binary unit: `1.5 MiB`.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// A size: a whole number of bytes with an optional K, M, G or T suffix (powers of
/// 1024), optionally followed by `B` or `iB`, in either case. Hand-written: one small
/// grammar does not justify a dependency.
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (number, unit) = t.split_at(digits);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{text}': expected a size such as 500M or 20G"))?;
    let unit = unit.trim().to_ascii_uppercase();
    let unit = unit
        .strip_suffix("IB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("'{text}': unknown unit (expected K, M, G or T)")),
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}': too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("500M"), Ok(500 * 1024 * 1024));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("3KiB"), Ok(3072));
        assert_eq!(parse_size("1TB"), Ok(1 << 40));
        for bad in ["", "M", "12Q", "1.5G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_print_with_their_unit() {
        assert_eq!(size(1000), "1000 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(3 << 30), "3.0 GiB");
    }
}
