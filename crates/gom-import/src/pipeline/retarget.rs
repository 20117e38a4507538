//! Mapping an animation file's bones onto a model's skeleton, and carrying its keys
//! over when the two bind poses differ.
//!
//! **Matching.** Each animation bone is looked up among the model's bones: first in
//! the explicit pairs of a [`BoneMap`], then by exact name, then ignoring ASCII case,
//! then with any namespace prefix (everything up to the last `:`, as in
//! `mixamorig:Hips`) removed from both names, ignoring case. The first model bone (in
//! index order) that matches wins; two animation bones never share a model bone.
//!
//! **Retargeting.** Write a bone's bind-local transform in the model as
//! `(t_C, q_C, s_C)` and in the animation file as `(t_A, q_A, s_A)`, and a key of
//! the animation as `(t, q, s)`. When the two bind transforms agree (within
//! [`BIND_TOLERANCE`]) the key is copied unchanged. Otherwise the key is carried as
//! its change from the animation's bind pose, in the bone's own frame:
//!
//! - rotation `q' = q_C · q_A⁻¹ · q` (so `q = q_A` gives the model's bind `q_C`);
//! - scale `s' = s_C ⊙ s ⊘ s_A` (component-wise; `s_C` where `s_A` is zero);
//! - translation `t' = t_C` for a bone below the animation's top bones (the other
//!   rig's bone lengths do not fit this one), or the key's `t` unchanged for a top
//!   bone (the hips carry the motion through space) and with `--keep-translations`.
//!
//! A *top bone* is a model bone that receives a track and has no ancestor that
//! receives one.

use std::collections::BTreeMap;
use std::path::Path;

use glam::{Quat, Vec3};

use super::error::{MatchError, StepError};

/// Two bind transforms closer than this (each matrix element, relative to its size
/// for elements larger than 1) count as equal.
pub const BIND_TOLERANCE: f32 = 1e-4;

/// Explicit bone pairs: animation bone name → model bone name.
///
/// The file format is one pair a line, `animation bone = model bone`; names are
/// trimmed of surrounding spaces, blank lines and lines starting with `#` are
/// skipped. A name may hold spaces and `:` but not `=`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoneMap {
    /// Animation bone name → model bone name.
    pub pairs: BTreeMap<String, String>,
}

impl BoneMap {
    /// Reads the pairs from `text`; `name` names the file in errors.
    pub fn parse(text: &str, name: &str) -> Result<BoneMap, StepError> {
        let mut pairs = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let pair = line
                .split_once('=')
                .map(|(a, b)| (a.trim(), b.trim()))
                .filter(|(a, b)| !a.is_empty() && !b.is_empty());
            let Some((from, to)) = pair else {
                return Err(StepError::BoneMapLine {
                    file: name.to_string(),
                    line: i + 1,
                });
            };
            if pairs.insert(from.to_string(), to.to_string()).is_some() {
                return Err(StepError::BoneMappedTwice {
                    file: name.to_string(),
                    line: i + 1,
                    bone: from.to_string(),
                });
            }
        }
        Ok(BoneMap { pairs })
    }

    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<BoneMap, StepError> {
        let text = std::fs::read_to_string(path).map_err(|source| StepError::BoneMapRead {
            path: path.to_path_buf(),
            source,
        })?;
        BoneMap::parse(&text, &path.display().to_string())
    }
}

/// How an animation bone found its model bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    /// Through the bone map.
    BoneMap,
    /// Same name.
    Exact,
    /// Same name but for ASCII case.
    IgnoringCase,
    /// Same name once namespace prefixes are removed.
    WithoutPrefix,
}

/// The name without its namespace prefix: what follows the last `:`.
pub fn strip_prefix(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// The model bone each animation bone maps to (`None` for none), and how: the bone
/// map's pairs first, then the name rules for the bones it leaves.
pub fn match_bones(
    model: &[gom::Bone],
    anim: &[gom::Bone],
    map: &BoneMap,
) -> Result<Vec<Option<(usize, MatchKind)>>, MatchError> {
    let mut taken = vec![false; model.len()];
    let mut out = vec![None; anim.len()];
    for (a, slot) in anim.iter().zip(&mut out) {
        let Some(target) = map.pairs.get(&a.name) else {
            continue;
        };
        let i = model
            .iter()
            .position(|b| &b.name == target)
            .ok_or_else(|| MatchError::Missing {
                from: a.name.clone(),
                to: target.clone(),
            })?;
        if std::mem::replace(&mut taken[i], true) {
            return Err(MatchError::Twice(target.clone()));
        }
        *slot = Some((i, MatchKind::BoneMap));
    }
    for (a, slot) in anim.iter().zip(&mut out) {
        if slot.is_none() && !map.pairs.contains_key(&a.name) {
            *slot = find_by_name(model, &a.name, &taken);
            if let Some((i, _)) = slot {
                taken[*i] = true;
            }
        }
    }
    Ok(out)
}

/// The first free model bone matching `name` by the rules in order.
fn find_by_name(model: &[gom::Bone], name: &str, taken: &[bool]) -> Option<(usize, MatchKind)> {
    let free = |i: &usize| !taken[*i];
    let first = |pred: &dyn Fn(&gom::Bone) -> bool| {
        (0..model.len()).filter(free).find(|i| pred(&model[*i]))
    };
    let bare = strip_prefix(name);
    first(&|b| b.name == name)
        .map(|i| (i, MatchKind::Exact))
        .or_else(|| {
            first(&|b| b.name.eq_ignore_ascii_case(name)).map(|i| (i, MatchKind::IgnoringCase))
        })
        .or_else(|| {
            first(&|b| strip_prefix(&b.name).eq_ignore_ascii_case(bare))
                .map(|i| (i, MatchKind::WithoutPrefix))
        })
}

/// The first bone named `name` by the matching rules (exact, case, prefix).
pub fn find_bone(bones: &[gom::Bone], name: &str) -> Option<usize> {
    find_by_name(bones, name, &vec![false; bones.len()]).map(|(i, _)| i)
}

/// A bind-local transform split into translation, rotation and scale.
#[derive(Debug, Clone, Copy)]
pub struct Trs {
    t: Vec3,
    q: Quat,
    s: Vec3,
}

impl Trs {
    /// The parts of a GOM bind-local matrix (glam's layout of its column-vector form).
    pub fn of(m: &gom::Mat4) -> Trs {
        let (s, q, t) = glam::Mat4::from_cols_array(m).to_scale_rotation_translation();
        Trs {
            t,
            q: q.normalize(),
            s,
        }
    }
}

/// Whether two bind-local matrices agree within [`BIND_TOLERANCE`].
pub fn same_bind(a: &gom::Mat4, b: &gom::Mat4) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= BIND_TOLERANCE * x.abs().max(y.abs()).max(1.0))
}

