//! One module per subcommand.

pub mod animate;
pub mod build;
pub mod cache;
pub mod convert;
pub mod demo;
pub mod game_files;
pub mod info;
pub mod jpog_out;
pub mod pose;
pub mod render;
pub mod tkl;
pub mod tmd;
pub mod tml;
pub mod validate;
pub mod view;

use gom_import::source::ImportOptions;
use std::path::PathBuf;

/// Options shared by every command that imports a source file.
#[derive(clap::Args, Clone, Debug)]
pub struct ImportArgs {
    /// Animation sample rate in Hz, for sources that must be resampled.
    #[arg(long, default_value_t = 30.0)]
    pub sample_rate: f32,
    /// Keep the source's vertex order (no vertex-cache or vertex-fetch optimisation).
    #[arg(long)]
    pub no_optimize: bool,
    /// Key reduction tolerance in millimetres, measured 10 cm from the joint (0 keeps
    /// every key).
    #[arg(long, default_value_t = 1.0)]
    pub key_tolerance_mm: f32,
    /// JPOG models: the level of detail to convert.
    #[arg(long, default_value_t = 0)]
    pub lod: usize,
    /// JPOG models: the keyframe library (.tkl); found beside the model when omitted.
    #[arg(long)]
    pub tkl: Option<PathBuf>,
    /// JPOG models: the material library (.tml); found beside the model when omitted.
    #[arg(long)]
    pub tml: Option<PathBuf>,
    /// JPOG models: how the game's Z-up axes are read, `right` (the default: mirror
    /// into GOM's left-handed space) or `left`.
    #[arg(long, default_value = "right", value_parser = parse_handedness)]
    pub handedness: gom_import::jpog::Handedness,
    /// JPOG models: how animation channels with flags 3 are read,
    /// `translation-and-rotation` (the default) or `translation-only`.
    #[arg(long, default_value = "translation-and-rotation", value_parser = parse_flag3)]
    pub channel_flag3: gom_import::jpog::ChannelFlag3Reading,
    /// BVH files: leave End Sites out of the skeleton (by default each is a leaf bone
    /// named after its parent with `_End`).
    #[arg(long)]
    pub drop_end_sites: bool,
}

fn parse_handedness(s: &str) -> Result<gom_import::jpog::Handedness, String> {
    gom_import::jpog::Handedness::from_name(s)
        .ok_or_else(|| format!("'{s}': expected right or left"))
}

fn parse_flag3(s: &str) -> Result<gom_import::jpog::ChannelFlag3Reading, String> {
    gom_import::jpog::ChannelFlag3Reading::from_name(s)
        .ok_or_else(|| format!("'{s}': expected translation-and-rotation or translation-only"))
}

impl ImportArgs {
    /// The library options these arguments select.
    pub fn options(&self) -> ImportOptions {
        ImportOptions {
            sample_rate: self.sample_rate,
            optimize_meshes: !self.no_optimize,
            key_tolerance: self.key_tolerance_mm / 1000.0,
            lod: self.lod,
            tkl: self.tkl.clone(),
            tml: self.tml.clone(),
            jpog_handedness: self.handedness,
            jpog_channel_flag3: self.channel_flag3,
            bvh_drop_end_sites: self.drop_end_sites,
            ..ImportOptions::default()
        }
    }
}

/// Writes `bytes` to the file `path` (whole or not at all), or to standard output
/// when `path` is `-`; returns the name to report: the path, or `<standard output>`.
pub fn write_output(
    path: &std::path::Path,
    bytes: &[u8],
) -> Result<String, crate::input::CliError> {
    if path != std::path::Path::new("-") {
        gom_import::build::write_atomic(path, bytes)?;
        return Ok(path.display().to_string());
    }
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| format!("<standard output>: {e}"))?;
    Ok("<standard output>".to_string())
}

/// `n` and the noun in the number it needs: `1 mesh`, `2 meshes`, `0 meshes`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The time at which to sample `clip` of `model` for a `--time` of `time`: wrapped
/// into the clip with `looped`, else clamped to it with a note on stderr when it lies
/// outside. An unknown clip keeps the time (sampling reports the missing clip).
pub fn clip_time(model: &gom::Model, clip: &str, time: f32, looped: bool) -> f32 {
    let Some(c) = model.clips.iter().find(|c| c.name == clip) else {
        return time;
    };
    let duration = c.duration.max(0.0);
    if looped {
        return if duration > 0.0 {
            time.rem_euclid(duration)
        } else {
            0.0
        };
    }
    let clamped = time.clamp(0.0, duration);
    if clamped != time {
        let side = if time < 0.0 {
            "before the start"
        } else {
            "past the end"
        };
        eprintln!(
            "note: --time {time} is {side} of clip \"{clip}\" (0 to {duration} s): \
             using {clamped} s (--loop wraps instead)"
        );
    }
    clamped
}

/// A progress bar on the terminal, hidden when standard error is not one.
pub fn progress_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:30} {pos}/{len}  ETA {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(what.to_string());
    bar
}

#[cfg(test)]
mod tests {
    #[test]
    fn plural_takes_the_singular_for_one_only() {
        assert_eq!(super::plural(0, "mesh", "meshes"), "0 meshes");
        assert_eq!(super::plural(1, "mesh", "meshes"), "1 mesh");
        assert_eq!(super::plural(2, "warning", "warnings"), "2 warnings");
    }

    #[test]
    fn clip_time_clamps_without_loop_and_wraps_with_it() {
        let model = gom_demo::build();
        let clip = &model.clips[0];
        let d = clip.duration;
        let name = clip.name.as_str();
        assert_eq!(super::clip_time(&model, name, -1.0, false), 0.0);
        assert_eq!(super::clip_time(&model, name, d + 3.0, false), d);
        assert_eq!(super::clip_time(&model, name, d * 0.5, false), d * 0.5);
        let wrapped = super::clip_time(&model, name, d + d * 0.25, true);
        assert!((wrapped - d * 0.25).abs() < 1e-5, "{wrapped}");
        let before = super::clip_time(&model, name, -d * 0.25, true);
        assert!((before - d * 0.75).abs() < 1e-5, "{before}");
        assert_eq!(super::clip_time(&model, "no such clip", 7.0, false), 7.0);
    }
}
