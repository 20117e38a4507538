//! Import options per folder and per file for batch builds: `gom.toml` and
//! `FILE.gom.toml`.
//!
//! A `gom.toml` in a folder of the source tree applies to every source in that folder
//! and below; `NAME.gom.toml` beside a source (`walker.fbx.gom.toml` beside
//! `walker.fbx`) applies to that source alone. Each holds any of the import options,
//! by the name of its [`ImportOptions`] field (`sample_rate = 60`, `tkl = "lib.tkl"`).
//! The options of a source are, lowest first: the built-in defaults, the command line,
//! the `gom.toml` files from the source root down to the source's folder (a deeper one
//! overriding a shallower one key by key), then the source's own config. Paths in a
//! config are relative to the config's folder.
//!
//! The overlay is generic: the options are serialised to a JSON object, each key of a
//! config replaces the field of that name, and the object is read back, so an option
//! added to [`ImportOptions`] can be set in a config with no change here. A key that
//! names no field, or a value the field cannot take, is an error naming the config
//! file, the line and the key.
//!
//! For incremental builds, the configs that apply to a source and every file its
//! options name ([`ImportOptions::named_files`], with those files' own companions) are
//! companions of its job, and the effective options take part in its fingerprint.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::{find_sources, BuildError, BuildOptions, BuildReport, Converted, Progress};
use crate::options::ImportOptions;

/// The name of a folder's config.
pub const FOLDER_CONFIG: &str = "gom.toml";
/// What a file's own config adds to the file's name.
pub const FILE_CONFIG_SUFFIX: &str = ".gom.toml";

/// Why a config could not be applied. Every message names the config file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read, or is not TOML.
    #[error("{path}: {message}", path = path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// The reader's or the TOML parser's message.
        message: String,
    },
    /// A key that names no import option.
    #[error(
        "{path}: line {line}: unknown key `{key}` (the keys are: {known})",
        path = path.display()
    )]
    UnknownKey {
        /// The config file.
        path: PathBuf,
        /// The line of the key, from 1.
        line: usize,
        /// The key.
        key: String,
        /// The known keys, comma-separated.
        known: String,
    },
    /// A value its option cannot take.
    #[error("{path}: line {line}: `{key}`: {message}", path = path.display())]
    BadValue {
        /// The config file.
        path: PathBuf,
        /// The line of the value, from 1.
        line: usize,
        /// The key.
        key: String,
        /// What is wrong with it.
        message: String,
    },
}

/// The import options of one source after its configs.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    /// The options to convert the source with.
    pub options: ImportOptions,
    /// The configs that apply, lowest precedence first.
    pub configs: Vec<PathBuf>,
}

