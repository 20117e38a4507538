//! A parsed BVH file into GOM: the blocks become bones in file order with their
//! `OFFSET` as the bind translation (the `OFFSET` pose is the bind pose), the frames
//! one clip with a key per frame for every joint with channels, reduced like any clip.
//!
//! A joint's local transform at a frame is `T(OFFSET + position channels) · R` with
//! `R` the product of its rotation channels in file order (intrinsic Euler angles,
//! degrees, column vectors): `R = R_a1(v1) · R_a2(v2) · R_a3(v3)`. Lengths are read
//! in [`super::UNIT_METRES`] and mirrored on Z into GOM's left-handed space, as glTF
//! is (`docs/format.md` §1): translations `(x, y, −z)`, quaternions `(−x, −y, z, w)`.

use gom::{Bone, Clip, ClipFlags, Key, Track};

use super::parse::{Bvh, Channel};
use super::{BvhError, BvhOptions};
use crate::optimize::keys::{self, JointMetric};
use crate::report::ClipReport;

/// Work (keys) from which the tracks are made on rayon's pool, as the FBX importer
/// decides (about a millisecond of work against the cost of waking threads).
const PARALLEL_WORK: usize = 100_000;

/// The most keys one clip may hold (docs/format.md §3).
const MAX_KEYS: usize = gom::limits::MAX_KEYS_PER_CLIP as usize;

/// A file-space vector in GOM space: scaled to metres and mirrored on Z.
fn to_gom(v: [f64; 3]) -> [f64; 3] {
    let s = super::UNIT_METRES;
    [v[0] * s, v[1] * s, -v[2] * s]
}

/// The Hamilton product `a · b` of quaternions `(x, y, z, w)`.
fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// The rotation of `degrees` about axis `axis` (0 = X, 1 = Y, 2 = Z), with `libm`'s
/// sine and cosine so that every platform gets the same bits.
fn axis_rotation(axis: usize, degrees: f64) -> [f64; 4] {
    let half = degrees.to_radians() * 0.5;
    let mut q = [0.0, 0.0, 0.0, libm::cos(half)];
    q[axis] = libm::sin(half);
    q
}

/// The bones: every block, or every block but the End Sites; and each block's bone.
pub(crate) fn bones(bvh: &Bvh, end_sites: bool) -> (Vec<Bone>, Vec<Option<usize>>) {
    let mut bones: Vec<Bone> = Vec::new();
    let mut bone_of = vec![None; bvh.joints.len()];
    let mut paths = std::collections::BTreeSet::new();
    for (j, joint) in bvh.joints.iter().enumerate() {
        if joint.end_site && !end_sites {
            continue;
        }
        let parent: Option<usize> = joint.parent.and_then(|p| bone_of[p]);
        let mut path = match parent {
            Some(p) => format!("{}/{}", bones[p].path, joint.name),
            None => joint.name.clone(),
        };
        if paths.contains(&path) {
            path = format!("{path}#{j}");
        }
        paths.insert(path.clone());
        let t = to_gom(joint.offset).map(|v| v as f32);
        let mut bind_local = gom::IDENTITY;
        bind_local[12..15].copy_from_slice(&t);
        bone_of[j] = Some(bones.len());
        bones.push(Bone {
            name: joint.name.clone(),
            path,
            parent: parent.map_or(-1, |p| p as i32),
            bind_local,
        });
    }
    (bones, bone_of)
}

/// The largest side of the box around every block's position in the `OFFSET` pose,
/// in file units.
pub(crate) fn bind_extent(bvh: &Bvh) -> f64 {
    let mut world: Vec<[f64; 3]> = Vec::with_capacity(bvh.joints.len());
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for joint in &bvh.joints {
        let base = joint.parent.map_or([0.0; 3], |p| world[p]);
        let p: [f64; 3] = std::array::from_fn(|a| base[a] + joint.offset[a]);
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
        world.push(p);
    }
    (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f64::max)
}

/// Each frame's clip time: `k × Frame Time` as `f32`, strictly ascending.
fn frame_times(bvh: &Bvh, file: &str) -> Result<Vec<f32>, BvhError> {
    let too_small = |problem| {
        let (found, line, column) = bvh.frame_time_word.clone();
        let kind = super::BvhErrorKind::FrameTime { found, problem };
        BvhError::Syntax {
            file: file.to_string(),
            line,
            column,
            kind,
        }
    };
    let rate = (1.0 / bvh.frame_time) as f32;
    if !(rate.is_finite() && rate > 0.0) {
        return Err(too_small("its frame rate is out of f32's range"));
    }
    let frames = usize::try_from(bvh.frames).unwrap_or(usize::MAX);
    let mut times: Vec<f32> = Vec::with_capacity(frames.min(bvh.values.len() + 1));
    for k in 0..bvh.frames {
        let t = (k as f64 * bvh.frame_time) as f32;
        if !t.is_finite() {
            return Err(too_small("the clip's times overflow f32"));
        }
        if times.last().is_some_and(|&last| t <= last) {
            return Err(too_small("two frames get the same f32 time"));
        }
        times.push(t);
    }
    Ok(times)
}

