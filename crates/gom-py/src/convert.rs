//! `gom.convert`, `gom.build` and `gom.validate`: the `gom convert`, `gom build` and
//! `gom validate` commands' library calls, with their reports as JSON for the Python
//! layer.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use gom_import::build::{self as batch, BuildOptions, Inputs};
use gom_import::jpog::export::{self, ExportOptions, NameLimit};
use gom_import::source::{self, ImportOptions, Imported, OutputFormat};
use pyo3::prelude::*;
use serde_json::{json, Value};

use crate::error::{GomError, Kind, Result};
use crate::load::load_model;
use crate::options::{self, TmdOptions};

/// Converts `src` into `dst` with the options of `options_json`; returns the report
/// `gom convert --report json` prints, with `written`, the files written.
#[pyfunction]
pub fn convert(py: Python<'_>, src: PathBuf, dst: PathBuf, options_json: &str) -> PyResult<String> {
    let result = py.detach(|| convert_files(&src, &dst, options_json));
    Ok(result?.to_string())
}

/// What `gom convert` writes.
enum Target {
    Model(OutputFormat),
    Tmd,
}

fn target(to: Option<&str>, dst: &Path) -> Result<Target> {
    let by_name = |name: &str| {
        if name.eq_ignore_ascii_case("tmd") {
            Some(Target::Tmd)
        } else {
            OutputFormat::from_name(name).map(Target::Model)
        }
    };
    match to {
        Some(name) => by_name(name).ok_or_else(|| {
            GomError::option(format!(
                "to: unknown output format '{name}' (gom writes gom, gomt, glb, gltf, tmd)"
            ))
        }),
        None => dst
            .extension()
            .and_then(|e| e.to_str())
            .and_then(by_name)
            .ok_or_else(|| {
                GomError::option(format!(
                    "{}: cannot tell the output format from its name; gom writes gom, gomt, \
                     glb, gltf, tmd (name the file so, or pass to=)",
                    dst.display()
                ))
                .file(dst)
            }),
    }
}

fn convert_files(src: &Path, dst: &Path, options_json: &str) -> Result<Value> {
    let options = options::parse(options_json, &["to"], true)?;
    let to = match options.rest.get("to") {
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err(GomError::option("to: expected a format name")),
        None => None,
    };
    let import = &options.import;
    match target(to, dst)? {
        Target::Tmd => {
            let imported = import_file(src, import)?;
            let (notes, written) = write_tmd(&imported, src, dst, import, &options.tmd)?;
            Ok(report(&imported, &notes, written))
        }
        Target::Model(_) if !options.tmd_given.is_empty() => Err(GomError::option(format!(
            "{} only for a .tmd output",
            options.tmd_given.join(", ")
        ))),
        Target::Model(format) => {
            let bin = dst.with_extension("bin");
            let mut planned = vec![dst];
            if format == OutputFormat::Gltf {
                planned.push(&bin);
            }
            refuse_overwrite(reads(src, import), planned)?;
            let imported = import_file(src, import)?;
            let exported = source::export_imported(&imported, src, format, dst).map_err(|e| {
                GomError::new(Kind::Export, format!("{}: {e}", dst.display())).file(dst)
            })?;
            let dir = folder(dst);
            let sides: Vec<PathBuf> = exported
                .side_files
                .iter()
                .map(|s| dir.join(&s.relative_path))
                .collect();
            refuse_overwrite(reads(src, import), sides.iter().map(PathBuf::as_path))?;
            for (side, path) in exported.side_files.iter().zip(&sides) {
                write(path, &side.bytes)?;
            }
            write(dst, &exported.bytes)?;
            let mut written = vec![dst.to_path_buf()];
            written.extend(sides);
            let notes = exported.warnings[imported.warnings.len()..].to_vec();
            Ok(report(&imported, &notes, written))
        }
    }
}

fn import_file(src: &Path, options: &ImportOptions) -> Result<Imported> {
    source::import_path(src, options).map_err(|e| GomError::import(&e))
}

/// Every file importing `src` reads.
fn reads(src: &Path, options: &ImportOptions) -> Vec<PathBuf> {
    let mut read = vec![src.to_path_buf()];
    read.extend(source::companions(src, options));
    read
}

