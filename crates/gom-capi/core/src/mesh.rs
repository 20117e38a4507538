//! Zero-copy access to what an engine uploads to the GPU: vertex and index bytes,
//! vertex layout, submeshes, materials, inverse binds.

use std::ffi::{c_char, c_void};

use gom::layout::{Attribute, VertexLayout};

use crate::asset::{asset_ref, mesh_ref};
use crate::boundary::{deref, slice_mut, status, to_usize, value, Fail};
use crate::{gom_asset, GOM_E_RANGE};

/// One submesh: a range of the index buffer drawn with one material.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct gom_submesh {
    /// Index into the asset's materials (`gom_material_*`), or -1 for none.
    pub material: i32,
    /// First index (a multiple of 3).
    pub index_start: u32,
    /// Number of indices (a multiple of 3).
    pub index_count: u32,
}

/// Bounds of a mesh's bind-pose positions in model space.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct gom_bounds {
    /// Box minimum x, y, z.
    pub aabb_min: [f32; 3],
    /// Box maximum x, y, z.
    pub aabb_max: [f32; 3],
    /// Sphere centre x, y, z.
    pub sphere_center: [f32; 3],
    /// Sphere radius.
    pub sphere_radius: f32,
}

/// Mesh `mesh`'s vertex format: a set of `GOM_VERTEX_*` bits (0 when out of range).
/// Attributes are interleaved in bit order. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_vertex_format(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || Some(mesh_ref(a, mesh).ok()?.format().bits()))
}

/// Mesh `mesh`'s skinning method: `GOM_SKINNING_LINEAR`, `GOM_SKINNING_DUAL_QUATERNION`
/// or `GOM_SKINNING_BLENDED` (the `SKNX` extension, docs/extensions.md §3); linear for
/// a static mesh or when `mesh` is out of range. `gom_skin` skins with it. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_skinning_method(a: *const gom_asset, mesh: u32) -> u32 {
    value(crate::GOM_SKINNING_LINEAR, || {
        Some(mesh_ref(a, mesh).ok()?.skinning().code())
    })
}

/// Mesh `mesh`'s influences per vertex: 4 (the skin attribute), 8 (four more in the
/// `SKNX` extension, which `gom_skin` reads), 0 for a static mesh or when `mesh` is
/// out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_influence_count(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || Some(mesh_ref(a, mesh).ok()?.influence_count() as u32))
}

/// The size of one vertex of mesh `mesh` in bytes (0 when out of range). Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_vertex_stride(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || {
        Some(mesh_ref(a, mesh).ok()?.stride_words() as u32 * 4)
    })
}

/// Where attribute `attribute` (one `GOM_VERTEX_*` bit) starts inside a vertex of mesh
/// `mesh`, in bytes; -1 when the mesh lacks it, `attribute` is not a single known bit,
/// or `mesh` is out of range. Positions, normals, tangents, UVs and weights are
/// little-endian floats; colour is 4 x uint8; skin is 4 x uint16 bone indices (8 bytes)
/// then 4 float weights. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_attribute_offset(a: *const gom_asset, mesh: u32, attribute: u32) -> i32 {
    value(-1, || {
        let m = mesh_ref(a, mesh).ok()?;
        let attribute = Attribute::ALL
            .into_iter()
            .find(|x| x.bit().bits() == attribute)?;
        i32::try_from(VertexLayout::of(m.format()).offset(attribute)?).ok()
    })
}

/// Mesh `mesh`'s interleaved vertices, `gom_mesh_vertex_count * gom_mesh_vertex_stride`
/// bytes, ready for a GPU vertex buffer; the size in bytes goes to `*out_size` when
/// `out_size` is not NULL. Zero copy: the pointer is into the file's bytes when they
/// were aligned, and is valid until `gom_asset_free`. NULL (size 0) when `a` is NULL,
/// `mesh` is out of range or the mesh has no vertices. Any thread.
///
/// # Safety
/// `out_size` must be NULL or point to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn gom_mesh_vertex_data(
    a: *const gom_asset,
    mesh: u32,
    out_size: *mut usize,
) -> *const c_void {
    let bytes = value(None, || Some(Some(mesh_ref(a, mesh).ok()?.vertex_bytes())));
    // SAFETY: forwarded from this function's contract.
    unsafe { bytes_out(bytes, out_size) }
}

