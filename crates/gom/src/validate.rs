//! The rules of GOM v1, written once and used by the writer, the reader and
//! [`validate`] alike.
//!
//! Two kinds of rules (D13): *structural* rules, whose failure makes a file unreadable
//! (and a model unwritable), and the three *validation checks* behind the header's
//! flags, whose failure a reader only reports as a [`Finding`] (unless the file's flag
//! claims the check passes). The rule functions below work on single values, slices
//! and iterators so that the model path (`&Model`) and the file path (bytes inside a
//! [`crate::gomb::FileView`]) share them.

use crate::error::{Item, WriteError};
use crate::limits::{
    BIND_POSE_TOLERANCE, MAX_BONES, MAX_CLIPS, MAX_INDICES, MAX_KEYS_PER_CLIP, MAX_TRACKS,
    MAX_VERTICES, QUAT_LENGTH_TOLERANCE, WEIGHT_SUM_TOLERANCE,
};
use crate::math::mul;
use crate::model::{Bounds, ClipFlags, Key, Mat4, Model, Submesh, ValidationFlags, IDENTITY};

/// One of the three validation checks behind the header's flags (D3, D13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// bindPosePass: `IBND[b] * bindWorld[b]` is the identity for every used bone.
    BindPose,
    /// weightsPass: every vertex follows the weight rules of D7.
    Weights,
    /// submeshMaterialsPass: submeshes cover their mesh and name valid materials.
    SubmeshMaterials,
    /// uniqueClipNames: no two clips share a name (no header flag: a clip option, a
    /// game or an engine names a clip, and a second clip of that name is unreachable).
    ClipNames,
}

impl Check {
    /// The check's bit in [`ValidationFlags`] (empty for [`Check::ClipNames`], which
    /// has none).
    pub fn flag(self) -> ValidationFlags {
        match self {
            Check::BindPose => ValidationFlags::BIND_POSE_PASS,
            Check::Weights => ValidationFlags::WEIGHTS_PASS,
            Check::SubmeshMaterials => ValidationFlags::SUBMESH_MATERIALS_PASS,
            Check::ClipNames => ValidationFlags::empty(),
        }
    }

    /// The check's name as `docs/format.md` spells it (a flag's name for the three
    /// flagged checks).
    pub fn name(self) -> &'static str {
        match self {
            Check::BindPose => "bindPosePass",
            Check::Weights => "weightsPass",
            Check::SubmeshMaterials => "submeshMaterialsPass",
            Check::ClipNames => "uniqueClipNames",
        }
    }

    /// The three checks behind the header's flags, in bit order.
    pub const ALL: [Check; 3] = [Check::BindPose, Check::Weights, Check::SubmeshMaterials];
}

/// The most offending items a [`Finding`] lists in [`Finding::items`].
pub const MAX_FINDING_ITEMS: usize = 8;

/// A failed validation check on one mesh: which check, which mesh, how many items fail,
/// the first few of them, and what is wrong with the first.
///
/// The items are vertex indices for [`Check::Weights`], skeleton bone indices for
/// [`Check::BindPose`] and submesh indices for [`Check::SubmeshMaterials`]. Memory
/// stays bounded however many items fail: only the count grows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The check that failed.
    pub check: Check,
    /// The mesh part concerned (all three checks are per mesh).
    pub mesh: Option<usize>,
    /// What failed: how many items, the first [`MAX_FINDING_ITEMS`] of them and what is
    /// wrong with the first, as a sentence.
    pub message: String,
    /// How many failures the check found on this mesh: failing vertices, bones or
    /// submeshes, plus, for [`Check::SubmeshMaterials`], one when the submeshes stop
    /// short of the end of the index list (a failure no single submesh carries).
    pub count: u64,
    /// The first failing items (at most [`MAX_FINDING_ITEMS`]), in ascending order.
    pub items: Vec<u32>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.mesh {
            Some(m) => write!(
                f,
                "{} fails on mesh {m}: {}",
                self.check.name(),
                self.message
            ),
            None => write!(f, "{} fails: {}", self.check.name(), self.message),
        }
    }
}

