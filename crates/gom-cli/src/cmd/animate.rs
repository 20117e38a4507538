//! `gom render --animate` and `--all-clips`: a looping APNG or GIF of one clip or of
//! every clip in turn.

use crate::input::CliError;
use gom_render::{AnimationFormat, AnimationOptions, RenderOptions};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Writes the animation of `clip` (or of every clip with `all_clips`) at `fps` (each
/// clip's sample rate when `None`) to `output`: a GIF when it ends in `.gif`, else an
/// animated PNG; `-` is standard output.
pub fn run(
    model: &gom::Model,
    clip: &Option<String>,
    all_clips: bool,
    fps: Option<f32>,
    output: &Path,
    render: RenderOptions,
) -> Result<ExitCode, CliError> {
    let clips: Vec<&str> = if all_clips {
        model.clips.iter().map(|c| c.name.as_str()).collect()
    } else {
        clip.iter().map(String::as_str).collect()
    };
    if clips.is_empty() {
        return Err("the model has no clips to animate".into());
    }
    if let Some(f) = fps {
        if !(f > 0.0 && f <= gom_render::animation::MAX_FPS) {
            return Err(format!(
                "--fps {f}: must be above 0 and at most {}",
                gom_render::animation::MAX_FPS
            )
            .into());
        }
    }
    let format = if output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gif"))
    {
        AnimationFormat::Gif
    } else {
        AnimationFormat::Apng
    };
    let options = AnimationOptions {
        clips,
        fps,
        captions: all_clips,
        render,
    };
    let info = if output == Path::new("-") {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let info = gom_render::write_animation(model, &options, format, &mut out)?;
        out.flush().map_err(|e| format!("<standard output>: {e}"))?;
        info
    } else {
        let mut bytes = Vec::new();
        let info = gom_render::write_animation(model, &options, format, &mut bytes)?;
        gom_import::build::write_atomic(output, &bytes)?;
        info
    };
    let delays: std::collections::BTreeSet<String> = info
        .frames
        .iter()
        .map(|(_, _, d)| format!("{}/{} s", d.num, d.den))
        .collect();
    eprintln!(
        "wrote {} ({}x{}, {}, each shown {}, looping)",
        if output == Path::new("-") {
            "<standard output>".to_string()
        } else {
            output.display().to_string()
        },
        info.size.0,
        info.size.1,
        super::plural(info.frames.len(), "frame", "frames"),
        delays.into_iter().collect::<Vec<_>>().join(" or ")
    );
    Ok(ExitCode::SUCCESS)
}
