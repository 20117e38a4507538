//! Finding the images a model's materials name: among the files an import extracted
//! (images embedded in the source), else as files beside the source, read only when
//! they are regular files of bounded size. `convert`, `build`, `render` and `view`
//! all look textures up here.

use std::collections::BTreeMap;
use std::path::Path;

use crate::imported::{Imported, SideFile};

/// The textures a model's materials name: the encoded images found, by name, and
/// the names found nowhere (sorted, each once).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Textures {
    /// The encoded images found, by the name the materials use.
    pub found: BTreeMap<String, Vec<u8>>,
    /// The names neither extracted nor found as files.
    pub missing: Vec<String>,
}

/// The textures `model`'s materials name, by name: from `side_files` (images the
/// import extracted) or else the file of that name relative to `dir` (the source's
/// folder), read when it is a regular file of at most [`MAX_TEXTURE_FILE_BYTES`].
pub fn find_textures(model: &gom::Model, dir: &Path, side_files: &[SideFile]) -> Textures {
    let mut out = Textures::default();
    for name in texture_names(model) {
        let extracted = side_files
            .iter()
            .find(|s| s.relative_path == Path::new(&name))
            .map(|s| s.bytes.clone());
        match extracted.or_else(|| read_texture_file(&dir.join(&name))) {
            Some(bytes) => {
                out.found.insert(name, bytes);
            }
            None => out.missing.push(name),
        }
    }
    out
}

/// The texture names `model`'s materials use, sorted, each once.
pub fn texture_names(model: &gom::Model) -> Vec<String> {
    let mut names: Vec<String> = model
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The encoded images of the textures `model`'s materials name, by name
/// ([`find_textures`]); textures found nowhere are not listed.
pub fn texture_images(
    model: &gom::Model,
    dir: &Path,
    side_files: &[SideFile],
) -> BTreeMap<String, Vec<u8>> {
    find_textures(model, dir, side_files).found
}

/// The largest texture file [`find_textures`] reads.
pub const MAX_TEXTURE_FILE_BYTES: u64 = 256 << 20;

/// The bytes of the texture file at `path`, when it is a regular file of at most
/// [`MAX_TEXTURE_FILE_BYTES`]: a texture name comes from the model, so it may name a
/// device or a pipe that never ends, or a file far larger than any image.
pub(crate) fn read_texture_file(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_TEXTURE_FILE_BYTES {
        return None;
    }
    let mut out = Vec::new();
    file.take(MAX_TEXTURE_FILE_BYTES + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() as u64 <= MAX_TEXTURE_FILE_BYTES).then_some(out)
}

/// The texture files (names relative to the source's folder) that encoding
/// `imported` for an output in another folder reads: a glTF output embeds the
/// textures the materials name, a GOM output has them written beside it; either
/// takes them from the import's extracted images or else from files beside the
/// source, and only the latter are read.
pub fn textures_read(imported: &Imported) -> Vec<String> {
    texture_names(&imported.model)
        .into_iter()
        .filter(|n| {
            !imported
                .side_files
                .iter()
                .any(|s| s.relative_path == Path::new(n))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_files_are_read_only_when_regular_and_bounded() {
        let dir = std::env::temp_dir().join(format!("gom-texture-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("t.png");
        std::fs::write(&png, b"\x89PNG not really").unwrap();
        assert_eq!(
            read_texture_file(&png).as_deref(),
            Some(&b"\x89PNG not really"[..])
        );
        // A folder, and on Unix an endless device, are not texture files.
        assert_eq!(read_texture_file(&dir), None);
        #[cfg(unix)]
        assert_eq!(read_texture_file(Path::new("/dev/zero")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
