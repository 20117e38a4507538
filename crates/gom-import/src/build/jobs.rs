//! The plan of a build: its jobs, each with its companions, input hash, cache key and
//! whether its output is up to date, found without converting anything.

use super::manifest::{self, Record};
use super::plan::{collisions, ignores_case, Inputs};
use super::{cache, find_sources, rel_string, shard, BuildError, BuildOptions};
use crate::format::OutputFormat;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One source of a build and what its conversion depends on.
#[derive(Debug, Clone)]
pub struct PlannedJob {
    /// The source file.
    pub source: PathBuf,
    /// Its path relative to the source folder, with `/` separators.
    pub rel: String,
    /// The output's path relative to the output folder, with `/` separators.
    pub output_rel: String,
    /// The source's size in bytes.
    pub bytes: u64,
    /// The other files its conversion reads (found from its bytes).
    pub companions: Vec<PathBuf>,
    /// Why it is not converted: another source maps to the same output.
    pub conflict: Option<String>,
    /// The hash of the source and its companions, or why the source cannot be read.
    pub input_hash: Result<String, String>,
    /// Its cache key (none when the source cannot be read or is in conflict).
    pub cache_key: Option<String>,
    /// Whether the output is up to date (and would be skipped).
    pub up_to_date: bool,
    /// The options fingerprint its output is recorded with: the build's, and what the
    /// source's own options (its configs) add.
    pub fingerprint: String,
}

/// The jobs of a build (of its shard, when sharded), sorted by source path, and what
/// running them needs.
#[derive(Debug)]
pub struct Plan {
    /// The jobs.
    pub jobs: Vec<PlannedJob>,
    /// The records of the manifest and its parts.
    pub(crate) old: BTreeMap<String, Record>,
    /// The manifest parts found in the output folder.
    pub(crate) parts: Vec<PathBuf>,
    /// The files the build reads, which no output may replace.
    pub(crate) inputs: Inputs,
}

/// The JSON form of a [`PlannedJob`].
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct JobJson<'a> {
    source: &'a str,
    companions: Vec<String>,
    output: &'a str,
    source_bytes: u64,
    cache_key: Option<&'a str>,
    up_to_date: bool,
    error: Option<&'a str>,
}

impl Plan {
    /// The plan as JSON: the number of jobs and of those up to date, then each job's
    /// source, companions (relative to `src` where they lie inside it), output, size,
    /// cache key, whether it is up to date and why it cannot be converted.
    pub fn to_json(&self, src: &Path) -> serde_json::Value {
        let jobs: Vec<JobJson> = self
            .jobs
            .iter()
            .map(|j| JobJson {
                source: &j.rel,
                companions: j.companions.iter().map(|c| rel_string(src, c)).collect(),
                output: &j.output_rel,
                source_bytes: j.bytes,
                cache_key: j.cache_key.as_deref(),
                up_to_date: j.up_to_date,
                error: j
                    .conflict
                    .as_deref()
                    .or(j.input_hash.as_ref().err().map(String::as_str)),
            })
            .collect();
        serde_json::json!({
            "files": self.jobs.len(),
            "upToDate": self.jobs.iter().filter(|j| j.up_to_date).count(),
            "jobs": jobs,
        })
    }
}

/// Plans a build of `src` into `out` without converting or writing anything: lists
/// the sources (only those of `options.shard`, when set), reads each once for its
/// companions and input hash, and compares them with the manifest.
pub fn plan<D>(
    src: &Path,
    out: &Path,
    options: &BuildOptions,
    companions: D,
) -> Result<Plan, BuildError>
where
    D: Fn(&Path, &[u8]) -> Vec<PathBuf> + Sync,
{
    plan_with(src, out, options, companions, |_| None)
}

