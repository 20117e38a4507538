//! Layers on top of a sampled pose at the C boundary: additive clips
//! (`docs/extensions.md` §5), two-bone and aim IK, and local to model below one bone.

use std::ffi::c_char;

use glam::Vec3;
use gom_runtime::{
    apply_aim_ik, apply_two_bone_ik, blend_additive, local_to_model_from, AimIk, LocalPose,
    ModelPose, Transform, TwoBoneIk,
};

use crate::anim::{asset_region, matrices, matrices_mut, times, with_scratch};
use crate::asset::{clip_ref, expect_count};
use crate::boundary::{deref, disjoint, slice, slice_mut, status, to_usize, value, Fail, Region};
use crate::{gom_asset, gom_transform, GOM_E_RANGE};

/// `gom_additive_reference.kind`: the clip is not additive.
pub const GOM_ADDITIVE_NONE: u32 = 0;
/// `gom_additive_reference.kind`: the deltas were taken from the bind pose.
pub const GOM_ADDITIVE_BIND_POSE: u32 = 1;
/// `gom_additive_reference.kind`: the deltas were taken from a moment of a clip.
pub const GOM_ADDITIVE_CLIP_FRAME: u32 = 2;

/// The pose an additive clip's deltas were taken from (`gom_clip_additive_reference`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gom_additive_reference {
    /// `GOM_ADDITIVE_NONE`, `GOM_ADDITIVE_BIND_POSE` or `GOM_ADDITIVE_CLIP_FRAME`.
    pub kind: u32,
    /// For a clip frame, the moment of the reference clip, seconds; else 0.
    pub time: f32,
    /// For a clip frame, the reference clip's name in the source (owned by the asset;
    /// that clip need not be in the file); else NULL.
    pub clip_name: *const c_char,
}

/// The parameters of `gom_two_bone_ik` (ozz-animation's `IKTwoBoneJob`), model space
/// unless said otherwise.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct gom_two_bone_ik_params {
    /// Where the end joint should be.
    pub target: [f32; 3],
    /// The direction the middle joint (knee, elbow) bends towards.
    pub pole: [f32; 3],
    /// The middle joint's hinge axis, in the middle joint's frame.
    pub mid_axis: [f32; 3],
    /// How much of the correction to apply, 0 to 1.
    pub weight: f32,
    /// 0 to 1: the fraction of the chain's length beyond which the reach is softened;
    /// 1 does not soften.
    pub soften: f32,
    /// A turn of the whole chain about the start→target line, radians.
    pub twist: f32,
}

/// The parameters of `gom_aim_ik` (ozz-animation's `IKAimJob`): directions and the
/// offset in the joint's frame, target and pole in model space.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct gom_aim_ik_params {
    /// The model-space point to aim at.
    pub target: [f32; 3],
    /// The joint's aiming direction, in its frame.
    pub forward: [f32; 3],
    /// The joint's up direction, in its frame, turned towards `pole`.
    pub up: [f32; 3],
    /// Where the aiming ray starts, in the joint's frame.
    pub offset: [f32; 3],
    /// The model-space direction the up direction leans towards.
    pub pole: [f32; 3],
    /// A turn about the aiming line, radians.
    pub twist: f32,
    /// How much of the correction to apply, 0 to 1.
    pub weight: f32,
}

impl From<&gom_two_bone_ik_params> for TwoBoneIk {
    fn from(p: &gom_two_bone_ik_params) -> Self {
        TwoBoneIk {
            target: Vec3::from_array(p.target),
            pole: Vec3::from_array(p.pole),
            mid_axis: Vec3::from_array(p.mid_axis),
            weight: p.weight,
            soften: p.soften,
            twist: p.twist,
        }
    }
}

impl From<&gom_aim_ik_params> for AimIk {
    fn from(p: &gom_aim_ik_params) -> Self {
        AimIk {
            target: Vec3::from_array(p.target),
            forward: Vec3::from_array(p.forward),
            up: Vec3::from_array(p.up),
            offset: Vec3::from_array(p.offset),
            pole: Vec3::from_array(p.pole),
            twist: p.twist,
            weight: p.weight,
        }
    }
}

