//! Clip control: renames, ranges cut out of long takes, the clip filter and root
//! motion, in that order (so ranges name clips by their new names, and the filter
//! sees the final ones).

use super::error::StepError;
use super::options::{ClipRange, ClipRename};

/// Keys closer in time than this (seconds) to a range's end count as on it.
const ON_BOUND: f32 = 1e-5;

/// Renames clips; every `OLD` must name a clip and no `NEW` may name another clip
/// (two clips of one name could not be told apart by any later option or game).
pub fn rename(model: &mut gom::Model, renames: &[ClipRename]) -> Result<(), StepError> {
    for r in renames {
        let index = clip_index(model, &r.from, "--rename-clip")?;
        if model
            .clips
            .iter()
            .enumerate()
            .any(|(i, c)| i != index && c.name == r.to)
        {
            return Err(StepError::RenameTaken {
                rename: r.clone(),
                available: model.clip_names_listed(),
            });
        }
        model.clips[index].name = r.to.clone();
    }
    Ok(())
}

/// The index of the clip named `name`, or an error for `option` naming the clips
/// there are.
fn clip_index(model: &gom::Model, name: &str, option: &'static str) -> Result<usize, StepError> {
    model
        .clips
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| missing_clip(model, name, option))
}

/// `option: no clip named "NAME" (the model has: …)`.
fn missing_clip(model: &gom::Model, name: &str, option: &'static str) -> StepError {
    StepError::NoClip {
        option,
        name: name.to_string(),
        available: model.clip_names_listed(),
    }
}

/// What one `--clip-range` cut, in seconds, and the rate its frame numbers counted at.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RangeReport {
    /// The range as given.
    pub range: String,
    /// The rate frame numbers count at: the clip's sample rate (after resampling on
    /// import, not the source's frame rate).
    pub frame_rate: f32,
    /// Where the cut starts, in seconds of the clip.
    pub start: f32,
    /// Where it ends, in seconds of the clip.
    pub end: f32,
}

/// Cuts every range out of the clips as they were before any cut: a range with a
/// new name is added as a clip of that name, one without replaces its clip.
pub fn cut_ranges(
    model: &mut gom::Model,
    ranges: &[ClipRange],
) -> Result<Vec<RangeReport>, StepError> {
    let before = model.clips.clone();
    let mut reports = Vec::with_capacity(ranges.len());
    for r in ranges {
        let source = before
            .iter()
            .find(|c| c.name == r.clip)
            .ok_or_else(|| missing_clip(model, &r.clip, "--clip-range"))?;
        let rate = source.sample_rate;
        reports.push(RangeReport {
            range: r.to_string(),
            frame_rate: rate,
            start: r.start.seconds(rate),
            end: r.end.seconds(rate).min(source.duration),
        });
        let mut cut = cut(source, r)?;
        match &r.new_name {
            Some(name) => {
                if model.clips.iter().any(|c| &c.name == name) {
                    return Err(StepError::ClipExists {
                        range: r.clone(),
                        available: model.clip_names_listed(),
                    });
                }
                cut.name = name.clone();
                model.clips.push(cut);
            }
            None => {
                if let Some(c) = model.clips.iter_mut().find(|c| c.name == r.clip) {
                    *c = cut;
                }
            }
        }
    }
    Ok(reports)
}

