//! Compressing a model's clips (`--compress`): each clip is sampled at its own rate on
//! every bone through the runtime's sampler (D9), then handed to
//! [`gom::compressed::encode()`], which owns the format and the error bound.

use gom::compressed::{self, Settings, Trs};
use gom_runtime::{Clip, Skeleton};

/// Why a clip could not be compressed.
#[derive(Debug, thiserror::Error)]
pub enum CompressError {
    /// The model's skeleton or clip is not one the runtime can sample.
    #[error("clip \"{clip}\" cannot be sampled: {source}")]
    Sample {
        /// The clip's name.
        clip: String,
        /// What the runtime refused.
        #[source]
        source: gom_runtime::Error,
    },
    /// The encoder's output did not read back (a defect of the encoder).
    #[error("clip \"{clip}\": the compressed samples do not read back: {reason}")]
    Own {
        /// The clip's name.
        clip: String,
        /// What the reader refused.
        reason: String,
    },
    /// The clip has more frames than a compressed clip may hold.
    #[error("clip \"{clip}\" has {frames} frames at its rate, more than the {limit} a compressed clip may hold")]
    TooLong {
        /// The clip's name.
        clip: String,
        /// Frames at its rate.
        frames: u64,
        /// The limit.
        limit: u32,
    },
}

/// Frames a clip of `duration` seconds holds at `rate`: frame `f` is at `f / rate`,
/// the last at or after the end (where the last key holds).
pub fn frame_count(duration: f32, rate: f32) -> u64 {
    if rate.is_nan() || rate <= 0.0 || duration.is_nan() || duration <= 0.0 {
        return 1;
    }
    (f64::from(duration) * f64::from(rate)).round() as u64 + 1
}

/// The time of frame `f` at `rate` (the format's rule, written in `gom`).
pub use gom::compressed::frame_time;

/// A clip sampled for the encoder.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// Per bone, its parent.
    pub parents: Vec<i32>,
    /// Per bone, its bind-local transform.
    pub bind: Vec<Trs>,
    /// Every bone at every frame, frame-major.
    pub frames: Vec<Trs>,
}

/// Every bone's local transform at every frame of `clip`, frame-major, and the bind
/// transforms: the encoder's input.
pub fn sample_frames(skeleton: &gom::Skeleton, clip: &gom::Clip) -> Result<Sampled, CompressError> {
    let fail = |source| CompressError::Sample {
        clip: clip.name.clone(),
        source,
    };
    let skel = Skeleton::from_model(skeleton).map_err(fail)?;
    let rt = Clip::from_model(clip).map_err(fail)?;
    let frames = frame_count(clip.duration, clip.sample_rate);
    if frames > u64::from(gom::limits::MAX_COMPRESSED_FRAMES) {
        return Err(CompressError::TooLong {
            clip: clip.name.clone(),
            frames,
            limit: gom::limits::MAX_COMPRESSED_FRAMES,
        });
    }
    let to_trs = |t: &gom_runtime::Transform| Trs {
        t: t.translation.to_array(),
        r: t.rotation.to_array(),
        s: t.scale.to_array(),
    };
    let bind: Vec<Trs> = skeleton
        .bones
        .iter()
        .map(|b| compressed::bind_trs(&b.bind_local))
        .collect();
    let mut out = Vec::with_capacity(frames as usize * bind.len());
    for f in 0..frames as u32 {
        let time = frame_time(f, clip.sample_rate).min(clip.duration);
        for (b, bt) in bind.iter().enumerate() {
            out.push(rt.sample_bone(b as u32, time).map_or(*bt, |t| to_trs(&t)));
        }
    }
    Ok(Sampled {
        parents: skel.parents().to_vec(),
        bind,
        frames: out,
    })
}

/// The `CLPZ` payload of `clip` under `settings`.
pub fn compress_clip(
    skeleton: &gom::Skeleton,
    clip: &gom::Clip,
    settings: Settings,
) -> Result<Vec<u8>, CompressError> {
    let s = sample_frames(skeleton, clip)?;
    Ok(compressed::encode(
        &compressed::EncodeInput {
            parents: &s.parents,
            bind: &s.bind,
            frames: &s.frames,
        },
        settings,
    ))
}