/// Refuses any of `writes` that is one of `reads`, by file identity.
fn refuse_overwrite<'a>(
    reads: Vec<PathBuf>,
    writes: impl IntoIterator<Item = &'a Path>,
) -> Result<()> {
    match Inputs::new(reads).first_overwritten(writes) {
        Some((output, input)) => Err(GomError::new(
            Kind::Io,
            batch::BuildError::WouldOverwrite {
                output: output.clone(),
                input,
            }
            .to_string(),
        )
        .file(&output)),
        None => Ok(()),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    batch::write_atomic(path, bytes).map_err(|e| GomError::new(Kind::Io, e.to_string()).file(path))
}

/// The folder a path lies in (`.` for a bare file name).
fn folder(p: &Path) -> PathBuf {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The report `gom convert --report json` prints: the import's report object, its
/// warnings with the export's after them, the validation findings; and the files
/// written.
fn report(imported: &Imported, export_warnings: &[String], written: Vec<PathBuf>) -> Value {
    let findings = gom::validate::validate(&imported.model);
    let mut report = match imported.report.clone() {
        Value::Object(o) => o,
        _ => serde_json::Map::new(),
    };
    let warnings = report
        .entry("warnings")
        .or_insert_with(|| json!(imported.warnings));
    if let Some(list) = warnings.as_array_mut() {
        list.extend(export_warnings.iter().map(|w| json!(w)));
    }
    let texts: Vec<String> = findings.iter().map(|f| f.to_string()).collect();
    report.insert("validation".to_string(), json!(texts));
    let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    report.insert("written".to_string(), json!(written));
    report.insert("summary".to_string(), json!(imported.summary));
    Value::Object(report)
}

fn export_error(dst: &Path, e: impl std::fmt::Display) -> GomError {
    GomError::new(Kind::Export, format!("{}: {e}", dst.display())).file(dst)
}

/// The new keyframe library's name, as `gom convert` chooses it.
fn library_name(dst: &Path, stem: &str, tmd: &TmdOptions) -> Result<String> {
    export::new_library_name(dst, stem, tmd.tkl_name.as_deref(), tmd.tkl_out.as_deref())
        .map_err(|e| export_error(dst, e))?
        .ok_or_else(|| {
            export_error(
                dst,
                format!(
                    "no library name of at most 8 bytes made from {stem:?} is free in its folder"
                ),
            )
        })
}

fn read_game_file<T>(path: &Path, read: impl Fn(&[u8]) -> jpog::Result<T>) -> Result<T> {
    let bytes = std::fs::read(path).map_err(|e| GomError::io(path, &e))?;
    read(&bytes).map_err(|e| GomError::jpog(&path.display().to_string(), &e))
}

/// `gom convert IN OUT.tmd`: the game model with its `.tkl` and `.tml`, all three
/// written or none; the library named by `tkl` is appended to in place (other
/// models' keys untouched) unless `tkl_out` is given. Returns the export's notes and
/// the files written.
fn write_tmd(
    imported: &Imported,
    src: &Path,
    dst: &Path,
    import: &ImportOptions,
    tmd: &TmdOptions,
) -> Result<(Vec<String>, Vec<PathBuf>)> {
    if tmd.tkl_name.is_some() && import.tkl.is_some() {
        return Err(GomError::option(
            "tkl_name names a new library; it cannot be given with tkl",
        ));
    }
    let stem = dst
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = export::fit_name(&stem, NameLimit::Library, false, "output name")
        .map_err(|e| export_error(dst, e))?;
    let name = library_name(dst, &stem, tmd)?;
    let tkl = import.tkl.as_deref();
    let existing = tkl
        .map(|p| read_game_file(p, jpog::Tkl::read))
        .transpose()?;
    let template = tmd
        .template
        .as_deref()
        .map(|p| read_game_file(p, jpog::Tmd::read))
        .transpose()?;
    let options = ExportOptions {
        template,
        name: name.clone(),
        key_tolerance: import.insertion_tolerance(),
        handedness: import.jpog_handedness,
        loop_clips: tmd.loop_clips.clone(),
        rename: tmd.rename,
        lods: tmd.lods,
        tkl: existing,
        textures: source::texture_images(&imported.model, &folder(src), &imported.side_files),
    };
    let exported = export::export(&imported.model, &options).map_err(|e| export_error(dst, e))?;
    let (tmd_bytes, tkl_bytes, tml_bytes) = exported.write().map_err(|e| export_error(dst, e))?;
    let tkl_path = match (&tmd.tkl_out, tkl) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) => p.to_path_buf(),
        (None, None) => folder(dst).join(format!("{name}.tkl")),
    };
    let tml_path = folder(dst).join(format!("{stem}.tml"));
    let appended_in_place = tkl.is_some() && tmd.tkl_out.is_none();
    let guarded = [dst, tml_path.as_path()]
        .into_iter()
        .chain((!appended_in_place).then_some(tkl_path.as_path()));
    let mut read = reads(src, import);
    read.extend(tmd.template.iter().cloned());
    read.extend(tkl.filter(|_| !appended_in_place).map(Path::to_path_buf));
    refuse_overwrite(read, guarded)?;
    export::write_all_or_nothing(&[
        (tkl_path.as_path(), tkl_bytes.as_slice()),
        (tml_path.as_path(), tml_bytes.as_slice()),
        (dst, tmd_bytes.as_slice()),
    ])
    .map_err(|e| GomError::io(&e.path, &e.source))?;
    Ok((
        exported.notes.clone(),
        vec![tkl_path, tml_path, dst.to_path_buf()],
    ))
}