/// [`plan`], with `job_options` giving what a source's own options add to the build's
/// options fingerprint (`None`: nothing).
pub fn plan_with<D, F>(
    src: &Path,
    out: &Path,
    options: &BuildOptions,
    companions: D,
    job_options: F,
) -> Result<Plan, BuildError>
where
    D: Fn(&Path, &[u8]) -> Vec<PathBuf> + Sync,
    F: Fn(&Path) -> Option<String> + Sync,
{
    if Inputs::new([src.to_path_buf()])
        .overwritten_by(out)
        .is_some()
    {
        return Err(BuildError::OutputIsSource {
            out: out.to_path_buf(),
            src: src.to_path_buf(),
        });
    }
    let old = manifest::load_merged(out);
    refuse_sources_in_output(src, out, &old)?;
    let sources = find_sources(src, Some(out))?;
    let all = list_jobs(src, out, options.format, &sources);
    let mut jobs = keep_shard(all, options.shard);
    super::pool(options.jobs)?.install(|| {
        use rayon::prelude::*;
        jobs.par_iter_mut().for_each(|job| {
            job.fingerprint = match job_options(&job.source) {
                None => options.options_fingerprint.clone(),
                Some(own) => format!("{};file={own}", options.options_fingerprint),
            };
            inspect(job, &companions, options, &old, out)
        });
    });
    let inputs = Inputs::new(
        sources
            .iter()
            .chain(jobs.iter().flat_map(|j| &j.companions))
            .cloned(),
    );
    check_overwrites(&jobs, &inputs, out, options.format)?;
    Ok(Plan {
        jobs,
        old,
        parts: manifest::parts(out),
        inputs,
    })
}

/// Refuses an output folder inside the source folder that holds model files no build
/// wrote there (its manifest's outputs): the walk of the sources leaves the output
/// folder out, and they would be skipped without a word.
fn refuse_sources_in_output(
    src: &Path,
    out: &Path,
    old: &BTreeMap<String, Record>,
) -> Result<(), BuildError> {
    if !super::output_inside_source(src, out) {
        return Ok(());
    }
    let written: std::collections::BTreeSet<&str> =
        old.values().map(|r| r.output.as_str()).collect();
    let strays: Vec<PathBuf> = find_sources(out, None)?
        .into_iter()
        .filter(|p| !written.contains(rel_string(out, p).as_str()))
        .collect();
    match strays.first() {
        None => Ok(()),
        Some(first) => Err(BuildError::SourcesInOutput {
            out: out.to_path_buf(),
            src: src.to_path_buf(),
            count: strays.len(),
            first: first.clone(),
        }),
    }
}

