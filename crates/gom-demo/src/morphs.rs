//! The demo with blend shapes.

use gom::Model;

/// `model` (the demo, from [`crate::build`]) with blend shapes on its tentacle (mesh 0): the
/// target `bulge` pushes every vertex of the upper half out along its normal (up to
/// 5 cm at the tip) and turns its normal up a little, and `flatten` pulls the tip ring
/// in by a third; `bulge` has the default weight 0.25, and the `curl` clip (clip 1)
/// keys `flatten` from 0 to 1 and back, linearly. Used by the blend-shape tests and
/// fuzz seeds; the demo itself has none.
pub fn with_morphs(mut model: Model) -> Model {
    use gom::morph::{MorphTarget, WeightInterpolation, WeightKey, WeightTrack};
    let Some(mesh) = model.meshes.first_mut() else {
        return model;
    };
    let v = &mesh.vertices;
    let normals = v.normals.clone().unwrap_or_default();
    let top = v.positions.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    let mut bulge = MorphTarget {
        name: "bulge".into(),
        default_weight: 0.25,
        normals: Some(Vec::new()),
        ..Default::default()
    };
    let mut flatten = MorphTarget {
        name: "flatten".into(),
        normals: Some(Vec::new()),
        ..Default::default()
    };
    for (i, p) in v.positions.iter().enumerate() {
        let n = normals.get(i).copied().unwrap_or([0.0; 3]);
        let h = p[1] / top;
        if h > 0.5 {
            let s = 0.05 * (h - 0.5) * 2.0;
            bulge.indices.push(i as u32);
            bulge.positions.push([n[0] * s, n[1] * s, n[2] * s]);
            if let Some(d) = bulge.normals.as_mut() {
                d.push([0.0, 0.2 * (h - 0.5), 0.0]);
            }
        }
        if p[1] >= top - 1e-6 {
            flatten.indices.push(i as u32);
            flatten.positions.push([-p[0] / 3.0, 0.0, -p[2] / 3.0]);
            if let Some(d) = flatten.normals.as_mut() {
                d.push([0.0; 3]);
            }
        }
    }
    if v.normals.is_none() {
        bulge.normals = None;
        flatten.normals = None;
    }
    mesh.morph_targets = vec![bulge, flatten];
    if let Some(clip) = model.clips.get_mut(1) {
        let d = clip.duration;
        let key = |time: f32, weight: f32| WeightKey { time, weight };
        clip.weight_tracks = vec![WeightTrack {
            mesh: 0,
            target: 1,
            interpolation: WeightInterpolation::Linear,
            keys: vec![key(0.0, 0.0), key(d / 2.0, 1.0), key(d, 0.0)],
        }];
    }
    model
}
