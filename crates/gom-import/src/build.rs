//! Batch conversion of a whole folder: parallel, incremental, atomic.
//!
//! [`run`] walks a source folder, converts every model it finds into an output folder
//! with the same relative layout, and keeps a manifest (`gom-build.json`) recording
//! what each output was built from: the SHA-256 of the source bytes (and of the
//! companion files it reads), a fingerprint of the options, and the converter version.
//! An output whose record still matches, and whose bytes are still those recorded, is
//! not rebuilt. Outputs are written to a temporary file and renamed, so an interrupted
//! build never leaves a half-written file. The output bytes do not depend on the number
//! of threads: each file is converted on its own, and the manifest is sorted by path.
//!
//! To spread one build over machines, [`BuildOptions::shard`] picks one of N shards
//! ([`shard`]), each of which writes a manifest part that [`merge_manifests`] (or the
//! next ordinary build) joins; [`BuildOptions::cache`] shares conversions between
//! builds through a content-addressed [`cache`]; [`plan`] lists the jobs without
//! converting.

pub mod cache;
pub mod config;
mod jobs;
mod manifest;
mod plan;
pub mod shard;

pub use jobs::{plan, plan_with, Plan, PlannedJob};
pub use manifest::{merge_manifests, part_name, Merged};
pub use plan::{ignores_case, Inputs};

pub use crate::export::Converted;
use crate::format::{OutputFormat, SourceFormat};
use manifest::Record;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The manifest's file name inside the output folder.
pub const MANIFEST_NAME: &str = "gom-build.json";

/// Options of a batch build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Number of worker threads (at least 1).
    pub jobs: usize,
    /// The output format.
    pub format: OutputFormat,
    /// Rebuild everything, whatever the manifest says.
    pub force: bool,
    /// A stable text describing every option that affects the output bytes; a change
    /// rebuilds everything.
    pub options_fingerprint: String,
    /// Build only this shard's sources, and write a manifest part instead of the
    /// manifest.
    pub shard: Option<shard::Shard>,
    /// The shared cache folder, if any.
    pub cache: Option<PathBuf>,
}

/// How one source file fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Converted and written.
    Converted {
        /// Warnings the importer reported.
        warnings: Vec<String>,
    },
    /// Copied from the cache instead of converted.
    Cached {
        /// The warnings recorded when the cached output was converted.
        warnings: Vec<String>,
    },
    /// Skipped: its output is up to date.
    UpToDate {
        /// The warnings recorded when the output was converted.
        warnings: Vec<String>,
    },
    /// The conversion failed; nothing was written for it.
    Failed {
        /// The error, as a sentence.
        error: String,
    },
    /// Not started because the build was cancelled.
    Cancelled,
}

impl Outcome {
    /// The warnings of the conversion that made the output (none when it failed).
    pub fn warnings(&self) -> &[String] {
        match self {
            Outcome::Converted { warnings }
            | Outcome::Cached { warnings }
            | Outcome::UpToDate { warnings } => warnings,
            Outcome::Failed { .. } | Outcome::Cancelled => &[],
        }
    }
}

/// One source file's entry in the build report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// Source path relative to the source folder, with `/` separators.
    pub source: String,
    /// Output path relative to the output folder, with `/` separators.
    pub output: String,
    /// Source size in bytes.
    pub source_bytes: u64,
    /// Size of the output in bytes (0 when none was written or recorded).
    pub output_bytes: u64,
    /// What happened.
    pub outcome: Outcome,
}

/// The result of a batch build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// One entry per source file, sorted by source path.
    pub files: Vec<FileReport>,
}

