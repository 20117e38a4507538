//! A compressed clip as keys: what GOMT shows and what the model holds beside the
//! payload, so that every tool that reads keys reads a compressed clip unchanged.

use super::{decode, ChannelClass, Layout, Trs};
use crate::model::{Key, Mat4, Track};

/// The translation, rotation and scale of a bind-local matrix (row-major, row
/// vectors; `S · R · T`), with `+ − × ÷ √` only: translation the last row, scale the
/// lengths of the first three rows (the first negated when the matrix mirrors),
/// rotation from the normalised rows. A matrix with shear loses it.
pub fn bind_trs(m: &Mat4) -> Trs {
    let row = |r: usize| {
        [
            f64::from(m[4 * r]),
            f64::from(m[4 * r + 1]),
            f64::from(m[4 * r + 2]),
        ]
    };
    let (x, y, z) = (row(0), row(1), row(2));
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let det = x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0])
        + x[2] * (y[0] * z[1] - y[1] * z[0]);
    let mut s = [len(x), len(y), len(z)];
    if det < 0.0 {
        s[0] = -s[0];
    }
    let unit = |v: [f64; 3], l: f64| if l != 0.0 { v.map(|c| c / l) } else { v };
    // Rows of the rotation in row-vector form: row i is the image of axis i.
    let r = [unit(x, s[0]), unit(y, s[1]), unit(z, s[2])];
    Trs {
        t: [m[12], m[13], m[14]],
        r: quat_from_rows(r),
        s: s.map(|v| v as f32),
    }
}

/// The unit quaternion (x, y, z, w) of a rotation given by its rows in row-vector
/// form (the transpose of the column-vector matrix), Shepperd's method.
fn quat_from_rows(r: [[f64; 3]; 3]) -> [f32; 4] {
    // Column-vector matrix entries: m[i][j] = r[j][i].
    let m = |i: usize, j: usize| r[j][i];
    let trace = m(0, 0) + m(1, 1) + m(2, 2);
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [
            (m(2, 1) - m(1, 2)) / s,
            (m(0, 2) - m(2, 0)) / s,
            (m(1, 0) - m(0, 1)) / s,
            0.25 * s,
        ]
    } else if m(0, 0) > m(1, 1) && m(0, 0) > m(2, 2) {
        let s = (1.0 + m(0, 0) - m(1, 1) - m(2, 2)).sqrt() * 2.0;
        [
            0.25 * s,
            (m(0, 1) + m(1, 0)) / s,
            (m(0, 2) + m(2, 0)) / s,
            (m(2, 1) - m(1, 2)) / s,
        ]
    } else if m(1, 1) > m(2, 2) {
        let s = (1.0 + m(1, 1) - m(0, 0) - m(2, 2)).sqrt() * 2.0;
        [
            (m(0, 1) + m(1, 0)) / s,
            0.25 * s,
            (m(1, 2) + m(2, 1)) / s,
            (m(0, 2) - m(2, 0)) / s,
        ]
    } else {
        let s = (1.0 + m(2, 2) - m(0, 0) - m(1, 1)).sqrt() * 2.0;
        [
            (m(0, 2) + m(2, 0)) / s,
            (m(1, 2) + m(2, 1)) / s,
            0.25 * s,
            (m(1, 0) - m(0, 1)) / s,
        ]
    };
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let q = if n > 0.0 {
        q.map(|v| v / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    let q = if q[3] < 0.0 { q.map(|v| -v) } else { q };
    q.map(|v| v as f32)
}

/// The keys a compressed clip decodes to: for every bone with a stored channel, one
/// key per frame at `min(f / sample_rate, duration)` (strictly ascending; frames whose
/// `f32` time would not ascend are left out), default channels at the bind value.
pub fn decoded_tracks(
    layout: &Layout,
    payload: &[u8],
    bind_local: &[Mat4],
    sample_rate: f32,
    duration: f32,
) -> Vec<Track> {
    let bind: Vec<Trs> = bind_local.iter().map(bind_trs).collect();
    let frames = decode::decode_all(layout, payload, &bind);
    let bones = layout.bone_count as usize;
    let mut stored = vec![false; bones];
    for c in layout.channels(payload) {
        if c.class != ChannelClass::Default {
            if let Some(s) = stored.get_mut(c.bone as usize) {
                *s = true;
            }
        }
    }
    let times: Vec<f32> = (0..layout.frame_count)
        .map(|f| super::frame_time(f, sample_rate).min(duration))
        .collect();
    (0..bones)
        .filter(|&b| stored[b])
        .map(|b| {
            let mut keys: Vec<Key> = Vec::with_capacity(times.len());
            for (f, &time) in times.iter().enumerate() {
                if keys.last().is_some_and(|k| k.time >= time) {
                    continue;
                }
                let t = frames[f * bones + b];
                keys.push(Key {
                    time,
                    translation: t.t,
                    rotation: t.r,
                    scale: t.s,
                });
            }
            Track {
                bone: b as u32,
                keys,
            }
        })
        .collect()
}

/// What a writer checks of a compressed clip: its payload reads as a reader would
/// read it for this skeleton, and the clip's tracks are what the payload decodes to
/// (a clip edited after compression must be compressed again, never written with
/// stale samples).
pub fn check_clip(model: &crate::Model, index: usize) -> Result<(), crate::error::WriteError> {
    use crate::error::{Item, WriteError};
    let Some(clip) = model.clips.get(index) else {
        return Ok(());
    };
    let Some(payload) = &clip.compressed else {
        return Ok(());
    };
    let invalid = |field: &'static str, reason: String| WriteError::Invalid {
        item: Item::Clip(index),
        name: clip.name.clone(),
        field,
        reason,
    };
    let bones = model.skeleton.bones.len() as u32;
    let layout =
        Layout::parse(payload, 0, bones).map_err(|e| invalid("compressed", e.to_string()))?;
    if clip.sample_rate.is_nan() || clip.sample_rate <= 0.0 {
        return Err(invalid(
            "sampleRate",
            "a compressed clip needs a positive sample rate".into(),
        ));
    }
    let bind: Vec<Mat4> = model.skeleton.bones.iter().map(|b| b.bind_local).collect();
    let expected = decoded_tracks(&layout, payload, &bind, clip.sample_rate, clip.duration);
    if expected != clip.tracks {
        let at = first_difference(&expected, &clip.tracks);
        return Err(invalid(
            "tracks",
            format!("the keys differ from what the compressed samples decode to ({at}); compress the clip again"),
        ));
    }
    Ok(())
}

/// Where two track lists first differ, for a message.
pub fn first_difference(a: &[Track], b: &[Track]) -> String {
    if a.len() != b.len() {
        return format!("{} tracks, expected {}", b.len(), a.len());
    }
    for (x, y) in a.iter().zip(b) {
        if x.bone != y.bone {
            return format!("a track of bone {}, expected bone {}", y.bone, x.bone);
        }
        if x.keys.len() != y.keys.len() {
            return format!(
                "bone {}: {} keys, expected {}",
                x.bone,
                y.keys.len(),
                x.keys.len()
            );
        }
        if let Some(k) = x.keys.iter().zip(&y.keys).position(|(p, q)| p != q) {
            return format!("bone {}, key {k}", x.bone);
        }
    }
    "no difference".into()
}
