//! Clips from an animation file, mapped onto a model's skeleton by bone name and
//! retargeted where the two bind poses differ ([`super::retarget`]).
//!
//! Tracks of animation bones the model lacks are dropped (and listed); model bones
//! the animation does not move get no track, so they hold their bind pose. A file
//! holding one clip names it after the file's stem; clips of a file holding several
//! keep their names. A name already taken gets `-2`, `-3`, … appended.

use std::collections::BTreeSet;

use super::error::StepError;
use super::retarget::{match_bones, same_bind, BoneMap, Carry, MatchKind, Trs};

/// What mapping one animation file did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnimReport {
    /// The animation file.
    pub file: String,
    /// The clips added, by their names in the model.
    pub clips: Vec<String>,
    /// Animation bone → model bone pairs, and how each was found.
    pub matched: Vec<BoneMatch>,
    /// Animation bones with keys that the model lacks: their tracks were dropped.
    pub dropped_tracks: Vec<String>,
    /// Model bones the animation does not move: they hold their bind pose.
    pub held_bones: Vec<String>,
    /// Model bones whose keys were retargeted (their bind poses differ).
    pub retargeted_bones: Vec<String>,
}

/// One matched bone.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoneMatch {
    /// The animation file's bone name.
    pub anim: String,
    /// The model's bone name.
    pub model: String,
    /// How it was found.
    pub how: MatchKind,
}

/// Adds the clips of `anim` (read from a file of stem `stem`) to `model`, mapped
/// onto its skeleton.
pub fn add_clips(
    model: &mut gom::Model,
    anim: &gom::Model,
    file: &str,
    stem: &str,
    map: &BoneMap,
    keep_translations: bool,
) -> Result<AnimReport, StepError> {
    let bones = &model.skeleton.bones;
    let matches =
        match_bones(bones, &anim.skeleton.bones, map).map_err(|source| StepError::Match {
            file: file.to_string(),
            source,
        })?;
    let target = |b: u32| matches.get(b as usize).copied().flatten().map(|(i, _)| i);
    let moved: BTreeSet<usize> = anim
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .filter_map(|t| target(t.bone))
        .collect();
    let carries: Vec<Option<Carry>> = anim
        .skeleton
        .bones
        .iter()
        .zip(&matches)
        .map(|(a, m)| {
            let (i, _) = (*m)?;
            let c = &bones[i];
            Some(if same_bind(&a.bind_local, &c.bind_local) {
                Carry::Copy
            } else {
                Carry::Retarget {
                    model: Trs::of(&c.bind_local),
                    anim: Trs::of(&a.bind_local),
                    keep_translation: keep_translations || is_top(bones, i, &moved),
                }
            })
        })
        .collect();

    let mut report = AnimReport {
        file: file.to_string(),
        ..Default::default()
    };
    for (a, m) in anim.skeleton.bones.iter().zip(&matches) {
        if let Some((i, how)) = m {
            report.matched.push(BoneMatch {
                anim: a.name.clone(),
                model: bones[*i].name.clone(),
                how: *how,
            });
        }
    }
    let mut dropped = BTreeSet::new();
    for t in anim.clips.iter().flat_map(|c| &c.tracks) {
        if target(t.bone).is_none() {
            let name = anim
                .skeleton
                .bones
                .get(t.bone as usize)
                .map(|b| b.name.clone());
            dropped.insert(name.unwrap_or_else(|| format!("#{}", t.bone)));
        }
    }
    report.dropped_tracks = dropped.into_iter().collect();
    report.held_bones = (0..bones.len())
        .filter(|i| !moved.contains(i))
        .map(|i| bones[i].name.clone())
        .collect();
    report.retargeted_bones = carries
        .iter()
        .zip(&matches)
        .filter(|(c, _)| matches!(c, Some(Carry::Retarget { .. })))
        .filter_map(|(_, m)| m.map(|(i, _)| bones[i].name.clone()))
        .filter(|name| moved.iter().any(|i| &bones[*i].name == name))
        .collect();

    let single = anim.clips.len() == 1;
    for clip in &anim.clips {
        let base = if single { stem } else { clip.name.as_str() };
        let name = unique_name(&model.clips, base);
        let mut mapped = map_clip(clip, &name, &matches, &carries);
        mapped.weight_tracks = map_weight_tracks(&clip.weight_tracks, &anim.meshes, &model.meshes);
        report.clips.push(name);
        model.clips.push(mapped);
    }
    Ok(report)
}

/// `tracks` (of the meshes `from`) moved onto the meshes `to`: each onto the mesh of
/// the same name and its target of the same name; a track with no such target is
/// dropped. Sorted by (mesh, target), as a clip keeps them.
fn map_weight_tracks(
    tracks: &[gom::morph::WeightTrack],
    from: &[gom::MeshPart],
    to: &[gom::MeshPart],
) -> Vec<gom::morph::WeightTrack> {
    let mut out: Vec<gom::morph::WeightTrack> = tracks
        .iter()
        .filter_map(|t| {
            let mesh = from.get(t.mesh as usize)?;
            let target = &mesh.morph_targets.get(t.target as usize)?.name;
            let m = to.iter().position(|x| x.name == mesh.name)?;
            let k = to[m].morph_targets.iter().position(|x| &x.name == target)?;
            Some(gom::morph::WeightTrack {
                mesh: m as u32,
                target: k as u32,
                ..t.clone()
            })
        })
        .collect();
    out.sort_by_key(|t| (t.mesh, t.target));
    out.dedup_by_key(|t| (t.mesh, t.target));
    out
}

/// Whether model bone `i` is a top bone: moved, with no moved ancestor.
fn is_top(bones: &[gom::Bone], i: usize, moved: &BTreeSet<usize>) -> bool {
    let mut p = bones[i].parent_index();
    while let Some(j) = p {
        if moved.contains(&j) {
            return false;
        }
        p = bones.get(j).and_then(gom::Bone::parent_index);
    }
    true
}

/// `base`, or `base-2`, `base-3`, … whichever no clip has.
fn unique_name(clips: &[gom::Clip], base: &str) -> String {
    let taken = |n: &str| clips.iter().any(|c| c.name == n);
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|k| format!("{base}-{k}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_string())
}

/// `clip` with its tracks moved onto the model's bones and its keys carried over.
fn map_clip(
    clip: &gom::Clip,
    name: &str,
    matches: &[Option<(usize, MatchKind)>],
    carries: &[Option<Carry>],
) -> gom::Clip {
    let mut tracks: Vec<gom::Track> = clip
        .tracks
        .iter()
        .filter_map(|t| {
            let (i, _) = matches.get(t.bone as usize).copied().flatten()?;
            let carry = carries.get(t.bone as usize).copied().flatten()?;
            Some(gom::Track {
                bone: i as u32,
                keys: t.keys.iter().map(|k| carry.key(k)).collect(),
            })
        })
        .collect();
    tracks.sort_by_key(|t| t.bone);
    let root = usize::try_from(clip.root_bone_index)
        .ok()
        .and_then(|r| matches.get(r).copied().flatten())
        .map(|(i, _)| i as i32);
    let mut flags = clip.flags;
    if root.is_none() {
        flags.remove(gom::ClipFlags::HAS_ROOT_MOTION);
    }
    gom::Clip {
        name: name.to_string(),
        root_bone_index: root.unwrap_or(-1),
        flags,
        tracks,
        ..clip.clone()
    }
}
