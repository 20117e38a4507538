//! Writing output files: the checks every command makes before it writes (no output
//! may replace a file the command reads; an output's name must say what it holds) and
//! the writing itself.

use crate::input::CliError;
use gom_import::build::{BuildError, Inputs};
use gom_import::source::{self, ImportOptions};
use std::path::{Path, PathBuf};

/// The name that writes to standard output instead of a file.
const STDOUT: &str = "-";

/// Refuses, before anything is written, any of `writes` that is one of `reads`:
/// compared by file identity (device and inode), so through symbolic and hard links,
/// `..` and, on a case-insensitive file system, any spelling. `-` (standard output)
/// is never a file read.
pub fn refuse_overwrite<'a>(
    reads: impl IntoIterator<Item = PathBuf>,
    writes: impl IntoIterator<Item = &'a Path>,
) -> Result<(), CliError> {
    let writes = writes.into_iter().filter(|w| *w != Path::new(STDOUT));
    match Inputs::new(reads).first_overwritten(writes) {
        Some((output, input)) => Err(BuildError::WouldOverwrite { output, input }.into()),
        None => Ok(()),
    }
}

/// Every file importing `input` with `options` reads: the input, its companions (a
/// `.gltf`'s buffers and images, a `.tmd`'s `.tkl` and `.tml`), the animation files and
/// the bone map.
pub fn import_reads(input: &Path, options: &ImportOptions) -> Vec<PathBuf> {
    let mut read = vec![input.to_path_buf()];
    read.extend(source::companions(input, options));
    read
}

/// Refuses an output whose extension is not one of `allowed` (compared without case),
/// so that a file's name always says what it holds; `-` (standard output) passes.
pub fn expect_extension(path: &Path, allowed: &[&str], what: &str) -> Result<(), CliError> {
    if path == Path::new(STDOUT) {
        return Ok(());
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(ext)) {
        return Ok(());
    }
    let names: Vec<String> = allowed.iter().map(|a| format!(".{a}")).collect();
    let given = if ext.is_empty() {
        "has no extension".to_string()
    } else {
        format!("ends in .{ext}")
    };
    Err(format!(
        "{}: {what} is written as {}, but the name {given}; name it so",
        path.display(),
        names.join(" or ")
    )
    .into())
}

/// Writes `bytes` to the file `path` (whole or not at all), or to standard output
/// when `path` is `-`; returns the name to report: the path, or `<standard output>`.
pub fn write(path: &Path, bytes: &[u8]) -> Result<String, CliError> {
    if path != Path::new(STDOUT) {
        gom_import::build::write_atomic(path, bytes)?;
        return Ok(path.display().to_string());
    }
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| format!("<standard output>: {e}"))?;
    Ok("<standard output>".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_must_be_one_of_those_allowed() {
        assert!(expect_extension(Path::new("a/x.PNG"), &["png"], "a picture").is_ok());
        assert!(expect_extension(Path::new("-"), &["png"], "a picture").is_ok());
        let e = expect_extension(Path::new("x.jpg"), &["png", "gif"], "an animation");
        let text = e.unwrap_err().to_string();
        assert!(
            text.contains(".png or .gif") && text.contains(".jpg"),
            "{text}"
        );
        assert!(expect_extension(Path::new("x"), &["obj"], "a pose").is_err());
    }

    #[test]
    fn standard_output_is_never_an_input() {
        let dir = std::env::temp_dir();
        let me = dir.join(format!("gom-output-test-{}", std::process::id()));
        std::fs::write(&me, b"x").unwrap();
        assert!(refuse_overwrite([me.clone()], [Path::new("-")]).is_ok());
        let refused = refuse_overwrite([me.clone()], [me.as_path()]);
        std::fs::remove_file(&me).unwrap();
        assert!(refused.is_err());
    }
}
