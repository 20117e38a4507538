//! Blend shapes at the C boundary (`docs/extensions.md` §4): a mesh's targets and
//! default weights, a clip's weights through its sampler, and a morpher that applies
//! weights to a mesh before skinning.

use std::ffi::{c_char, c_void, CString};

use gom_runtime::{Asset, Morpher, Playback};

use crate::anim::{gom_sampler, skin_checked, SkinOutputs};
use crate::asset::{c_string, expect_count, mesh_ref};
use crate::boundary::Region;
use crate::boundary::{create, deref, disjoint, slice, slice_mut, status, to_usize, value, Fail};
use crate::{gom_asset, gom_error};

/// Per mesh of `asset`, its targets' names as C strings.
pub(crate) fn target_names(asset: &Asset<'_>) -> Vec<Vec<CString>> {
    (0..asset.meshes().len())
        .map(|m| {
            let t = asset.morph_targets(m);
            (0..t.len())
                .map(|k| c_string(t.name(k).unwrap_or("")))
                .collect()
        })
        .collect()
}

/// A copy of one mesh of an asset carrying the last weights applied to it
/// (`gom_morph`): what `gom_morph_skin` skins and `gom_morpher_vertex_data` shows.
/// Opaque to C. Belongs to one thread at a time.
pub struct gom_morpher {
    asset: *const gom_asset,
    mesh: u32,
    morpher: Morpher<'static>,
}

/// The number of morph targets (blend shapes) of mesh `mesh`: 0 when it has none,
/// `a` is NULL or `mesh` is out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_morph_target_count(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || {
        mesh_ref(a, mesh).ok()?;
        let a = deref(a, "asset").ok()?;
        Some(a.asset.morph_targets(to_usize(mesh)).len() as u32)
    })
}

/// Target `target`'s name of mesh `mesh` (UTF-8, owned by the asset, valid until
/// `gom_asset_free`), or NULL when `a` is NULL or an index is out of range. Any
/// thread.
#[no_mangle]
pub extern "C" fn gom_mesh_morph_target_name(
    a: *const gom_asset,
    mesh: u32,
    target: u32,
) -> *const c_char {
    value(std::ptr::null(), || {
        let names = deref(a, "asset").ok()?.morph_names.get(to_usize(mesh))?;
        Some(names.get(to_usize(target))?.as_ptr())
    })
}

/// The default weight of every target of mesh `mesh` (the weights without a clip)
/// into `out_weights`; `target_count` must be `gom_mesh_morph_target_count(a, mesh)`
/// (0 for a mesh without targets, and then `out_weights` may be NULL). Returns 0, or
/// `GOM_E_NULL`, `GOM_E_RANGE` (mesh), `GOM_E_COUNT`. Any thread.
///
/// # Safety
/// `out_weights` must be NULL or `target_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_mesh_morph_default_weights(
    a: *const gom_asset,
    mesh: u32,
    out_weights: *mut f32,
    target_count: u32,
) -> i32 {
    status(|| {
        mesh_ref(a, mesh)?;
        let asset = &deref(a, "asset")?.asset;
        let defaults = asset.morph_targets(to_usize(mesh)).default_weights();
        let n = expect_count("target_count", defaults.len(), target_count)?;
        slice_mut(out_weights, n, "out_weights")?.copy_from_slice(defaults);
        Ok(())
    })
}