/// 1 when clip `clip` is additive (its samples are deltas for
/// `gom_blend_additive`), 0 when it is not, `a` is NULL or `clip` is out of range.
/// Any thread.
#[no_mangle]
pub extern "C" fn gom_clip_is_additive(a: *const gom_asset, clip: u32) -> i32 {
    value(0, || Some(i32::from(clip_ref(a, clip).ok()?.is_additive())))
}

/// Clip `clip`'s additive reference into `*out` (`kind` `GOM_ADDITIVE_NONE` for a
/// clip that is not additive). Returns 0, or `GOM_E_NULL`, `GOM_E_RANGE`. Any thread.
///
/// # Safety
/// `out` must be NULL or a writable `gom_additive_reference`.
#[no_mangle]
pub unsafe extern "C" fn gom_clip_additive_reference(
    a: *const gom_asset,
    clip: u32,
    out: *mut gom_additive_reference,
) -> i32 {
    use gom::additive::Reference;
    status(|| {
        let c = clip_ref(a, clip)?;
        let names = &deref(a, "asset")?.clip_extras[to_usize(clip)];
        let r = match &c.extras().additive {
            None => (GOM_ADDITIVE_NONE, 0.0, std::ptr::null()),
            Some(Reference::BindPose) => (GOM_ADDITIVE_BIND_POSE, 0.0, std::ptr::null()),
            Some(Reference::ClipFrame { time, .. }) => (
                GOM_ADDITIVE_CLIP_FRAME,
                *time,
                names
                    .reference_clip
                    .as_ref()
                    .map_or(std::ptr::null(), |n| n.as_ptr()),
            ),
        };
        slice_mut(out, 1, "out")?[0] = gom_additive_reference {
            kind: r.0,
            time: r.1,
            clip_name: r.2,
        };
        Ok(())
    })
}

/// Copies `input` into `pose` (resized to its length).
fn load(pose: &mut LocalPose, input: &[gom_transform]) {
    pose.resize(input.len());
    for (i, t) in input.iter().enumerate() {
        pose.set(i, &Transform::from(t));
    }
}

/// Copies `pose` into `out`.
fn store(pose: &LocalPose, out: &mut [gom_transform]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = pose.get(i).unwrap_or(Transform::IDENTITY).into();
    }
}

/// Adds the deltas `additive` (sampled from an additive clip) to `base` into `out`,
/// `bone_count` (= `gom_bone_count`) transforms each: bone `i` with weight
/// `w = weight * mask[i]` (or `weight` when `mask` is NULL) gets translation
/// `base.t + w·d.t`, rotation `base.r ⊗ nlerp(1, d.r, w)` and scale
/// `base.s ⊙ (1 + w·(d.s − 1))`; where `w` is 0 the result is `base` exactly. NaN
/// weights count as 0. `out` may not overlap the inputs. Returns 0, or `GOM_E_NULL`,
/// `GOM_E_COUNT`, `GOM_E_ARGUMENT`. Any thread, on a shared asset.
///
/// # Safety
/// `base`, `additive` must be NULL or `bone_count` readable transforms; `mask` NULL
/// or `bone_count` readable floats; `out` NULL or `bone_count` writable transforms.
#[no_mangle]
pub unsafe extern "C" fn gom_blend_additive(
    a: *const gom_asset,
    base: *const gom_transform,
    additive: *const gom_transform,
    weight: f32,
    mask: *const f32,
    out: *mut gom_transform,
    bone_count: u32,
) -> i32 {
    status(|| {
        let asset = deref(a, "asset")?;
        let n = expect_count(
            "bone_count",
            asset.asset.skeleton().bone_count(),
            bone_count,
        )?;
        let mask_len = if mask.is_null() { 0 } else { n };
        disjoint(
            &[Region::of("out", out, n)],
            &[
                Region::of("base", base, n),
                Region::of("additive", additive, n),
                Region::of("mask", mask, mask_len),
                asset_region(asset),
            ],
        )?;
        let (b, d) = (slice(base, n, "base")?, slice(additive, n, "additive")?);
        let mask = (!mask.is_null())
            .then(|| slice(mask, n, "mask"))
            .transpose()?;
        let out = slice_mut(out, n, "out")?;
        with_scratch(|sc| {
            load(&mut sc.base, b);
            load(&mut sc.delta, d);
            blend_additive(&sc.base, &sc.delta, weight, mask, &mut sc.local)?;
            store(&sc.local, out);
            Ok(())
        })
    })
}

