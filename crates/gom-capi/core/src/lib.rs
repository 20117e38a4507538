//! The C API of the GOM runtime: `libgom` (static and shared) and `include/gom.h`.
//!
//! Every `extern "C"` function here is also an ordinary Rust function. Each one
//! checks its arguments as the Rust API does (a NULL, a wrong count, an index out of
//! range gives an error code, never undefined behaviour), and catches any panic so
//! that none crosses into C.
//!
//! Ownership and threads, in short (the header says it per declaration):
//! - a `gom_asset` is read-only once opened: every function taking a
//!   `const gom_asset*` may run on several threads at once;
//! - a `gom_sampler` belongs to one thread at a time; each thread uses its own;
//! - strings and arrays returned by the library live as long as the asset.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]
#![allow(non_camel_case_types)]

mod anim;
mod asset;
mod boundary;
mod events;
mod layers;
mod mesh;
mod morph;

pub use anim::*;
pub use asset::*;
pub use boundary::{gom_error, gom_last_error};
pub use events::*;
pub use layers::*;
pub use mesh::*;
pub use morph::*;

/// No error.
pub const GOM_OK: i32 = 0;
/// A pointer that may not be NULL was NULL.
pub const GOM_E_NULL: i32 = 1;
/// A bone, mesh, clip, submesh, material, morph target, float track or event index
/// is out of range.
pub const GOM_E_RANGE: i32 = 2;
/// A count (`bone_count`, `vertex_count`, `target_count`, ...) differs from what the
/// asset, mesh or track has, or a buffer's capacity is too small for the result.
pub const GOM_E_COUNT: i32 = 3;
/// The bytes are not a valid GOMB file (the strict reader refused them; `offset`
/// says where).
pub const GOM_E_READ: i32 = 4;
/// A file could not be read.
pub const GOM_E_IO: i32 = 5;
/// The data breaks a rule the runtime relies on (a track of a bone the skeleton does
/// not have, ...).
pub const GOM_E_INVALID: i32 = 6;
/// The mesh lacks an attribute the call needs (normals for `out_normals`).
pub const GOM_E_MISSING: i32 = 7;
/// A buffer is misaligned for its type, or output buffers overlap each other, the
/// inputs or the asset's bytes.
pub const GOM_E_ARGUMENT: i32 = 8;
/// The library failed internally (a panic, caught at the boundary). Please report.
pub const GOM_E_INTERNAL: i32 = 9;
/// This machine cannot read GOMB data (big-endian hosts).
pub const GOM_E_UNSUPPORTED: i32 = 10;

/// Vertex format bit: position, 3 floats (always present).
pub const GOM_VERTEX_POSITION: u32 = 1 << 0;
/// Vertex format bit: normal, 3 floats.
pub const GOM_VERTEX_NORMAL: u32 = 1 << 1;
/// Vertex format bit: tangent, 4 floats (w = ±1 handedness).
pub const GOM_VERTEX_TANGENT: u32 = 1 << 2;
/// Vertex format bit: first texture coordinate set, 2 floats.
pub const GOM_VERTEX_UV0: u32 = 1 << 3;
/// Vertex format bit: second texture coordinate set, 2 floats.
pub const GOM_VERTEX_UV1: u32 = 1 << 4;
/// Vertex format bit: colour, RGBA 4 x uint8 unorm.
pub const GOM_VERTEX_COLOR0: u32 = 1 << 5;
/// Vertex format bit: skin, 4 x uint16 bone indices then 4 float weights.
pub const GOM_VERTEX_SKIN: u32 = 1 << 6;
/// Skinning method (`gom_mesh_skinning_method`): linear blend skinning.
pub const GOM_SKINNING_LINEAR: u32 = 0;
/// Skinning method: dual quaternions (scale blended linearly, applied first).
pub const GOM_SKINNING_DUAL_QUATERNION: u32 = 1;
/// Skinning method: per vertex, a share of dual quaternion and the rest linear.
pub const GOM_SKINNING_BLENDED: u32 = 2;

/// The library's major version.
pub const GOM_VERSION_MAJOR: u32 = 0;
/// The library's minor version.
pub const GOM_VERSION_MINOR: u32 = 1;
/// The library's patch version.
pub const GOM_VERSION_PATCH: u32 = 0;

/// The library's version: `(major << 16) | (minor << 8) | patch`. Compare with
/// `GOM_VERSION_MAJOR` etc. of the header to detect a header/library mismatch. Never
/// fails; any thread.
#[no_mangle]
pub extern "C" fn gom_version() -> u32 {
    (GOM_VERSION_MAJOR << 16) | (GOM_VERSION_MINOR << 8) | GOM_VERSION_PATCH
}

/// A local bone transform: scale, then rotate, then translate (GOM convention).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct gom_transform {
    /// Translation x, y, z.
    pub translation: [f32; 3],
    /// Rotation quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Scale x, y, z.
    pub scale: [f32; 3],
}

impl From<gom_runtime::Transform> for gom_transform {
    fn from(t: gom_runtime::Transform) -> Self {
        gom_transform {
            translation: t.translation.to_array(),
            rotation: t.rotation.to_array(),
            scale: t.scale.to_array(),
        }
    }
}

impl From<&gom_transform> for gom_runtime::Transform {
    fn from(t: &gom_transform) -> Self {
        gom_runtime::Transform {
            translation: glam::Vec3::from_array(t.translation),
            rotation: glam::Quat::from_array(t.rotation),
            scale: glam::Vec3::from_array(t.scale),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_matches_the_crate_version() {
        let v = gom_version();
        let expected: Vec<u32> = env!("CARGO_PKG_VERSION")
            .split('.')
            .map(|p| p.parse().unwrap())
            .collect();
        assert_eq!(
            [v >> 16, (v >> 8) & 0xFF, v & 0xFF],
            [expected[0], expected[1], expected[2]]
        );
    }
}
