//! `gom pose FILE [--clip NAME (--time S | --frame N --fps F)] [--loop] [--joints] -o OUT`:
//! every mesh skinned at one moment, in model space, as OBJ, or with `--joints` every
//! bone's model-space matrix and position as JSON (`-o -`: to standard output).

use crate::input::{self, CliError};
use gom_import::pose::{pose_joints, pose_model, write_obj, PoseAt};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gom pose`.
#[derive(clap::Args)]
pub struct Args {
    /// The model (any format gom reads).
    file: PathBuf,
    /// The clip to sample; without it, the bind pose.
    #[arg(long)]
    clip: Option<String>,
    /// Time in seconds from the clip's start; outside the clip it is clamped to the
    /// clip (with a note), or wrapped with --loop.
    #[arg(
        long,
        conflicts_with_all = ["frame", "fps"],
        allow_hyphen_values = true,
        value_parser = super::finite_f32
    )]
    time: Option<f32>,
    /// Frame number, with --fps (a frame outside the clip is clamped or wrapped as
    /// --time is).
    #[arg(long, requires = "fps", allow_hyphen_values = true)]
    frame: Option<i64>,
    /// Frames per second for --frame.
    #[arg(long, requires = "frame", allow_hyphen_values = true, value_parser = super::finite_f32)]
    fps: Option<f32>,
    /// Wrap times outside the clip into it instead of clamping them.
    #[arg(long = "loop")]
    looped: bool,
    /// Write every bone's model-space matrix and position as JSON instead of the
    /// skinned meshes as OBJ.
    #[arg(long)]
    joints: bool,
    /// The OBJ (or, with --joints, JSON) file to write (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    tkl: super::TklArg,
}

/// The document `gom pose --joints` writes.
#[derive(serde::Serialize)]
struct JointsJson<'a> {
    file: String,
    clip: Option<&'a str>,
    time: f32,
    space: &'static str,
    bones: Vec<gom_import::pose::PosedJoint>,
}

/// What the matrices of `--joints` are.
const JOINTS_SPACE: &str = "GOM model space (left-handed, +Y up, metres); matrices row-major \
     for row vectors (p' = p * M), translation in elements 12 to 14";

/// Runs `gom pose`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let (time, asked) = match (args.time, args.frame, args.fps) {
        (Some(t), _, _) => (t, format!("--time {t}")),
        (None, Some(n), Some(fps)) if fps > 0.0 => {
            (n as f32 / fps, format!("--frame {n} at {fps} fps"))
        }
        (None, Some(_), Some(fps)) => return Err(format!("--fps {fps} must be positive").into()),
        _ => (0.0, String::new()),
    };
    if !time.is_finite() {
        return Err(format!("{asked}: the time is beyond any gom can hold").into());
    }
    if args.clip.is_none() && (args.time.is_some() || args.frame.is_some()) {
        return Err(
            "--time and --frame need --clip (without a clip gom writes the bind pose)".into(),
        );
    }
    let options = args.tkl.options();
    crate::output::refuse_overwrite(
        crate::output::import_reads(&args.file, &options),
        [args.output.as_path()],
    )?;
    if args.joints {
        crate::output::expect_extension(&args.output, &["json"], "a pose's joints")?;
    } else {
        crate::output::expect_extension(&args.output, &["obj"], "a pose")?;
    }
    let loaded = input::load(&args.file, &options)?;
    super::print_load_warnings(&loaded);
    let time = match &args.clip {
        Some(clip) => super::clip_time(&loaded.model, clip, time, args.looped, &asked),
        None => time,
    };
    let at = PoseAt {
        clip: args.clip.clone(),
        time,
        looped: args.looped,
    };
    let what = match &args.clip {
        Some(c) => format!("clip \"{c}\" at {time} s"),
        None => "the bind pose".to_string(),
    };
    let failed = |e: gom_import::pose::PoseError| format!("{}: {e}", args.file.display());
    if args.joints {
        let bones = pose_joints(&loaded.model, &at).map_err(failed)?;
        let count = bones.len();
        let doc = JointsJson {
            file: args.file.display().to_string(),
            clip: args.clip.as_deref(),
            time,
            space: JOINTS_SPACE,
            bones,
        };
        let mut text = serde_json::to_string_pretty(&doc)?;
        text.push('\n');
        let shown = crate::output::write(&args.output, text.as_bytes())?;
        let bones = super::plural(count, "bone", "bones");
        eprintln!("wrote {shown} ({bones}) at {what}");
        return Ok(ExitCode::SUCCESS);
    }
    let meshes = pose_model(&loaded.model, &at).map_err(failed)?;
    let obj = write_obj(&meshes);
    let shown = crate::output::write(&args.output, obj.as_bytes())?;
    let vertices = meshes.iter().map(|m| m.positions.len()).sum::<usize>();
    eprintln!(
        "wrote {} ({}, {}) at {what}",
        shown,
        super::plural(meshes.len(), "mesh", "meshes"),
        super::plural(vertices, "vertex", "vertices"),
    );
    Ok(ExitCode::SUCCESS)
}