/// The clip of the MOTION block, with its report; `None` without frames or channels.
pub(crate) fn clip(
    bvh: &Bvh,
    bones: &[Bone],
    bone_of: &[Option<usize>],
    name: &str,
    file: &str,
    options: &BvhOptions,
) -> Result<Option<(Clip, ClipReport)>, BvhError> {
    if bvh.frames == 0 {
        return Ok(None);
    }
    if bvh.channels == 0 {
        return Ok(None);
    }
    let times = frame_times(bvh, file)?;
    let metrics = keys::joint_metrics(bones, &[], options.key_tolerance.distance);
    let jobs: Vec<(usize, usize)> = bvh
        .joints
        .iter()
        .enumerate()
        .filter(|(_, joint)| !joint.channels.is_empty())
        .filter_map(|(j, _)| bone_of[j].map(|b| (j, b)))
        .collect();
    let parallel = jobs.len().saturating_mul(times.len()) >= PARALLEL_WORK;
    let made = crate::fbx::map_in_order(jobs, parallel, |(j, b)| {
        track(bvh, j, b, &times, &bones[b], &metrics[b], options, file)
    });
    let mut tracks = Vec::new();
    let mut keys_before = 0u64;
    for t in made {
        if let Some((track, before)) = t? {
            keys_before += before;
            tracks.push(track);
        }
    }
    let keys_after: usize = tracks.iter().map(|t| t.keys.len()).sum();
    if keys_after > MAX_KEYS {
        return Err(BvhError::Invalid {
            file: file.to_string(),
            record: format!("clip \"{name}\""),
            problem: format!(
                "{keys_after} keys after reduction, more than a GOM clip may hold ({MAX_KEYS})"
            ),
        });
    }
    let duration = times.last().copied().unwrap_or(0.0);
    let report = ClipReport {
        name: name.to_string(),
        duration,
        tracks: tracks.len(),
        keys_before,
        keys_after: keys_after as u64,
    };
    let clip = Clip {
        weight_tracks: Vec::new(),
        name: name.to_string(),
        duration,
        sample_rate: (1.0 / bvh.frame_time) as f32,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: Default::default(),
    };
    Ok(Some((clip, report)))
}

/// Joint `j`'s (bone `b`'s) keys at every frame, hemisphere-continuous and reduced,
/// with the count before reduction; `None` when it stays at its bind pose.
#[allow(clippy::too_many_arguments)]
fn track(
    bvh: &Bvh,
    j: usize,
    b: usize,
    times: &[f32],
    bone: &Bone,
    metric: &JointMetric,
    options: &BvhOptions,
    file: &str,
) -> Result<Option<(Track, u64)>, BvhError> {
    let joint = &bvh.joints[j];
    let mut keys = Vec::with_capacity(times.len());
    for (k, &time) in times.iter().enumerate() {
        let row = &bvh.values[k * bvh.channels..(k + 1) * bvh.channels];
        let mut t = joint.offset;
        let mut q = [0.0, 0.0, 0.0, 1.0];
        for (c, channel) in joint.channels.iter().enumerate() {
            let v = row[joint.first + c];
            match *channel {
                Channel::Position(a) => t[a] += v,
                Channel::Rotation(a) => q = mul(q, axis_rotation(a, v)),
            }
        }
        let key = Key {
            time,
            translation: to_gom(t).map(|v| v as f32),
            rotation: [-q[0], -q[1], q[2], q[3]].map(|v| v as f32),
            scale: [1.0; 3],
        };
        if key.translation.iter().any(|v| !v.is_finite()) {
            return Err(BvhError::Invalid {
                file: file.to_string(),
                record: format!("joint \"{}\" frame {k}", joint.name),
                problem: "its translation overflows f32".into(),
            });
        }
        keys.push(key);
    }
    let rest = Key {
        time: 0.0,
        translation: [
            bone.bind_local[12],
            bone.bind_local[13],
            bone.bind_local[14],
        ],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };
    let tolerance = f64::from(options.key_tolerance.tolerance);
    Ok(
        keys::finish_track(keys, Some(&rest), metric, tolerance, options.reduce_keys).map(
            |(keys, before)| {
                let track = Track {
                    bone: b as u32,
                    keys,
                };
                (track, before)
            },
        ),
    )
}
