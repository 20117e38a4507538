//! Reading input files: GOM binary through a memory map, everything else through the
//! importers, all into one [`gom::Model`].

use std::error::Error;
use std::fs::File;
use std::path::Path;

/// The CLI's error type: any library error, shown as its sentence.
pub type CliError = Box<dyn Error + Send + Sync>;

/// A file's bytes: memory-mapped when possible, read otherwise.
pub enum Bytes {
    /// A read-only memory map.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory.
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Opens `path` and maps it into memory; empty files and files that cannot be mapped
/// are read instead.
#[allow(unsafe_code)]
pub fn open(path: &Path) -> Result<Bytes, CliError> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > 0 {
        // SAFETY: the map is read-only and lives as long as the returned `Bytes`.
        // Another process truncating or rewriting the file while it is mapped could
        // change the bytes under us (or raise SIGBUS on truncation); every reader
        // treats the bytes as untrusted input and re-checks every offset, so changed
        // bytes can only produce a read error. This is the documented contract of
        // `memmap2::Mmap::map`; `tests/cli.rs` exercises this path on real files.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Bytes::Mapped(map));
        }
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Bytes::Owned(bytes))
}

/// A model loaded for inspection, with what its reader had to say.
pub struct Loaded {
    /// The model.
    pub model: gom::Model,
    /// Reader and importer warnings (unknown chunks skipped, things GOM cannot hold).
    pub warnings: Vec<String>,
    /// Validation findings.
    pub findings: Vec<gom::validate::Finding>,
}

/// Loads any model gom reads: GOM binary through a memory map and the strict reader,
/// everything else through the importers.
pub fn load(path: &Path) -> Result<Loaded, CliError> {
    match gom_import::source::SourceFormat::of_path(path).or_else(|| sniff(path)) {
        Some(gom_import::source::SourceFormat::Gomb) => {
            let bytes = open(path)?;
            if bytes.is_empty() {
                return Err(format!("{}: the file is empty", path.display()).into());
            }
            let read = gom::gomb::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let warnings = read
                .unknown_chunks
                .iter()
                .map(|u| {
                    format!(
                        "unknown chunk '{}' ({} bytes) at offset {} skipped",
                        String::from_utf8_lossy(&u.fourcc),
                        u.size,
                        u.offset
                    )
                })
                .collect();
            Ok(Loaded {
                model: read.model,
                warnings,
                findings: read.findings,
            })
        }
        _ => {
            let imported = gom_import::source::import_path(
                path,
                &gom_import::source::ImportOptions::default(),
            )?;
            let mut model = imported.model;
            // What a GOM file written from this model would claim.
            model.header.validation_flags = gom::validate::flags_for(&model);
            let findings = gom::validate::validate(&model);
            Ok(Loaded {
                model,
                warnings: imported.warnings,
                findings,
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
