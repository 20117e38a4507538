//! Blend shapes for the page: each mesh's morph targets as sparse arrays in the
//! geometry buffer (the page spreads them into a float texture and applies them in its
//! vertex shader), and the weights of every target at one moment, which end a pose
//! record (see [`crate::data::ViewModel::pose_at`]).

use gom_runtime::{Asset, Morpher, Playback};
use serde::Serialize;

/// One morph target as the manifest describes it.
#[derive(Serialize)]
pub(crate) struct TargetJson {
    name: String,
    default_weight: f32,
    /// Vertices it moves.
    count: usize,
    /// Byte offsets into the geometry buffer: the moved vertices' indices (`u32`),
    /// their position deltas (`f32` × 3), and their normal deltas (`f32` × 3) when the
    /// mesh's targets have them.
    indices: usize,
    positions: usize,
    normals: Option<usize>,
}

/// Appends `part`'s targets to the geometry buffer `buf` and describes them.
pub(crate) fn targets(buf: &mut Vec<u8>, part: &gom::MeshPart) -> Vec<TargetJson> {
    part.morph_targets
        .iter()
        .map(|t| {
            let indices = buf.len();
            buf.extend(t.indices.iter().flat_map(|i| i.to_le_bytes()));
            let positions = put_vec3(buf, &t.positions);
            let normals = t.normals.as_deref().map(|n| put_vec3(buf, n));
            TargetJson {
                name: t.name.clone(),
                default_weight: t.default_weight,
                count: t.indices.len(),
                indices,
                positions,
                normals,
            }
        })
        .collect()
}

fn put_vec3(buf: &mut Vec<u8>, values: &[[f32; 3]]) -> usize {
    let at = buf.len();
    buf.extend(values.iter().flatten().flat_map(|f| f.to_le_bytes()));
    at
}

/// Every mesh's target count, summed: the floats of weights that end a pose record.
pub(crate) fn weight_count(asset: &Asset<'_>) -> usize {
    (0..asset.meshes().len())
        .map(|m| asset.morph_targets(m).len())
        .sum()
}

/// Appends every mesh's target weights at `time` of `clip` (the default weights without
/// a clip), as the runtime samples them for `gom pose`.
pub(crate) fn push_weights(
    floats: &mut Vec<f32>,
    asset: &Asset<'_>,
    clip: Option<usize>,
    time: f32,
) -> Result<(), String> {
    for m in 0..asset.meshes().len() {
        let n = asset.morph_targets(m).len();
        if n == 0 {
            continue;
        }
        let at = floats.len();
        floats.resize(at + n, 0.0);
        asset
            .sample_weights(clip, m, time, Playback::Once, &mut floats[at..])
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Mesh `mesh` of `asset` morphed at `time` of `clip` (its default weights without a
/// clip), or `None` when it has no target with a non-zero weight then.
pub(crate) fn morphed<'a>(
    asset: &Asset<'a>,
    mesh: usize,
    clip: Option<usize>,
    time: f32,
) -> Result<Option<Morpher<'a>>, String> {
    let targets = asset.morph_targets(mesh);
    let (Some(base), false) = (asset.meshes().get(mesh), targets.is_empty()) else {
        return Ok(None);
    };
    let mut weights = vec![0.0; targets.len()];
    asset
        .sample_weights(clip, mesh, time, Playback::Once, &mut weights)
        .map_err(|e| e.to_string())?;
    if weights.iter().all(|&w| w == 0.0) {
        return Ok(None);
    }
    let mut morpher = Morpher::new(base);
    morpher
        .apply(base, targets, &weights)
        .map_err(|e| e.to_string())?;
    Ok(Some(morpher))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_targets_arrays_land_at_the_offsets_its_description_gives() {
        let model = gom_demo::with_morphs(gom_demo::build());
        let part = &model.meshes[0];
        let mut buf = vec![7u8; 3];
        let json = targets(&mut buf, part);
        assert_eq!(json.len(), part.morph_targets.len());
        let f32_at = |at: usize| f32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
        for (j, t) in json.iter().zip(&part.morph_targets) {
            assert_eq!(j.count, t.indices.len());
            let last = t.indices.len() - 1;
            let i = u32::from_le_bytes(buf[j.indices + 4 * last..][..4].try_into().unwrap());
            assert_eq!(i, t.indices[last]);
            assert_eq!(f32_at(j.positions + 12 * last + 8), t.positions[last][2]);
            let n = t.normals.as_ref().unwrap();
            assert_eq!(f32_at(j.normals.unwrap() + 12 * last + 4), n[last][1]);
        }
    }

    #[test]
    fn an_uploaded_morphing_gltf_keeps_its_targets_without_a_warning_that_they_are_ignored() {
        use gom_import::gltf::{export, Exported, GltfExportOptions};
        let model = gom_demo::with_morphs(gom_demo::build());
        let Ok(Exported::Glb(bytes)) = export(&model, &GltfExportOptions::default()) else {
            panic!("a .glb by default")
        };
        let viewed = crate::load_upload("morphs.glb", &bytes, &Default::default()).unwrap();
        let manifest = viewed.manifest();
        let names: Vec<&str> = manifest["meshes"][0]["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["bulge", "flatten"]);
        assert_eq!(manifest["morph_weights"], 2);
        let warnings = manifest["info"]["warnings"].as_array().unwrap();
        assert!(
            !warnings
                .iter()
                .any(|w| w.as_str().unwrap().contains("morph")),
            "{warnings:?}"
        );
    }

    #[test]
    fn the_weights_are_the_clips_at_its_time_and_the_defaults_without_one() {
        let model = gom_demo::with_morphs(gom_demo::build());
        let asset = Asset::from_model(&model).unwrap();
        assert_eq!(weight_count(&asset), 2);
        let mut w = Vec::new();
        push_weights(&mut w, &asset, None, 0.0).unwrap();
        assert_eq!(w, [0.25, 0.0]);
        // The `curl` clip keys `flatten` from 0 up to 1 at half its length.
        let curl = &model.clips[1];
        let track = &curl.weight_tracks[0];
        let (k0, k1) = (track.keys[0], track.keys[1]);
        let t = k0.time + 0.25 * (k1.time - k0.time);
        w.clear();
        push_weights(&mut w, &asset, Some(1), t).unwrap();
        let expected = k0.weight + 0.25 * (k1.weight - k0.weight);
        assert_eq!(w[0], 0.25);
        assert!((w[1] - expected).abs() < 1e-6, "{} != {expected}", w[1]);
    }
}
