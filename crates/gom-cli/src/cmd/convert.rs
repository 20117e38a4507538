//! `gom convert IN OUT`: any format gom reads into any format it writes, chosen by
//! extension.

use crate::input::CliError;
use crate::output::{import_reads, refuse_overwrite};
use gom_import::build::write_atomic;
use gom_import::source::{self, ImportOptions, Imported, OutputFormat};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The output formats, as `--to` and the output's extension name them.
pub const OUTPUT_FORMATS: &str = "gom, gomt, glb, gltf";

/// Arguments of `gom convert`.
#[derive(clap::Args)]
pub struct Args {
    /// The file to convert (.gom, .gomt, .fbx, .gltf, .glb, .tmd).
    input: PathBuf,
    /// Where to write the result (.gom, .gomt, .glb, .gltf, or .tmd with its .tkl and
    /// .tml beside it).
    output: PathBuf,
    /// Output format when OUT's extension names none: gom, gomt, glb, gltf or tmd
    /// (an extension naming another format is refused).
    #[arg(long)]
    to: Option<String>,
    /// Print the conversion report as JSON on standard output, alone (`--report
    /// json`), instead of as text on standard error.
    #[arg(long, value_name = "FORMAT")]
    report: Option<String>,
    #[command(flatten)]
    import: super::ImportArgs,
    /// Boxed: the pipeline's flags would make this command's arguments far larger
    /// than the others'.
    #[command(flatten)]
    pipeline: Box<PipelineArgs>,
    #[command(flatten)]
    tmd: super::jpog_out::TmdArgs,
}

/// The pipeline options of `gom convert` (docs/pipeline.md): each flag sets the
/// [`ImportOptions`] field of its name.
#[derive(clap::Args, Clone, Debug)]
pub struct PipelineArgs {
    /// An animation file whose clips are mapped onto the model's skeleton by bone
    /// name (repeatable; any input format).
    #[arg(long, value_name = "FILE")]
    anim: Vec<PathBuf>,
    /// Explicit bone pairs for --anim files: `animation bone = model bone` lines.
    #[arg(long, value_name = "FILE")]
    bone_map: Option<PathBuf>,
    /// Keep the animation files' translations of non-root bones when retargeting.
    #[arg(long)]
    keep_translations: bool,
    /// Keep only the clips matching this name or glob pattern (`*`, `?`; repeatable).
    #[arg(long, value_name = "PATTERN")]
    clip: Vec<String>,
    /// Rename a clip (repeatable).
    #[arg(long, value_name = "OLD=NEW")]
    rename_clip: Vec<gom_import::pipeline::ClipRename>,
    /// Cut a range out of a clip, in frames or seconds (`1.5s`); with NEWNAME as a new
    /// clip, else in place (repeatable). Frames count at the clip's sample rate
    /// (--sample-rate, 30 Hz by default), not the source's frame rate; the report gives
    /// the range in seconds.
    #[arg(long, value_name = "NAME:START-END[:NEWNAME]")]
    clip_range: Vec<gom_import::pipeline::ClipRange>,
    /// Extract root motion on this bone in every clip.
    #[arg(long, value_name = "BONE")]
    root_motion: Option<String>,
    /// Store a clip as deltas from a reference pose, for additive blending: from its
    /// own first frame (`CLIP`), the bind pose (`CLIP=@bind`), or clip REF (the clip
    /// itself when left out) at T seconds (`CLIP=REF`, `CLIP=@T`, `CLIP=REF@T`);
    /// after the other clip options; repeatable.
    #[arg(long, value_name = "CLIP[=REF]")]
    additive: Vec<gom_import::pipeline::AdditiveSpec>,
    /// Add an event to a clip at a time in seconds, with an optional payload
    /// (repeatable; `event = [...]` in gom.toml).
    #[arg(long, value_name = "CLIP@SECONDS=NAME[:PAYLOAD]")]
    event: Vec<gom_import::pipeline::EventSpec>,
    /// Uniform scale for the skeleton, the meshes and the keys.
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "S",
        allow_hyphen_values = true,
        value_parser = super::finite_f32
    )]
    scale: f32,
    /// The source's true up axis (x, y, z, -x, -y, -z), overriding its header.
    #[arg(long, value_name = "AXIS", allow_hyphen_values = true)]
    up: Option<gom_import::pipeline::Axis>,
    /// The source's true forward axis, overriding its header.
    #[arg(long, value_name = "AXIS", allow_hyphen_values = true)]
    forward: Option<gom_import::pipeline::Axis>,
    /// The source's true unit (cm, m, in), overriding its header.
    #[arg(long, value_name = "UNIT")]
    unit: Option<gom_import::pipeline::LengthUnit>,
}

