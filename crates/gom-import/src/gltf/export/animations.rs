//! Clips: every clip with tracks becomes an animation with LINEAR samplers, three
//! channels (translation, rotation, scale) per track, and a `weights` channel per
//! mesh with weight tracks (`super::morph`). A clip without either is left out: glTF
//! requires at least one channel.

use gltf::json::accessor::Type;
use gltf::json::animation::{Channel, Interpolation, Property, Sampler, Target};
use gltf::json::validation::Checked::Valid;
use gltf::json::{Animation, Index};

use super::bin::Bin;
use super::export_err;
use crate::gltf::convert::{mirror_quat, mirror_vec3};
use crate::gltf::GltfError;

/// The animations of `model`'s clips, their keys written to `bin`.
pub(super) fn animations(
    model: &gom::Model,
    part_nodes: &[Option<u32>],
    bin: &mut Bin,
) -> Result<Vec<Animation>, GltfError> {
    let bone_count = model.skeleton.bones.len();
    let mut animations = Vec::new();
    for (ci, clip) in model.clips.iter().enumerate() {
        let mut animation = Animation {
            name: Some(clip.name.clone()),
            channels: Vec::new(),
            samplers: Vec::new(),
            extensions: None,
            extras: Default::default(),
        };
        for track in &clip.tracks {
            track_channels(track, bone_count, bin, &mut animation)
                .map_err(|m| export_err(format!("clips[{ci}]"), m))?;
        }
        super::morph::weight_channels(model, clip, part_nodes, bin, &mut animation);
        if !animation.channels.is_empty() {
            animations.push(animation);
        }
    }
    Ok(animations)
}

/// Adds a track's three samplers and channels to `animation`, its key times (with
/// bounds) and values in `bin`.
fn track_channels(
    track: &gom::Track,
    bone_count: usize,
    bin: &mut Bin,
    animation: &mut Animation,
) -> Result<(), String> {
    let b = track.bone as usize;
    if b >= bone_count || track.keys.is_empty() {
        return Err(format!("track of bone {b} is empty or names no bone"));
    }
    let times: Vec<f32> = track.keys.iter().map(|k| k.time).collect();
    if times.windows(2).any(|w| w[1] <= w[0]) {
        return Err("keys not strictly ascending".into());
    }
    let input = bin.floats(&times, Type::Scalar, None, true);
    let keys = &track.keys;
    let t: Vec<f32> = keys
        .iter()
        .flat_map(|k| mirror_vec3(k.translation))
        .collect();
    let r: Vec<f32> = keys
        .iter()
        .flat_map(|k| mirror_quat(unit(k.rotation)))
        .collect();
    let s: Vec<f32> = keys.iter().flat_map(|k| k.scale).collect();
    for (path, values, ty) in [
        (Property::Translation, &t, Type::Vec3),
        (Property::Rotation, &r, Type::Vec4),
        (Property::Scale, &s, Type::Vec3),
    ] {
        let output = bin.floats(values, ty, None, false);
        let sampler = Index::push(
            &mut animation.samplers,
            Sampler {
                input,
                interpolation: Valid(Interpolation::Linear),
                output,
                extensions: None,
                extras: Default::default(),
            },
        );
        animation.channels.push(Channel {
            sampler,
            target: Target {
                node: Index::new(b as u32),
                path: Valid(path),
                extensions: None,
                extras: Default::default(),
            },
            extensions: None,
            extras: Default::default(),
        });
    }
    Ok(())
}

/// `q` at unit length (in `f64`), or the identity when its length is zero.
fn unit(q: [f32; 4]) -> [f32; 4] {
    let q = q.map(f64::from);
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if len > 0.0 {
        q.map(|c| (c / len) as f32)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}