impl Effective {
    /// The files whose bytes the source's output depends on besides the source and
    /// the companions its format brings: the configs, and the files the options name
    /// with their own companions (a `.gltf` animation's buffers).
    pub fn companions(&self) -> Vec<PathBuf> {
        let mut out = self.configs.clone();
        for (_, files) in self.options.named_files() {
            for f in files {
                out.push(f.to_path_buf());
                out.extend(crate::source::companions(f, &self.options));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The part of the job's fingerprint the configs add: `None` when no config
    /// applies (the build-wide fingerprint covers the options), else the fingerprint
    /// of the effective options.
    pub fn fingerprint(&self) -> Option<String> {
        (!self.configs.is_empty()).then(|| self.options.fingerprint())
    }
}

/// The existing configs that apply to `source` under the source root `root`, lowest
/// precedence first: `gom.toml` from `root` down to the source's folder, then
/// `SOURCE.gom.toml`. Folders above `root` are not looked in.
pub fn configs_for(root: &Path, source: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<&Path> = source
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root))
        .collect();
    folders.reverse();
    let mut out: Vec<PathBuf> = folders
        .into_iter()
        .map(|d| d.join(FOLDER_CONFIG))
        .filter(|p| p.is_file())
        .collect();
    let mut own = source.as_os_str().to_os_string();
    own.push(FILE_CONFIG_SUFFIX);
    let own = PathBuf::from(own);
    if own.is_file() {
        out.push(own);
    }
    out
}

/// Parsed configs by path, so that a config shared by many sources is read once.
#[derive(Debug, Default)]
pub struct Configs {
    parsed: BTreeMap<PathBuf, Vec<Entry>>,
}

/// One `key = value` of a config, with the line it is on.
#[derive(Debug, Clone)]
struct Entry {
    key: String,
    line: usize,
    value: serde_json::Value,
}

impl Configs {
    /// The options of `source` (under the source root `root`): `base` with every
    /// config that applies laid over it.
    pub fn effective(
        &mut self,
        root: &Path,
        source: &Path,
        base: &ImportOptions,
    ) -> Result<Effective, ConfigError> {
        let configs = configs_for(root, source);
        if configs.is_empty() {
            return Ok(Effective {
                options: base.clone(),
                configs,
            });
        }
        let mut object = match serde_json::to_value(base) {
            Ok(serde_json::Value::Object(m)) => m,
            // The options are a struct of plain values: they always serialise to an
            // object.
            _ => serde_json::Map::new(),
        };
        let path_keys: Vec<&str> = base.named_files().iter().map(|(k, _)| *k).collect();
        let mut options = base.clone();
        for config in &configs {
            for entry in self.entries(config)? {
                if !object.contains_key(&entry.key) {
                    return Err(ConfigError::UnknownKey {
                        path: config.clone(),
                        line: entry.line,
                        key: entry.key.clone(),
                        known: object.keys().cloned().collect::<Vec<_>>().join(", "),
                    });
                }
                let mut value = entry.value.clone();
                if path_keys.contains(&entry.key.as_str()) {
                    relative_to(&mut value, config.parent().unwrap_or(Path::new("")));
                }
                object.insert(entry.key.clone(), value);
                // Read back after every key, so that a bad value is blamed on its key.
                options = serde_json::from_value(serde_json::Value::Object(object.clone()))
                    .map_err(|e| ConfigError::BadValue {
                        path: config.clone(),
                        line: entry.line,
                        key: entry.key.clone(),
                        message: e.to_string(),
                    })?;
            }
        }
        Ok(Effective { options, configs })
    }