/// How one bone's keys are carried over.
#[derive(Debug, Clone, Copy)]
pub enum Carry {
    /// The binds agree: keys unchanged.
    Copy,
    /// The binds differ: keys retargeted (see the module documentation).
    Retarget {
        /// The model's bind-local transform.
        model: Trs,
        /// The animation file's.
        anim: Trs,
        /// Whether the key's translation is kept (top bone, or `--keep-translations`).
        keep_translation: bool,
    },
}

impl Carry {
    /// The key carried over.
    pub fn key(&self, k: &gom::Key) -> gom::Key {
        let Carry::Retarget {
            model,
            anim,
            keep_translation,
        } = self
        else {
            return *k;
        };
        let q = model.q * anim.q.inverse() * Quat::from_array(k.rotation);
        let s = Vec3::from(k.scale);
        let scale = Vec3::select(anim.s.cmpeq(Vec3::ZERO), model.s, model.s * s / anim.s);
        gom::Key {
            time: k.time,
            translation: if *keep_translation {
                k.translation
            } else {
                model.t.into()
            },
            rotation: q.normalize().to_array(),
            scale: scale.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bone(name: &str) -> gom::Bone {
        gom::Bone {
            name: name.into(),
            path: name.into(),
            parent: -1,
            bind_local: gom::IDENTITY,
        }
    }

    #[test]
    fn bones_match_exactly_then_ignoring_case_then_without_prefix() {
        let model = [bone("Hips"), bone("spine"), bone("Head"), bone("hand")];
        let anim = [
            bone("mixamorig:Hips"),
            bone("Spine"),
            bone("Head"),
            bone("Tail"),
            bone("wrist"),
        ];
        let map = BoneMap::parse("# pairs\n wrist = hand \n", "m").unwrap();
        let m = match_bones(&model, &anim, &map).unwrap();
        assert_eq!(
            m,
            vec![
                Some((0, MatchKind::WithoutPrefix)),
                Some((1, MatchKind::IgnoringCase)),
                Some((2, MatchKind::Exact)),
                None,
                Some((3, MatchKind::BoneMap)),
            ]
        );
        assert!(BoneMap::parse("a b\n", "m").is_err());
        assert!(BoneMap::parse("a = b\na = c\n", "m").is_err());
        let bad = BoneMap::parse("wrist = paw", "m").unwrap();
        assert!(match_bones(&model, &anim, &bad).is_err());
        let twice = BoneMap::parse("wrist = hand\nTail = hand", "m").unwrap();
        assert!(match_bones(&model, &anim, &twice).is_err());
        // A pair wins over an earlier bone's name match.
        let first = BoneMap::parse("Tail = Head", "m").unwrap();
        let m = match_bones(&model, &anim, &first).unwrap();
        assert_eq!((m[2], m[3]), (None, Some((2, MatchKind::BoneMap))));
    }

    #[test]
    fn a_key_at_the_animation_bind_becomes_the_model_bind() {
        let model_bind = gom::math::from_trs([0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let anim_q = [0.0, 0.0, h, h];
        let anim_bind = gom::math::from_trs([0.0, 3.0, 0.0], anim_q, [2.0; 3]);
        let carry = Carry::Retarget {
            model: Trs::of(&model_bind),
            anim: Trs::of(&anim_bind),
            keep_translation: false,
        };
        let k = gom::Key {
            time: 0.5,
            translation: [0.0, 3.0, 0.0],
            rotation: anim_q,
            scale: [2.0; 3],
        };
        let out = carry.key(&k);
        assert_eq!(out.time, 0.5);
        assert_eq!(out.translation, [0.0, 2.0, 0.0]);
        let q = Quat::from_array(out.rotation);
        assert!(q.abs_diff_eq(Quat::IDENTITY, 1e-6) || q.abs_diff_eq(-Quat::IDENTITY, 1e-6));
        assert!(Vec3::from(out.scale).abs_diff_eq(Vec3::ONE, 1e-6));
    }
}
