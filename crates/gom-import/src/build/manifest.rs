//! The build manifest (`gom-build.json`), the parts a shard writes beside it
//! (`gom-build.shard-K-of-N.json`) and their merge.
//!
//! A shard never writes the manifest itself, so shards running at once into one
//! output folder never overwrite each other's records; each writes its own part, and
//! the merge (or the next ordinary build) joins the parts into the manifest.

use super::{write_atomic, BuildError, MANIFEST_NAME};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The start of a manifest part's file name.
const PART_PREFIX: &str = "gom-build.shard-";

/// One manifest record. Fields are declared in the order they are written (sorted by
/// name), which keeps the manifest's bytes those of earlier versions.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub converter: String,
    pub input_hash: String,
    pub options: String,
    pub output: String,
    /// Absent from manifests of earlier versions.
    #[serde(default)]
    pub output_bytes: u64,
    pub output_hash: String,
    /// The files written beside the output (a `.gltf`'s buffer, images), by path
    /// relative to the output's folder, with the SHA-256 of their bytes: a side file
    /// removed or changed rebuilds the output. Written only when there are some.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub side_files: BTreeMap<String, String>,
    pub source: String,
    /// The texture files the conversion read (names relative to the source's folder)
    /// with the SHA-256 of their bytes, empty for a texture that was absent. Written
    /// only when there are some, which keeps other manifests' bytes unchanged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub textures: BTreeMap<String, String>,
    /// Absent from manifests of earlier versions.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The manifest file: `entries` sorted by source path, then the format `version`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Manifest<E> {
    entries: Vec<E>,
    version: u32,
}

/// The records of one manifest file by source path; an unreadable file is an empty
/// one, and an unreadable entry is left out (its source is rebuilt).
fn load_file(path: &Path) -> BTreeMap<String, Record> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    let Ok(doc) = serde_json::from_str::<Manifest<serde_json::Value>>(&text) else {
        return BTreeMap::new();
    };
    doc.entries
        .into_iter()
        .filter_map(|e| serde_json::from_value::<Record>(e).ok())
        .map(|r| (r.source.clone(), r))
        .collect()
}

/// The file name of shard `index` of `count`'s manifest part (both counted from 1).
pub fn part_name(index: usize, count: usize) -> String {
    format!("{PART_PREFIX}{index}-of-{count}.json")
}

/// The manifest parts in `out`, sorted by name.
pub(crate) fn parts(out: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PART_PREFIX) && n.ends_with(".json"))
        })
        .collect();
    found.sort();
    found
}

/// The manifest's records joined with those of every part in `out`: a part's record
/// replaces the manifest's for the same source (parts are written after the manifest
/// they started from); among parts, the later name wins.
pub(crate) fn load_merged(out: &Path) -> BTreeMap<String, Record> {
    let mut records = load_file(&out.join(MANIFEST_NAME));
    for part in parts(out) {
        records.extend(load_file(&part));
    }
    records
}

/// Writes `records` as the manifest file at `path`.
pub(crate) fn save(path: &Path, records: &BTreeMap<String, Record>) -> Result<(), BuildError> {
    let doc = Manifest {
        entries: records.values().collect(),
        version: 1,
    };
    // Strings and a number always serialise.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Writes the manifest of `out` and removes the parts it now holds.
pub(crate) fn save_and_drop_parts(
    out: &Path,
    records: &BTreeMap<String, Record>,
    parts: &[PathBuf],
) -> Result<(), BuildError> {
    save(&out.join(MANIFEST_NAME), records)?;
    for p in parts {
        std::fs::remove_file(p).map_err(|e| BuildError::Io {
            path: p.clone(),
            source: e,
        })?;
    }
    Ok(())
}

/// What [`merge_manifests`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// Manifest parts joined (and removed).
    pub parts: usize,
    /// Records in the manifest afterwards.
    pub records: usize,
}

/// Joins the manifest parts that shards wrote into `out` (or that were copied there
/// from other machines' output folders) into its manifest, and removes them. Linear
/// in the number of records. Records are kept whatever their sources' state: the next
/// build drops those of sources that no longer exist.
pub fn merge_manifests(out: &Path) -> Result<Merged, BuildError> {
    let found = parts(out);
    let records = load_merged(out);
    // Nothing to join: leave the folder as it is (it may not be an output folder).
    if !found.is_empty() {
        save_and_drop_parts(out, &records, &found)?;
    }
    Ok(Merged {
        parts: found.len(),
        records: records.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(source: &str, hash: &str) -> Record {
        Record {
            converter: "c".into(),
            input_hash: hash.into(),
            options: "o".into(),
            output: source.replace(".fbx", ".gom"),
            output_bytes: 1,
            output_hash: "h".into(),
            side_files: BTreeMap::new(),
            source: source.into(),
            textures: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn parts_replace_the_manifest_records_and_are_removed_by_the_merge() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        let main: BTreeMap<_, _> = [record("a.fbx", "old"), record("b.fbx", "old")]
            .into_iter()
            .map(|r| (r.source.clone(), r))
            .collect();
        save(&out.join(MANIFEST_NAME), &main).unwrap();
        let p1: BTreeMap<_, _> = [("a.fbx".to_string(), record("a.fbx", "new"))].into();
        let p2: BTreeMap<_, _> = [("c.fbx".to_string(), record("c.fbx", "new"))].into();
        save(&out.join(part_name(1, 2)), &p1).unwrap();
        save(&out.join(part_name(2, 2)), &p2).unwrap();
        let merged = merge_manifests(out).unwrap();
        assert_eq!(
            merged,
            Merged {
                parts: 2,
                records: 3
            }
        );
        assert!(parts(out).is_empty());
        let now = load_file(&out.join(MANIFEST_NAME));
        let hashes: Vec<(&str, &str)> = now
            .values()
            .map(|r| (r.source.as_str(), r.input_hash.as_str()))
            .collect();
        assert_eq!(
            hashes,
            [("a.fbx", "new"), ("b.fbx", "old"), ("c.fbx", "new")]
        );
    }

    #[test]
    fn a_record_without_textures_is_written_as_before() {
        let text = serde_json::to_string(&record("a.fbx", "x")).unwrap();
        assert!(!text.contains("textures"), "{text}");
    }
}
