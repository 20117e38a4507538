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

pub mod config;
mod plan;

pub use plan::{ignores_case, Inputs};

use crate::source::{OutputFormat, SideFile, SourceFormat};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The manifest's file name inside the output folder.
pub const MANIFEST_NAME: &str = "gom-build.json";

/// What one conversion produced.
#[derive(Debug, Clone, Default)]
pub struct Converted {
    /// The main output's bytes.
    pub bytes: Vec<u8>,
    /// Files written beside the main output.
    pub side_files: Vec<SideFile>,
    /// Warnings the importer reported.
    pub warnings: Vec<String>,
}

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
}

/// How one source file fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Converted and written.
    Converted {
        /// Warnings the importer reported.
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
            Outcome::Converted { warnings } | Outcome::UpToDate { warnings } => warnings,
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

/// A source file and the companions whose bytes its output depends on.
#[derive(Debug, Clone)]
struct Job {
    source: PathBuf,
    rel: String,
    output_rel: String,
    bytes: u64,
    /// The other files its conversion reads.
    companions: Vec<PathBuf>,
    /// Why it is not converted: another source maps to the same output.
    conflict: Option<String>,
    /// What its own options add to the build's fingerprint (`None`: nothing).
    options: Option<String>,
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

fn rel_string(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Lower-case hexadecimal of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One manifest record. Fields are declared in the order they are written (sorted by
/// name), which keeps the manifest's bytes those of earlier versions.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    converter: String,
    input_hash: String,
    options: String,
    output: String,
    /// Absent from manifests of earlier versions.
    #[serde(default)]
    output_bytes: u64,
    output_hash: String,
    source: String,
    /// Absent from manifests of earlier versions.
    #[serde(default)]
    warnings: Vec<String>,
}

/// The manifest file: `entries` sorted by source path, then the format `version`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Manifest<E> {
    entries: Vec<E>,
    version: u32,
}

/// The manifest's records by source path; an unreadable manifest is an empty one, and
/// an unreadable entry is left out (its source is rebuilt).
fn load_manifest(out: &Path) -> BTreeMap<String, Record> {
    let Ok(text) = std::fs::read_to_string(out.join(MANIFEST_NAME)) else {
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

fn save_manifest(out: &Path, records: &BTreeMap<String, Record>) -> Result<(), BuildError> {
    let doc = Manifest {
        entries: records.values().collect(),
        version: 1,
    };
    // Strings and a number always serialise.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    write_atomic(&out.join(MANIFEST_NAME), text.as_bytes())
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

/// Hashes a source file together with the companion files its conversion reads.
fn input_hash(source: &Path, companions: &[PathBuf]) -> Result<String, String> {
    let mut h = Sha256::new();
    let bytes = std::fs::read(source).map_err(|e| format!("{}: {e}", source.display()))?;
    h.update(Sha256::digest(&bytes));
    for c in companions {
        if let Ok(b) = std::fs::read(c) {
            h.update(c.file_name().unwrap_or_default().as_encoded_bytes());
            h.update(Sha256::digest(&b));
        }
    }
    Ok(hex(&h.finalize()))
}

/// Converts every model under `src` into `out`.
///
/// `convert` turns one source file into output bytes; `companions` lists the other
/// files a source's conversion reads (a `.tmd`'s `.tkl` and `.tml`, a `.gltf`'s
/// buffers), so that a change to them rebuilds it. `cancel` is polled before each file:
/// once set, files not yet started are reported as cancelled. `progress` is called
/// from worker threads.
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
    D: Fn(&Path) -> Vec<PathBuf> + Sync,
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
    D: Fn(&Path) -> Vec<PathBuf> + Sync,
    F: Fn(&Path) -> Option<String>,
    P: Fn(Progress<'_>) + Sync,
{
    if let Some(file) = out.ancestors().find(|a| a.is_file()) {
        return Err(BuildError::InsideFile {
            path: out.to_path_buf(),
            file: file.to_path_buf(),
        });
    }
    std::fs::create_dir_all(out).map_err(|e| BuildError::Io {
        path: out.to_path_buf(),
        source: e,
    })?;
    if Inputs::new([src.to_path_buf()])
        .overwritten_by(out)
        .is_some()
    {
        return Err(BuildError::OutputIsSource {
            out: out.to_path_buf(),
            src: src.to_path_buf(),
        });
    }
    let sources = find_sources(src, Some(out))?;
    let old = load_manifest(out);
    let mut jobs = plan_jobs(src, out, options.format, &sources, &companions);
    for job in &mut jobs {
        job.options = job_options(&job.source);
    }
    let inputs = Inputs::new(
        jobs.iter()
            .flat_map(|j| std::iter::once(&j.source).chain(&j.companions))
            .cloned(),
    );
    for job in &jobs {
        let out_path = out.join(&job.output_rel);
        let outputs = main_outputs(&out_path, options.format);
        if let Some((output, input)) =
            inputs.first_overwritten(outputs.iter().map(PathBuf::as_path))
        {
            return Err(BuildError::WouldOverwrite { output, input });
        }
    }
    progress(Progress::Planned {
        files: jobs.len(),
        bytes: jobs.iter().map(|j| j.bytes).sum(),
    });
    let converter = gom::CONVERTER_VERSION.to_string();
    let new_records: Mutex<BTreeMap<String, Record>> = Mutex::new(BTreeMap::new());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| BuildError::Pool {
            jobs: options.jobs,
            message: e.to_string(),
        })?;
    let one = |job: &Job| -> FileReport {
        let report = |outcome, output_bytes| FileReport {
            source: job.rel.clone(),
            output: job.output_rel.clone(),
            source_bytes: job.bytes,
            output_bytes,
            outcome,
        };
        if cancel.load(Ordering::SeqCst) {
            return report(Outcome::Cancelled, 0);
        }
        if let Some(error) = &job.conflict {
            return report(
                Outcome::Failed {
                    error: error.clone(),
                },
                0,
            );
        }
        let out_path = out.join(&job.output_rel);
        let fingerprint = match &job.options {
            None => options.options_fingerprint.clone(),
            Some(own) => format!("{};file={own}", options.options_fingerprint),
        };
        let hash = match input_hash(&job.source, &job.companions) {
            Ok(h) => h,
            Err(error) => return report(Outcome::Failed { error }, 0),
        };
        if !options.force {
            if let Some(r) = old.get(&job.rel) {
                let current = std::fs::read(&out_path)
                    .ok()
                    .map(|b| hex(&Sha256::digest(&b)));
                if r.input_hash == hash
                    && r.options == fingerprint
                    && r.converter == converter
                    && r.output == job.output_rel
                    && current.as_deref() == Some(r.output_hash.as_str())
                {
                    lock(&new_records).insert(job.rel.clone(), r.clone());
                    let warnings = r.warnings.clone();
                    return report(Outcome::UpToDate { warnings }, r.output_bytes);
                }
            }
        }
        let converted = match convert(&job.source) {
            Ok(c) => c,
            Err(error) => {
                let error = error.to_string();
                return report(Outcome::Failed { error }, 0);
            }
        };
        let dir = out_path.parent().unwrap_or(out);
        let side_paths: Vec<PathBuf> = converted
            .side_files
            .iter()
            .map(|side| dir.join(&side.relative_path))
            .collect();
        if let Some((output, input)) =
            inputs.first_overwritten(side_paths.iter().map(PathBuf::as_path))
        {
            let error = BuildError::WouldOverwrite { output, input }.to_string();
            return report(Outcome::Failed { error }, 0);
        }
        for side in &converted.side_files {
            if let Err(e) = write_atomic(&dir.join(&side.relative_path), &side.bytes) {
                return report(
                    Outcome::Failed {
                        error: e.to_string(),
                    },
                    0,
                );
            }
        }
        if let Err(e) = write_atomic(&out_path, &converted.bytes) {
            return report(
                Outcome::Failed {
                    error: e.to_string(),
                },
                0,
            );
        }
        lock(&new_records).insert(
            job.rel.clone(),
            Record {
                output: job.output_rel.clone(),
                input_hash: hash,
                options: fingerprint,
                converter: converter.clone(),
                output_hash: hex(&Sha256::digest(&converted.bytes)),
                output_bytes: converted.bytes.len() as u64,
                warnings: converted.warnings.clone(),
                source: job.rel.clone(),
            },
        );
        report(
            Outcome::Converted {
                warnings: converted.warnings,
            },
            converted.bytes.len() as u64,
        )
    };
    let mut files: Vec<FileReport> = pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .map(|job| {
                let r = one(job);
                progress(Progress::Done(&r));
                r
            })
            .collect()
    });
    files.sort_by(|a, b| a.source.cmp(&b.source));
    // Keep the records of sources that still exist but were not rebuilt because the
    // build was cancelled, so that the next run can still skip them.
    let mut records = new_records.into_inner().unwrap_or_else(|p| p.into_inner());
    for f in &files {
        if f.outcome == Outcome::Cancelled {
            if let Some(r) = old.get(&f.source) {
                records.insert(f.source.clone(), r.clone());
            }
        }
    }
    save_manifest(out, &records)?;
    Ok(BuildReport { files })
}

/// One job per source, in source order, each knowing its companions; sources that
/// map to the same output (`x.fbx` and `x.gltf` → `x.gom`) are marked as conflicts,
/// naming each other, and are not converted.
fn plan_jobs(
    src: &Path,
    out: &Path,
    format: OutputFormat,
    sources: &[PathBuf],
    companions: &(impl Fn(&Path) -> Vec<PathBuf> + Sync),
) -> Vec<Job> {
    let mut jobs: Vec<Job> = sources
        .iter()
        .map(|s| {
            let rel = rel_string(src, s);
            let out_path = Path::new(&rel).with_extension(format.extension());
            let bytes = std::fs::metadata(s).map(|m| m.len()).unwrap_or(0);
            Job {
                source: s.clone(),
                output_rel: rel_string(Path::new(""), &out_path),
                rel,
                bytes,
                companions: companions(s),
                conflict: None,
                options: None,
            }
        })
        .collect();
    let outputs: Vec<String> = jobs.iter().map(|j| j.output_rel.clone()).collect();
    for group in plan::collisions(&outputs, plan::ignores_case(out)) {
        let names: Vec<&str> = group.iter().map(|&i| jobs[i].rel.as_str()).collect();
        let message = format!(
            "{} map to the same output {}; rename all but one",
            names.join(", "),
            jobs[group[0]].output_rel
        );
        for &i in &group {
            jobs[i].conflict = Some(message.clone());
        }
    }
    jobs
}

/// The files a conversion to `format` writes whatever the source holds: the output
/// and, for a `.gltf`, its `.bin` buffer.
fn main_outputs(out_path: &Path, format: OutputFormat) -> Vec<PathBuf> {
    let mut v = vec![out_path.to_path_buf()];
    if format == OutputFormat::Gltf {
        v.push(out_path.with_extension("bin"));
    }
    v
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