/// The weights of mesh `mesh`'s targets at `time` of the sampler's clip into
/// `out_weights` (`target_count` = `gom_mesh_morph_target_count`): each target's
/// default weight, overridden by the clip's weight track where it has one. Times
/// wrap into `[0, duration)` when `loop` is nonzero and are held at the first or last
/// key otherwise, as `gom_sample` does; a non-finite time samples 0. Returns 0, or
/// `GOM_E_NULL`, `GOM_E_RANGE` (mesh), `GOM_E_COUNT`. Reads the sampler without
/// changing it: the thread using the sampler calls it.
///
/// # Safety
/// `s` must be NULL or a live sampler whose asset is live; `out_weights` NULL or
/// `target_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_sample_weights(
    s: *const gom_sampler,
    mesh: u32,
    time: f32,
    r#loop: i32,
    out_weights: *mut f32,
    target_count: u32,
) -> i32 {
    status(|| {
        let s = deref(s, "sampler")?;
        let (a, clip) = s.asset_and_clip();
        mesh_ref(a, mesh)?;
        let asset = &deref(a, "the sampler's asset")?.asset;
        let m = to_usize(mesh);
        let n = expect_count("target_count", asset.morph_targets(m).len(), target_count)?;
        let out = slice_mut(out_weights, n, "out_weights")?;
        let playback = if r#loop != 0 {
            Playback::Loop
        } else {
            Playback::Once
        };
        let time = if time.is_finite() { time } else { 0.0 };
        asset.sample_weights(Some(to_usize(clip)), m, time, playback, out)?;
        Ok(())
    })
}

/// Creates a morpher for mesh `mesh` of `a`: a copy of the mesh's vertices (made on
/// the first `gom_morph`) that weights are applied to. Returns NULL with `*err`
/// filled on failure (`GOM_E_NULL`, `GOM_E_RANGE`); `err` may be NULL. The morpher
/// refers to `a`, which must outlive it. Any thread; a morpher is used by one thread
/// at a time (one per drawn instance of a morphing mesh).
///
/// # Safety
/// `a` must be NULL or a live asset; `err` NULL or a writable `gom_error`.
#[no_mangle]
pub unsafe extern "C" fn gom_morpher_create(
    a: *const gom_asset,
    mesh: u32,
    err: *mut gom_error,
) -> *mut gom_morpher {
    create(err, || {
        let m = mesh_ref(a, mesh)?;
        Ok(gom_morpher {
            asset: a,
            mesh,
            morpher: Morpher::new(m),
        })
    })
}

/// Frees a morpher. NULL is allowed. Not concurrently with other calls on it.
///
/// # Safety
/// `m` must be NULL or a morpher from `gom_morpher_create` not freed yet.
#[no_mangle]
pub unsafe extern "C" fn gom_morpher_free(m: *mut gom_morpher) {
    if m.is_null() {
        return;
    }
    // SAFETY: the caller promises a live morpher made by `Box::into_raw` in `create`.
    let boxed = unsafe { Box::from_raw(m) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(boxed)));
}

/// The morpher behind `m` (used by this thread only), or `GOM_E_NULL`.
///
/// # Safety
/// `m` must be NULL or a live morpher that no other thread uses during the call.
unsafe fn morpher_mut<'a>(m: *mut gom_morpher) -> Result<&'a mut gom_morpher, Fail> {
    deref(m.cast_const(), "morpher")?;
    // SAFETY: not NULL and aligned (checked by `deref`); the caller promises a live
    // morpher used by this thread only, so no other reference to it exists.
    Ok(unsafe { &mut *m })
}

impl gom_morpher {
    /// Applies the `target_count` weights at `weights` to the mesh's bind attributes.
    fn apply(&mut self, weights: *const f32, target_count: u32) -> Result<(), Fail> {
        let base = mesh_ref(self.asset, self.mesh)?;
        let asset = &deref(self.asset, "the morpher's asset")?.asset;
        let targets = asset.morph_targets(to_usize(self.mesh));
        let n = expect_count("target_count", targets.len(), target_count)?;
        let weights = slice(weights, n, "weights")?;
        self.morpher.apply(base, targets, weights)?;
        Ok(())
    }
}