/// The size of one index of mesh `mesh`: 2 (uint16) or 4 (uint32); 0 when out of
/// range. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_index_size(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || {
        Some(match mesh_ref(a, mesh).ok()?.indices() {
            gom_runtime::Indices::U16(_) => 2,
            gom_runtime::Indices::U32(_) => 4,
        })
    })
}

/// Mesh `mesh`'s triangle list, `gom_mesh_index_count * gom_mesh_index_size` bytes,
/// ready for a GPU index buffer (indices are little-endian; triangles keep GOM's
/// winding); the size in bytes goes to `*out_size` when not NULL. Zero copy as for
/// `gom_mesh_vertex_data`; NULL (size 0) when out of range or empty. Any thread.
///
/// # Safety
/// `out_size` must be NULL or point to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn gom_mesh_index_data(
    a: *const gom_asset,
    mesh: u32,
    out_size: *mut usize,
) -> *const c_void {
    let bytes = value(None, || {
        Some(Some(match &mesh_ref(a, mesh).ok()?.indices() {
            gom_runtime::Indices::U16(i) => bytemuck::cast_slice::<u16, u8>(i.as_ref()),
            gom_runtime::Indices::U32(i) => bytemuck::cast_slice::<u32, u8>(i.as_ref()),
        }))
    });
    // SAFETY: forwarded from this function's contract.
    unsafe { bytes_out(bytes, out_size) }
}

/// Writes the length of `bytes` to `out_size` (when not NULL) and returns its start,
/// NULL for none or empty.
///
/// # Safety
/// `out_size` must be NULL or point to a writable `usize`.
pub(crate) unsafe fn bytes_out(bytes: Option<&[u8]>, out_size: *mut usize) -> *const c_void {
    let bytes = bytes.filter(|b| !b.is_empty());
    if !out_size.is_null() && out_size.align_offset(std::mem::align_of::<usize>()) == 0 {
        // SAFETY: not NULL and aligned; the caller promises a writable `size_t`.
        unsafe { out_size.write(bytes.map_or(0, <[u8]>::len)) };
    }
    bytes.map_or(std::ptr::null(), |b| b.as_ptr().cast())
}

/// The number of submeshes of mesh `mesh` (0 when out of range). Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_submesh_count(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || Some(mesh_ref(a, mesh).ok()?.submeshes().len() as u32))
}

/// Submesh `submesh` of mesh `mesh` into `*out`. Returns 0, or `GOM_E_NULL`,
/// `GOM_E_RANGE`. Any thread.
///
/// # Safety
/// `out` must be NULL or point to a writable `gom_submesh`.
#[no_mangle]
pub unsafe extern "C" fn gom_mesh_submesh(
    a: *const gom_asset,
    mesh: u32,
    submesh: u32,
    out: *mut gom_submesh,
) -> i32 {
    status(|| {
        let m = mesh_ref(a, mesh)?;
        let s = m.submeshes().get(to_usize(submesh)).ok_or_else(|| {
            Fail::new(
                GOM_E_RANGE,
                format!(
                    "submesh {submesh} is out of range: the mesh has {}",
                    m.submeshes().len()
                ),
            )
        })?;
        let out = slice_mut(out, 1, "out")?;
        out[0] = gom_submesh {
            material: s.material_index,
            index_start: s.index_start,
            index_count: s.index_count,
        };
        Ok(())
    })
}