/// One job per source, in source order; sources that map to the same output
/// (`x.fbx` and `x.gltf` → `x.gom`) are marked as conflicts, naming each other, and
/// are not converted.
fn list_jobs(src: &Path, out: &Path, format: OutputFormat, sources: &[PathBuf]) -> Vec<PlannedJob> {
    let mut jobs: Vec<PlannedJob> = sources
        .iter()
        .map(|s| {
            let rel = rel_string(src, s);
            let out_path = Path::new(&rel).with_extension(format.extension());
            PlannedJob {
                source: s.clone(),
                output_rel: rel_string(Path::new(""), &out_path),
                rel,
                bytes: std::fs::metadata(s).map(|m| m.len()).unwrap_or(0),
                companions: Vec::new(),
                conflict: None,
                input_hash: Err(String::new()),
                cache_key: None,
                up_to_date: false,
                fingerprint: String::new(),
            }
        })
        .collect();
    let outputs: Vec<String> = jobs.iter().map(|j| j.output_rel.clone()).collect();
    for group in collisions(&outputs, ignores_case(out)) {
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

/// The jobs of `shard` among `jobs` (all of them when there is no shard). Every
/// machine computes the same assignment from the same source list.
fn keep_shard(jobs: Vec<PlannedJob>, shard: Option<shard::Shard>) -> Vec<PlannedJob> {
    let Some(shard) = shard else {
        return jobs;
    };
    let sizes: Vec<(&str, u64)> = jobs.iter().map(|j| (j.rel.as_str(), j.bytes)).collect();
    let assigned = shard::assign(&sizes, shard.count);
    jobs.into_iter()
        .zip(assigned)
        .filter(|(_, s)| s + 1 == shard.index)
        .map(|(j, _)| j)
        .collect()
}

/// Reads `job`'s source once: its companions (from those bytes), its input hash, its
/// cache key, and whether the manifest's record says its output is up to date.
fn inspect(
    job: &mut PlannedJob,
    companions: &(impl Fn(&Path, &[u8]) -> Vec<PathBuf> + Sync),
    options: &BuildOptions,
    old: &BTreeMap<String, Record>,
    out: &Path,
) {
    if job.conflict.is_some() {
        return;
    }
    let bytes = match std::fs::read(&job.source) {
        Ok(b) => b,
        Err(e) => {
            job.input_hash = Err(format!("{}: {e}", job.source.display()));
            return;
        }
    };
    job.companions = companions(&job.source, &bytes);
    let hash = input_hash(&bytes, &job.companions);
    job.cache_key = Some(cache::key(
        &hash,
        &job.fingerprint,
        gom::CONVERTER_VERSION,
        &job.rel,
    ));
    job.up_to_date = !options.force
        && old
            .get(&job.rel)
            .is_some_and(|r| is_current(r, &hash, job, out));
    job.input_hash = Ok(hash);
}

/// Whether `record` describes the output `job` would now produce: same inputs, options,
/// converter and output path, the textures it read unchanged, and the output file still
/// holding the bytes recorded.
fn is_current(record: &Record, hash: &str, job: &PlannedJob, out: &Path) -> bool {
    record.input_hash == hash
        && record.options == job.fingerprint
        && record.converter == gom::CONVERTER_VERSION
        && record.output == job.output_rel
        && textures_unchanged(&record.textures, &job.source)
        && std::fs::read(out.join(&job.output_rel))
            .is_ok_and(|b| hex::encode(Sha256::digest(&b)) == record.output_hash)
        && side_files_unchanged(record, out)
}

/// Whether every side file `record` lists (beside its output in `out`) still holds
/// the bytes written.
fn side_files_unchanged(record: &Record, out: &Path) -> bool {
    let output = out.join(&record.output);
    let dir = output.parent().unwrap_or(out);
    record.side_files.iter().all(|(name, hash)| {
        std::fs::read(dir.join(name)).is_ok_and(|b| hex::encode(Sha256::digest(&b)) == *hash)
    })
}

/// The SHA-256 of each side file, by its path relative to the output's folder (with
/// `/` separators), for the manifest.
pub(crate) fn side_file_hashes(
    side_files: &[crate::imported::SideFile],
) -> BTreeMap<String, String> {
    side_files
        .iter()
        .map(|s| {
            let name = rel_string(Path::new(""), &s.relative_path);
            (name, hex::encode(Sha256::digest(&s.bytes)))
        })
        .collect()
}

/// Hashes a source's bytes together with the companion files its conversion reads.
fn input_hash(bytes: &[u8], companions: &[PathBuf]) -> String {
    let mut h = Sha256::new();
    h.update(Sha256::digest(bytes));
    for c in companions {
        if let Ok(b) = std::fs::read(c) {
            h.update(c.file_name().unwrap_or_default().as_encoded_bytes());
            h.update(Sha256::digest(&b));
        }
    }
    hex::encode(h.finalize())
}

/// The SHA-256 of each texture file `names` (relative to `source`'s folder), empty for
/// one that is absent (or that texture lookup would not read: not a regular file, or
/// too large).
pub(crate) fn texture_hashes(source: &Path, names: &[String]) -> BTreeMap<String, String> {
    let dir = source.parent().unwrap_or(Path::new("."));
    names
        .iter()
        .map(|n| {
            let hash = crate::texture::read_texture_file(&dir.join(n))
                .map(|b| hex::encode(Sha256::digest(&b)))
                .unwrap_or_default();
            (n.clone(), hash)
        })
        .collect()
}

/// Whether every texture in `recorded` (name → hash, beside `source`) still has the
/// recorded bytes (or is still absent).
pub(crate) fn textures_unchanged(recorded: &BTreeMap<String, String>, source: &Path) -> bool {
    if recorded.is_empty() {
        return true;
    }
    let names: Vec<String> = recorded.keys().cloned().collect();
    texture_hashes(source, &names) == *recorded
}

/// Refuses a plan in which an output would replace one of the files the build reads.
fn check_overwrites(
    jobs: &[PlannedJob],
    inputs: &Inputs,
    out: &Path,
    format: OutputFormat,
) -> Result<(), BuildError> {
    for job in jobs {
        let outputs = main_outputs(&out.join(&job.output_rel), format);
        if let Some((output, input)) =
            inputs.first_overwritten(outputs.iter().map(PathBuf::as_path))
        {
            return Err(BuildError::WouldOverwrite { output, input });
        }
    }
    Ok(())
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
