//! Checks made before anything is converted: no output may be one of the inputs, and
//! no two sources may share one output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What identifies a file on disk, whatever path names it: through symbolic links,
/// hard links, `..` and, on a case-insensitive file system, any spelling of its name.
///
/// Hand-written rather than `same_file::Handle`, which keeps every file open: a build
/// compares the outputs against every source of a folder at once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct FileId(#[cfg(unix)] (u64, u64), #[cfg(not(unix))] String);

impl FileId {
    /// The identity of the existing file at `path`, or `None` when there is none.
    fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId((m.dev(), m.ino())))
        }
        #[cfg(not(unix))]
        {
            // The file systems of the other platforms gom runs on ignore case.
            let canonical = std::fs::canonicalize(path).ok()?;
            Some(FileId(canonical.to_string_lossy().to_lowercase()))
        }
    }
}

/// The files a build or a conversion reads, to refuse any output that would write
/// over one of them.
#[derive(Debug, Default)]
pub struct Inputs {
    by_id: BTreeMap<FileId, PathBuf>,
}

impl Inputs {
    /// The existing files among `paths` (missing ones cannot be written over).
    pub fn new(paths: impl IntoIterator<Item = PathBuf>) -> Inputs {
        let mut by_id = BTreeMap::new();
        for p in paths {
            if let Some(id) = FileId::of(&p) {
                by_id.entry(id).or_insert(p);
            }
        }
        Inputs { by_id }
    }

    /// The input that writing `output` would replace, if any. An output that does not
    /// exist yet is no input; one that does (under any spelling) is compared by
    /// identity.
    pub fn overwritten_by(&self, output: &Path) -> Option<&Path> {
        let id = FileId::of(output)?;
        self.by_id.get(&id).map(PathBuf::as_path)
    }

    /// The first of `outputs` that would replace an input, with that input.
    pub fn first_overwritten<'a>(
        &self,
        outputs: impl IntoIterator<Item = &'a Path>,
    ) -> Option<(PathBuf, PathBuf)> {
        outputs.into_iter().find_map(|o| {
            self.overwritten_by(o)
                .map(|i| (o.to_path_buf(), i.to_path_buf()))
        })
    }
}

/// Whether the file system holding `dir` (an existing folder) ignores case in names:
/// probed by creating a file with a lower-case name and looking it up in upper case.
/// Unknown (the probe cannot be written) counts as case-sensitive.
pub fn ignores_case(dir: &Path) -> bool {
    let name = format!(".gom-case-probe-{}", std::process::id());
    let lower = dir.join(&name);
    if std::fs::write(&lower, b"").is_err() {
        return false;
    }
    let found = dir.join(name.to_uppercase()).exists();
    let _ = std::fs::remove_file(&lower);
    found
}

/// Groups source indices by the output they map to (`outputs[i]` is source `i`'s
/// output path relative to the output folder, compared without case when
/// `ignore_case`): every group of two or more is a collision. Returned in the order of
/// each group's first source.
pub fn collisions(outputs: &[String], ignore_case: bool) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, o) in outputs.iter().enumerate() {
        let key = if ignore_case {
            o.to_lowercase()
        } else {
            o.clone()
        };
        groups.entry(key).or_default().push(i);
    }
    let mut out: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_reached_through_a_symbolic_link_or_dot_dot_is_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("model.gltf");
        std::fs::write(&src, b"{}").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let inputs = Inputs::new([src.clone()]);
        let dotted = dir.path().join("sub/../model.gltf");
        assert_eq!(inputs.overwritten_by(&dotted), Some(src.as_path()));
        #[cfg(unix)]
        {
            let link = dir.path().join("sub/link.gltf");
            std::os::unix::fs::symlink(&src, &link).unwrap();
            assert_eq!(inputs.overwritten_by(&link), Some(src.as_path()));
        }
        let other = dir.path().join("model.gom");
        assert_eq!(inputs.overwritten_by(&other), None, "missing file");
        std::fs::write(&other, b"x").unwrap();
        assert_eq!(inputs.overwritten_by(&other), None, "a different file");
    }

    #[test]
    fn the_case_probe_agrees_with_the_file_system() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("abc");
        std::fs::write(&file, b"").unwrap();
        let expected = dir.path().join("ABC").exists();
        assert_eq!(ignores_case(dir.path()), expected);
        // The probe leaves nothing behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn sources_sharing_an_output_are_grouped() {
        let outs: Vec<String> = ["a/x.gom", "b.gom", "a/x.gom", "B.gom", "c.gom"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(collisions(&outs, false), vec![vec![0, 2]]);
        assert_eq!(collisions(&outs, true), vec![vec![0, 2], vec![1, 3]]);
    }
}