/// The part of `clip` between the range's ends, starting at time 0. Keys strictly
/// inside are kept (shifted); each track gets a key at either end, the clip sampled
/// there by the runtime unless a key lies on the end already.
pub fn cut(clip: &gom::Clip, range: &ClipRange) -> Result<gom::Clip, StepError> {
    let rate = clip.sample_rate;
    let needs_rate = matches!(range.start, super::RangeBound::Frame(_))
        || matches!(range.end, super::RangeBound::Frame(_));
    if needs_rate && !(rate.is_finite() && rate > 0.0) {
        return Err(StepError::NoSampleRate {
            range: range.clone(),
            clip: clip.name.clone(),
        });
    }
    let (start, end) = (range.start.seconds(rate), range.end.seconds(rate));
    if !(start < end && end <= clip.duration + ON_BOUND) {
        return Err(StepError::OutOfClip {
            range: range.clone(),
            start,
            end,
            clip: clip.name.clone(),
            duration: clip.duration,
        });
    }
    let end = end.min(clip.duration);
    let sampled = gom_runtime::Clip::from_model(clip).map_err(|source| StepError::Sample {
        range: range.clone(),
        source: Box::new(source),
    })?;
    let tracks = clip
        .tracks
        .iter()
        .map(|t| gom::Track {
            bone: t.bone,
            keys: cut_keys(&t.keys, start, end, |time| {
                sampled.sample_bone(t.bone, time).map(|x| gom::Key {
                    time,
                    translation: x.translation.into(),
                    rotation: x.rotation.to_array(),
                    scale: x.scale.into(),
                })
            }),
        })
        .collect();
    Ok(gom::Clip {
        name: clip.name.clone(),
        duration: end - start,
        tracks,
        ..clip.clone()
    })
}

/// The keys of one track between `start` and `end`, shifted to start at 0, with a
/// key at each end (`sample` gives the track's value at a time).
fn cut_keys(
    keys: &[gom::Key],
    start: f32,
    end: f32,
    sample: impl Fn(f32) -> Option<gom::Key>,
) -> Vec<gom::Key> {
    let on = |k: &gom::Key, t: f32| (k.time - t).abs() <= ON_BOUND;
    let at = |t: f32| {
        keys.iter()
            .find(|k| on(k, t))
            .copied()
            .or_else(|| sample(t))
    };
    let mut out: Vec<gom::Key> = Vec::new();
    out.extend(at(start));
    out.extend(
        keys.iter()
            .filter(|k| k.time > start + ON_BOUND && k.time < end - ON_BOUND)
            .copied(),
    );
    out.extend(at(end));
    for k in &mut out {
        k.time = (k.time - start).max(0.0);
    }
    if let Some(last) = out.last_mut() {
        last.time = end - start;
    }
    out
}

/// Keeps only the clips whose names match one of `patterns` (all when empty).
/// Returns the patterns that matched no clip.
pub fn filter(model: &mut gom::Model, patterns: &[String]) -> Vec<String> {
    if patterns.is_empty() {
        return Vec::new();
    }
    let unmatched = patterns
        .iter()
        .filter(|p| !model.clips.iter().any(|c| glob_match(p, &c.name)))
        .cloned()
        .collect();
    model
        .clips
        .retain(|c| patterns.iter().any(|p| glob_match(p, &c.name)));
    unmatched
}

/// Whether `name` matches the glob `pattern`: `*` any run of characters, `?` any one
/// character, everything else itself. Written here rather than taken from a glob
/// crate: clip names are not paths, and these two wildcards are all a clip filter
/// needs. Runs in O(pattern × name) by the usual backtrack to the last `*`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Marks root motion on the bone `bone` in every clip.
pub fn root_motion(model: &mut gom::Model, bone: &str) -> Result<(), StepError> {
    let index = super::retarget::find_bone(&model.skeleton.bones, bone).ok_or_else(|| {
        let names: Vec<String> = model
            .skeleton
            .bones
            .iter()
            .map(|b| format!("\"{}\"", b.name))
            .collect();
        StepError::NoRootBone {
            bone: bone.to_string(),
            available: if names.is_empty() {
                "no bones".to_string()
            } else {
                names.join(", ")
            },
        }
    })?;
    for clip in &mut model.clips {
        clip.root_bone_index = index as i32;
        clip.flags |= gom::ClipFlags::HAS_ROOT_MOTION;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_stars_and_question_marks() {
        assert!(glob_match("walk*", "walk_fast"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXbYbZc"));
        assert!(glob_match("r?n", "run"));
        assert!(!glob_match("r?n", "rn"));
        assert!(!glob_match("walk", "walk2"));
        assert!(!glob_match("*x", "abc"));
    }
}