/// Compresses every clip of `model` that is not compressed yet: its payload, and its
/// tracks replaced by what the payload decodes to. Returns the indices of the clips it
/// compressed.
pub fn compress_model(
    model: &mut gom::Model,
    settings: Settings,
) -> Result<Vec<usize>, CompressError> {
    let mut done = Vec::new();
    let bind: Vec<gom::Mat4> = model.skeleton.bones.iter().map(|b| b.bind_local).collect();
    for i in 0..model.clips.len() {
        // An additive clip stays as keys (docs/extensions.md §4).
        if model.clips[i].compressed.is_some() || model.clips[i].extras.additive.is_some() {
            continue;
        }
        let payload = compress_clip(&model.skeleton, &model.clips[i], settings)?;
        let clip = &mut model.clips[i];
        let layout = compressed::Layout::parse(&payload, 0, bind.len() as u32).map_err(|e| {
            CompressError::Own {
                clip: clip.name.clone(),
                reason: e.to_string(),
            }
        })?;
        clip.tracks =
            compressed::decoded_tracks(&layout, &payload, &bind, clip.sample_rate, clip.duration);
        clip.compressed = Some(payload);
        done.push(i);
    }
    Ok(done)
}

/// A compressed clip's size and bound (`docs/extensions.md`), as `gom info` and the
/// conversion report show them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompressedSize {
    /// Bytes of the `CLPZ` payload.
    pub bytes: usize,
    /// Frames stored.
    pub frames: u32,
    /// Bytes per joint per frame.
    pub bytes_per_joint_per_frame: f64,
    /// The error bound, in millimetres.
    pub tolerance_mm: f32,
    /// Where the bound is measured: this many centimetres from each joint.
    pub distance_cm: f32,
}

impl CompressedSize {
    /// The figures of `clip` on a skeleton of `bones` bones, or `None` when it is not
    /// compressed (or its payload has no readable header).
    pub fn of(clip: &gom::Clip, bones: usize) -> Option<Self> {
        let payload = clip.compressed.as_ref()?;
        let layout = compressed::Layout::header(payload)?;
        let samples = bones.max(1) as f64 * f64::from(layout.frame_count.max(1));
        Some(CompressedSize {
            bytes: payload.len(),
            frames: layout.frame_count,
            bytes_per_joint_per_frame: payload.len() as f64 / samples,
            tolerance_mm: layout.tolerance * 1000.0,
            distance_cm: layout.distance * 100.0,
        })
    }
}

impl std::fmt::Display for CompressedSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} bytes, {} frames, {:.3} bytes per joint per frame, bound {} mm at {} cm",
            self.bytes,
            self.frames,
            self.bytes_per_joint_per_frame,
            self.tolerance_mm,
            self.distance_cm
        )
    }
}

/// One entry of the conversion report's `compressed` list.
#[derive(serde::Serialize)]
struct CompressedEntry<'a> {
    clip: &'a str,
    #[serde(flatten)]
    size: CompressedSize,
}

/// Adds what compressing the clips `clips` (indices, as [`compress_model`] returns
/// them) did to the import's JSON report (`compressed`: per clip, its name and
/// [`CompressedSize`]) and to its summary: a line per clip saying that its keys are
/// stored as frames of a compressed payload, with its size and bound.
pub fn record(imported: &mut crate::imported::Imported, clips: &[usize]) {
    let bones = imported.model.skeleton.bones.len();
    let entries: Vec<CompressedEntry<'_>> = clips
        .iter()
        .filter_map(|&i| imported.model.clips.get(i))
        .filter_map(|c| {
            Some(CompressedEntry {
                clip: &c.name,
                size: CompressedSize::of(c, bones)?,
            })
        })
        .collect();
    let lines: Vec<String> = entries
        .iter()
        .map(|e| format!("  clip \"{}\" stored compressed: {}", e.clip, e.size))
        .collect();
    let value = serde_json::to_value(&entries).unwrap_or(serde_json::Value::Null);
    match imported.report.as_object_mut() {
        Some(object) => {
            object.insert("compressed".to_string(), value);
        }
        None => imported.report = serde_json::json!({ "compressed": value }),
    }
    imported.summary.extend(lines);
}
