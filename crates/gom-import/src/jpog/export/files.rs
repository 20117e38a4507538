//! Writing a model's files all or nothing: every file goes to a temporary file in its
//! destination folder first, then each is renamed over its destination; when any step
//! fails, every destination gets back what it held before (or is removed when it did
//! not exist) and every temporary file is removed. A shared keyframe library rewritten
//! in place is therefore either the old library or the new one, never half of either,
//! and a failed export leaves no new file behind.
//!
//! Hand-written because the renames must be undone as a group, which a one-file atomic
//! write cannot do.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A file that could not be written; nothing was left changed.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}; no file was written or changed", path.display())]
pub struct WriteError {
    /// The file (or folder) concerned.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_path_buf(),
        source,
    }
}

/// `dir/.NAME.PID.TAG` beside `path`.
fn beside(path: &Path, tag: &str) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.{tag}", std::process::id()));
    dir.join(name)
}

/// One destination in progress.
struct Pending<'a> {
    path: &'a Path,
    temp: PathBuf,
    /// Where the destination's previous content was moved, when it had one.
    backup: Option<PathBuf>,
    /// Whether the new file is in place.
    placed: bool,
}

/// Puts every destination back as it was, newest first, and removes the temporaries.
fn undo(pending: &mut [Pending<'_>]) {
    for p in pending.iter_mut().rev() {
        if p.placed {
            let _ = std::fs::remove_file(p.path);
        }
        if let Some(b) = p.backup.take() {
            let _ = std::fs::rename(&b, p.path);
        }
        let _ = std::fs::remove_file(&p.temp);
    }
}

/// Moves the destination aside (when it exists) and the temporary into its place.
fn place(p: &mut Pending<'_>) -> Result<(), WriteError> {
    if std::fs::symlink_metadata(p.path).is_ok_and(|m| m.is_file()) {
        let b = beside(p.path, "old");
        std::fs::rename(p.path, &b).map_err(io(p.path))?;
        p.backup = Some(b);
    }
    std::fs::rename(&p.temp, p.path).map_err(io(p.path))?;
    p.placed = true;
    Ok(())
}

/// Creates the missing folders `path` lies in, adding each to `created` (outermost
/// first).
fn make_folders(path: &Path, created: &mut Vec<PathBuf>) -> Result<(), WriteError> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    // a relative path's last ancestor is the empty path, the current folder
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .collect();
    for d in missing.into_iter().rev() {
        std::fs::create_dir(d).map_err(io(d))?;
        created.push(d.to_path_buf());
    }
    Ok(())
}

/// Writes every `(path, bytes)` or none: see the module's documentation. Missing
/// folders are created (and removed again on failure). Paths must differ.
pub fn write_all_or_nothing(files: &[(&Path, &[u8])]) -> Result<(), WriteError> {
    let mut created = Vec::new();
    let result = write_all(files, &mut created);
    if result.is_err() {
        for d in created.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
    result
}

fn write_all(files: &[(&Path, &[u8])], created: &mut Vec<PathBuf>) -> Result<(), WriteError> {
    for (i, &(path, _)) in files.iter().enumerate() {
        if files[..i].iter().any(|&(p, _)| p == path) {
            return Err(io(path)(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "named twice among the files to write",
            )));
        }
    }
    for &(path, _) in files {
        make_folders(path, created)?;
    }
    let mut pending: Vec<Pending<'_>> = Vec::with_capacity(files.len());
    for &(path, bytes) in files {
        let temp = beside(path, "tmp");
        let written = std::fs::write(&temp, bytes).map_err(io(path));
        pending.push(Pending {
            path,
            temp,
            backup: None,
            placed: false,
        });
        if let Err(e) = written {
            undo(&mut pending);
            return Err(e);
        }
    }
    for i in 0..pending.len() {
        if let Err(e) = place(&mut pending[i]) {
            undo(&mut pending);
            return Err(e);
        }
    }
    for p in &pending {
        if let Some(b) = &p.backup {
            let _ = std::fs::remove_file(b);
        }
    }
    Ok(())
}