/// Mesh `mesh`'s bind-pose bounds in model space into `*out`. Returns 0, or
/// `GOM_E_NULL`, `GOM_E_RANGE` (also when the mesh has no stored bounds). Any thread.
///
/// # Safety
/// `out` must be NULL or point to a writable `gom_bounds`.
#[no_mangle]
pub unsafe extern "C" fn gom_mesh_bounds(
    a: *const gom_asset,
    mesh: u32,
    out: *mut gom_bounds,
) -> i32 {
    status(|| {
        let m = mesh_ref(a, mesh)?;
        let b = m
            .bounds()
            .ok_or_else(|| Fail::new(GOM_E_RANGE, format!("mesh {mesh} has no bounds")))?;
        slice_mut(out, 1, "out")?[0] = gom_bounds {
            aabb_min: b.aabb_min,
            aabb_max: b.aabb_max,
            sphere_center: b.sphere_center,
            sphere_radius: b.sphere_radius,
        };
        Ok(())
    })
}

/// Mesh `mesh`'s inverse bind matrices, 16 floats each (GOM convention), one per
/// skeleton bone, owned by the asset (valid until `gom_asset_free`); NULL for a static
/// mesh, a mesh out of range or a NULL asset. For GPU skinning use `gom_palette`, which
/// applies these and the GBTM. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_inverse_bind(a: *const gom_asset, mesh: u32) -> *const f32 {
    value(std::ptr::null(), || {
        let ib = mesh_ref(a, mesh).ok()?.inverse_bind();
        (!ib.is_empty()).then(|| ib.as_ptr().cast::<f32>())
    })
}

/// Mesh `mesh`'s GBTM `G` (geometry to model at bind time), 16 floats (GOM convention)
/// into `out_matrix`; the identity when the mesh has none. Returns 0, or `GOM_E_NULL`,
/// `GOM_E_RANGE`. Any thread.
///
/// # Safety
/// `out_matrix` must be NULL or 16 writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_mesh_gbtm(
    a: *const gom_asset,
    mesh: u32,
    out_matrix: *mut f32,
) -> i32 {
    status(|| {
        let m = mesh_ref(a, mesh)?;
        let g = m.gbtm().copied().unwrap_or(IDENTITY);
        slice_mut(out_matrix, 16, "out_matrix")?.copy_from_slice(&g);
        Ok(())
    })
}

const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// The number of materials (0 for NULL). Submeshes refer to them by index. Any thread.
#[no_mangle]
pub extern "C" fn gom_material_count(a: *const gom_asset) -> u32 {
    value(0, || Some(asset_ref(a)?.asset.materials().len() as u32))
}

/// Material `material`'s name (owned by the asset), or NULL when out of range. Any
/// thread.
#[no_mangle]
pub extern "C" fn gom_material_name(a: *const gom_asset, material: u32) -> *const c_char {
    crate::asset::name_at(a, |x| &x.material_names, material)
}

/// Material `material`'s base-colour texture path or URI (owned by the asset), or NULL
/// when it has none or is out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_material_texture(a: *const gom_asset, material: u32) -> *const c_char {
    value(std::ptr::null(), || {
        let t = asset_ref(a)?.material_textures.get(to_usize(material))?;
        Some(t.as_ref()?.as_ptr())
    })
}

/// Material `material`'s linear RGBA base-colour factor into `out_rgba` (4 floats).
/// Returns 0, or `GOM_E_NULL`, `GOM_E_RANGE`. Any thread.
///
/// # Safety
/// `out_rgba` must be NULL or 4 writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_material_base_color(
    a: *const gom_asset,
    material: u32,
    out_rgba: *mut f32,
) -> i32 {
    status(|| {
        let a = deref(a, "asset")?;
        let m = a.asset.materials().get(to_usize(material)).ok_or_else(|| {
            Fail::new(
                GOM_E_RANGE,
                format!(
                    "material {material} is out of range: the asset has {}",
                    a.asset.materials().len()
                ),
            )
        })?;
        slice_mut(out_rgba, 4, "out_rgba")?.copy_from_slice(&m.base_color_factor);
        Ok(())
    })
}