impl PipelineArgs {
    /// `options` with these flags' fields set.
    pub fn apply(&self, options: ImportOptions) -> ImportOptions {
        ImportOptions {
            anim: self.anim.clone(),
            bone_map: self.bone_map.clone(),
            keep_translations: self.keep_translations,
            clip: self.clip.clone(),
            rename_clip: self.rename_clip.clone(),
            clip_range: self.clip_range.clone(),
            root_motion: self.root_motion.clone(),
            additive: self.additive.clone(),
            event: self.event.clone(),
            scale: self.scale,
            up: self.up,
            forward: self.forward,
            unit: self.unit,
            ..options
        }
    }
}

/// What `gom convert` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A GOM or glTF file.
    Model(OutputFormat),
    /// A game model with its libraries.
    Tmd,
}

impl Target {
    /// The target `--to` names (which must agree with an output extension that
    /// names a format), or else the one of `output`'s extension.
    fn of(to: Option<&str>, output: &Path) -> Result<Target, CliError> {
        let by_name = |name: &str| {
            if name.eq_ignore_ascii_case("tmd") {
                Some(Target::Tmd)
            } else {
                OutputFormat::from_name(name).map(Target::Model)
            }
        };
        let ext = output.extension().and_then(|e| e.to_str());
        let by_ext = ext.and_then(by_name);
        let Some(name) = to else {
            return output_format(None, output)
                .map(Target::Model)
                .or_else(|e| by_ext.ok_or(e));
        };
        let target = by_name(name).ok_or_else(|| {
            format!("unknown output format '{name}' (gom writes {OUTPUT_FORMATS}, tmd)")
        })?;
        match (by_ext, ext) {
            (Some(named), Some(ext)) if named != target => Err(format!(
                "{}: --to {name} writes {}, but the name ends in .{ext}, which is another \
                 format; name the file .{} (or drop --to)",
                output.display(),
                target.extension(),
                target.extension()
            )
            .into()),
            _ => Ok(target),
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Target::Model(f) => f.extension(),
            Target::Tmd => "tmd",
        }
    }
}

/// The output format `--to` names, or else the one of `output`'s extension.
pub fn output_format(to: Option<&str>, output: &Path) -> Result<OutputFormat, CliError> {
    match to {
        Some(name) => OutputFormat::from_name(name).ok_or_else(|| {
            format!("unknown output format '{name}' (gom writes {OUTPUT_FORMATS}, tmd)").into()
        }),
        None => OutputFormat::of_path(output).ok_or_else(|| {
            let ext = output
                .extension()
                .map(|e| format!("the extension '.{}'", e.to_string_lossy()))
                .unwrap_or_else(|| "a name without an extension".to_string());
            format!(
                "{}: cannot tell the output format from {ext}; gom writes {OUTPUT_FORMATS}, tmd \
                 (name the file so, or use --to)",
                output.display()
            )
            .into()
        }),
    }
}

