//! Why a pipeline step refused its options or its input.

use std::path::PathBuf;

use super::options::{ClipRange, ClipRename};
use super::Axis;

/// Why a pipeline step refused its options or its input. Each message names the
/// option or file it concerns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// `--rename-clip` or `--clip-range` names a clip the model does not have.
    #[error("{option}: no clip named \"{name}\" (the model has: {available})")]
    NoClip {
        /// The option.
        option: &'static str,
        /// The clip it names.
        name: String,
        /// The clips the model has ([`gom::Model::clip_names_listed`]).
        available: String,
    },
    /// A rename's new name is another clip's (two clips of one name could not be told
    /// apart by any later option or game).
    #[error(
        "--rename-clip {rename}: a clip named \"{}\" exists already (the model has: \
         {available}); rename that one first or choose another name",
        rename.to
    )]
    RenameTaken {
        /// The rename.
        rename: ClipRename,
        /// The clips the model has.
        available: String,
    },
    /// A range's new name is taken.
    #[error(
        "--clip-range {range}: a clip named \"{}\" exists already (the model has: \
         {available})",
        .range.new_name.as_deref().unwrap_or_default()
    )]
    ClipExists {
        /// The range (with its new name).
        range: ClipRange,
        /// The clips the model has.
        available: String,
    },
    /// A range in frames on a clip without a sample rate.
    #[error("--clip-range {range}: clip \"{clip}\" has no sample rate to count frames at")]
    NoSampleRate {
        /// The range.
        range: ClipRange,
        /// The clip.
        clip: String,
    },
    /// A range that is empty or runs past its clip.
    #[error(
        "--clip-range {range}: {start} s to {end} s is not a range within clip \"{clip}\" \
         (0 to {duration} s)"
    )]
    OutOfClip {
        /// The range.
        range: ClipRange,
        /// Its start in seconds.
        start: f32,
        /// Its end in seconds.
        end: f32,
        /// The clip.
        clip: String,
        /// The clip's length in seconds.
        duration: f32,
    },
    /// The runtime could not sample the clip a range is cut from.
    #[error("{range}: {source}")]
    Sample {
        /// The range.
        range: ClipRange,
        /// What the runtime said (boxed: the other variants are small).
        source: Box<gom_runtime::Error>,
    },
    /// `--root-motion` names a bone the model does not have.
    #[error("--root-motion: no bone named \"{bone}\" (the model has: {available})")]
    NoRootBone {
        /// The bone asked for.
        bone: String,
        /// The model's bone names, quoted, or `no bones`.
        available: String,
    },
    /// `--additive` could not make its clip additive.
    #[error("--additive {spec}: {source}")]
    Additive {
        /// The option's value.
        spec: super::options::AdditiveSpec,
        /// Why.
        source: gom::additive::AdditiveError,
    },
    /// `--event` at a time past its clip's end.
    #[error("--event {spec}: the clip lasts {duration} s")]
    EventPastClip {
        /// The option's value.
        spec: super::options::EventSpec,
        /// The clip's length in seconds.
        duration: f32,
    },
    /// `--bone-map` without an `--anim` file for it to pair.
    #[error(
        "--bone-map pairs the bones of --anim files with the model's, and no --anim file \
         is given"
    )]
    BoneMapWithoutAnim,
    /// The bone map file could not be read.
    #[error("{}: {source}", path.display())]
    BoneMapRead {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A line of the bone map is not `animation bone = model bone`.
    #[error("{file}: line {line}: expected 'animation bone = model bone'")]
    BoneMapLine {
        /// The bone map's name.
        file: String,
        /// The line, from 1.
        line: usize,
    },
    /// The bone map maps a bone twice.
    #[error("{file}: line {line}: bone '{bone}' mapped twice")]
    BoneMappedTwice {
        /// The bone map's name.
        file: String,
        /// The line, from 1.
        line: usize,
        /// The bone.
        bone: String,
    },
    /// Matching an animation file's bones to the model's failed.
    #[error("{file}: {source}")]
    Match {
        /// The animation file.
        file: String,
        /// Why.
        source: MatchError,
    },
    /// `--up` and `--forward` name axes that are not perpendicular.
    #[error("the up axis {up} and the forward axis {forward} are not perpendicular")]
    Axes {
        /// The up axis.
        up: Axis,
        /// The forward axis.
        forward: Axis,
    },
    /// `--scale` is not a positive number.
    #[error("scale {0} is not a positive number")]
    Scale(f32),
    /// The scale that `--scale` and `--unit` give together is out of range.
    #[error("the scale {0} the unit gives is out of range")]
    UnitScale(f32),
}

/// Why an animation's bones could not be matched to the model's through the bone map.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatchError {
    /// The map names a model bone that does not exist.
    #[error("bone map: '{from}' maps to '{to}', which the model lacks")]
    Missing {
        /// The animation bone.
        from: String,
        /// The model bone it maps to.
        to: String,
    },
    /// Two animation bones map to one model bone.
    #[error("bone map: two bones map to '{0}'")]
    Twice(String),
}
