//! What the exporter refuses before it writes anything: a bone whose parent does not
//! come first, and numbers JSON cannot hold.

use super::export_err;
use crate::gltf::GltfError;

/// Refuses a bone whose parent is not an earlier bone (glTF's node tree and the
/// exporter's one pass over the bones both need parents first).
pub(super) fn parents_first(bones: &[gom::Bone]) -> Result<(), GltfError> {
    for (i, b) in bones.iter().enumerate() {
        if b.parent >= i as i32 || b.parent < -1 {
            return Err(export_err(
                format!("skeleton.bones[{i}]"),
                format!("parent {} is not an earlier bone", b.parent),
            ));
        }
    }
    Ok(())
}

/// Refuses NaN and infinities, which JSON and glTF cannot hold, and vertex streams
/// whose length differs from the position count.
pub(super) fn finite(model: &gom::Model) -> Result<(), GltfError> {
    let bad = |object: String| export_err(object, "holds a NaN or infinite number");
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        if b.bind_local.iter().any(|v| !v.is_finite()) {
            return Err(bad(format!("skeleton.bones[{i}]")));
        }
    }
    for (i, m) in model.materials.iter().enumerate() {
        if m.base_color_factor.iter().any(|v| !v.is_finite()) {
            return Err(bad(format!("materials[{i}]")));
        }
    }
    for (i, m) in model.meshes.iter().enumerate() {
        mesh_finite(m).map_err(|message| export_err(format!("meshes[{i}]"), message))?;
    }
    for (i, c) in model.clips.iter().enumerate() {
        let keys = c.tracks.iter().flat_map(|t| t.keys.iter());
        let mut floats = keys.flat_map(|k| {
            std::iter::once(k.time)
                .chain(k.translation)
                .chain(k.rotation)
                .chain(k.scale)
        });
        if floats.any(|x| !x.is_finite()) {
            return Err(bad(format!("clips[{i}]")));
        }
    }
    Ok(())
}

/// What is wrong with a mesh part's numbers or stream lengths, if anything.
fn mesh_finite(m: &gom::MeshPart) -> Result<(), &'static str> {
    let v = &m.vertices;
    let mut floats = v
        .positions
        .iter()
        .flatten()
        .chain(v.normals.iter().flatten().flatten())
        .chain(v.tangents.iter().flatten().flatten())
        .chain(v.uv0.iter().flatten().flatten())
        .chain(v.uv1.iter().flatten().flatten())
        .chain(v.skin.iter().flatten().flat_map(|s| s.weights.iter()))
        .chain(v.skin_extra.iter().flatten().flat_map(|s| s.weights.iter()))
        .chain(m.inverse_bind.iter().flatten())
        .chain(m.mesh_bind_geo_to_model.iter().flatten());
    if floats.any(|x| !x.is_finite()) {
        return Err("holds a NaN or infinite number");
    }
    let n = v.len();
    let lengths = [
        v.normals.as_ref().map(Vec::len),
        v.tangents.as_ref().map(Vec::len),
        v.uv0.as_ref().map(Vec::len),
        v.uv1.as_ref().map(Vec::len),
        v.colors.as_ref().map(Vec::len),
        v.skin.as_ref().map(Vec::len),
        v.skin_extra.as_ref().map(Vec::len),
    ];
    if lengths.iter().flatten().any(|&l| l != n) {
        return Err("a vertex stream's length differs from the position count");
    }
    Ok(())
}
