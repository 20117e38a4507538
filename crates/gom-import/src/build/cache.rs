//! A content-addressed cache of conversions shared by builds, machines and folders
//! (`--cache DIR` or `GOM_CACHE_DIR`), in the manner of ccache and sccache.
//!
//! An entry is keyed by [`key`]: the hash of the source's bytes and its companion
//! files' bytes, the whole options fingerprint, the converter version and the source's
//! path relative to the source folder (an output names its side files after it, and
//! warnings name it). It holds every file the conversion wrote, the warnings, and the
//! texture files the conversion read with their hashes: those are learnt only by
//! converting, so a hit also requires that each still has the recorded bytes.
//!
//! An entry is one file, `DIR/<2 hex>/<key>.gomcache`: a magic line, the SHA-256 of
//! the rest, then a JSON header and the files' bytes. It is written to a temporary
//! file with a name no other writer uses and renamed into place, so a reader sees a
//! whole entry or none, and writers of the same key (which write the same bytes)
//! merely replace each other. An entry whose recorded hash does not match its bytes
//! (corrupted, truncated) is never copied out: the build converts and replaces it.

use super::BuildError;
use crate::imported::SideFile;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// The first bytes of every entry.
const MAGIC: &[u8; 10] = b"GOMCACHE1\n";
/// The extension of entry files.
const EXT: &str = "gomcache";
/// Temporary files older than this were left by a writer that stopped; prune removes
/// them.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The cache key of a conversion (lower-case hexadecimal SHA-256).
pub fn key(input_hash: &str, options: &str, converter: &str, source_rel: &str) -> String {
    let mut h = Sha256::new();
    for part in ["gom-cache-1", input_hash, options, converter, source_rel] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex::encode(h.finalize())
}

/// What a cache entry holds: one conversion's files and what it reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The main output's bytes.
    pub bytes: Vec<u8>,
    /// The files written beside it.
    pub side_files: Vec<SideFile>,
    /// The conversion's warnings.
    pub warnings: Vec<String>,
    /// Texture files read (relative to the source's folder) → SHA-256, empty when absent.
    pub textures: BTreeMap<String, String>,
}

/// The JSON header of an entry file.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    key: String,
    /// The main output first, then the side files: path ("" for the main output),
    /// length and SHA-256.
    files: Vec<(String, u64, String)>,
    warnings: Vec<String>,
    textures: BTreeMap<String, String>,
}

/// What a lookup found.
#[derive(Debug)]
pub enum Lookup {
    /// A whole entry whose bytes match its recorded hash.
    Hit(Entry),
    /// No entry for the key.
    Miss,
    /// An entry that fails its check (the reason); it must be rebuilt.
    Corrupt(String),
}

/// A cache folder.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

/// Size and age of a cache's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Number of entries.
    pub entries: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Seconds since the least recently used entry was written or used.
    pub oldest_seconds: Option<u64>,
    /// Seconds since the most recently used entry was written or used.
    pub newest_seconds: Option<u64>,
    /// Temporary files of writes in progress or abandoned.
    pub temporary_files: u64,
}

/// What a prune removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    /// Entries removed, least recently used first.
    pub removed: u64,
    /// Bytes they held.
    pub freed: u64,
    /// Abandoned temporary files removed.
    pub temporary_files: u64,
    /// What is left.
    pub left: Stats,
}

impl Cache {
    /// The cache in `dir`, created when missing.
    pub fn open(dir: &Path) -> Result<Cache, BuildError> {
        std::fs::create_dir_all(dir).map_err(|e| BuildError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    /// The cache's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of the entry for `key`.
    pub fn entry_path(&self, key: &str) -> PathBuf {
        let prefix = key.get(..2).unwrap_or("00");
        self.dir.join(prefix).join(format!("{key}.{EXT}"))
    }

    /// The entry for `key`, checked against its recorded hash. A hit marks the entry
    /// as used now, for [`Cache::prune`].
    pub fn get(&self, key: &str) -> Lookup {
        let path = self.entry_path(key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::Miss,
            Err(e) => return Lookup::Corrupt(format!("{}: {e}", path.display())),
        };
        match decode(&bytes, key) {
            Ok(entry) => {
                touch(&path);
                Lookup::Hit(entry)
            }
            Err(reason) => Lookup::Corrupt(format!("{}: {reason}", path.display())),
        }
    }

    /// Stores `entry` under `key`, atomically.
    pub fn put(&self, key: &str, entry: &Entry) -> Result<(), BuildError> {
        let path = self.entry_path(key);
        let io = |e| BuildError::Io {
            path: path.clone(),
            source: e,
        };
        let dir = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(dir).map_err(io)?;
        let tmp = dir.join(temp_name(key));
        if let Err(e) = std::fs::write(&tmp, encode(key, entry)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        match std::fs::rename(&tmp, &path) {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                // Where renaming over an existing file is refused, another writer's
                // whole entry for the same key is as good as ours.
                match self.get(key) {
                    Lookup::Hit(_) => Ok(()),
                    _ => Err(io(e)),
                }
            }
        }
    }

    /// The entries' number, size and age.
    pub fn stats(&self) -> Stats {
        let now = SystemTime::now();
        let (entries, temps) = self.files();
        let age = |t: SystemTime| now.duration_since(t).unwrap_or_default().as_secs();
        Stats {
            entries: entries.len() as u64,
            bytes: entries.iter().map(|f| f.bytes).sum(),
            oldest_seconds: entries.iter().map(|f| f.used).min().map(age),
            newest_seconds: entries.iter().map(|f| f.used).max().map(age),
            temporary_files: temps.len() as u64,
        }
    }

    /// Removes the least recently used entries until the rest hold at most
    /// `max_bytes`, and temporary files abandoned over an hour ago.
    pub fn prune(&self, max_bytes: u64) -> Pruned {
        let now = SystemTime::now();
        let (mut entries, temps) = self.files();
        let mut pruned = Pruned::default();
        for t in temps {
            let stale = now.duration_since(t.used).unwrap_or_default() > STALE_TEMP;
            if stale && std::fs::remove_file(&t.path).is_ok() {
                pruned.temporary_files += 1;
            }
        }
        entries.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.path.cmp(&b.path)));
        let mut total: u64 = entries.iter().map(|f| f.bytes).sum();
        for f in &entries {
            if total <= max_bytes {
                break;
            }
            if std::fs::remove_file(&f.path).is_ok() {
                total -= f.bytes;
                pruned.removed += 1;
                pruned.freed += f.bytes;
            }
        }
        pruned.left = self.stats();
        pruned
    }

