//! `gom info` and `gom validate` on the game's own libraries (`.tml`, `.tkl`), which
//! hold no model of their own, and the open fields of `.tmd` models.

use crate::input::{read, reason, CliError};
use std::path::Path;

/// A game library kind `gom info` and `gom validate` describe directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// A material library.
    Tml,
    /// A keyframe library.
    Tkl,
}

impl Library {
    /// The library kind of `path`, by extension.
    pub fn of_path(path: &Path) -> Option<Library> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "tml" => Some(Library::Tml),
            "tkl" => Some(Library::Tkl),
            _ => None,
        }
    }
}

fn open_fields_text(fields: &[jpog::OpenField]) -> Vec<String> {
    fields
        .iter()
        .map(|f| {
            format!(
                "open: {} {} at offset {} = {}",
                f.record, f.field, f.offset, f.value
            )
        })
        .collect()
}

/// The open fields of a `.tmd` model (kept verbatim, meaning unknown), as lines.
pub fn tmd_open_fields(path: &Path) -> Result<Vec<String>, CliError> {
    let bytes = read(path)?;
    let tmd = jpog::Tmd::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(open_fields_text(&tmd.open_fields()))
}

/// What a library holds and which of its fields are open, as `gom info --json` gives it.
pub fn info_json(path: &Path, kind: Library) -> Result<serde_json::Value, CliError> {
    let bytes = read(path)?;
    let at = |e: jpog::Error| format!("{}: {e}", path.display());
    Ok(match kind {
        Library::Tml => {
            let tml = jpog::Tml::read(&bytes).map_err(at)?;
            serde_json::json!({
                "kind": "tml",
                "listing": jpog::ops::list_tml(&tml),
                "open_fields": tml.open_fields(),
            })
        }
        Library::Tkl => {
            let tkl = jpog::Tkl::read(&bytes).map_err(at)?;
            serde_json::json!({
                "kind": "tkl",
                "name": tkl.name(),
                "locations": tkl.locations.len(),
                "rotations": tkl.rotations.len(),
                "open_fields": tkl.open_fields(),
            })
        }
    })
}

/// Describes a library as text: what it holds and which of its fields are open.
pub fn info(path: &Path, kind: Library) -> Result<(), CliError> {
    let bytes = read(path)?;
    let at = |e: jpog::Error| format!("{}: {e}", path.display());
    match kind {
        Library::Tml => {
            let tml = jpog::Tml::read(&bytes).map_err(at)?;
            let listing = jpog::ops::list_tml(&tml);
            let open = tml.open_fields();
            println!("{} (material library)", path.display());
            println!("textures: {}", listing.textures.len());
            for t in &listing.textures {
                println!(
                    "  [{}] id {} format {}{} {}x{} ({} bytes) used by {}",
                    t.index,
                    t.id,
                    t.format,
                    if t.supported { "" } else { " (unsupported)" },
                    t.width,
                    t.height,
                    t.data_size,
                    t.materials.join(", ")
                );
            }
            println!("materials: {}", listing.materials.len());
            for m in &listing.materials {
                println!(
                    "  [{}] {} shader {} textures {:?}",
                    m.index, m.name, m.shader, m.texture_ids
                );
            }
            print_open(&open);
        }
        Library::Tkl => {
            let tkl = jpog::Tkl::read(&bytes).map_err(at)?;
            let open = tkl.open_fields();
            println!("{} (keyframe library \"{}\")", path.display(), tkl.name());
            println!("translations: {}", tkl.locations.len());
            println!("rotations: {}", tkl.rotations.len());
            print_open(&open);
        }
    }
    Ok(())
}

fn print_open(open: &[jpog::OpenField]) {
    println!("open fields (kept verbatim): {}", open.len());
    for line in open_fields_text(open) {
        println!("  {line}");
    }
}

/// Checks a library against the game's rules: 0 valid, 2 unreadable or breaking a
/// rule, with the reason printed.
pub fn validate(path: &Path, kind: Library) -> u8 {
    let result: Result<(), String> = read(path).map_err(|e| reason(path, &e)).and_then(|bytes| {
        match kind {
            Library::Tml => jpog::Tml::read(&bytes).and_then(|t| t.validate()),
            Library::Tkl => jpog::Tkl::read(&bytes).map(|_| ()),
        }
        .map_err(|e| e.to_string())
    });
    match result {
        Ok(()) => {
            println!("{}: valid", path.display());
            0
        }
        Err(e) => {
            println!("{}: unreadable: {e}", path.display());
            2
        }
    }
}
