//! FBX blend shapes into GOM morph targets (`docs/extensions.md` §4.4).
//!
//! Every keyframe shape of every blend channel (in-betweens included) becomes one GOM
//! target, its deltas taken to model space with the part's geometry matrix. The
//! channel's weight reaches the targets through FBX's piecewise-linear in-between
//! rule ([`effective_weights`]): the default weights are the rule at the stored
//! `DeformPercent / 100`, and an animated `DeformPercent` becomes one weight track
//! per keyframe shape (`super::super::shape_anim`).

use gom::morph::MorphTarget;

use super::{f3, v3, M64};
use crate::report::Report;

/// One keyframe shape of a blend channel, per FBX vertex, in model space.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ShapeTarget {
    name: String,
    default_weight: f32,
    /// The FBX vertices the shape moves, ascending.
    vertices: Vec<u32>,
    positions: Vec<[f32; 3]>,
    /// Per listed vertex, the normal delta (zero where the shape stores none).
    normals: Vec<[f32; 3]>,
}

/// A blend channel whose keyframe shapes became the targets
/// `first_target..first_target + target_weights.len()`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChannelTargets {
    /// Index of the blend deformer in the mesh's list.
    pub deformer: usize,
    /// Index of the channel in the deformer's list.
    pub channel: usize,
    /// The first target of the channel.
    pub first_target: usize,
    /// Each keyframe's full-weight threshold, ascending (ufbx sorts them).
    pub target_weights: Vec<f64>,
}

/// The blend shapes of one mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MeshShapes {
    pub targets: Vec<ShapeTarget>,
    pub channels: Vec<ChannelTargets>,
}

/// The weight of each keyframe shape of a channel whose keyframes have the full-weight
/// thresholds `thresholds` (ascending) at channel weight `w`, into `out` (one per
/// keyframe): FBX's in-between rule, as ufbx evaluates it. The weight lies on a
/// segment between two neighbouring thresholds (or a threshold and 0, which stands
/// for the base shape); the two shapes at its ends share it linearly, the others are
/// 0. Past the last threshold (or before the first negative one) the last segment is
/// extended. So with one shape at threshold 1 its weight is `w`.
pub(crate) fn effective_weights(thresholds: &[f64], w: f64, out: &mut [f64]) {
    out.iter_mut().for_each(|x| *x = 0.0);
    let n = thresholds.len().min(out.len());
    if n == 0 {
        return;
    }
    // `None` is the base shape, at threshold 0.
    let at = |k: Option<usize>| k.map_or(0.0, |k| thresholds[k]);
    let last_negative = thresholds[..n].iter().rposition(|&t| t < 0.0);
    let mut next: Option<usize> = None;
    let mut prev: Option<usize>;
    if w > 0.0 {
        prev = last_negative;
        let start = last_negative.map_or(0, |k| k + 1);
        for (i, &t) in thresholds.iter().enumerate().take(n).skip(start) {
            prev = next;
            next = Some(i);
            if t > w {
                break;
            }
        }
    } else {
        let first_positive = last_negative.map_or(0, |k| k + 1);
        prev = (first_positive < n).then_some(first_positive);
        for i in (0..last_negative.map_or(0, |k| k + 1)).rev() {
            prev = next;
            next = Some(i);
            if thresholds[i] < w {
                break;
            }
        }
    }
    let delta = at(next) - at(prev);
    if delta != 0.0 {
        let t = (w - at(prev)) / delta;
        if let Some(p) = prev {
            out[p] = 1.0 - t;
        }
        if let Some(q) = next {
            out[q] = t;
        }
    }
}

/// The blend shapes of `mesh`: one target per keyframe shape of each channel of each
/// blend deformer, deltas in model space (positions by the linear part of `g`,
/// normals by `normal_m`), default weights by [`effective_weights`] at the stored
/// channel weights. Names are the channel's (`channel@threshold` for an in-between),
/// made unique. Past [`gom::limits::MAX_MORPH_TARGETS`] shapes the rest are dropped
/// with a warning.
pub(crate) fn shapes(
    mesh: &ufbx::Mesh,
    g: &M64,
    normal_m: &M64,
    name: &str,
    report: &mut Report,
) -> MeshShapes {
    let mut out = MeshShapes::default();
    let max = gom::limits::MAX_MORPH_TARGETS as usize;
    let mut dropped = 0usize;
    for (d, blend) in mesh.blend_deformers.iter().enumerate() {
        for (c, channel) in blend.channels.iter().enumerate() {
            let keys = &channel.keyframes;
            if out.targets.len() + keys.len() > max {
                dropped += keys.len();
                continue;
            }
            let thresholds: Vec<f64> = keys.iter().map(|k| k.target_weight).collect();
            let mut defaults = vec![0.0; keys.len()];
            effective_weights(&thresholds, channel.weight, &mut defaults);
            out.channels.push(ChannelTargets {
                deformer: d,
                channel: c,
                first_target: out.targets.len(),
                target_weights: thresholds,
            });
            for (key, default) in keys.iter().zip(defaults) {
                let base: &str = &channel.element.name;
                let name = if keys.len() == 1 || key.target_weight == 1.0 {
                    base.to_string()
                } else {
                    format!("{base}@{}", key.target_weight)
                };
                out.targets
                    .push(shape_target(&key.shape, name, default as f32, g, normal_m));
            }
        }
    }
    unique_names(&mut out.targets);
    if dropped > 0 {
        report.warn(format!(
            "mesh \"{name}\": {dropped} blend shape(s) past the limit of {max} morph targets dropped"
        ));
    }
    out
}