/// Every finding of the three checks on `model`, mesh by mesh, in check order; one
/// finding per failing check and mesh, with the number of failures, the first
/// [`MAX_FINDING_ITEMS`] failing items and a description of the first failure.
pub fn validate(model: &Model) -> Vec<Finding> {
    let mut out = Vec::new();
    let world = bind_world_of(model.skeleton.bones.len(), |i| {
        (
            model.skeleton.bones[i].parent,
            model.skeleton.bones[i].bind_local,
        )
    });
    let bone_count = model.skeleton.bones.len();
    let material_count = u32::try_from(model.materials.len()).unwrap_or(u32::MAX);
    let mut used = vec![false; bone_count];
    for (mi, mesh) in model.meshes.iter().enumerate() {
        let mut bind = Tally::default();
        let mut weights = Tally::default();
        if let Some(skin) = &mesh.vertices.skin {
            used.iter_mut().for_each(|u| *u = false);
            let eight = mesh.vertices.skin_extra.is_some();
            for (v, s) in skin.iter().enumerate() {
                let reason = if eight {
                    let (b, w) = mesh.vertices.influences(v);
                    mark_used(&mut used, b, w);
                    weights_rule(b, w)
                } else {
                    mark_used(&mut used, s.bones, s.weights);
                    weights_rule(s.bones, s.weights)
                };
                if let Some(reason) = reason {
                    weights.fail(item(v), || format!("vertex {v}: {reason}"));
                }
            }
            bind_pose_rule(
                &world,
                &used,
                |b| mesh.inverse_bind.get(b).copied(),
                &mut bind,
            );
        }
        let index_count = u32::try_from(mesh.indices.len()).unwrap_or(u32::MAX);
        let mut subs = Tally::default();
        submeshes_tally(
            mesh.submeshes.iter().copied(),
            index_count,
            material_count,
            &mut subs,
        );
        push_findings(&mut out, mi, &mesh.name, bind, weights, subs);
    }
    out.extend(clip_names_finding(
        model.clips.iter().map(|c| c.name.as_str()),
    ));
    out
}

/// The uniqueClipNames finding of clips named `names` (in file order), or `None` when
/// no two share a name. Its items are the clips whose name an earlier clip has.
pub(crate) fn clip_names_finding<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<Finding> {
    let mut first_of: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut tally = Tally::default();
    for (i, name) in names.into_iter().enumerate() {
        match first_of.get(name) {
            Some(&first) => tally.fail(item(i), || {
                format!("clip {i} is named \"{name}\" like clip {first}")
            }),
            None => {
                first_of.insert(name, i);
            }
        }
    }
    let first = tally.first?;
    let listed: Vec<String> = tally.items.iter().map(u32::to_string).collect();
    let more = if tally.more { ", …" } else { "" };
    Some(Finding {
        check: Check::ClipNames,
        mesh: None,
        message: format!(
            "{} (clips {}{more}); the first: {first}",
            if tally.count == 1 {
                "1 clip repeats a name".to_string()
            } else {
                format!("{} clips repeat a name", tally.count)
            },
            listed.join(", ")
        ),
        count: tally.count,
        items: tally.items,
    })
}

/// The validation flags `model` earns: each bit set exactly when its check passes.
pub fn flags_for(model: &Model) -> ValidationFlags {
    flags_from_findings(&validate(model))
}

/// The flags left set once `findings` are taken into account.
pub fn flags_from_findings(findings: &[Finding]) -> ValidationFlags {
    let mut f = ValidationFlags::all();
    for x in findings {
        f.remove(x.check.flag());
    }
    f
}

/// `i` as an item number (items beyond `u32` cannot occur: counts are `u32` in files).
#[inline]
pub(crate) fn item(i: usize) -> Option<u32> {
    u32::try_from(i).ok()
}

/// Counts failures of one check on one mesh, keeps the first [`MAX_FINDING_ITEMS`]
/// failing items and the description of the first failure.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    count: u64,
    first: Option<String>,
    items: Vec<u32>,
    /// Whether failing items beyond the first [`MAX_FINDING_ITEMS`] were left out.
    more: bool,
}

impl Tally {
    /// Records a failure of `item` (`None` for a failure no single item carries),
    /// describing it only when it is the first.
    pub(crate) fn fail(&mut self, item: Option<u32>, describe: impl FnOnce() -> String) {
        if self.first.is_none() {
            self.first = Some(describe());
        }
        self.count += 1;
        if let Some(i) = item {
            if self.items.len() < MAX_FINDING_ITEMS {
                self.items.push(i);
            } else {
                self.more = true;
            }
        }
    }

    fn finding(
        self,
        check: Check,
        mesh: usize,
        name: &str,
        (one, many): (&str, &str),
    ) -> Option<Finding> {
        let first = self.first?;
        let message = if self.count == 1 {
            format!("mesh {mesh} `{name}`: {first}")
        } else {
            let n = self.items.len();
            let listed = self
                .items
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let more = if self.more { ", …" } else { "" };
            let noun = if n == 1 { one } else { many };
            let list = if n == 0 {
                String::new()
            } else {
                format!(" ({noun} {listed}{more})")
            };
            format!(
                "mesh {mesh} `{name}`: {} failures{list}; the first: {first}",
                self.count
            )
        };
        Some(Finding {
            check,
            mesh: Some(mesh),
            message,
            count: self.count,
            items: self.items,
        })
    }
}

