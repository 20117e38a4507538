//! `--additive CLIP[=REF]`: clips stored as deltas from a reference pose
//! ([`gom::additive`], `docs/extensions.md` §5), after the other clip steps; and
//! `--event CLIP@T=NAME[:PAYLOAD]`: events added to clips (§6).

use super::options::{AdditiveSpec, EventSpec};
use super::StepError;
use gom::additive::{make_additive, reference_pose, Reference};

/// Adds each event of `specs` to its clip, keeping each clip's events in time order
/// (an added event after those of the same time already there).
pub fn add_events(model: &mut gom::Model, specs: &[EventSpec]) -> Result<(), StepError> {
    for spec in specs {
        let available = model.clip_names_listed();
        let clip = model
            .clips
            .iter_mut()
            .find(|c| c.name == spec.clip)
            .ok_or_else(|| StepError::NoClip {
                option: "--event",
                name: spec.clip.clone(),
                available,
            })?;
        if spec.time > clip.duration {
            return Err(StepError::EventPastClip {
                spec: spec.clone(),
                duration: clip.duration,
            });
        }
        let events = &mut clip.extras.events;
        let at = events.partition_point(|e| e.time <= spec.time);
        events.insert(
            at,
            gom::events::Event {
                time: spec.time,
                name: spec.name.clone(),
                payload: spec.payload.clone(),
            },
        );
    }
    Ok(())
}

/// Makes each clip `specs` name additive against its reference. Every reference pose
/// is taken from the model before any clip changes, so a clip may be the reference
/// of another and additive itself.
pub fn make_clips_additive(
    model: &mut gom::Model,
    specs: &[AdditiveSpec],
) -> Result<(), StepError> {
    let mut made = Vec::with_capacity(specs.len());
    for spec in specs {
        let index = model
            .clips
            .iter()
            .position(|c| c.name == spec.clip)
            .ok_or_else(|| StepError::NoClip {
                option: "--additive",
                name: spec.clip.clone(),
                available: model.clip_names_listed(),
            })?;
        let reference = match &spec.reference {
            None => Reference::BindPose,
            Some(clip) => Reference::ClipFrame {
                clip: clip.clone(),
                time: spec.time,
            },
        };
        let failed = |source| StepError::Additive {
            spec: spec.clone(),
            source,
        };
        let pose = reference_pose(model, &reference).map_err(failed)?;
        let clip = make_additive(model, &model.clips[index], reference, &pose).map_err(failed)?;
        made.push((index, clip));
    }
    for (index, clip) in made {
        model.clips[index] = clip;
    }
    Ok(())
}
