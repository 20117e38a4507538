//! Model-to-model steps applied after a source is read, whatever its format, in this
//! order: the units and axes overrides ([`units`]) on the model and on every
//! animation file, clips from the animation files mapped onto the model's skeleton
//! ([`anim`], [`retarget`]), then clip control ([`clips`]): renames, ranges, the
//! clip filter and root motion, and last the additive clips ([`additive`]). What each step did goes into the import's report
//! under `pipeline` and into its summary.

pub mod additive;
pub mod anim;
pub mod clips;
pub mod error;
pub mod options;
pub mod retarget;
pub mod units;

pub use error::{MatchError, StepError};
pub use options::{AdditiveSpec, Axis, ClipRange, ClipRename, EventSpec, LengthUnit, RangeBound};
pub use units::SourceSpace;

use crate::imported::Imported;
use crate::options::ImportOptions;
use std::path::Path;

/// What the pipeline did, as recorded in the report.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PipelineReport {
    /// The units and axes change, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<units::SpaceReport>,
    /// Each animation file's mapping.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anim: Vec<anim::AnimReport>,
    /// Each clip range cut, with the rate its frames counted at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<clips::RangeReport>,
    /// The clips the model ends with.
    pub clips: Vec<String>,
    /// The bone root motion was extracted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_motion: Option<String>,
    /// The clips made additive, each with its reference (`CLIP=REF@T`, `CLIP=@bind`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additive: Vec<String>,
}

/// Whether `options` ask for any pipeline step.
pub fn is_active(options: &ImportOptions) -> bool {
    space_active(options)
        || !options.anim.is_empty()
        || options.bone_map.is_some()
        || !options.clip.is_empty()
        || !options.rename_clip.is_empty()
        || !options.clip_range.is_empty()
        || options.root_motion.is_some()
        || !options.additive.is_empty()
        || !options.event.is_empty()
}

fn space_active(options: &ImportOptions) -> bool {
    options.scale != 1.0
        || options.up.is_some()
        || options.forward.is_some()
        || options.unit.is_some()
}

/// The options an animation file is read with: the model's, without the steps that
/// apply to the merged model.
pub fn anim_file_options(options: &ImportOptions) -> ImportOptions {
    ImportOptions {
        anim: Vec::new(),
        bone_map: None,
        clip: Vec::new(),
        rename_clip: Vec::new(),
        clip_range: Vec::new(),
        root_motion: None,
        additive: Vec::new(),
        event: Vec::new(),
        ..options.clone()
    }
}

/// Applies the units and axes overrides to a model read in the `declared` space.
pub fn correct_space(
    model: &mut gom::Model,
    declared: &SourceSpace,
    options: &ImportOptions,
) -> Result<Option<units::SpaceReport>, StepError> {
    if !space_active(options) {
        return Ok(None);
    }
    let overrides = units::SpaceOverrides {
        scale: options.scale,
        up: options.up,
        forward: options.forward,
        unit: options.unit,
    };
    units::correct_space(model, declared, &overrides)
}