/// One shape's deltas in model space; per-vertex shape weights (Blender's) scale them.
fn shape_target(
    shape: &ufbx::BlendShape,
    name: String,
    default_weight: f32,
    g: &M64,
    normal_m: &M64,
) -> ShapeTarget {
    let mut order: Vec<usize> = (0..shape.num_offsets.min(shape.offset_vertices.len())).collect();
    order.sort_by_key(|&k| shape.offset_vertices[k]);
    order.dedup_by_key(|k| shape.offset_vertices[*k]);
    let scale = |k: usize| shape.offset_weights.get(k).copied().unwrap_or(1.0);
    let delta = |m: &M64, v: Option<&ufbx::Vec3>, k: usize| -> [f32; 3] {
        let v = v.map_or([0.0; 3], v3).map(|x| x * scale(k));
        let d: [f64; 3] = m.transform_vector3(v.into()).into();
        let d = f3(d);
        if d.iter().all(|x| x.is_finite()) {
            d
        } else {
            [0.0; 3]
        }
    };
    ShapeTarget {
        name,
        default_weight: if default_weight.is_finite() {
            default_weight
        } else {
            0.0
        },
        vertices: order.iter().map(|&k| shape.offset_vertices[k]).collect(),
        positions: order
            .iter()
            .map(|&k| delta(g, shape.position_offsets.get(k), k))
            .collect(),
        normals: order
            .iter()
            .map(|&k| delta(normal_m, shape.normal_offsets.get(k), k))
            .collect(),
    }
}

/// Appends `#2`, `#3`, … to repeated names.
fn unique_names(targets: &mut [ShapeTarget]) {
    let mut used: Vec<String> = Vec::with_capacity(targets.len());
    for t in targets.iter_mut() {
        if t.name.is_empty() {
            t.name = "shape".into();
        }
        let mut name = t.name.clone();
        let mut k = 2;
        while used.contains(&name) {
            name = format!("{}#{k}", t.name);
            k += 1;
        }
        t.name = name.clone();
        used.push(name);
    }
}

/// The part's morph targets: per welded vertex `v` (made from corner `first[v]`, of
/// FBX vertex `vertex_of(corner)`), each shape's delta for that FBX vertex. Normal
/// deltas when the part has normals.
pub(crate) fn part_targets(
    shapes: &[ShapeTarget],
    first: &[usize],
    vertex_of: impl Fn(usize) -> u32,
    normals: bool,
) -> Vec<MorphTarget> {
    let source: Vec<u32> = first.iter().map(|&c| vertex_of(c)).collect();
    shapes
        .iter()
        .map(|s| {
            let mut t = MorphTarget {
                name: s.name.clone(),
                default_weight: s.default_weight,
                normals: normals.then(Vec::new),
                ..Default::default()
            };
            for (v, fv) in source.iter().enumerate() {
                let Ok(k) = s.vertices.binary_search(fv) else {
                    continue;
                };
                t.indices.push(v as u32);
                t.positions.push(s.positions[k]);
                if let Some(n) = t.normals.as_mut() {
                    n.push(s.normals[k]);
                }
            }
            t
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(thresholds: &[f64], w: f64) -> Vec<f64> {
        let mut out = vec![9.0; thresholds.len()];
        effective_weights(thresholds, w, &mut out);
        out
    }

    #[test]
    fn one_full_shape_takes_the_channel_weight_and_extrapolates() {
        assert_eq!(weights(&[1.0], 0.0), [0.0]);
        assert_eq!(weights(&[1.0], 0.25), [0.25]);
        assert_eq!(weights(&[1.0], 1.5), [1.5]);
        assert_eq!(weights(&[1.0], -0.5), [-0.5]);
    }

    #[test]
    fn in_betweens_share_the_weight_of_their_segment() {
        // Shapes at 0.5 and 1: up to 0.5 the first grows from the base shape, then it
        // hands over to the second.
        assert_eq!(weights(&[0.5, 1.0], 0.25), [0.5, 0.0]);
        assert_eq!(weights(&[0.5, 1.0], 0.5), [1.0, 0.0]);
        assert_eq!(weights(&[0.5, 1.0], 0.75), [0.5, 0.5]);
        assert_eq!(weights(&[0.5, 1.0], 1.0), [0.0, 1.0]);
        // Past the last threshold: the last segment extended.
        assert_eq!(weights(&[0.5, 1.0], 1.5), [-1.0, 2.0]);
        // A negative in-between serves negative weights.
        assert_eq!(weights(&[-1.0, 1.0], -0.5), [0.5, 0.0]);
        assert_eq!(weights(&[-1.0, 1.0], 0.5), [0.0, 0.5]);
        assert_eq!(weights(&[], 0.5), Vec::<f64>::new());
    }
}
