//! One module per subcommand.

pub mod animate;
pub mod build;
pub mod cache;
pub mod convert;
pub mod demo;
pub mod game_files;
pub mod info;
mod info_morph;
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
    #[arg(long, default_value_t = 30.0, allow_hyphen_values = true, value_parser = finite_f32)]
    pub sample_rate: f32,
    /// Keep the source's vertex order (no vertex-cache or vertex-fetch optimisation).
    #[arg(long)]
    pub no_optimize: bool,
    /// Key reduction tolerance in millimetres, measured --key-tolerance-distance-cm from
    /// each joint, on the skeleton as a whole (0 keeps every key); with --compress, the
    /// compression's bound.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true, value_parser = non_negative_f32)]
    pub key_tolerance_mm: f32,
    /// How far from each joint --key-tolerance-mm is measured, in centimetres.
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true, value_parser = non_negative_f32)]
    pub key_tolerance_distance_cm: f32,
    /// Store clips compressed (every frame, quantised within --key-tolerance-mm;
    /// docs/extensions.md) instead of as reduced keys.
    #[arg(long)]
    pub compress: bool,
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

/// A number option's value: any decimal or exponent form, finite and within the range
/// of `f32`, so that a huge value is refused as given (`1e40`), not as `inf`.
pub fn finite_f32(s: &str) -> Result<f32, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v.abs() > f64::from(f32::MAX) {
        return Err(format!(
            "'{s}' is not a finite number gom can hold (at most {:e} in size)",
            f32::MAX
        ));
    }
    // Within range: the nearest f32 (a value below f32's smallest rounds to 0).
    Ok(v as f32)
}

/// [`finite_f32`], and not negative.
pub fn non_negative_f32(s: &str) -> Result<f32, String> {
    let v = finite_f32(s)?;
    if v < 0.0 {
        return Err(format!("'{s}' is negative; give 0 or more"));
    }
    Ok(v)
}

/// The keyframe library of a `.tmd` model, for the commands that read models without
/// converting them (`info`, `pose`, `render`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TklArg {
    /// JPOG models: the keyframe library (.tkl); found beside the model (by the name
    /// the model gives) when omitted.
    #[arg(long, value_name = "LIB.tkl")]
    pub tkl: Option<PathBuf>,
}

impl TklArg {
    /// The import options that read a `.tmd` with this library.
    pub fn options(&self) -> ImportOptions {
        ImportOptions {
            tkl: self.tkl.clone(),
            ..ImportOptions::default()
        }
    }
}

/// Prints a loaded model's reader and importer warnings (a `.tmd` whose keyframe
/// library was not found says so here), each as `warning: …`.
pub fn print_load_warnings(loaded: &crate::input::Loaded) {
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
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
            key_tolerance_distance: self.key_tolerance_distance_cm / 100.0,
            compress: self.compress,
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

/// `n` and the noun in the number it needs: `1 mesh`, `2 meshes`, `0 meshes`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The time at which to sample `clip` of `model` for a `--time` of `time` (`asked`
/// says how it was given, for the note): wrapped into the clip with `looped`, else
/// clamped to it with a note on stderr when it lies outside. An unknown clip keeps the
/// time (sampling reports the missing clip).
pub fn clip_time(model: &gom::Model, clip: &str, time: f32, looped: bool, asked: &str) -> f32 {
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
            "note: {asked} is {side} of clip \"{clip}\" (0 to {duration} s): \
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
    fn numbers_out_of_range_are_refused_as_given() {
        assert_eq!(super::finite_f32("-1.3e-17"), Ok(-1.3e-17));
        let e = super::finite_f32("1e40").unwrap_err();
        assert!(e.contains("'1e40'") && !e.contains("inf"), "{e}");
        assert!(super::finite_f32("nan").is_err());
        assert!(super::non_negative_f32("-1").unwrap_err().contains("'-1'"));
    }

    #[test]
    fn clip_time_clamps_without_loop_and_wraps_with_it() {
        let model = gom_demo::build();
        let clip = &model.clips[0];
        let d = clip.duration;
        let name = clip.name.as_str();
        let at = |clip: &str, t: f32, looped: bool| super::clip_time(&model, clip, t, looped, "t");
        assert_eq!(at(name, -1.0, false), 0.0);
        assert_eq!(at(name, d + 3.0, false), d);
        assert_eq!(at(name, d * 0.5, false), d * 0.5);
        let wrapped = at(name, d + d * 0.25, true);
        assert!((wrapped - d * 0.25).abs() < 1e-5, "{wrapped}");
        let before = at(name, -d * 0.25, true);
        assert!((before - d * 0.75).abs() < 1e-5, "{before}");
        assert_eq!(at("no such clip", 7.0, false), 7.0);
    }
}
