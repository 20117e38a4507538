//! `gom convert IN OUT`: any format gom reads into any format it writes, chosen by
//! extension.

use crate::input::CliError;
use gom_import::build::{write_atomic, Inputs};
use gom_import::source::{self, ImportOptions, OutputFormat};
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
    /// Output format, overriding OUT's extension: gom, gomt, glb or gltf.
    #[arg(long)]
    to: Option<String>,
    /// Print the conversion report as JSON on stderr (`--report json`) instead of as
    /// text.
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
    /// clip, else in place (repeatable).
    #[arg(long, value_name = "NAME:START-END[:NEWNAME]")]
    clip_range: Vec<gom_import::pipeline::ClipRange>,
    /// Extract root motion on this bone in every clip.
    #[arg(long, value_name = "BONE")]
    root_motion: Option<String>,
    /// Uniform scale for the skeleton, the meshes and the keys.
    #[arg(long, default_value_t = 1.0, value_name = "S")]
    scale: f32,
    /// The source's true up axis (x, y, z, -x, -y, -z), overriding its header.
    #[arg(long, value_name = "AXIS")]
    up: Option<gom_import::pipeline::Axis>,
    /// The source's true forward axis, overriding its header.
    #[arg(long, value_name = "AXIS")]
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
            scale: self.scale,
            up: self.up,
            forward: self.forward,
            unit: self.unit,
            ..options
        }
    }
}

/// Whether the output is a game model (`.tmd`, or `--to tmd`).
fn is_tmd(args: &Args) -> bool {
    let ext = args.output.extension().and_then(|e| e.to_str());
    args.to
        .as_deref()
        .or(ext)
        .is_some_and(|e| e.eq_ignore_ascii_case("tmd"))
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

/// Refuses to write any of `outputs` over one of the files the conversion of `input`
/// reads: the input itself and its companions (a `.gltf`'s buffers and images, a
/// `.tmd`'s `.tkl` and `.tml`).
pub(super) fn refuse_overwriting_inputs<'a>(
    input: &Path,
    options: &ImportOptions,
    outputs: impl IntoIterator<Item = &'a Path>,
) -> Result<(), CliError> {
    let mut read = vec![input.to_path_buf()];
    read.extend(source::companions(input, options));
    if let Some((output, input)) = Inputs::new(read).first_overwritten(outputs) {
        return Err(gom_import::build::BuildError::WouldOverwrite { output, input }.into());
    }
    Ok(())
}

/// Runs `gom convert`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let options = args.pipeline.apply(args.import.options());
    if is_tmd(&args) {
        let imported = source::import_path(&args.input, &options)?;
        let import = &args.import;
        let lines = super::jpog_out::run(
            &imported,
            &args.input,
            &args.output,
            &options,
            import.handedness,
            &args.tmd,
        )?;
        for w in imported.warnings.iter().chain(&lines) {
            eprintln!("{w}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let format = output_format(args.to.as_deref(), &args.output)?;
    if let Some(other) = args.report.as_deref().filter(|r| *r != "json") {
        return Err(format!("unknown report format '{other}' (expected json)").into());
    }
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
    refuse_overwriting_inputs(&args.input, &options, planned)?;

    let imported = source::import_path(&args.input, &options)?;
    let findings = gom::validate::validate(&imported.model);
    let exported = source::export_imported(&imported, &args.input, format, &args.output)
        .map_err(|e| format!("{}: {e}", args.output.display()))?;
    let side_paths: Vec<PathBuf> = exported
        .side_files
        .iter()
        .map(|s| dir.join(&s.relative_path))
        .collect();
    refuse_overwriting_inputs(
        &args.input,
        &options,
        side_paths.iter().map(PathBuf::as_path),
    )?;
    for (side, path) in exported.side_files.iter().zip(&side_paths) {
        write_atomic(path, &side.bytes)?;
    }
    write_atomic(&args.output, &exported.bytes)?;
    if args.report.is_some() {
        let mut report = imported.report.clone();
        let export_warnings = &exported.warnings[imported.warnings.len()..];
        if let Some(list) = report.get_mut("warnings").and_then(|w| w.as_array_mut()) {
            list.extend(export_warnings.iter().map(|w| serde_json::json!(w)));
        }
        eprintln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for line in &imported.summary {
            eprintln!("{line}");
        }
        for w in &exported.warnings {
            eprintln!("warning: {w}");
        }
    }
    for f in &findings {
        eprintln!("warning: validation: {f}");
    }
    eprintln!(
        "{}",
        wrote_line(&args.output, exported.bytes.len(), &side_paths)
    );
    // Exit codes as `gom validate`'s: 1 when the model has validation findings.
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