/// Applies `weights` (`target_count` = `gom_mesh_morph_target_count` of the
/// morpher's mesh; from `gom_sample_weights`, or set by the game) to the morpher's
/// copy of the mesh: bind positions `p + Σ wᵢ·dpᵢ`, normals and tangents likewise,
/// renormalised. Costs only the vertices the previous and the new non-zero weights
/// move; allocates nothing after the first call. Returns 0, or `GOM_E_NULL`,
/// `GOM_E_COUNT`, `GOM_E_INVALID`. The thread using the morpher calls it.
///
/// # Safety
/// `m` must be NULL or a live morpher whose asset is live; `weights` NULL or
/// `target_count` readable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_morph(
    m: *mut gom_morpher,
    weights: *const f32,
    target_count: u32,
) -> i32 {
    status(|| {
        // SAFETY: forwarded from this function's contract.
        let m = unsafe { morpher_mut(m) }?;
        m.apply(weights, target_count)
    })
}

/// The morpher's interleaved vertices with the last weights applied, in the layout of
/// `gom_mesh_vertex_data` (same size, same stride and offsets): upload it in place of
/// the mesh's own for GPU skinning. The size in bytes goes to `*out_size` when not
/// NULL. Valid until the next `gom_morph`, `gom_morph_skin` or `gom_morpher_free`.
/// NULL (size 0) when `m` is NULL or the mesh has no vertices. The thread using the
/// morpher calls it.
///
/// # Safety
/// `m` must be NULL or a live morpher whose asset is live; `out_size` NULL or a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn gom_morpher_vertex_data(
    m: *const gom_morpher,
    out_size: *mut usize,
) -> *const c_void {
    let bytes = value(None, || {
        Some(Some(
            deref(m, "morpher").ok()?.morpher.mesh().vertex_bytes(),
        ))
    });
    // SAFETY: forwarded from this function's contract.
    unsafe { crate::mesh::bytes_out(bytes, out_size) }
}

/// Morph and skin in one call: applies `weights` as `gom_morph` does, then skins the
/// morphed mesh as `gom_skin` does (`palette` from `gom_palette` of the morpher's
/// mesh, `bone_count` = `gom_mesh_palette_size`, outputs of `3 * vertex_count`
/// floats, `out_normals` may be NULL). `weights` may be NULL with `target_count` 0
/// for a mesh without targets. Returns 0, or `GOM_E_NULL`, `GOM_E_COUNT`,
/// `GOM_E_MISSING`, `GOM_E_ARGUMENT` (misaligned or overlapping buffers),
/// `GOM_E_INVALID`. The thread using the morpher calls it; the asset may be shared.
///
/// # Safety
/// `m` must be NULL or a live morpher whose asset is live; `weights` NULL or
/// `target_count` readable floats; `palette` NULL or `16 * bone_count` readable
/// floats; each output NULL or `3 * vertex_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_morph_skin(
    m: *mut gom_morpher,
    weights: *const f32,
    target_count: u32,
    palette: *const f32,
    bone_count: u32,
    out_positions: *mut f32,
    out_normals: *mut f32,
    vertex_count: u32,
) -> i32 {
    status(|| {
        // SAFETY: forwarded from this function's contract.
        let m = unsafe { morpher_mut(m) }?;
        let out = SkinOutputs {
            positions: out_positions,
            normals: out_normals,
            vertex_count,
        };
        // Counts and overlaps are checked before the weights change the morpher.
        let vf = to_usize(vertex_count).saturating_mul(3);
        let mesh = mesh_ref(m.asset, m.mesh)?;
        expect_count("vertex_count", mesh.vertex_count(), vertex_count)?;
        disjoint(
            &[
                Region::of("out_positions", out_positions, vf),
                Region::of("out_normals", out_normals, vf),
            ],
            &[Region::of("weights", weights, to_usize(target_count))],
        )?;
        m.apply(weights, target_count)?;
        let asset = deref(m.asset, "the morpher's asset")?;
        let words = m.morpher.mesh().vertex_words();
        let copy = Region::of("the morpher's vertices", words.as_ptr(), words.len());
        skin_checked(asset, m.morpher.mesh(), palette, bone_count, out, &[copy])
    })
}