/// Runs `gom convert`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let options = args.pipeline.apply(args.import.options());
    let json = match args.report.as_deref() {
        None => false,
        Some("json") => true,
        Some(other) => {
            return Err(format!("unknown report format '{other}' (expected json)").into())
        }
    };
    let format = match Target::of(args.to.as_deref(), &args.output)? {
        Target::Tmd => return run_tmd(&args, &options, json),
        Target::Model(format) => format,
    };
    let dir = args
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let bin = args.output.with_extension("bin");
    let mut planned = vec![args.output.as_path()];
    if format == OutputFormat::Gltf {
        planned.push(&bin);
    }
    refuse_overwrite(import_reads(&args.input, &options), planned)?;

    let imported = source::import_path(&args.input, &options)?;
    let exported = source::export_imported(&imported, &args.input, format, &args.output)
        .map_err(|e| format!("{}: {e}", args.output.display()))?;
    let side_paths: Vec<PathBuf> = exported
        .side_files
        .iter()
        .map(|s| dir.join(&s.relative_path))
        .collect();
    refuse_overwrite(
        import_reads(&args.input, &options),
        side_paths.iter().map(PathBuf::as_path),
    )?;
    for (side, path) in exported.side_files.iter().zip(&side_paths) {
        write_atomic(path, &side.bytes)?;
    }
    write_atomic(&args.output, &exported.bytes)?;
    let export_warnings = &exported.warnings[imported.warnings.len()..];
    let wrote = wrote_line(&args.output, exported.bytes.len(), &side_paths);
    finish(&imported, export_warnings, json, &wrote)
}

/// `gom convert IN OUT.tmd`: the game model and its libraries.
fn run_tmd(args: &Args, options: &ImportOptions, json: bool) -> Result<ExitCode, CliError> {
    let imported = source::import_path(&args.input, options)?;
    let written = super::jpog_out::run(
        &imported,
        &args.input,
        &args.output,
        options,
        args.import.handedness,
        &args.tmd,
    )?;
    finish(&imported, &written.notes, json, &written.wrote)
}

/// Reports a conversion whose files are written, the same for every output: the
/// report (text on stderr, or JSON alone on stdout), every warning as `warning: …`,
/// the validation findings as warnings, the `wrote …` line; exit 1 when the model has
/// validation findings, as `gom validate` does.
fn finish(
    imported: &Imported,
    export_warnings: &[String],
    json: bool,
    wrote: &str,
) -> Result<ExitCode, CliError> {
    let findings = gom::validate::validate(&imported.model);
    if json {
        // Every input's report is an object with its warnings (a GOM input's import
        // has no report of its own).
        let mut report = match imported.report.clone() {
            serde_json::Value::Object(o) => o,
            _ => serde_json::Map::new(),
        };
        let warnings = report
            .entry("warnings")
            .or_insert_with(|| serde_json::json!(imported.warnings));
        if let Some(list) = warnings.as_array_mut() {
            list.extend(export_warnings.iter().map(|w| serde_json::json!(w)));
        }
        let texts: Vec<String> = findings.iter().map(|f| f.to_string()).collect();
        report.insert("validation".to_string(), serde_json::json!(texts));
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for line in &imported.summary {
            eprintln!("{line}");
        }
        for w in imported.warnings.iter().chain(export_warnings) {
            eprintln!("warning: {w}");
        }
    }
    for f in &findings {
        eprintln!("warning: validation: {f}");
    }
    eprintln!("{wrote}");
    Ok(if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
/// `wrote OUT (N bytes)`, and the files written beside it.
fn wrote_line(output: &Path, bytes: usize, side_paths: &[PathBuf]) -> String {
    let mut line = format!(
        "wrote {} ({})",
        output.display(),
        super::plural(bytes, "byte", "bytes")
    );
    if !side_paths.is_empty() {
        let names: Vec<String> = side_paths.iter().map(|p| p.display().to_string()).collect();
        line.push_str(&format!(" and beside it {}", names.join(", ")));
    }
    line
}
