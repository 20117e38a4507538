//! Reading input files: GOM binary through the strict reader, everything else through
//! the importers, all into one [`gom::Model`].

use std::error::Error;
use std::fs::File;
use std::path::Path;

/// The CLI's error type: any library error, shown as its sentence.
pub type CliError = Box<dyn Error + Send + Sync>;

/// Reads `path` into memory.
///
/// The file is read rather than memory-mapped: a map would let another process change
/// or truncate the bytes under a live `&[u8]`, which is undefined behaviour, not a read
/// error, and the readers copy what they keep anyway.
pub fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| {
        gom_import::source::ImportError::Io {
            path: path.to_path_buf(),
            source,
        }
        .into()
    })
}

/// `error`'s sentence without the leading `path: ` it starts with when it names the
/// file, for lines that print the path themselves.
pub fn reason(path: &Path, error: &dyn std::fmt::Display) -> String {
    let text = error.to_string();
    let prefix = format!("{}: ", path.display());
    match text.strip_prefix(&prefix) {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// A model loaded for inspection, with what its reader had to say.
pub struct Loaded {
    /// The model.
    pub model: gom::Model,
    /// Reader and importer warnings (unknown chunks skipped, things GOM cannot hold).
    pub warnings: Vec<String>,
    /// Validation findings.
    pub findings: Vec<gom::validate::Finding>,
    /// Images the import extracted (embedded in the source, or a `.tmd`'s `.tml`),
    /// by the names the materials use.
    pub side_files: Vec<gom_import::source::SideFile>,
}

/// Loads any model gom reads: GOM binary through the strict reader (keeping its
/// validation findings), everything else through the importers with `options` (a
/// `.tmd`'s `--tkl` and `--tml`).
pub fn load(path: &Path, options: &gom_import::source::ImportOptions) -> Result<Loaded, CliError> {
    match gom_import::source::SourceFormat::of_path(path).or_else(|| sniff(path)) {
        Some(gom_import::source::SourceFormat::Gomb) => {
            let bytes = read(path)?;
            if bytes.is_empty() {
                return Err(format!("{}: the file is empty", path.display()).into());
            }
            let read = gom::gomb::read(&bytes).map_err(|source| {
                gom_import::source::ImportError::Gomb {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
            let warnings = read.unknown_chunks.iter().map(|u| u.to_string()).collect();
            Ok(Loaded {
                model: read.model,
                warnings,
                findings: read.findings,
                side_files: Vec::new(),
            })
        }
        _ => {
            let imported = gom_import::source::import_path(path, options)?;
            let mut model = imported.model;
            // What a GOM file written from this model would claim.
            model.header.validation_flags = gom::validate::flags_for(&model);
            let findings = gom::validate::validate(&model);
            Ok(Loaded {
                model,
                warnings: imported.warnings,
                findings,
                side_files: imported.side_files,
            })
        }
    }
}

/// Guesses a GOM file's kind from its first 8 bytes.
fn sniff(path: &Path) -> Option<gom_import::source::SourceFormat> {
    use std::io::Read;
    let mut magic = [0u8; 8];
    File::open(path).ok()?.read_exact(&mut magic).ok()?;
    match &magic {
        b"GOMB0001" => Some(gom_import::source::SourceFormat::Gomb),
        b"GOMT0001" => Some(gom_import::source::SourceFormat::Gomt),
        _ => None,
    }
}
