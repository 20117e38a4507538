//! Animation at the C boundary: samplers, local to model, palettes, CPU skinning.

use std::cell::RefCell;

use gom_runtime::{
    local_to_model, sample, skin, LocalPose, ModelPose, Palette, Playback, SamplingContext,
    SkinTargets, Transform,
};

use crate::asset::{clip_ref, expect_count, mesh_ref};
use crate::boundary::{create, deref, disjoint, slice, slice_mut, status, Fail, Region};
use crate::{gom_asset, gom_error, gom_transform};

/// Plays one clip of one asset: keeps the key cache that makes playing forward cheap.
/// Opaque to C. Belongs to one thread at a time.
pub struct gom_sampler {
    asset: *const gom_asset,
    clip: u32,
    ctx: SamplingContext,
    local: LocalPose,
}

/// Per-thread buffers, so that the calls below allocate nothing once warm.
#[derive(Default)]
pub(crate) struct Scratch {
    pub local: LocalPose,
    pub model: ModelPose,
    /// The base and delta poses of `gom_blend_additive`.
    pub base: LocalPose,
    pub delta: LocalPose,
    palette: Palette,
}

impl Scratch {
    /// Whether `palette` is what [`Palette::set_row_major`] (or, without `normals`,
    /// `set_row_major_without_normals`) of `floats` would make: its own row-major
    /// floats are `floats`, bit for bit. `set_row_major` only moves those floats into
    /// its matrices and derives the normal matrices as `Palette::compute` does, so a
    /// `gom_skin` given the palette `gom_palette` just wrote uses `palette` as it is
    /// instead of deriving it again, one inverse a bone.
    fn palette_is(&self, floats: &[f32], normals: bool) -> bool {
        let p = &self.palette;
        let same = |(b, f): (usize, &[f32])| {
            p.row_major(b)
                .is_some_and(|m| m.iter().zip(f).all(|(x, y)| x.to_bits() == y.to_bits()))
        };
        p.matrices().len() * 16 == floats.len()
            && (!normals || p.has_normal_matrices())
            && floats.chunks_exact(16).enumerate().all(same)
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's scratch buffers (fresh ones if they are in use).
pub(crate) fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// `16 * n` floats as `n` matrices.
pub(crate) fn matrices(floats: &[f32]) -> &[[f32; 16]] {
    bytemuck::cast_slice(floats)
}

/// `16 * n` floats as `n` matrices, mutable.
pub(crate) fn matrices_mut(floats: &mut [f32]) -> &mut [[f32; 16]] {
    bytemuck::cast_slice_mut(floats)
}

/// `n * k` without overflow, or an error naming `what`.
pub(crate) fn times(n: usize, k: usize, what: &str) -> Result<usize, Fail> {
    n.checked_mul(k)
        .ok_or_else(|| Fail::new(crate::GOM_E_ARGUMENT, format!("`{what}` is too large")))
}

/// The byte range of the asset's own bytes, as a region no output may overlap.
pub(crate) fn asset_region(a: &gom_asset) -> Region<'static> {
    Region {
        name: "the asset's bytes",
        start: a.span.0,
        end: a.span.1,
    }
}

impl gom_sampler {
    /// The asset and the clip the sampler plays.
    pub(crate) fn asset_and_clip(&self) -> (*const gom_asset, u32) {
        (self.asset, self.clip)
    }
}

/// Creates a sampler for clip `clip` of `a`, checking that the clip fits the
/// skeleton. Returns NULL with `*err` filled on failure (`GOM_E_NULL`, `GOM_E_RANGE`,
/// `GOM_E_INVALID`); `err` may be NULL. The sampler refers to `a`, which must outlive
/// it. Any thread; a sampler is used by one thread at a time (make one per thread or
/// per playing instance).
///
/// # Safety
/// `a` must be NULL or a live asset; `err` NULL or a writable `gom_error`.
#[no_mangle]
pub unsafe extern "C" fn gom_sampler_create(
    a: *const gom_asset,
    clip: u32,
    err: *mut gom_error,
) -> *mut gom_sampler {
    create(err, || {
        let c = clip_ref(a, clip)?;
        let asset = &deref(a, "asset")?.asset;
        let mut s = gom_sampler {
            asset: a,
            clip,
            ctx: SamplingContext::new(),
            local: LocalPose::new(asset.skeleton().bone_count()),
        };
        // Binding the cache checks every track against the skeleton once.
        sample(
            c,
            asset.skeleton(),
            0.0,
            Playback::Once,
            &mut s.ctx,
            &mut s.local,
        )?;
        Ok(s)
    })
}

/// Frees a sampler. NULL is allowed. Not concurrently with other calls on it.
///
/// # Safety
/// `s` must be NULL or a sampler from `gom_sampler_create` not freed yet.
#[no_mangle]
pub unsafe extern "C" fn gom_sampler_free(s: *mut gom_sampler) {
    if s.is_null() {
        return;
    }
    // SAFETY: the caller promises a live sampler made by `Box::into_raw` in `create`.
    let boxed = unsafe { Box::from_raw(s) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(boxed)));
}