/// Appends the findings of one mesh in check order.
pub(crate) fn push_findings(
    out: &mut Vec<Finding>,
    mesh: usize,
    name: &str,
    bind: Tally,
    weights: Tally,
    subs: Tally,
) {
    out.extend(bind.finding(Check::BindPose, mesh, name, ("bone", "bones")));
    out.extend(weights.finding(Check::Weights, mesh, name, ("vertex", "vertices")));
    out.extend(subs.finding(
        Check::SubmeshMaterials,
        mesh,
        name,
        ("submesh", "submeshes"),
    ));
}

// ---------------------------------------------------------------------------------
// Validation rules (findings).

/// The weight rules of D7 for one vertex (weightsPass): the weights sum to 1 within
/// 1e-5 (summed in f64, in slot order), descend, equal weights list their bones in
/// ascending order, unused slots (weight 0) are bone 0, and no bone is used twice.
/// Returns what is broken, or `None`.
#[inline]
pub(crate) fn weights_rule<const N: usize>(bones: [u16; N], w: [f32; N]) -> Option<&'static str> {
    let sum = w.iter().fold(0.0f64, |s, &x| s + f64::from(x));
    let sums_to_one = (sum - 1.0).abs() <= WEIGHT_SUM_TOLERANCE;
    if !sums_to_one {
        return Some("the weights do not sum to 1");
    }
    for i in 0..N - 1 {
        if w[i] < w[i + 1] {
            return Some("the weights are not in descending order");
        }
        if w[i] == w[i + 1] && w[i] > 0.0 && bones[i] >= bones[i + 1] {
            return Some("equal weights do not list their bones in ascending order");
        }
    }
    for i in 0..N {
        if w[i] == 0.0 && bones[i] != 0 {
            return Some("an unused slot (weight 0) names a bone other than 0");
        }
        for j in i + 1..N {
            if w[i] > 0.0 && w[j] > 0.0 && bones[i] == bones[j] {
                return Some("a bone is used twice");
            }
        }
    }
    None
}

/// Marks in `used` the bones of the slots with weight > 0 (bones beyond `used` are
/// ignored: they are a structural error reported elsewhere).
#[inline]
pub(crate) fn mark_used<const N: usize>(used: &mut [bool], bones: [u16; N], w: [f32; N]) {
    for k in 0..N {
        if w[k] > 0.0 {
            if let Some(u) = used.get_mut(usize::from(bones[k])) {
                *u = true;
            }
        }
    }
}

/// Model-space bind matrices `world[i] = local[i] * world[parent[i]]` (D1) of `n`
/// bones given by `bone(i) = (parent, bindLocal)`; a parent that is not an earlier
/// bone counts as none.
pub fn bind_world_of(n: usize, bone: impl Fn(usize) -> (i32, Mat4)) -> Vec<Mat4> {
    let mut world: Vec<Mat4> = Vec::with_capacity(n);
    for i in 0..n {
        let (parent, local) = bone(i);
        let m = match usize::try_from(parent) {
            Ok(p) if p < i => mul(&local, &world[p]),
            _ => local,
        };
        world.push(m);
    }
    world
}

/// Whether `inverse_bind * world` is the identity within 1e-3 per element (D13).
#[inline]
pub fn bind_pair_ok(inverse_bind: &Mat4, world: &Mat4) -> bool {
    let p = mul(inverse_bind, world);
    p.iter()
        .zip(IDENTITY.iter())
        .all(|(a, b)| (a - b).abs() <= BIND_POSE_TOLERANCE)
}

/// bindPosePass for one skinned mesh: every bone marked in `used` has an inverse bind
/// (`inverse_bind(b)`) that undoes its bind-world matrix. Failures go to `tally`.
pub(crate) fn bind_pose_rule(
    world: &[Mat4],
    used: &[bool],
    inverse_bind: impl Fn(usize) -> Option<Mat4>,
    tally: &mut Tally,
) {
    for (b, (&u, w)) in used.iter().zip(world.iter()).enumerate() {
        if !u {
            continue;
        }
        match inverse_bind(b) {
            None => tally.fail(item(b), || {
                format!("bone {b} is used but has no inverse bind matrix")
            }),
            Some(ib) => {
                if !bind_pair_ok(&ib, w) {
                    tally.fail(item(b), || {
                        format!("inverseBind[{b}] * bindWorld[{b}] is not the identity within 1e-3")
                    });
                }
            }
        }
    }
}