    /// The entry files and the temporary files, with size and time of last use.
    fn files(&self) -> (Vec<CacheFile>, Vec<CacheFile>) {
        let mut entries = Vec::new();
        let mut temps = Vec::new();
        let Ok(subs) = std::fs::read_dir(&self.dir) else {
            return (entries, temps);
        };
        for sub in subs.filter_map(Result::ok) {
            let Ok(files) = std::fs::read_dir(sub.path()) else {
                continue;
            };
            for f in files.filter_map(Result::ok) {
                let Ok(meta) = f.metadata() else { continue };
                if !meta.is_file() {
                    continue;
                }
                let name = f.file_name().to_string_lossy().into_owned();
                let file = CacheFile {
                    path: f.path(),
                    bytes: meta.len(),
                    used: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                };
                if name.starts_with('.') && name.ends_with(".tmp") {
                    temps.push(file);
                } else if name.ends_with(&format!(".{EXT}")) {
                    entries.push(file);
                }
            }
        }
        (entries, temps)
    }
}

/// One file in the cache folder.
struct CacheFile {
    path: PathBuf,
    bytes: u64,
    used: SystemTime,
}

/// A temporary file name for `key` that no other writer, in this process or another,
/// on this machine or another sharing the folder, uses at the same time: the process
/// id, the time in nanoseconds and a counter.
fn temp_name(key: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    format!(".{key}.{}.{nanos}.{n}.tmp", std::process::id())
}

/// Marks an entry as used now (best effort: a read-only cache still serves hits).
fn touch(path: &Path) {
    if let Ok(f) = std::fs::OpenOptions::new().append(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// An entry's bytes: magic, SHA-256 of the body, body (header length, header, files).
fn encode(key: &str, entry: &Entry) -> Vec<u8> {
    let files = std::iter::once(("", &entry.bytes))
        .chain(entry.side_files.iter().map(|s| {
            let p = s.relative_path.to_str().unwrap_or_default();
            (p, &s.bytes)
        }))
        .map(|(p, b)| {
            (
                p.to_string(),
                b.len() as u64,
                hex::encode(Sha256::digest(b)),
            )
        })
        .collect();
    let header = Header {
        key: key.to_string(),
        files,
        warnings: entry.warnings.clone(),
        textures: entry.textures.clone(),
    };
    // Strings and numbers always serialise.
    let header = serde_json::to_vec(&header).unwrap_or_default();
    let mut body = Vec::new();
    body.extend_from_slice(&(header.len() as u64).to_le_bytes());
    body.extend_from_slice(&header);
    body.extend_from_slice(&entry.bytes);
    for s in &entry.side_files {
        body.extend_from_slice(&s.bytes);
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&Sha256::digest(&body));
    out.extend_from_slice(&body);
    out
}

/// Whether `name` is one plain file name (no folder, no `.` or `..`).
fn is_plain_file_name(name: &str) -> bool {
    let mut parts = Path::new(name).components();
    matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(_)), None)
    )
}