/// Samples the sampler's clip at `time` seconds: the local transform of every bone into
/// `out_local` (`bone_count` = `gom_bone_count` of the asset). Times wrap into
/// `[0, duration)` when `loop` is nonzero and are held at the first or last key
/// otherwise; a non-finite time samples 0. Bones without a track keep their bind pose.
/// Returns 0, or `GOM_E_NULL` (NULL sampler or output), `GOM_E_COUNT` (wrong
/// `bone_count`), `GOM_E_ARGUMENT` (misaligned output, or one inside the asset's
/// bytes). Several threads may sample one asset at once, each with its own sampler.
///
/// # Safety
/// `s` must be NULL or a live sampler whose asset is live; `out_local` NULL or
/// `bone_count` writable `gom_transform`s.
#[no_mangle]
pub unsafe extern "C" fn gom_sample(
    s: *mut gom_sampler,
    time: f32,
    r#loop: i32,
    out_local: *mut gom_transform,
    bone_count: u32,
) -> i32 {
    status(|| {
        if s.is_null() {
            return Err(Fail::null("sampler"));
        }
        // SAFETY: not NULL; the caller promises a live sampler used by this thread only.
        let s = unsafe { &mut *s };
        let a = deref(s.asset, "the sampler's asset")?;
        let skeleton = a.asset.skeleton();
        let n = expect_count("bone_count", skeleton.bone_count(), bone_count)?;
        // Overlap is checked before any slice exists: overlapping views would already
        // break Rust's aliasing rules.
        disjoint(&[Region::of("out_local", out_local, n)], &[asset_region(a)])?;
        let out = slice_mut(out_local, n, "out_local")?;
        let clip = clip_ref(s.asset, s.clip)?;
        let playback = if r#loop != 0 {
            Playback::Loop
        } else {
            Playback::Once
        };
        sample(clip, skeleton, time, playback, &mut s.ctx, &mut s.local)?;
        for (i, o) in out.iter_mut().enumerate() {
            *o = s.local.get(i).unwrap_or(Transform::IDENTITY).into();
        }
        Ok(())
    })
}

/// Model-space matrices from local transforms: `bone_count` (= `gom_bone_count`)
/// transforms in, `bone_count` matrices of 16 floats out (`out_model`), row-major, row
/// vectors (GOM's convention: `world[i] = local[i] * world[parent[i]]`). Returns 0, or
/// `GOM_E_NULL`, `GOM_E_COUNT`, `GOM_E_ARGUMENT` (misaligned or overlapping buffers).
/// Any thread, on a shared asset.
///
/// # Safety
/// `local` must be NULL or `bone_count` readable transforms; `out_model` NULL or
/// `16 * bone_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_local_to_model(
    a: *const gom_asset,
    local: *const gom_transform,
    out_model: *mut f32,
    bone_count: u32,
) -> i32 {
    status(|| {
        let a = deref(a, "asset")?;
        let skeleton = a.asset.skeleton();
        let n = expect_count("bone_count", skeleton.bone_count(), bone_count)?;
        let floats = times(n, 16, "bone_count")?;
        disjoint(
            &[Region::of("out_model", out_model, floats)],
            &[Region::of("local", local, n), asset_region(a)],
        )?;
        let input = slice(local, n, "local")?;
        let out = slice_mut(out_model, floats, "out_model")?;
        with_scratch(|sc| {
            sc.local.resize(n);
            for (i, t) in input.iter().enumerate() {
                sc.local.set(i, &Transform::from(t));
            }
            local_to_model(skeleton, &sc.local, &mut sc.model)?;
            for (i, o) in matrices_mut(out).iter_mut().enumerate() {
                if let Some(m) = sc.model.row_major(i) {
                    *o = m;
                }
            }
            Ok(())
        })
    })
}

/// The number of matrices in mesh `mesh`'s palette: the skeleton's bone count for a
/// skinned mesh, 1 for a static mesh (its one matrix is the mesh's GBTM). 0 when `a`
/// is NULL or `mesh` out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_palette_size(a: *const gom_asset, mesh: u32) -> u32 {
    crate::boundary::value(0, || Some(palette_size(mesh_ref(a, mesh).ok()?) as u32))
}

pub(crate) fn palette_size(m: &gom_runtime::Mesh) -> usize {
    if m.is_skinned() {
        m.bone_count()
    } else {
        1
    }
}