/// `bone` as an index below `n`, or `GOM_E_RANGE` naming `what`.
fn bone_index(bone: u32, n: usize, what: &str) -> Result<usize, Fail> {
    let b = to_usize(bone);
    if b < n {
        Ok(b)
    } else {
        Err(Fail::new(
            GOM_E_RANGE,
            format!("`{what}` is bone {bone}, out of range: the skeleton has {n}"),
        ))
    }
}

/// A pose the caller keeps and a call changes in place: `bone_count` local
/// transforms and their model matrices.
struct InOutPose {
    local: *const gom_transform,
    /// Whether the call writes `local` back (else it only reads it).
    write_local: bool,
    model: *mut f32,
    bone_count: u32,
}

/// Checks `pose` against `a`'s skeleton (with `bones` in range), loads it into the
/// thread's scratch poses, runs `f` on them, and writes both back. `extra` is an
/// input region that must not overlap the pose (the parameters).
fn in_place(
    a: *const gom_asset,
    pose: InOutPose,
    bones: &[(u32, &str)],
    extra: Region,
    f: impl FnOnce(&gom_runtime::Skeleton, &[usize], &mut LocalPose, &mut ModelPose) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let asset = deref(a, "asset")?;
    let skeleton = asset.asset.skeleton();
    let n = expect_count("bone_count", skeleton.bone_count(), pose.bone_count)?;
    let floats = times(n, 16, "bone_count")?;
    let bones = bones
        .iter()
        .map(|&(b, what)| bone_index(b, n, what))
        .collect::<Result<Vec<_>, _>>()?;
    disjoint(
        &[
            Region::of("local", pose.local, n),
            Region::of("model", pose.model, floats),
        ],
        &[extra, asset_region(asset)],
    )?;
    let model = slice_mut(pose.model, floats, "model")?;
    with_scratch(|sc| {
        load(&mut sc.local, slice(pose.local, n, "local")?);
        sc.model.set_row_major(matrices(model));
        f(skeleton, &bones, &mut sc.local, &mut sc.model)?;
        if pose.write_local {
            // The shared view of `local` above has ended.
            store(&sc.local, slice_mut(pose.local.cast_mut(), n, "local")?);
        }
        for (i, o) in matrices_mut(model).iter_mut().enumerate() {
            if let Some(m) = sc.model.row_major(i) {
                *o = m;
            }
        }
        Ok(())
    })
}

/// Writes `reached` to `out` when it is not NULL.
fn report_reached(out: *mut i32, reached: bool) -> Result<(), Fail> {
    if !out.is_null() {
        slice_mut(out, 1, "out_reached")?[0] = i32::from(reached);
    }
    Ok(())
}

/// Two-bone IK (ozz-animation's `IKTwoBoneJob`, same parameters and meaning) on the
/// chain `start` → `mid` → `end` of the pose `local` (`bone_count` =
/// `gom_bone_count` transforms) with its model matrices `model` (16 floats each, from
/// `gom_local_to_model`): the middle joint bends about `mid_axis` so that the end
/// reaches `target` (an unreachable target leaves the limb straight, pointing at
/// it), the chain turns so that the middle joint lies towards `pole`, plus `twist`,
/// all scaled by `weight`. The corrections are multiplied onto `local`'s rotations of
/// `start` and `mid`, and `model` is updated for `start` and the bones below it, in
/// place. `*out_reached` (when not NULL) is 1 when the end reaches the target. No
/// input gives NaN. Returns 0, or `GOM_E_NULL`, `GOM_E_RANGE` (a bone),
/// `GOM_E_COUNT`, `GOM_E_ARGUMENT` (misaligned or overlapping buffers). Any thread,
/// on a shared asset.
///
/// # Safety
/// `params` must be NULL or a readable `gom_two_bone_ik_params`; `local` NULL or
/// `bone_count` read-write transforms; `model` NULL or `16 * bone_count` read-write
/// floats; `out_reached` NULL or a writable `int32_t`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gom_two_bone_ik(
    a: *const gom_asset,
    start: u32,
    mid: u32,
    end: u32,
    params: *const gom_two_bone_ik_params,
    local: *mut gom_transform,
    model: *mut f32,
    bone_count: u32,
    out_reached: *mut i32,
) -> i32 {
    status(|| {
        let p = TwoBoneIk::from(deref(params, "params")?);
        let mut reached = false;
        let pose = InOutPose {
            local,
            write_local: true,
            model,
            bone_count,
        };
        let bones = [(start, "start"), (mid, "mid"), (end, "end")];
        let extra = Region::of("params", params, 1);
        in_place(a, pose, &bones, extra, |skeleton, b, local, model| {
            reached = apply_two_bone_ik(skeleton, [b[0], b[1], b[2]], &p, local, model)?;
            Ok(())
        })?;
        report_reached(out_reached, reached)
    })
}