/// The entry in `bytes`, which must be the entry for `key` and match its hash.
fn decode(bytes: &[u8], key: &str) -> Result<Entry, String> {
    let rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or("not a gom cache entry")?;
    if rest.len() < 40 {
        return Err("truncated".into());
    }
    let (digest, body) = rest.split_at(32);
    if Sha256::digest(body).as_slice() != digest {
        return Err("its bytes do not match its recorded hash".into());
    }
    let len = u64::from_le_bytes(body[..8].try_into().map_err(|_| "truncated")?);
    let len = usize::try_from(len).map_err(|_| "header too long")?;
    let end = len.checked_add(8).ok_or("header too long")?;
    let header = body.get(8..end).ok_or("truncated header")?;
    let header: Header = serde_json::from_slice(header).map_err(|e| format!("header: {e}"))?;
    if header.key != key {
        return Err(format!("holds the key {}", header.key));
    }
    let mut data = &body[end..];
    let mut files = Vec::new();
    for (i, (path, n, hash)) in header.files.iter().enumerate() {
        // Side files are written beside the output: a shared cache must not name a
        // path that leaves the output's folder.
        if i > 0 && !is_plain_file_name(path) {
            return Err(format!("side file {path:?} is not a plain file name"));
        }
        let n = usize::try_from(*n).map_err(|_| "file too long")?;
        if data.len() < n {
            return Err("truncated".into());
        }
        let (b, tail) = data.split_at(n);
        if hex::encode(Sha256::digest(b)) != *hash {
            return Err(format!("{path:?} does not match its recorded hash"));
        }
        files.push((path.clone(), b.to_vec()));
        data = tail;
    }
    if !data.is_empty() {
        return Err("bytes after the last file".into());
    }
    let mut files = files.into_iter();
    let (_, main) = files.next().ok_or("no output")?;
    Ok(Entry {
        bytes: main,
        side_files: files
            .map(|(p, b)| SideFile {
                relative_path: PathBuf::from(p),
                bytes: b,
            })
            .collect(),
        warnings: header.warnings,
        textures: header.textures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            bytes: b"GOMB main".to_vec(),
            side_files: vec![SideFile {
                relative_path: "m.bin".into(),
                bytes: vec![1, 2, 3],
            }],
            warnings: vec!["w".into()],
            textures: [("t.png".to_string(), "ab".to_string())].into(),
        }
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let k = key("in", "opt", "conv", "a/b.fbx");
        assert!(matches!(cache.get(&k), Lookup::Miss));
        cache.put(&k, &entry()).unwrap();
        match cache.get(&k) {
            Lookup::Hit(e) => assert_eq!(e, entry()),
            other => panic!("{other:?}"),
        }
        let s = cache.stats();
        assert_eq!((s.entries, s.temporary_files), (1, 0));
        assert_eq!(
            s.bytes,
            std::fs::metadata(cache.entry_path(&k)).unwrap().len()
        );
    }

    #[test]
    fn every_changed_or_missing_byte_is_detected() {
        let e = entry();
        let k = "k";
        let good = encode(k, &e);
        assert!(decode(&good, k).is_ok());
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x20;
            assert!(decode(&bad, k).is_err(), "byte {i} flipped");
        }
        for n in 0..good.len() {
            assert!(decode(&good[..n], k).is_err(), "cut to {n}");
        }
        assert!(decode(&good, "other").is_err());
    }

    #[test]
    fn a_side_file_naming_a_path_outside_the_output_folder_is_refused() {
        for name in ["../evil.bin", "sub/m.bin", "/tmp/m.bin", ".", ".."] {
            let mut e = entry();
            e.side_files[0].relative_path = name.into();
            let encoded = encode("k", &e);
            assert!(decode(&encoded, "k").is_err(), "{name}");
        }
    }

    #[test]
    fn a_header_length_near_the_largest_usize_is_an_error_not_an_overflow() {
        let mut body = u64::MAX.to_le_bytes().to_vec();
        body.extend_from_slice(&[0; 40]);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&Sha256::digest(&body));
        bytes.extend_from_slice(&body);
        assert!(decode(&bytes, "k").is_err());
    }

    #[test]
    fn keys_differ_in_every_part() {
        let base = key("a", "b", "c", "d");
        for k in [
            key("x", "b", "c", "d"),
            key("a", "x", "c", "d"),
            key("a", "b", "x", "d"),
            key("a", "b", "c", "x"),
            key("ab", "", "c", "d"),
        ] {
            assert_ne!(k, base);
        }
    }

    #[test]
    fn prune_removes_the_least_recently_used_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let keys: Vec<String> = (0..3).map(|i| key(&i.to_string(), "", "", "")).collect();
        let t0 = SystemTime::now() - Duration::from_secs(1000);
        for (i, k) in keys.iter().enumerate() {
            cache.put(k, &entry()).unwrap();
            let f = std::fs::OpenOptions::new()
                .append(true)
                .open(cache.entry_path(k))
                .unwrap();
            f.set_modified(t0 + Duration::from_secs(i as u64 * 10))
                .unwrap();
        }
        // Using the oldest makes it the newest.
        assert!(matches!(cache.get(&keys[0]), Lookup::Hit(_)));
        let one = std::fs::metadata(cache.entry_path(&keys[0])).unwrap().len();
        let p = cache.prune(one);
        assert_eq!((p.removed, p.freed, p.left.entries), (2, 2 * one, 1));
        assert!(cache.entry_path(&keys[0]).exists());
    }
}