/// submeshMaterialsPass for one mesh (D7, D13): submeshes sorted by start, contiguous,
/// covering `[0, index_count)` exactly, none empty, each material −1 or below
/// `material_count`. Returns the first problem. (The writer and reader use
/// [`submeshes_tally`], which records every failure; the unit tests state the rule
/// through this.)
#[cfg(test)]
fn submeshes_rule(
    subs: impl IntoIterator<Item = Submesh>,
    index_count: u32,
    material_count: u32,
) -> Option<String> {
    let mut t = Tally::default();
    submeshes_tally(subs, index_count, material_count, &mut t);
    t.first
}

/// submeshMaterialsPass for one mesh, every failure recorded in `tally`: each submesh
/// that is empty, does not start where the previous one ended (the first: at 0), or
/// names a material that does not exist, once; and, without an item, submeshes whose
/// furthest end is not `index_count`. After a misplaced submesh the next one is
/// expected where the misplaced one ends, so that one gap, overlap or swap of two
/// submeshes fails only the submeshes out of place.
pub(crate) fn submeshes_tally(
    subs: impl IntoIterator<Item = Submesh>,
    index_count: u32,
    material_count: u32,
    tally: &mut Tally,
) {
    let mut expected = 0u64;
    let mut end = 0u64;
    for (i, s) in subs.into_iter().enumerate() {
        let problem = if s.index_count == 0 {
            Some(format!("submesh {i} is empty"))
        } else if u64::from(s.index_start) != expected {
            Some(format!(
                "submesh {i} starts at index {} where {expected} was expected (sorted, contiguous)",
                s.index_start
            ))
        } else if s.material_index != -1
            && (s.material_index < 0 || s.material_index as u32 >= material_count)
        {
            Some(format!(
                "submesh {i} names material {}, but there are {material_count} materials",
                s.material_index
            ))
        } else {
            None
        };
        if let Some(p) = problem {
            tally.fail(item(i), || p);
        }
        expected = u64::from(s.index_start) + u64::from(s.index_count);
        end = end.max(expected);
    }
    if end != u64::from(index_count) {
        tally.fail(None, || {
            format!("the submeshes end at index {end} instead of covering [0, {index_count})")
        });
    }
}

// ---------------------------------------------------------------------------------
// Structural rules (errors).

/// Whether `f` is finite, by its bits (neither NaN nor ±∞).
#[inline]
pub(crate) fn finite_bits(bits: u32) -> bool {
    bits & 0x7F80_0000 != 0x7F80_0000
}

/// A bone's parent is −1 or an earlier bone.
#[inline]
pub(crate) fn parent_ok(index: usize, parent: i32) -> bool {
    parent == -1 || usize::try_from(parent).is_ok_and(|p| p < index)
}

/// A tangent's w is +1 or −1.
#[inline]
pub(crate) fn tangent_w_ok(w: f32) -> bool {
    w == 1.0 || w == -1.0
}

/// A quaternion's length (computed in f64) is 1 within 1e-3.
#[inline]
pub(crate) fn quat_ok(q: [f32; 4]) -> bool {
    let [x, y, z, w] = q.map(f64::from);
    let len = (x * x + y * y + z * z + w * w).sqrt();
    (len - 1.0).abs() <= QUAT_LENGTH_TOLERANCE
}

/// Structural skin rules (D13) for one vertex: no negative weight, and every slot
/// with weight > 0 names a bone below `bone_count`. Returns the slot and the reason.
#[inline]
pub(crate) fn skin_structure<const N: usize>(
    bones: [u16; N],
    w: [f32; N],
    bone_count: u32,
) -> Option<(usize, &'static str)> {
    for k in 0..N {
        if w[k] < 0.0 {
            return Some((k, "a weight is negative"));
        }
        if w[k] > 0.0 && u32::from(bones[k]) >= bone_count {
            return Some((
                k,
                "a bone index with weight > 0 names no bone of the skeleton",
            ));
        }
    }
    None
}

/// Structural submesh rules (D13): start and count multiples of 3, the range inside
/// `[0, index_count)`. Returns the field and the reason.
#[inline]
pub(crate) fn submesh_structure(
    s: &Submesh,
    index_count: u32,
) -> Option<(&'static str, &'static str)> {
    if !s.index_start.is_multiple_of(3) {
        return Some(("indexStart", "the submesh start is not a multiple of 3"));
    }
    if !s.index_count.is_multiple_of(3) {
        return Some(("indexCount", "the submesh count is not a multiple of 3"));
    }
    match s.index_start.checked_add(s.index_count) {
        Some(end) if end <= index_count => None,
        _ => Some((
            "indexCount",
            "the submesh range lies outside [0, indexCount)",
        )),
    }
}