/// Aim IK (ozz-animation's `IKAimJob`) on joint `bone` of the pose `local` with its
/// model matrices `model`, as for `gom_two_bone_ik`: the joint turns so that the ray
/// `offset + λ·forward` (its frame) passes through `target`, its `up` towards `pole`
/// about the aiming line, plus `twist`, scaled by `weight`. The correction is
/// multiplied onto `local`'s rotation of `bone` and `model` is updated for `bone` and
/// the bones below it. `*out_reached` (when not NULL) is 1 when the ray reaches the
/// target. Returns 0, or `GOM_E_NULL`, `GOM_E_RANGE`, `GOM_E_COUNT`,
/// `GOM_E_ARGUMENT`. Any thread, on a shared asset.
///
/// # Safety
/// As for `gom_two_bone_ik`, with `params` a readable `gom_aim_ik_params`.
#[no_mangle]
pub unsafe extern "C" fn gom_aim_ik(
    a: *const gom_asset,
    bone: u32,
    params: *const gom_aim_ik_params,
    local: *mut gom_transform,
    model: *mut f32,
    bone_count: u32,
    out_reached: *mut i32,
) -> i32 {
    status(|| {
        let p = AimIk::from(deref(params, "params")?);
        let mut reached = false;
        let pose = InOutPose {
            local,
            write_local: true,
            model,
            bone_count,
        };
        let extra = Region::of("params", params, 1);
        in_place(
            a,
            pose,
            &[(bone, "bone")],
            extra,
            |skeleton, b, local, model| {
                reached = apply_aim_ik(skeleton, b[0], &p, local, model)?;
                Ok(())
            },
        )?;
        report_reached(out_reached, reached)
    })
}

/// Local to model for bone `from_bone` and the bones below it only, after their
/// local transforms changed (a procedural bone, an IK correction of one's own):
/// `local` holds `bone_count` (= `gom_bone_count`) transforms; `model` (16 floats a
/// bone) holds the model matrices of the pose before the change and is updated in
/// place for that subtree; the other bones' matrices are left as they are. The same
/// bits as `gom_local_to_model` when the rest of `model` is its result. Returns 0, or
/// `GOM_E_NULL`, `GOM_E_RANGE` (`from_bone`), `GOM_E_COUNT`, `GOM_E_ARGUMENT`. Any
/// thread, on a shared asset.
///
/// # Safety
/// `local` must be NULL or `bone_count` readable transforms; `model` NULL or
/// `16 * bone_count` read-write floats.
#[no_mangle]
pub unsafe extern "C" fn gom_local_to_model_from(
    a: *const gom_asset,
    from_bone: u32,
    local: *const gom_transform,
    model: *mut f32,
    bone_count: u32,
) -> i32 {
    status(|| {
        let pose = InOutPose {
            local,
            write_local: false,
            model,
            bone_count,
        };
        let from = [(from_bone, "from_bone")];
        let none = Region::of::<u8>("", std::ptr::null(), 0);
        in_place(a, pose, &from, none, |skeleton, b, local, model| {
            local_to_model_from(skeleton, b[0], local, model)?;
            Ok(())
        })
    })
}