/// The keyframe-library name `gom convert … OUT.tmd` gives a new library: `tkl_name`
/// fitted to the game's limit, else the stem of `tkl_out` fitted, else
/// [`library_name_in`] (`Ok(None)` when no name is free).
pub fn new_library_name(
    output: &Path,
    stem: &str,
    tkl_name: Option<&str>,
    tkl_out: Option<&Path>,
) -> Result<Option<String>, super::ExportError> {
    let asked = match (tkl_name, tkl_out) {
        (Some(n), _) => Some(n.to_string()),
        (None, Some(p)) => Some(
            p.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        (None, None) => None,
    };
    match asked {
        Some(n) => super::fit_name(&n, super::NameLimit::Library, false, "library name").map(Some),
        None => Ok(library_name_in(output, stem)),
    }
}

/// The keyframe-library name a new model written to `output` gets: a name of at most
/// 8 bytes made from `stem` ([`super::short_library_name`]) that no `.tkl` file in
/// `output`'s folder has (compared ignoring ASCII case, as the game's file system does),
/// unless it is the name the model already at `output` names (a conversion run again
/// keeps its library). `None` when `stem` cannot give a name.
pub fn library_name_in(output: &Path, stem: &str) -> Option<String> {
    let dir = output
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let libraries: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().map(str::to_ascii_lowercase))
                .filter_map(|n| n.strip_suffix(".tkl").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let ours = std::fs::read(output)
        .ok()
        .and_then(|b| jpog::Tmd::read(&b).ok())
        .map(|t| t.header.tkl_name().to_ascii_lowercase());
    super::short_library_name(stem, |name| {
        let name = name.to_ascii_lowercase();
        libraries.contains(&name) && ours.as_ref() != Some(&name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_library_name_is_free_in_the_folder_or_the_one_the_output_already_uses() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("RiggedFigure.tmd");
        assert_eq!(library_name_in(&out, "RiggedFigure").unwrap(), "RiggedFi");
        // another model's library takes the name (any case)
        std::fs::write(tmp.path().join("RIGGEDFI.tkl"), b"x").unwrap();
        assert_eq!(library_name_in(&out, "RiggedFigure").unwrap(), "Rigged~2");
        // the model written before names its library: run again, it keeps it
        let tmd = jpog::Tmd::new("Rigged~2").unwrap();
        std::fs::write(&out, tmd.write().unwrap()).unwrap();
        std::fs::write(tmp.path().join("Rigged~2.tkl"), b"x").unwrap();
        assert_eq!(library_name_in(&out, "RiggedFigure").unwrap(), "Rigged~2");
        // a missing folder holds nothing
        let far = tmp.path().join("none").join("Raptor.tmd");
        assert_eq!(library_name_in(&far, "Raptor").unwrap(), "Raptor");
    }

    #[test]
    fn every_file_is_written_and_old_content_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a.tkl"), tmp.path().join("b.tmd"));
        std::fs::write(&a, b"old").unwrap();
        let files: [(&Path, &[u8]); 2] = [(&a, b"new a"), (&b, b"new b")];
        write_all_or_nothing(&files).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert_eq!(std::fs::read(&b).unwrap(), b"new b");
        assert_eq!(listing(tmp.path()), ["a.tkl", "b.tmd"]);
    }

    #[test]
    fn a_failure_at_the_last_file_restores_the_first_and_leaves_nothing_new() {
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("lib.tkl");
        let fresh = tmp.path().join("new.tmd");
        // a folder where the last file should go: its rename fails after the others
        let blocked = tmp.path().join("x.tml");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(&lib, b"library").unwrap();
        let files: [(&Path, &[u8]); 3] = [(&lib, b"grown"), (&fresh, b"model"), (&blocked, b"m")];
        let err = write_all_or_nothing(&files).unwrap_err();
        assert_eq!(err.path, blocked);
        assert_eq!(std::fs::read(&lib).unwrap(), b"library");
        assert_eq!(listing(tmp.path()), ["lib.tkl", "x.tml"]);
        assert!(listing(&blocked).is_empty());
    }

    #[test]
    fn folders_made_for_a_write_that_fails_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("lib.tkl");
        std::fs::write(&lib, b"library").unwrap();
        let deep = tmp.path().join("new").join("deeper").join("x.tmd");
        let blocked = tmp.path().join("x.tml");
        std::fs::create_dir(&blocked).unwrap();
        let files: [(&Path, &[u8]); 3] = [(&lib, b"grown"), (&deep, b"m"), (&blocked, b"t")];
        assert!(write_all_or_nothing(&files).is_err());
        assert_eq!(std::fs::read(&lib).unwrap(), b"library");
        assert_eq!(listing(tmp.path()), ["lib.tkl", "x.tml"]);
        // and they are made when the write succeeds
        let files: [(&Path, &[u8]); 2] = [(&lib, b"grown"), (&deep, b"m")];
        write_all_or_nothing(&files).unwrap();
        assert_eq!(std::fs::read(&deep).unwrap(), b"m");
    }
}