/// The skinning palette of mesh `mesh` for the model-space pose `model` (from
/// `gom_local_to_model`): per bone `G * inverseBind[b] * model[b]` (GOM order, `G` the
/// mesh's GBTM), 16 floats each, row-major, row vectors, into `out_palette`.
/// `bone_count` must be `gom_mesh_palette_size(a, mesh)`; for a skinned mesh `model`
/// holds that many matrices; for a static mesh `model` is not read (it may be NULL)
/// and the one matrix is `G`. Returns 0, or `GOM_E_NULL`, `GOM_E_RANGE` (mesh),
/// `GOM_E_COUNT`, `GOM_E_ARGUMENT`. Any thread, on a shared asset.
///
/// # Safety
/// `model` must be NULL or `16 * bone_count` readable floats; `out_palette` NULL or
/// `16 * bone_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_palette(
    a: *const gom_asset,
    mesh: u32,
    model: *const f32,
    out_palette: *mut f32,
    bone_count: u32,
) -> i32 {
    status(|| {
        let asset = deref(a, "asset")?;
        let m = mesh_ref(a, mesh)?;
        let n = expect_count("bone_count", palette_size(m), bone_count)?;
        let floats = times(n, 16, "bone_count")?;
        let model_floats = if m.is_skinned() { floats } else { 0 };
        disjoint(
            &[Region::of("out_palette", out_palette, floats)],
            &[
                Region::of("model", model, model_floats),
                asset_region(asset),
            ],
        )?;
        let input = slice(model, model_floats, "model")?;
        let out = slice_mut(out_palette, floats, "out_palette")?;
        with_scratch(|sc| {
            sc.model.set_row_major(matrices(input));
            sc.palette.compute(m, &sc.model)?;
            for (i, o) in matrices_mut(out).iter_mut().enumerate() {
                if let Some(p) = sc.palette.row_major(i) {
                    *o = p;
                }
            }
            Ok(())
        })
    })
}

/// CPU skinning of mesh `mesh` with `palette` (from `gom_palette`; `bone_count` =
/// `gom_mesh_palette_size`) into caller buffers: model-space positions, 3 floats per
/// vertex, into `out_positions`, and unit normals into `out_normals` (may be NULL to
/// skip them); `vertex_count` must be `gom_mesh_vertex_count(a, mesh)`. Returns 0, or
/// `GOM_E_NULL`, `GOM_E_RANGE` (mesh), `GOM_E_COUNT`, `GOM_E_MISSING` (normals asked
/// of a mesh without normals), `GOM_E_ARGUMENT` (misaligned or overlapping buffers).
/// Allocates nothing once warm. Any thread, on a shared asset.
///
/// # Safety
/// `palette` must be NULL or `16 * bone_count` readable floats; each output NULL or
/// `3 * vertex_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_skin(
    a: *const gom_asset,
    mesh: u32,
    palette: *const f32,
    bone_count: u32,
    out_positions: *mut f32,
    out_normals: *mut f32,
    vertex_count: u32,
) -> i32 {
    status(|| {
        let asset = deref(a, "asset")?;
        let m = mesh_ref(a, mesh)?;
        let out = SkinOutputs {
            positions: out_positions,
            normals: out_normals,
            vertex_count,
        };
        skin_checked(asset, m, palette, bone_count, out, &[])
    })
}

/// Where `gom_skin` and `gom_morph_skin` write: positions, optional normals (NULL
/// to skip), and the vertex count the caller gave.
pub(crate) struct SkinOutputs {
    pub positions: *mut f32,
    pub normals: *mut f32,
    pub vertex_count: u32,
}

/// The checks and the skinning of `gom_skin`, for mesh `m` of `asset` (the asset's
/// own or a morphed copy): counts, alignment, no output overlapping `palette`, the
/// asset's bytes or the regions of `inputs`.
pub(crate) fn skin_checked(
    asset: &gom_asset,
    m: &gom_runtime::Mesh<'_>,
    palette: *const f32,
    bone_count: u32,
    out: SkinOutputs,
    inputs: &[Region],
) -> Result<(), Fail> {
    let n = expect_count("bone_count", palette_size(m), bone_count)?;
    let v = expect_count("vertex_count", m.vertex_count(), out.vertex_count)?;
    let (pf, vf) = (times(n, 16, "bone_count")?, times(v, 3, "vertex_count")?);
    let mut all_inputs = vec![Region::of("palette", palette, pf), asset_region(asset)];
    all_inputs.extend(inputs.iter().copied());
    disjoint(
        &[
            Region::of("out_positions", out.positions, vf),
            Region::of("out_normals", out.normals, vf),
        ],
        &all_inputs,
    )?;
    let input = slice(palette, pf, "palette")?;
    let positions = slice_mut(out.positions, vf, "out_positions")?;
    let normals = if out.normals.is_null() {
        None
    } else {
        Some(slice_mut(out.normals, vf, "out_normals")?)
    };
    with_scratch(|sc| {
        // Normal matrices (one inverse per bone) only when normals are asked for,
        // and nothing derived again for the palette `gom_palette` just wrote.
        if !sc.palette_is(input, normals.is_some()) {
            if normals.is_some() {
                sc.palette.set_row_major(matrices(input));
            } else {
                sc.palette.set_row_major_without_normals(matrices(input));
            }
        }
        let targets = SkinTargets {
            positions: Some(bytemuck::cast_slice_mut(positions)),
            normals: normals.map(bytemuck::cast_slice_mut),
            tangents: None,
        };
        skin(m, &sc.palette, targets)?;
        Ok(())
    })
}