/// Structural rules of a clip's own fields (D9, D13). Returns the field and the reason.
pub(crate) fn clip_structure(
    duration: f32,
    sample_rate: f32,
    root_bone_index: i32,
    flags: ClipFlags,
    bone_count: u32,
) -> Option<(&'static str, &'static str)> {
    if !duration.is_finite() {
        return Some(("duration", "the duration is not finite"));
    }
    if !sample_rate.is_finite() {
        return Some(("sampleRate", "the sample rate is not finite"));
    }
    if duration < 0.0 {
        return Some(("duration", "the duration is negative"));
    }
    if sample_rate < 0.0 {
        return Some(("sampleRate", "the sample rate is negative"));
    }
    if root_bone_index != -1 && !u32::try_from(root_bone_index).is_ok_and(|r| r < bone_count) {
        return Some(("rootBoneIndex", "the root bone index names no bone"));
    }
    if !ClipFlags::all().contains(flags) {
        return Some(("flags", "reserved clip flag bits 1..31 are set"));
    }
    if flags.has_root_motion() && root_bone_index == -1 {
        return Some(("flags", "HasRootMotion is set while rootBoneIndex is -1"));
    }
    None
}

/// The rule a key's time breaks, if any: within `[0, duration]` and after the
/// previous key's time (bone keys and weight keys alike). Returns the field and the
/// reason.
#[inline]
pub(crate) fn key_time_rule(
    time: f32,
    previous_time: Option<f32>,
    duration: f32,
) -> Option<(&'static str, &'static str)> {
    if !(time >= 0.0 && time <= duration) {
        return Some(("time", "a key's time lies outside [0, duration]"));
    }
    if previous_time.is_some_and(|p| time <= p) {
        return Some(("time", "keys are not strictly ascending in time"));
    }
    None
}

/// Structural rule of a track's bone (D9): it names a bone and follows the previous
/// track's bone strictly.
#[inline]
pub(crate) fn track_bone_structure(
    bone: i64,
    previous: Option<i64>,
    bone_count: u32,
) -> Option<&'static str> {
    if bone < 0 || bone >= i64::from(bone_count) {
        return Some("the track's bone index names no bone");
    }
    if previous.is_some_and(|p| bone <= p) {
        return Some("tracks are not strictly ascending by bone index");
    }
    None
}

/// Structural rules of one key (D9, D13), its floats already known finite: time inside
/// `[0, duration]`, after the previous key's time, unit rotation. Returns the field and
/// the reason.
#[inline]
pub(crate) fn key_structure(
    key: &Key,
    previous_time: Option<f32>,
    duration: f32,
) -> Option<(&'static str, &'static str)> {
    if let Some(broken) = key_time_rule(key.time, previous_time, duration) {
        return Some(broken);
    }
    if !quat_ok(key.rotation) {
        return Some(("rotation", "a rotation's length is off 1 by more than 1e-3"));
    }
    None
}

// ---------------------------------------------------------------------------------
// The model path: every structural rule, for the writer.

fn invalid(item: Item, name: &str, field: &'static str, reason: impl Into<String>) -> WriteError {
    WriteError::Invalid {
        item,
        name: name.to_owned(),
        field,
        reason: reason.into(),
    }
}

/// The error for `field` of `item` holding `value` things, over `limit`.
pub(crate) fn limit(
    item: Item,
    name: &str,
    field: &'static str,
    value: usize,
    limit: u32,
) -> WriteError {
    WriteError::Limit {
        item,
        name: name.to_owned(),
        field,
        value: value as u64,
        limit: u64::from(limit),
    }
}

fn string_ok(item: Item, name: &str, field: &'static str, s: &str) -> Result<(), WriteError> {
    if s.as_bytes().contains(&0) {
        return Err(invalid(item, name, field, "the string contains a NUL byte"));
    }
    Ok(())
}

fn floats_ok(item: Item, name: &str, field: &'static str, v: &[f32]) -> Result<(), WriteError> {
    if all_finite(v) {
        Ok(())
    } else {
        Err(invalid(item, name, field, "a value is NaN or infinite"))
    }
}

/// Whether every value of `v` is finite: its exponent bits are not all set. Checked
/// without an early exit, in blocks the compiler turns into vector instructions (a
/// model's streams are long, and a non-finite value is the rare case).
fn all_finite(v: &[f32]) -> bool {
    const EXP: u32 = 0x7f80_0000;
    let mut chunks = v.chunks_exact(16);
    for c in &mut chunks {
        let bad = c
            .iter()
            .fold(0u32, |acc, x| acc | u32::from(x.to_bits() & EXP == EXP));
        if bad != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|x| x.is_finite())
}

/// Every structural rule of D3–D13 on `model`: the model can be written exactly when
/// this passes, and a reader accepts what the writer then produces. Validation checks
/// (the flags) are not structural and never fail this.
pub fn check_structure(model: &Model) -> Result<(), WriteError> {
    check_structure_bounds(model).map(|_| ())
}

