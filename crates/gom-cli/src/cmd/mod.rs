//! One module per subcommand.

pub mod build;
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
        }
    }
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