    /// The entries of `config`, in the order they appear in it.
    fn entries(&mut self, config: &Path) -> Result<Vec<Entry>, ConfigError> {
        if let Some(e) = self.parsed.get(config) {
            return Ok(e.clone());
        }
        let entries = parse(config)?;
        self.parsed.insert(config.to_path_buf(), entries.clone());
        Ok(entries)
    }
}

/// Reads a config file into its entries.
fn parse(config: &Path) -> Result<Vec<Entry>, ConfigError> {
    let read = |message: String| ConfigError::Read {
        path: config.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(config).map_err(|e| read(e.to_string()))?;
    let table: BTreeMap<String, toml::Spanned<toml::Value>> =
        toml::from_str(&text).map_err(|e| read(e.to_string().trim_end().to_string()))?;
    let mut entries: Vec<(usize, Entry)> = Vec::with_capacity(table.len());
    for (key, value) in table {
        let start = value.span().start;
        let line = text.as_bytes()[..start.min(text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        let value = serde_json::to_value(value.get_ref()).map_err(|e| ConfigError::BadValue {
            path: config.to_path_buf(),
            line,
            key: key.clone(),
            message: e.to_string(),
        })?;
        entries.push((start, Entry { key, line, value }));
    }
    entries.sort_by_key(|(start, _)| *start);
    Ok(entries.into_iter().map(|(_, e)| e).collect())
}

/// Makes the relative paths in `value` (a string or a list of strings) relative to
/// `dir` instead.
fn relative_to(value: &mut serde_json::Value, dir: &Path) {
    match value {
        serde_json::Value::String(s) => {
            let joined = dir.join(&*s);
            if let Some(t) = joined.to_str() {
                *s = t.to_string();
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| relative_to(v, dir)),
        _ => {}
    }
}

/// Every source's effective options: the configs of the source tree applied to `base`.
/// Every config is read, and every error in one reported, before anything is
/// converted.
pub struct TreeOptions {
    effective: BTreeMap<PathBuf, Effective>,
    fallback: Effective,
}

impl TreeOptions {
    /// Reads the configs that apply to each source under `src` (leaving out `out`).
    pub fn read(src: &Path, out: &Path, base: &ImportOptions) -> Result<Self, BuildError> {
        let mut configs = Configs::default();
        let mut effective = BTreeMap::new();
        for source in find_sources(src, Some(out))? {
            let e = configs.effective(src, &source, base)?;
            effective.insert(source, e);
        }
        let fallback = Effective {
            options: base.clone(),
            configs: Vec::new(),
        };
        Ok(TreeOptions {
            effective,
            fallback,
        })
    }

    /// The effective options of `source`.
    pub fn of(&self, source: &Path) -> &ImportOptions {
        &self.get(source).options
    }

    fn get(&self, source: &Path) -> &Effective {
        self.effective.get(source).unwrap_or(&self.fallback)
    }

    /// The companions of `source` (read as `bytes`) under its effective options: what
    /// `companions` lists, its configs and the files its options name.
    pub fn companions(
        &self,
        source: &Path,
        bytes: &[u8],
        companions: impl Fn(&Path, &[u8], &ImportOptions) -> Vec<PathBuf>,
    ) -> Vec<PathBuf> {
        let e = self.get(source);
        let mut all = companions(source, bytes, &e.options);
        all.extend(e.companions());
        all
    }

    /// What `source`'s configs add to the build's fingerprint (`None`: no config).
    pub fn fingerprint(&self, source: &Path) -> Option<String> {
        self.get(source).fingerprint()
    }
}

/// [`super::plan`] with the configs of the source tree applied, as
/// [`run_with_configs`] runs it.
pub fn plan_with_configs<D>(
    src: &Path,
    out: &Path,
    options: &BuildOptions,
    base: &ImportOptions,
    companions: D,
) -> Result<super::Plan, BuildError>
where
    D: Fn(&Path, &[u8], &ImportOptions) -> Vec<PathBuf> + Sync,
{
    let tree = TreeOptions::read(src, out, base)?;
    super::plan_with(
        src,
        out,
        options,
        |p, b| tree.companions(p, b, &companions),
        |p| tree.fingerprint(p),
    )
}

/// [`super::run`] with the configs of the source tree applied: each source is converted
/// with its effective options (`convert` and `companions` receive them), its configs
/// and the files its options name are companions of its job, and its effective options
/// take part in its fingerprint. Every config is read, and every error in one reported,
/// before anything is converted.
#[allow(clippy::too_many_arguments)]
pub fn run_with_configs<C, E, D, P>(
    src: &Path,
    out: &Path,
    options: &BuildOptions,
    base: &ImportOptions,
    convert: C,
    companions: D,
    cancel: &AtomicBool,
    progress: P,
) -> Result<BuildReport, BuildError>
where
    C: Fn(&Path, &ImportOptions) -> Result<Converted, E> + Sync,
    E: std::fmt::Display,
    D: Fn(&Path, &[u8], &ImportOptions) -> Vec<PathBuf> + Sync,
    P: Fn(Progress<'_>) + Sync,
{
    let tree = TreeOptions::read(src, out, base)?;
    super::run_planned(
        src,
        out,
        options,
        |p| convert(p, tree.of(p)),
        |p, b| tree.companions(p, b, &companions),
        |p| tree.fingerprint(p),
        cancel,
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn deeper_configs_override_shallower_ones_key_by_key_and_the_file_config_wins() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let source = root.join("a/b/x.fbx");
        write(&source, "");
        write(&root.join("gom.toml"), "sample_rate = 60\nlod = 1\n");
        write(
            &root.join("a/b/gom.toml"),
            "lod = 2\noptimize_meshes = false\n",
        );
        write(&root.join("a/b/x.fbx.gom.toml"), "optimize_meshes = true\n");
        write(&root.join("a/c/gom.toml"), "lod = 9\n");
        let base = ImportOptions {
            key_tolerance: 0.5,
            ..Default::default()
        };
        let e = Configs::default().effective(root, &source, &base).unwrap();
        assert_eq!(
            e.configs,
            vec![
                root.join("gom.toml"),
                root.join("a/b/gom.toml"),
                root.join("a/b/x.fbx.gom.toml")
            ]
        );
        let expected = ImportOptions {
            sample_rate: 60.0,
            lod: 2,
            optimize_meshes: true,
            key_tolerance: 0.5,
            ..Default::default()
        };
        assert_eq!(e.options, expected);
        assert_eq!(e.fingerprint(), Some(expected.fingerprint()));
    }

    #[test]
    fn without_configs_the_options_are_the_command_line_s() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("x.fbx");
        write(&source, "");
        let base = ImportOptions {
            sample_rate: 24.0,
            tkl: Some(PathBuf::from("lib.tkl")),
            ..Default::default()
        };
        let e = Configs::default()
            .effective(dir.path(), &source, &base)
            .unwrap();
        assert_eq!(e.options, base);
        assert_eq!(e.fingerprint(), None);
    }

    #[test]
    fn serialised_options_read_back_unchanged() {
        let base = ImportOptions {
            sample_rate: 29.97,
            key_tolerance: 0.000_3,
            tkl: Some(PathBuf::from("dir/lib.tkl")),
            jpog_handedness: crate::jpog::Handedness::Left,
            ..Default::default()
        };
        let value = serde_json::to_value(&base).unwrap();
        assert_eq!(
            serde_json::from_value::<ImportOptions>(value).unwrap(),
            base
        );
    }

    #[test]
    fn paths_in_a_config_are_relative_to_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let source = root.join("dinos/trex.tmd");
        write(&source, "");
        write(&root.join("dinos/gom.toml"), "tkl = \"libs/trex.tkl\"\n");
        write(&root.join("dinos/libs/trex.tkl"), "keys");
        let e = Configs::default()
            .effective(root, &source, &ImportOptions::default())
            .unwrap();
        assert_eq!(e.options.tkl, Some(root.join("dinos/libs/trex.tkl")));
        assert!(e.companions().contains(&root.join("dinos/libs/trex.tkl")));
        assert!(e.companions().contains(&root.join("dinos/gom.toml")));
    }

    #[test]
    fn an_unknown_key_names_the_file_the_line_and_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("x.fbx");
        write(&source, "");
        let config = dir.path().join("gom.toml");
        write(&config, "# options\nsample_rate = 60\n\nsampel_rate = 30\n");
        let err = Configs::default()
            .effective(dir.path(), &source, &ImportOptions::default())
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "{}: line 4: unknown key `sampel_rate`",
                config.display()
            )),
            "{text}"
        );
        assert!(text.contains("sample_rate"), "{text}");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("x.fbx");
        write(&source, "");
        let config = dir.path().join("x.fbx.gom.toml");
        write(&config, "lod = 1\njpog_handedness = \"upside-down\"\n");
        let err = Configs::default()
            .effective(dir.path(), &source, &ImportOptions::default())
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "{}: line 2: `jpog_handedness`: unknown variant `upside-down`",
                config.display()
            )),
            "{text}"
        );
    }

    #[test]
    fn a_config_that_is_not_toml_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("x.fbx");
        write(&source, "");
        let config = dir.path().join("gom.toml");
        write(&config, "sample_rate = = 3\n");
        let err = Configs::default()
            .effective(dir.path(), &source, &ImportOptions::default())
            .unwrap_err();
        assert!(matches!(err, ConfigError::Read { ref path, .. } if *path == config));
        assert!(err.to_string().contains("line 1"), "{err}");
    }
}
