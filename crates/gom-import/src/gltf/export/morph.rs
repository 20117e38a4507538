//! Morph targets and weight tracks out to glTF (`docs/extensions.md` §4.4): each
//! target as dense POSITION / NORMAL / TANGENT delta accessors shared by the part's
//! primitives, the default weights as the mesh's `weights`, the names as
//! `extras.targetNames`, and each clip's weight tracks as one `weights` channel per
//! part's node.

use gltf::json::accessor::Type;
use gltf::json::animation::{Channel, Interpolation, Property, Sampler, Target};
use gltf::json::mesh::MorphTarget;
use gltf::json::validation::Checked::Valid;
use gltf::json::{Animation, Index};
use gom::math::transform_vector;
use gom::morph::{sample_weight, WeightInterpolation};
use gom::Mat4;

use super::bin::Bin;
use crate::gltf::convert::{mirror_vec3, normal_matrix};

/// The part's targets as dense accessors in `bin` (deltas carried through `bake`, the
/// matrix baked into its vertices, and mirrored back), or `None` without targets.
pub(super) fn targets(
    part: &gom::MeshPart,
    bake: Option<&Mat4>,
    bin: &mut Bin,
) -> Option<Vec<MorphTarget>> {
    if part.morph_targets.is_empty() {
        return None;
    }
    let n = part.vertices.len();
    let nm = bake.and_then(normal_matrix);
    // A baked normal (tangent) is renormalised: its deltas are divided by the length
    // the bind vector has once transformed, so the sum normalises to the same vector.
    let scaled = |d: [f32; 3], base: Option<[f32; 3]>, m: Option<Mat4>| match m {
        None => d,
        Some(m) => {
            let len = base.map_or(1.0, |b| {
                let t = transform_vector(&m, b);
                (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt()
            });
            let s = if len > 0.0 && len.is_finite() {
                len
            } else {
                1.0
            };
            transform_vector(&m, d).map(|c| c / s)
        }
    };
    let v = &part.vertices;
    let out = part
        .morph_targets
        .iter()
        .map(|t| {
            let dense = |deltas: &[[f32; 3]], f: &dyn Fn(usize, [f32; 3]) -> [f32; 3]| {
                let mut d = vec![0.0f32; 3 * n];
                for (&i, x) in t.indices.iter().zip(deltas) {
                    let i = i as usize;
                    d[3 * i..3 * i + 3].copy_from_slice(&mirror_vec3(f(i, *x)));
                }
                d
            };
            let p = dense(&t.positions, &|_, x| {
                bake.map_or(x, |g| transform_vector(g, x))
            });
            let positions = Some(bin.floats(&p, Type::Vec3, None, true));
            let normals = t.normals.as_ref().map(|d| {
                let base = |i: usize| v.normals.as_ref().and_then(|b| b.get(i)).copied();
                let d = dense(d, &|i, x| scaled(x, base(i), nm));
                bin.floats(&d, Type::Vec3, None, false)
            });
            let tangents = t.tangents.as_ref().map(|d| {
                let base = |i: usize| {
                    let b = v.tangents.as_ref().and_then(|b| b.get(i))?;
                    Some([b[0], b[1], b[2]])
                };
                let d = dense(d, &|i, x| scaled(x, base(i), bake.copied()));
                bin.floats(&d, Type::Vec3, None, false)
            });
            MorphTarget {
                positions,
                normals,
                tangents,
            }
        })
        .collect();
    Some(out)
}

/// The mesh's `weights` (the default weights) and its `extras` with `targetNames`.
pub(super) fn weights_and_names(part: &gom::MeshPart) -> (Option<Vec<f32>>, gltf::json::Extras) {
    if part.morph_targets.is_empty() {
        return (None, Default::default());
    }
    let weights = part
        .morph_targets
        .iter()
        .map(|t| t.default_weight)
        .collect();
    let names: Vec<&str> = part.morph_targets.iter().map(|t| t.name.as_str()).collect();
    let extras = serde_json::to_string(&serde_json::json!({ "targetNames": names }))
        .ok()
        .and_then(|s| serde_json::value::RawValue::from_string(s).ok());
    (Some(weights), extras)
}

/// Adds one `weights` channel per part with weight tracks in `clip` to `animation`:
/// its node from `part_nodes`; LINEAR unless every track of the part is STEP (a step
/// track among linear ones gets a key just before each of its steps); a target without
/// a track holds its default weight.
pub(super) fn weight_channels(
    model: &gom::Model,
    clip: &gom::Clip,
    part_nodes: &[Option<u32>],
    bin: &mut Bin,
    animation: &mut Animation,
) {
    for (mi, part) in model.meshes.iter().enumerate() {
        let tracks: Vec<&gom::morph::WeightTrack> = clip
            .weight_tracks
            .iter()
            .filter(|t| t.mesh as usize == mi)
            .collect();
        let Some(node) = part_nodes.get(mi).copied().flatten() else {
            continue;
        };
        if tracks.is_empty() {
            continue;
        }
        let all_step = tracks
            .iter()
            .all(|t| t.interpolation == WeightInterpolation::Step);
        let mut times: Vec<f32> = Vec::new();
        for t in &tracks {
            for (k, key) in t.keys.iter().enumerate() {
                times.push(key.time);
                if !all_step && t.interpolation == WeightInterpolation::Step && k > 0 {
                    let before = f32::from_bits(key.time.to_bits() - 1);
                    if before > t.keys[k - 1].time {
                        times.push(before);
                    }
                }
            }
        }
        times.sort_by(f32::total_cmp);
        times.dedup();
        let mut values = Vec::with_capacity(times.len() * part.morph_targets.len());
        for &t in &times {
            for (k, target) in part.morph_targets.iter().enumerate() {
                let track = tracks.iter().find(|tr| tr.target as usize == k);
                values.push(track.map_or(target.default_weight, |tr| {
                    sample_weight(&tr.keys, tr.interpolation, t)
                }));
            }
        }
        let input = bin.floats(&times, Type::Scalar, None, true);
        let output = bin.floats(&values, Type::Scalar, None, false);
        let interpolation = if all_step {
            Interpolation::Step
        } else {
            Interpolation::Linear
        };
        let sampler = Index::push(
            &mut animation.samplers,
            Sampler {
                input,
                interpolation: Valid(interpolation),
                output,
                extensions: None,
                extras: Default::default(),
            },
        );
        animation.channels.push(Channel {
            sampler,
            target: Target {
                node: Index::new(node),
                path: Valid(Property::MorphTargetWeights),
                extensions: None,
                extras: Default::default(),
            },
            extensions: None,
            extras: Default::default(),
        });
    }
}