impl BuildReport {
    /// Number of files converted.
    pub fn converted(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Converted { .. }))
    }
    /// Number of files copied from the cache.
    pub fn cached(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Cached { .. }))
    }
    /// Number of files skipped as up to date.
    pub fn up_to_date(&self) -> usize {
        self.count(|o| matches!(o, Outcome::UpToDate { .. }))
    }
    /// Number of files that failed.
    pub fn failed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Failed { .. }))
    }
    /// Number of files not started because the build was cancelled.
    pub fn cancelled(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Cancelled))
    }
    /// Total number of warnings, of the files converted now and of those up to date.
    pub fn warnings(&self) -> usize {
        self.files.iter().map(|f| f.outcome.warnings().len()).sum()
    }
    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.files.iter().filter(|r| f(&r.outcome)).count()
    }

    /// The report as JSON: the counts, then each file with its `status` and `detail`
    /// (its warnings, or the error).
    pub fn to_json(&self) -> serde_json::Value {
        let doc = BuildReportJson {
            converted: self.converted(),
            up_to_date: self.up_to_date(),
            failed: self.failed(),
            cancelled: self.cancelled(),
            cached: self.cached(),
            warnings: self.warnings(),
            files: self.files.iter().map(FileReportJson::of).collect(),
        };
        // Strings and numbers only: serialising cannot fail.
        serde_json::to_value(doc).unwrap_or_default()
    }
}

/// The JSON form of a [`BuildReport`].
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct BuildReportJson<'a> {
    converted: usize,
    up_to_date: usize,
    failed: usize,
    cancelled: usize,
    cached: usize,
    warnings: usize,
    files: Vec<FileReportJson<'a>>,
}

/// The JSON form of a [`FileReport`].
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReportJson<'a> {
    source: &'a str,
    output: &'a str,
    source_bytes: u64,
    output_bytes: u64,
    status: &'static str,
    detail: Detail<'a>,
}

/// A file's warnings, its error, or nothing.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Detail<'a> {
    Warnings(&'a [String]),
    Error(&'a str),
    None,
}

impl<'a> FileReportJson<'a> {
    fn of(f: &'a FileReport) -> Self {
        let (status, detail) = match &f.outcome {
            Outcome::Converted { warnings } => ("converted", Detail::Warnings(warnings)),
            Outcome::Cached { warnings } => ("cached", Detail::Warnings(warnings)),
            Outcome::UpToDate { warnings } => ("up-to-date", Detail::Warnings(warnings)),
            Outcome::Failed { error } => ("failed", Detail::Error(error)),
            Outcome::Cancelled => ("cancelled", Detail::None),
        };
        FileReportJson {
            source: &f.source,
            output: &f.output,
            source_bytes: f.source_bytes,
            output_bytes: f.output_bytes,
            status,
            detail,
        }
    }
}

/// Progress events, for a progress bar.
#[derive(Debug, Clone)]
pub enum Progress<'a> {
    /// The build found this many files holding this many bytes.
    Planned {
        /// Number of source files.
        files: usize,
        /// Their total size.
        bytes: u64,
    },
    /// One file is done.
    Done(&'a FileReport),
}

/// A build-level error (the source folder cannot be read, the output folder cannot
/// be created). Per-file errors are reported in [`BuildReport`] instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// An I/O error on a path.
    #[error("{path}: {source}")]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An output would replace one of the files the build reads.
    #[error(
        "{output}: writing it would replace the input {input}; choose an output that is \
         not a source or one of its companion files"
    )]
    WouldOverwrite {
        /// The output path.
        output: PathBuf,
        /// The input it names.
        input: PathBuf,
    },
    /// An output path lies inside a regular file (`out.gom/x.gom`, `out.gom` a file).
    #[error("{path}: cannot be written: {file} is a file, not a folder")]
    InsideFile {
        /// The output path.
        path: PathBuf,
        /// The regular file among its parent folders.
        file: PathBuf,
    },
    /// The output folder is the source folder.
    #[error(
        "{out}: the output folder is the source folder {src}; outputs would mix with \
         (and replace) sources, choose another folder"
    )]
    OutputIsSource {
        /// The output folder.
        out: PathBuf,
        /// The source folder.
        src: PathBuf,
    },
    /// The output folder lies inside the source folder and holds model files no
    /// build wrote there: the build leaves the output folder out of its sources, so
    /// they would be skipped without a word.
    #[error(
        "{out}: the output folder lies inside the source folder {src} and holds model \
         files that no build wrote there ({count}, the first {first}); the build leaves the \
         output folder out of its sources, so they would be skipped: move them, or choose \
         an output folder outside {src}"
    )]
    SourcesInOutput {
        /// The output folder.
        out: PathBuf,
        /// The source folder.
        src: PathBuf,
        /// How many model files it holds that are no build's outputs.
        count: usize,
        /// The first of them.
        first: PathBuf,
    },
    /// The thread pool could not be created.
    #[error("cannot start {jobs} worker threads: {message}")]
    Pool {
        /// Threads asked for.
        jobs: usize,
        /// Why it failed.
        message: String,
    },
    /// A `gom.toml` or `FILE.gom.toml` of the source tree could not be applied.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
}

