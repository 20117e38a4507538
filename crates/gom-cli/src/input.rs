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

/// The file kinds the CLI tells apart by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// GOMB0001 binary.
    Gomb,
    /// GOMT0001 text.
    Gomt,
}

impl Kind {
    /// The kind named by `path`'s extension or by a `--to` value.
    pub fn from_name(name: &str) -> Option<Kind> {
        match name.to_ascii_lowercase().as_str() {
            "gom" | "gomb" => Some(Kind::Gomb),
            "gomt" => Some(Kind::Gomt),
            _ => None,
        }
    }

    /// The kind of `path` by its extension.
    pub fn of_path(path: &Path) -> Option<Kind> {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(Kind::from_name)
    }
}

/// Loads a GOM model from `path` (binary or text), returning the model, the unknown
/// chunks skipped and the validation findings.
pub fn load_gom(path: &Path) -> Result<gom::gomb::Read, CliError> {
    let kind = Kind::of_path(path).or_else(|| sniff(path));
    match kind {
        Some(Kind::Gomt) => {
            let bytes = open(path)?;
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| format!("{}: not UTF-8 text: {e}", path.display()))?;
            let model = gom::gomt::read(text).map_err(|e| format!("{}: {e}", path.display()))?;
            let findings = gom::validate::validate(&model);
            Ok(gom::gomb::Read {
                model,
                unknown_chunks: Vec::new(),
                findings,
            })
        }
        _ => {
            let bytes = open(path)?;
            gom::gomb::read(&bytes).map_err(|e| format!("{}: {e}", path.display()).into())
        }
    }
}

/// Guesses the kind from the first 8 bytes.
fn sniff(path: &Path) -> Option<Kind> {
    use std::io::Read;
    let mut magic = [0u8; 8];
    File::open(path).ok()?.read_exact(&mut magic).ok()?;
    match &magic {
        b"GOMB0001" => Some(Kind::Gomb),
        b"GOMT0001" => Some(Kind::Gomt),
        _ => None,
    }
}