/// [`check_structure`], returning the canonical bounds of each mesh it computed.
pub(crate) fn check_structure_bounds(model: &Model) -> Result<Vec<Bounds>, WriteError> {
    string_ok(
        Item::Header,
        "",
        "converterVersion",
        &model.header.converter_version,
    )?;
    let bones = &model.skeleton.bones;
    if bones.len() > MAX_BONES as usize {
        return Err(limit(Item::File, "", "boneCount", bones.len(), MAX_BONES));
    }
    let bone_count = bones.len() as u32;
    for (i, b) in bones.iter().enumerate() {
        let it = Item::Bone(i);
        string_ok(it, &b.name, "name", &b.name)?;
        string_ok(it, &b.name, "path", &b.path)?;
        if !parent_ok(i, b.parent) {
            return Err(invalid(
                it,
                &b.name,
                "parent",
                "the parent is neither -1 nor an earlier bone",
            ));
        }
        floats_ok(it, &b.name, "bindLocal", &b.bind_local)?;
    }
    if u32::try_from(model.materials.len()).is_err() {
        return Err(limit(
            Item::File,
            "",
            "materialCount",
            model.materials.len(),
            u32::MAX,
        ));
    }
    for (i, m) in model.materials.iter().enumerate() {
        let it = Item::Material(i);
        string_ok(it, &m.name, "name", &m.name)?;
        if let Some(t) = &m.base_color_texture {
            string_ok(it, &m.name, "baseColorTexture", t)?;
        }
        floats_ok(it, &m.name, "baseColorFactor", &m.base_color_factor)?;
    }
    let mut bounds = Vec::with_capacity(model.meshes.len());
    for (i, mesh) in model.meshes.iter().enumerate() {
        bounds.push(check_mesh(i, mesh, bone_count)?);
        crate::morph::check_mesh_targets(i, mesh)?;
    }
    if model.clips.len() > MAX_CLIPS as usize {
        return Err(limit(
            Item::File,
            "",
            "clipCount",
            model.clips.len(),
            MAX_CLIPS,
        ));
    }
    for (i, clip) in model.clips.iter().enumerate() {
        let it = Item::Clip(i);
        let n = clip.name.as_str();
        string_ok(it, n, "name", n)?;
        if let Some((field, reason)) = clip_structure(
            clip.duration,
            clip.sample_rate,
            clip.root_bone_index,
            clip.flags,
            bone_count,
        ) {
            return Err(invalid(it, n, field, reason));
        }
        if clip.tracks.len() > MAX_TRACKS as usize {
            return Err(limit(it, n, "trackCount", clip.tracks.len(), MAX_TRACKS));
        }
        let total: usize = clip.tracks.iter().map(|t| t.keys.len()).sum();
        if total > MAX_KEYS_PER_CLIP as usize {
            return Err(limit(it, n, "keyCount", total, MAX_KEYS_PER_CLIP));
        }
        let mut prev_bone = None;
        for t in &clip.tracks {
            let bone = i64::from(t.bone);
            if let Some(reason) = track_bone_structure(bone, prev_bone, bone_count) {
                return Err(invalid(it, n, "boneIndex", reason));
            }
            prev_bone = Some(bone);
            if t.keys.is_empty() {
                return Err(invalid(it, n, "keyCount", "a track has no keys"));
            }
            floats_ok(it, n, "keys", bytemuck::cast_slice(&t.keys))?;
            let mut prev_time = None;
            for k in &t.keys {
                if let Some((field, reason)) = key_structure(k, prev_time, clip.duration) {
                    return Err(invalid(it, n, field, reason));
                }
                prev_time = Some(k.time);
            }
        }
        crate::clip_extras::check_clip(model, i)?;
    }
    crate::morph::check_clip_tracks(model)?;
    Ok(bounds)
}