/// Lists the model files under `src`, sorted, leaving out everything under `skip`
/// (the output folder, when it lies inside the source folder).
pub fn find_sources(src: &Path, skip: Option<&Path>) -> Result<Vec<PathBuf>, BuildError> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    // Folders already walked, by canonical path: a symbolic link back to an ancestor
    // must not make the walk endless.
    let mut seen = std::collections::BTreeSet::new();
    while let Some(dir) = stack.pop() {
        if !seen.insert(std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone())) {
            continue;
        }
        let entries = std::fs::read_dir(&dir).map_err(|e| BuildError::Io {
            path: dir.clone(),
            source: e,
        })?;
        let mut names: Vec<PathBuf> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| BuildError::Io {
                path: dir.clone(),
                source: e,
            })?;
            names.push(entry.path());
        }
        names.sort();
        for path in names {
            let ft = std::fs::metadata(&path).map_err(|e| BuildError::Io {
                path: path.clone(),
                source: e,
            })?;
            if ft.is_dir() {
                let skipped = skip.is_some_and(|s| {
                    std::fs::canonicalize(&path).ok() == std::fs::canonicalize(s).ok()
                });
                if !skipped {
                    stack.push(path);
                }
            } else if SourceFormat::of_path(&path).is_some() {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether the folder `out` lies inside the folder `src` (and is not `src` itself),
/// through links: the build then leaves it out of its sources.
pub fn output_inside_source(src: &Path, out: &Path) -> bool {
    match (std::fs::canonicalize(src), resolved(out)) {
        (Ok(s), Some(o)) => o != s && o.starts_with(&s),
        _ => false,
    }
}

/// `path` with its longest existing ancestor resolved through links (a folder not made
/// yet still lies where its parent is).
fn resolved(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let existing = absolute.ancestors().find(|a| a.exists())?;
    let rest = absolute.strip_prefix(existing).ok()?;
    Some(std::fs::canonicalize(existing).ok()?.join(rest))
}

fn rel_string(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
/// Errors name `path`, never the temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    let io = |e| BuildError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
        return Err(BuildError::InsideFile {
            path: path.to_path_buf(),
            file: file.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(path.file_name().unwrap_or_default());
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    if let Err(e) = std::fs::write(&tmp, bytes) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// The worker thread pool of a build.
fn pool(jobs: usize) -> Result<rayon::ThreadPool, BuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| BuildError::Pool {
            jobs,
            message: e.to_string(),
        })
}

/// Creates the output folder, refusing one inside a regular file.
fn create_out(out: &Path) -> Result<(), BuildError> {
    if let Some(file) = out.ancestors().find(|a| a.is_file()) {
        return Err(BuildError::InsideFile {
            path: out.to_path_buf(),
            file: file.to_path_buf(),
        });
    }
    std::fs::create_dir_all(out).map_err(|e| BuildError::Io {
        path: out.to_path_buf(),
        source: e,
    })
}

/// Converts every model under `src` into `out` (only those of `options.shard`, when
/// set).
///
/// `convert` turns one source file into output bytes; `companions` lists the other
/// files a source's conversion reads (a `.tmd`'s `.tkl` and `.tml`, a `.gltf`'s
/// buffers), given the source's bytes, so that a change to them rebuilds it. `cancel`
/// is polled before each file: once set, files not yet started are reported as
/// cancelled. `progress` is called from worker threads.
pub fn run<C, E, D, P>(
    src: &Path,
    out: &Path,
    options: &BuildOptions,
    convert: C,
    companions: D,
    cancel: &AtomicBool,
    progress: P,
) -> Result<BuildReport, BuildError>
where
    C: Fn(&Path) -> Result<Converted, E> + Sync,
    E: std::fmt::Display,
    D: Fn(&Path, &[u8]) -> Vec<PathBuf> + Sync,
    P: Fn(Progress<'_>) + Sync,
{
    run_planned(
        src,
        out,
        options,
        convert,
        companions,
        |_| None,
        cancel,
        progress,
    )
}

/// [`run`], with `job_options` giving what a source's own options add to the build's
/// options fingerprint (`None` for nothing).
#[allow(clippy::too_many_arguments)]
fn run_planned<C, E, D, F, P>(
    src: &Path,
    out: &Path,
    options: &BuildOptions,
    convert: C,
    companions: D,
    job_options: F,
    cancel: &AtomicBool,
    progress: P,
) -> Result<BuildReport, BuildError>
where
    C: Fn(&Path) -> Result<Converted, E> + Sync,
    E: std::fmt::Display,
    D: Fn(&Path, &[u8]) -> Vec<PathBuf> + Sync,
    F: Fn(&Path) -> Option<String> + Sync,
    P: Fn(Progress<'_>) + Sync,
{
    create_out(out)?;
    let plan = plan_with(src, out, options, companions, job_options)?;
    progress(Progress::Planned {
        files: plan.jobs.len(),
        bytes: plan.jobs.iter().map(|j| j.bytes).sum(),
    });
    let cache = options
        .cache
        .as_deref()
        .map(cache::Cache::open)
        .transpose()?;
    let run = Running {
        out,
        plan: &plan,
        cache: cache.as_ref(),
        records: Mutex::new(BTreeMap::new()),
    };
    let mut files: Vec<FileReport> = pool(options.jobs)?.install(|| {
        use rayon::prelude::*;
        plan.jobs
            .par_iter()
            .map(|job| {
                let r = if cancel.load(Ordering::SeqCst) {
                    report(job, Outcome::Cancelled, 0)
                } else {
                    run.one(job, &convert)
                };
                progress(Progress::Done(&r));
                r
            })
            .collect()
    });
    files.sort_by(|a, b| a.source.cmp(&b.source));
    // Keep the records of sources that still exist but were not rebuilt because the
    // build was cancelled, so that the next run can still skip them.
    let mut records = run.records.into_inner().unwrap_or_else(|p| p.into_inner());
    for f in &files {
        if f.outcome == Outcome::Cancelled {
            if let Some(r) = plan.old.get(&f.source) {
                records.insert(f.source.clone(), r.clone());
            }
        }
    }
    save_records(out, options.shard, &records, &plan.parts)?;
    Ok(BuildReport { files })
}

/// Writes a build's records: a shard's as its manifest part, leaving the manifest
/// and the other parts alone; a whole build's as the manifest, which then holds what
/// the parts did, so they are removed.
fn save_records(
    out: &Path,
    shard: Option<shard::Shard>,
    records: &BTreeMap<String, Record>,
    parts: &[PathBuf],
) -> Result<(), BuildError> {
    match shard {
        Some(s) => manifest::save(&out.join(part_name(s.index, s.count)), records),
        None => manifest::save_and_drop_parts(out, records, parts),
    }
}

/// A job's report entry.
fn report(job: &PlannedJob, outcome: Outcome, output_bytes: u64) -> FileReport {
    FileReport {
        source: job.rel.clone(),
        output: job.output_rel.clone(),
        source_bytes: job.bytes,
        output_bytes,
        outcome,
    }
}

/// What every job of a running build shares.
struct Running<'a> {
    out: &'a Path,
    plan: &'a Plan,
    cache: Option<&'a cache::Cache>,
    records: Mutex<BTreeMap<String, Record>>,
}

impl Running<'_> {
    /// Runs one job: skips it when up to date, copies it from the cache when there,
    /// converts it otherwise.
    fn one<C, E>(&self, job: &PlannedJob, convert: &C) -> FileReport
    where
        C: Fn(&Path) -> Result<Converted, E>,
        E: std::fmt::Display,
    {
        let failed = |error: String| report(job, Outcome::Failed { error }, 0);
        if let Some(error) = &job.conflict {
            return failed(error.clone());
        }
        let (hash, key) = match (&job.input_hash, &job.cache_key) {
            (Ok(h), Some(k)) => (h, k),
            (Err(e), _) => return failed(e.clone()),
            (Ok(_), None) => return failed(format!("{}: no cache key", job.rel)),
        };
        if job.up_to_date {
            if let Some(r) = self.plan.old.get(&job.rel) {
                lock(&self.records).insert(job.rel.clone(), r.clone());
                let warnings = r.warnings.clone();
                return report(job, Outcome::UpToDate { warnings }, r.output_bytes);
            }
        }
        let (entry, cached) = match self.cache.and_then(|c| cached(c, key, &job.source)) {
            Some(entry) => (entry, true),
            None => match convert(&job.source) {
                Ok(c) => (
                    cache::Entry {
                        textures: jobs::texture_hashes(&job.source, &c.textures),
                        bytes: c.bytes,
                        side_files: c.side_files,
                        warnings: c.warnings,
                    },
                    false,
                ),
                Err(e) => return failed(e.to_string()),
            },
        };
        if let Err(error) = self.write(job, &entry) {
            return failed(error.to_string());
        }
        if let (Some(c), false) = (self.cache, cached) {
            // The cache only saves work: a share that cannot be written (read-only,
            // full) still serves hits, and the output is already in place.
            let _ = c.put(key, &entry);
        }
        lock(&self.records).insert(job.rel.clone(), self.record(job, hash, &entry));
        let bytes = entry.bytes.len() as u64;
        let warnings = entry.warnings;
        let outcome = if cached {
            Outcome::Cached { warnings }
        } else {
            Outcome::Converted { warnings }
        };
        report(job, outcome, bytes)
    }

    /// Writes a job's output and side files, each atomically.
    fn write(&self, job: &PlannedJob, entry: &cache::Entry) -> Result<(), BuildError> {
        let out_path = self.out.join(&job.output_rel);
        let dir = out_path.parent().unwrap_or(self.out);
        let side_paths: Vec<PathBuf> = entry
            .side_files
            .iter()
            .map(|side| dir.join(&side.relative_path))
            .collect();
        // The build's sources and companions, and the textures this job read.
        let source_dir = job.source.parent().unwrap_or(Path::new("."));
        let textures = Inputs::new(entry.textures.keys().map(|t| source_dir.join(t)));
        for inputs in [&self.plan.inputs, &textures] {
            if let Some((output, input)) =
                inputs.first_overwritten(side_paths.iter().map(PathBuf::as_path))
            {
                return Err(BuildError::WouldOverwrite { output, input });
            }
        }
        for (side, path) in entry.side_files.iter().zip(&side_paths) {
            write_atomic(path, &side.bytes)?;
        }
        write_atomic(&out_path, &entry.bytes)
    }

    /// The manifest record of a job whose output `entry` was just written.
    fn record(&self, job: &PlannedJob, hash: &str, entry: &cache::Entry) -> Record {
        Record {
            output: job.output_rel.clone(),
            input_hash: hash.to_string(),
            options: job.fingerprint.clone(),
            converter: gom::CONVERTER_VERSION.to_string(),
            output_hash: hex::encode(Sha256::digest(&entry.bytes)),
            output_bytes: entry.bytes.len() as u64,
            side_files: jobs::side_file_hashes(&entry.side_files),
            textures: entry.textures.clone(),
            warnings: entry.warnings.clone(),
            source: job.rel.clone(),
        }
    }
}

/// The cache's entry for `key` when it is whole and the textures it was converted
/// with are unchanged beside `source`; a corrupt entry counts as absent (the job
/// converts and replaces it).
fn cached(cache: &cache::Cache, key: &str, source: &Path) -> Option<cache::Entry> {
    match cache.get(key) {
        cache::Lookup::Hit(e) if jobs::textures_unchanged(&e.textures, source) => Some(e),
        _ => None,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