/// Builds every source under `src` into `out` as `gom build` does (in parallel on
/// `jobs` threads, all cores by default; incrementally, with `gom.toml` configs);
/// returns the report `gom build --report json` prints.
#[pyfunction]
pub fn build(py: Python<'_>, src: PathBuf, out: PathBuf, options_json: &str) -> PyResult<String> {
    let result = py.detach(|| build_folder(&src, &out, options_json));
    Ok(result?.to_string())
}

fn build_folder(src: &Path, out: &Path, options_json: &str) -> Result<Value> {
    let options = options::parse(options_json, &["format", "jobs", "force", "cache"], false)?;
    let rest = &options.rest;
    let name = rest.get("format").and_then(Value::as_str).unwrap_or("gom");
    let format = OutputFormat::from_name(name).ok_or_else(|| {
        GomError::option(format!(
            "format: unknown output format '{name}' (gom build writes gom, gomt, glb, gltf)"
        ))
    })?;
    let jobs = match rest.get("jobs") {
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n > 0)
            .ok_or_else(|| GomError::option("jobs: expected a whole number, 1 or more"))?,
    };
    let import = &options.import;
    let build_options = BuildOptions {
        jobs,
        format,
        force: rest.get("force").and_then(Value::as_bool).unwrap_or(false),
        options_fingerprint: format!("format={};{}", format.extension(), import.fingerprint()),
        shard: None,
        cache: rest.get("cache").and_then(Value::as_str).map(PathBuf::from),
    };
    let cancel = AtomicBool::new(false);
    let report = batch::config::run_with_configs(
        src,
        out,
        &build_options,
        import,
        |path, import| source::convert_path(path, import, format),
        source::companions_of,
        &cancel,
        |_| {},
    )
    .map_err(|e| GomError::new(Kind::Build, e.to_string()).file(src))?;
    Ok(report.to_json())
}

/// `gom validate FILE`: the validation findings of a model (empty when it is valid),
/// or of a `.tml` or `.tkl` library; an exception when the file cannot be read.
#[pyfunction]
pub fn validate(py: Python<'_>, path: PathBuf) -> PyResult<Vec<String>> {
    Ok(py.detach(|| validate_file(&path))?)
}

fn validate_file(path: &Path) -> Result<Vec<String>> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("tml") => {
            let tml = read_game_file(path, jpog::Tml::read)?;
            tml.validate()
                .map_err(|e| GomError::jpog(&path.display().to_string(), &e))?;
            Ok(Vec::new())
        }
        Some("tkl") => read_game_file(path, jpog::Tkl::read).map(|_| Vec::new()),
        _ => {
            let loaded = load_model(path, &ImportOptions::default())?;
            Ok(loaded.findings.iter().map(|f| f.to_string()).collect())
        }
    }
}