fn check_mesh(
    i: usize,
    mesh: &crate::model::MeshPart,
    bone_count: u32,
) -> Result<Bounds, WriteError> {
    let it = Item::Mesh(i);
    let n = mesh.name.as_str();
    string_ok(it, n, "name", n)?;
    let v = &mesh.vertices;
    let vc = v.positions.len();
    if vc > MAX_VERTICES as usize {
        return Err(limit(it, n, "vertexCount", vc, MAX_VERTICES));
    }
    let same = |len: Option<usize>, field: &'static str| match len {
        Some(l) if l != vc => Err(invalid(
            it,
            n,
            field,
            format!("the stream has {l} entries for {vc} vertices"),
        )),
        _ => Ok(()),
    };
    same(v.normals.as_ref().map(Vec::len), "normals")?;
    same(v.tangents.as_ref().map(Vec::len), "tangents")?;
    same(v.uv0.as_ref().map(Vec::len), "uv0")?;
    same(v.uv1.as_ref().map(Vec::len), "uv1")?;
    same(v.colors.as_ref().map(Vec::len), "colors")?;
    same(v.skin.as_ref().map(Vec::len), "skin")?;
    floats_ok(it, n, "positions", v.positions.as_flattened())?;
    if let Some(x) = &v.normals {
        floats_ok(it, n, "normals", x.as_flattened())?;
    }
    if let Some(x) = &v.tangents {
        floats_ok(it, n, "tangents", x.as_flattened())?;
        if let Some(k) = x.iter().position(|t| !tangent_w_ok(t[3])) {
            return Err(invalid(
                it,
                n,
                "tangents",
                format!("vertex {k}: tangent w is not +1 or -1"),
            ));
        }
    }
    if let Some(x) = &v.uv0 {
        floats_ok(it, n, "uv0", x.as_flattened())?;
    }
    if let Some(x) = &v.uv1 {
        floats_ok(it, n, "uv1", x.as_flattened())?;
    }
    if let Some(skin) = &v.skin {
        let weights_finite = skin
            .iter()
            .fold(true, |ok, s| ok & s.weights.iter().all(|w| w.is_finite()));
        if !weights_finite {
            return Err(invalid(it, n, "weights", "a value is NaN or infinite"));
        }
        for (k, s) in skin.iter().enumerate() {
            if let Some((_, reason)) = skin_structure(s.bones, s.weights, bone_count) {
                return Err(invalid(it, n, "skin", format!("vertex {k}: {reason}")));
            }
        }
        if mesh.inverse_bind.len() != bone_count as usize {
            return Err(invalid(
                it,
                n,
                "inverseBind",
                format!(
                    "a skinned mesh has {} inverse bind matrices for {bone_count} bones",
                    mesh.inverse_bind.len()
                ),
            ));
        }
    } else if !mesh.inverse_bind.is_empty() {
        return Err(invalid(
            it,
            n,
            "inverseBind",
            "a static mesh has inverse bind matrices",
        ));
    }
    check_skin_extension(it, mesh, bone_count)?;
    for m in &mesh.inverse_bind {
        floats_ok(it, n, "inverseBind", m)?;
    }
    if let Some(g) = &mesh.mesh_bind_geo_to_model {
        floats_ok(it, n, "meshBindGeoToModel", g)?;
    }
    let ic = mesh.indices.len();
    if ic > MAX_INDICES as usize {
        return Err(limit(it, n, "indexCount", ic, MAX_INDICES));
    }
    if !ic.is_multiple_of(3) {
        return Err(invalid(
            it,
            n,
            "indices",
            "the index count is not a multiple of 3",
        ));
    }
    if let Some(k) = mesh.indices.iter().position(|&x| x as usize >= vc) {
        return Err(invalid(
            it,
            n,
            "indices",
            format!(
                "index {k} is {}, not below the vertex count {vc}",
                mesh.indices[k]
            ),
        ));
    }
    if u32::try_from(mesh.submeshes.len()).is_err() {
        return Err(limit(it, n, "submeshCount", mesh.submeshes.len(), u32::MAX));
    }
    for (k, s) in mesh.submeshes.iter().enumerate() {
        if let Some((field, reason)) = submesh_structure(s, ic as u32) {
            return Err(invalid(it, n, field, format!("submesh {k}: {reason}")));
        }
    }
    let b = crate::bounds::compute_bounds(mesh);
    if !b.is_finite() {
        return Err(invalid(it, n, "bounds", "the bounds overflow f32"));
    }
    Ok(b)
}