/// Runs the steps after the model's own space correction: `read_anim` reads an
/// animation file (already space-corrected). Adds the report and warnings.
///
/// The pipeline does not know how files are read: `read_anim`'s error comes back
/// as it is, in [`Stopped::Read`].
pub fn run<E>(
    imported: &mut Imported,
    space: Option<units::SpaceReport>,
    options: &ImportOptions,
    mut read_anim: impl FnMut(&Path) -> Result<gom::Model, E>,
) -> Result<(), Stopped<E>> {
    let mut report = PipelineReport {
        space,
        ..Default::default()
    };
    if options.bone_map.is_some() && options.anim.is_empty() {
        return Err(PipelineError::Step(StepError::BoneMapWithoutAnim).into());
    }
    let map = match &options.bone_map {
        Some(path) => retarget::BoneMap::read(path).map_err(PipelineError::Step)?,
        None => retarget::BoneMap::default(),
    };
    for path in &options.anim {
        let anim_model = read_anim(path).map_err(Stopped::Read)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "anim".to_string());
        let file = path.display().to_string();
        let a = anim::add_clips(
            &mut imported.model,
            &anim_model,
            &file,
            &stem,
            &map,
            options.keep_translations,
        )
        .map_err(PipelineError::Step)?;
        if !a.dropped_tracks.is_empty() {
            imported.warnings.push(format!(
                "{file}: tracks dropped for bones the model lacks: {}",
                a.dropped_tracks.join(", ")
            ));
        }
        report.anim.push(a);
    }
    let model = &mut imported.model;
    clips::rename(model, &options.rename_clip).map_err(PipelineError::Step)?;
    report.ranges = clips::cut_ranges(model, &options.clip_range).map_err(PipelineError::Step)?;
    for p in clips::filter(model, &options.clip) {
        imported
            .warnings
            .push(format!("--clip '{p}' matches no clip"));
    }
    if let Some(bone) = &options.root_motion {
        clips::root_motion(&mut imported.model, bone).map_err(PipelineError::Step)?;
        report.root_motion = Some(bone.clone());
    }
    additive::add_events(&mut imported.model, &options.event).map_err(PipelineError::Step)?;
    additive::make_clips_additive(&mut imported.model, &options.additive)
        .map_err(PipelineError::Step)?;
    report.additive = options.additive.iter().map(|a| a.to_string()).collect();
    report.clips = imported
        .model
        .clips
        .iter()
        .map(|c| c.name.clone())
        .collect();
    record(imported, &report);
    Ok(())
}

/// Why a pipeline step failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// A step refused its options or its input.
    #[error(transparent)]
    Step(StepError),
}

/// Why [`run`] stopped: an animation file could not be read (the reader's own
/// error, `E`), or a step failed.
#[derive(Debug)]
pub enum Stopped<E> {
    /// `read_anim` failed.
    Read(E),
    /// A step failed.
    Step(PipelineError),
}

impl<E> From<PipelineError> for Stopped<E> {
    fn from(e: PipelineError) -> Self {
        Stopped::Step(e)
    }
}

/// Adds `report` to the import's JSON report (under `pipeline`) and summary.
fn record(imported: &mut Imported, report: &PipelineReport) {
    let value = serde_json::to_value(report).unwrap_or(serde_json::Value::Null);
    match imported.report.as_object_mut() {
        Some(object) => {
            object.insert("pipeline".to_string(), value);
        }
        None => imported.report = serde_json::json!({ "pipeline": value }),
    }
    imported.summary.extend(summary(report));
}

/// The report as lines for a person to read.
fn summary(report: &PipelineReport) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(s) = &report.space {
        let [x, y, z] = &s.rotation;
        lines.push(format!(
            "  space: scale {} (file unit {} m), up {}, forward {}; GOM X, Y, Z became {x}, {y}, {z}",
            s.scale, s.applied.unit_metres, s.applied.up, s.applied.forward
        ));
    }
    for a in &report.anim {
        lines.push(format!(
            "  anim {}: clips {}; {} bones matched, {} retargeted, {} dropped, {} held at bind",
            a.file,
            a.clips.join(", "),
            a.matched.len(),
            a.retargeted_bones.len(),
            a.dropped_tracks.len(),
            a.held_bones.len()
        ));
    }
    for r in &report.ranges {
        lines.push(format!(
            "  clip range {}: {} s to {} s (frames count at the clip's sample rate, {} Hz)",
            r.range, r.start, r.end, r.frame_rate
        ));
    }
    if let Some(b) = &report.root_motion {
        lines.push(format!("  root motion on bone \"{b}\""));
    }
    for a in &report.additive {
        lines.push(format!("  additive clip {a}"));
    }
    lines.push(format!("  clips: {}", report.clips.join(", ")));
    lines
}
