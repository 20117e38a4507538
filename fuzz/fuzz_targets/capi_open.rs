//! GOMB bytes through the C API as a C program calls it: `gom_asset_open` (and
//! `gom_asset_open_copy` on an unaligned copy), every query on the asset, then for every
//! clip a sampler, samples at a few times, model matrices, palettes and skinning of
//! every mesh into caller buffers, and everything freed.
#![no_main]

use std::ffi::{c_void, CStr};
use std::ptr;

use gom_capi_core::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let mut err = gom_error {
        code: 0,
        offset: 0,
        message: [0; 256],
    };
    // SAFETY: `data` is `data.len()` readable bytes that outlive the asset (freed below).
    let a = unsafe { gom_asset_open(data.as_ptr().cast::<c_void>(), data.len(), &mut err) };
    if a.is_null() {
        assert_ne!(err.code, 0, "NULL without an error code");
        // SAFETY: the message is NUL-terminated (documented, at most 255 bytes).
        let _ = unsafe { CStr::from_ptr(err.message.as_ptr()) };
    } else {
        query(a);
        // SAFETY: `a` is live and freed once.
        unsafe { gom_asset_free(a) };
    }
    // A copy starting one byte into a buffer: misaligned, opened by copying.
    let mut shifted = vec![0u8; data.len() + 1];
    shifted[1..].copy_from_slice(data);
    // SAFETY: the slice is readable for the call; the asset keeps its own copy.
    let b = unsafe {
        gom_asset_open_copy(
            shifted[1..].as_ptr().cast::<c_void>(),
            data.len(),
            ptr::null_mut(),
        )
    };
    drop(shifted);
    assert_eq!(a.is_null(), b.is_null(), "open and open_copy disagree");
    if !b.is_null() {
        query(b);
        // SAFETY: `b` is live and freed once.
        unsafe { gom_asset_free(b) };
    }
});

/// Every query a C program makes of an open asset.
fn query(a: *mut gom_asset) {
    let a = a.cast_const();
    let bones = gom_bone_count(a);
    for b in 0..=bones {
        let name = gom_bone_name(a, b);
        if !name.is_null() {
            // SAFETY: a non-NULL name is a NUL-terminated string owned by the asset.
            unsafe {
                let _ = CStr::from_ptr(name);
                assert!(gom_bone_find(a, name) >= 0);
            }
        }
        let _ = gom_bone_parent(a, b);
    }
    let mut local = vec![
        gom_transform {
            translation: [0.0; 3],
            rotation: [0.0; 4],
            scale: [0.0; 3]
        };
        bones as usize
    ];
    // SAFETY: `local` holds `bones` writable transforms.
    let status = unsafe { gom_bind_pose(a, local.as_mut_ptr(), bones) };
    assert_eq!(status, 0, "bind pose of an open asset");
    let _ = gom_bind_local_matrices(a);
    for m in 0..gom_material_count(a) {
        let _ = gom_material_name(a, m);
        let _ = gom_material_texture(a, m);
        let mut rgba = [0f32; 4];
        // SAFETY: four writable floats.
        unsafe { gom_material_base_color(a, m, rgba.as_mut_ptr()) };
    }
    let mut model = vec![0f32; 16 * bones as usize];
    // SAFETY: `local` holds `bones` transforms, `model` 16 × `bones` floats.
    unsafe { gom_local_to_model(a, local.as_ptr(), model.as_mut_ptr(), bones) };
    meshes(a, &model);
    for c in 0..=gom_clip_count(a) {
        let _ = gom_clip_name(a, c);
        let d = gom_clip_duration(a, c);
        let _ = gom_clip_sample_rate(a, c);
        let mut e = gom_error {
            code: 0,
            offset: 0,
            message: [0; 256],
        };
        // SAFETY: `a` is live; `e` is writable.
        let s = unsafe { gom_sampler_create(a, c, &mut e) };
        if s.is_null() {
            continue;
        }
        for (t, looped) in [
            (0.0, 0),
            (d * 0.5, 0),
            (d, 0),
            (-1.0, 1),
            (d * 3.3, 1),
            (f32::NAN, 0),
        ] {
            // SAFETY: `s` is live; `local` holds `bones` transforms.
            let st = unsafe { gom_sample(s, t, looped, local.as_mut_ptr(), bones) };
            assert_eq!(st, 0, "sampling an open clip");
            // SAFETY: as above, `model` holds 16 × `bones` floats.
            unsafe { gom_local_to_model(a, local.as_ptr(), model.as_mut_ptr(), bones) };
            meshes(a, &model);
        }
        // SAFETY: `s` is live and freed once.
        unsafe { gom_sampler_free(s) };
    }
}

/// Every mesh's data, palette and skinning for the model matrices `model`.
fn meshes(a: *const gom_asset, model: &[f32]) {
    for m in 0..=gom_mesh_count(a) {
        let _ = gom_mesh_name(a, m);
        let _ = gom_mesh_vertex_format(a, m);
        let _ = gom_mesh_vertex_stride(a, m);
        for attr in 0..8 {
            let _ = gom_mesh_attribute_offset(a, m, attr);
        }
        let mut size = 0usize;
        // SAFETY: `size` is writable.
        unsafe {
            gom_mesh_vertex_data(a, m, &mut size);
            gom_mesh_index_data(a, m, &mut size);
        }
        let _ = gom_mesh_index_size(a, m);
        for s in 0..=gom_mesh_submesh_count(a, m) {
            let mut out = gom_submesh {
                material: 0,
                index_start: 0,
                index_count: 0,
            };
            // SAFETY: `out` is writable.
            unsafe { gom_mesh_submesh(a, m, s, &mut out) };
        }
        let mut bounds = gom_bounds {
            aabb_min: [0.0; 3],
            aabb_max: [0.0; 3],
            sphere_center: [0.0; 3],
            sphere_radius: 0.0,
        };
        let mut gbtm = [0f32; 16];
        // SAFETY: `bounds` and 16 floats are writable.
        unsafe {
            gom_mesh_bounds(a, m, &mut bounds);
            gom_mesh_gbtm(a, m, gbtm.as_mut_ptr());
        }
        let _ = gom_mesh_inverse_bind(a, m);
        let n = gom_mesh_palette_size(a, m);
        if m == gom_mesh_count(a) {
            continue;
        }
        let mut palette = vec![0f32; 16 * n as usize];
        // SAFETY: `model` holds 16 floats per bone, `palette` 16 × `n`.
        let st = unsafe { gom_palette(a, m, model.as_ptr(), palette.as_mut_ptr(), n) };
        assert_eq!(st, 0, "palette of an open mesh");
        let v = gom_mesh_vertex_count(a, m);
        let mut positions = vec![0f32; 3 * v as usize];
        let mut normals = vec![0f32; 3 * v as usize];
        let normals = if gom_mesh_vertex_format(a, m) & GOM_VERTEX_NORMAL != 0 {
            normals.as_mut_ptr()
        } else {
            ptr::null_mut()
        };
        // SAFETY: the palette holds 16 × `n` floats; the outputs 3 × `v` floats each
        // (or NULL for normals).
        let st = unsafe {
            gom_skin(
                a,
                m,
                palette.as_ptr(),
                n,
                positions.as_mut_ptr(),
                normals,
                v,
            )
        };
        assert_eq!(st, 0, "skinning an open mesh");
    }
}