/// The structural rules of the `SKNX` extension (`docs/extensions.md` §3):
/// influences five to eight and a method other than linear only on a skinned mesh,
/// one entry a vertex, finite; dual-quaternion shares exactly for a blended mesh,
/// each within [0, 1].
fn check_skin_extension(
    it: Item,
    mesh: &crate::model::MeshPart,
    bone_count: u32,
) -> Result<(), WriteError> {
    let n = mesh.name.as_str();
    let v = &mesh.vertices;
    let vc = v.positions.len();
    let skinned = v.skin.is_some();
    if let Some(extra) = &v.skin_extra {
        if !skinned {
            return Err(invalid(
                it,
                n,
                "skinExtra",
                "a static mesh has influences five to eight",
            ));
        }
        if extra.len() != vc {
            return Err(invalid(
                it,
                n,
                "skinExtra",
                format!("the stream has {} entries for {vc} vertices", extra.len()),
            ));
        }
        for (k, s) in extra.iter().enumerate() {
            if !all_finite(&s.weights) {
                return Err(invalid(it, n, "skinExtra", "a value is NaN or infinite"));
            }
            if let Some((_, reason)) = skin_structure(s.bones, s.weights, bone_count) {
                return Err(invalid(it, n, "skinExtra", format!("vertex {k}: {reason}")));
            }
        }
    }
    let method = mesh.skinning;
    if method.uses_dual_quaternions() && !skinned {
        return Err(invalid(
            it,
            n,
            "skinning",
            format!("a static mesh is skinned {}", method.name()),
        ));
    }
    let blended = method == crate::model::SkinningMethod::Blended;
    match &v.dq_weights {
        None if blended => Err(invalid(
            it,
            n,
            "dqWeights",
            "a blended mesh has no dual-quaternion weights",
        )),
        Some(_) if !blended => Err(invalid(
            it,
            n,
            "dqWeights",
            "only a blended mesh has dual-quaternion weights",
        )),
        Some(d) if d.len() != vc => Err(invalid(
            it,
            n,
            "dqWeights",
            format!("the stream has {} entries for {vc} vertices", d.len()),
        )),
        Some(d) => match d.iter().position(|&a| !crate::skinning::dq_weight_ok(a)) {
            Some(k) => Err(invalid(
                it,
                n,
                "dqWeights",
                format!(
                    "vertex {k}: the dual-quaternion weight {} is not within [0, 1]",
                    d[k]
                ),
            )),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_rules_by_hand() {
        assert_eq!(weights_rule([3, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]), None);
        assert_eq!(weights_rule([1, 2, 0, 0], [0.5, 0.5, 0.0, 0.0]), None);
        assert_eq!(weights_rule([2, 1, 0, 0], [0.7, 0.3, 0.0, 0.0]), None);
        // 0.1 + 0.2 + 0.3 + 0.4 in the wrong order.
        assert!(weights_rule([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4]).is_some());
        // Ties listed by descending bone.
        assert!(weights_rule([2, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]).is_some());
        // Sum 1 + 2e-5.
        assert!(weights_rule([0, 0, 0, 0], [1.00002, 0.0, 0.0, 0.0]).is_some());
        assert_eq!(weights_rule([0, 0, 0, 0], [1.000005, 0.0, 0.0, 0.0]), None);
        // An unused slot naming bone 5.
        assert!(weights_rule([1, 5, 0, 0], [1.0, 0.0, 0.0, 0.0]).is_some());
        // The same bone twice.
        assert!(weights_rule([1, 1, 0, 0], [0.6, 0.4, 0.0, 0.0]).is_some());
    }

    #[test]
    fn structural_rules_by_hand() {
        assert!(parent_ok(0, -1) && parent_ok(3, 2) && !parent_ok(2, 2) && !parent_ok(1, -2));
        assert!(tangent_w_ok(-1.0) && !tangent_w_ok(0.999));
        assert!(quat_ok([0.0, 0.0, 0.0, 1.0005]) && !quat_ok([0.0, 0.0, 0.0, 1.002]));
        assert_eq!(skin_structure([7, 0, 0, 0], [1.0, 0.0, 0.0, 0.0], 8), None);
        assert_eq!(
            skin_structure([8, 0, 0, 0], [1.0, 0.0, 0.0, 0.0], 8).map(|x| x.0),
            Some(0)
        );
        assert_eq!(skin_structure([0, 9, 0, 0], [1.0, 0.0, 0.0, 0.0], 8), None);
        assert_eq!(
            skin_structure([0, 1, 0, 0], [1.1, -0.1, 0.0, 0.0], 8).map(|x| x.0),
            Some(1)
        );
        let s = |start, count| Submesh {
            material_index: -1,
            index_start: start,
            index_count: count,
        };
        assert_eq!(submesh_structure(&s(3, 6), 9), None);
        assert!(submesh_structure(&s(3, 9), 9).is_some());
        assert!(submesh_structure(&s(u32::MAX - 2, 6), 9).is_some());
        assert!(submeshes_rule([s(0, 3), s(3, 3)], 6, 0).is_none());
        assert!(submeshes_rule([s(3, 3), s(0, 3)], 6, 0).is_some());
        assert!(submeshes_rule([s(0, 3)], 6, 0).is_some());
        assert!(submeshes_rule([], 0, 0).is_none());
        let m = |mi| Submesh {
            material_index: mi,
            index_start: 0,
            index_count: 3,
        };
        assert!(submeshes_rule([m(0)], 3, 1).is_none());
        assert!(submeshes_rule([m(1)], 3, 1).is_some());
        assert!(submeshes_rule([m(0)], 3, 0).is_some());
        assert!(submeshes_rule([m(-2)], 3, 1).is_some());
    }
}
