//! Float tracks and events of a clip, the `EVNT` extension (`docs/extensions.md` §6):
//! named curves of 1 to 4 floats (a blink, a weapon's visibility) and named moments
//! with an optional payload (footsteps, sounds). Optional: a reader that skips the
//! chunk poses the same model.

use crate::error::{Item, WriteError};
use crate::model::Model;

/// The version of the `EVNT` chunk this module reads and writes.
pub const VERSION: u32 = 1;
/// Most float tracks a clip may have.
pub const MAX_FLOAT_TRACKS: u32 = 4096;
/// Most keys a clip's float tracks may have, summed.
pub const MAX_FLOAT_KEYS: u32 = 1_000_000;
/// Most events a clip may have.
pub const MAX_EVENTS: u32 = 65_536;
/// The `payloadId` of an event without a payload.
pub const NO_PAYLOAD: u32 = u32::MAX;

/// How a float track's value goes from one key to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Linearly (0 in the file).
    #[default]
    Linear,
    /// Held until the next key (1 in the file).
    Step,
}

impl Interpolation {
    /// The value stored in the file.
    pub fn code(self) -> u32 {
        match self {
            Interpolation::Linear => 0,
            Interpolation::Step => 1,
        }
    }

    /// The interpolation of a stored value.
    pub fn from_code(v: u32) -> Option<Interpolation> {
        match v {
            0 => Some(Interpolation::Linear),
            1 => Some(Interpolation::Step),
            _ => None,
        }
    }

    /// The GOMT name: `linear` or `step`.
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Linear => "linear",
            Interpolation::Step => "step",
        }
    }
}

/// A named curve of `components` floats per key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FloatTrack {
    /// Its name.
    pub name: String,
    /// Floats per key, 1 to 4.
    pub components: u32,
    /// Between keys.
    pub interpolation: Interpolation,
    /// Key times, seconds, strictly ascending, within the clip; at least one.
    pub times: Vec<f32>,
    /// `components` finite floats per key, key after key.
    pub values: Vec<f32>,
}

/// A named moment of a clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Event {
    /// Seconds from the clip's start, within the clip; events are in time order.
    pub time: f32,
    /// Its name (`footstep`).
    pub name: String,
    /// Anything the game wants with it (`left`), if anything.
    pub payload: Option<String>,
}

impl FloatTrack {
    /// The value at `time` (held before the first and after the last key), its
    /// first `components` entries meaningful, the rest 0.
    pub fn sample(&self, time: f32) -> [f32; 4] {
        let n = self.components.min(4) as usize;
        let key = |k: usize| -> [f32; 4] {
            std::array::from_fn(|c| {
                if c < n {
                    self.values.get(k * n + c).copied().unwrap_or(0.0)
                } else {
                    0.0
                }
            })
        };
        let i = self.times.partition_point(|&t| t <= time);
        if i == 0 || i >= self.times.len() {
            return key(if i == 0 { 0 } else { self.times.len() - 1 });
        }
        let (a, b) = (key(i - 1), key(i));
        match self.interpolation {
            Interpolation::Step => a,
            Interpolation::Linear => {
                let (t0, t1) = (self.times[i - 1], self.times[i]);
                let u = (time - t0) / (t1 - t0);
                std::array::from_fn(|c| a[c] + (b[c] - a[c]) * u)
            }
        }
    }
}

/// The rules of a clip's float tracks and events (`docs/extensions.md` §6.3), by
/// field: counts within the limits, 1 to 4 components, at least one key, key times
/// strictly ascending and event times not descending, all within `[0, duration]`,
/// finite values, names without NUL.
pub fn check(
    float_tracks: &[FloatTrack],
    events: &[Event],
    duration: f32,
) -> Result<(), (&'static str, String)> {
    if float_tracks.len() > MAX_FLOAT_TRACKS as usize {
        return Err((
            "floatTracks",
            format!("above the limit of {MAX_FLOAT_TRACKS}"),
        ));
    }
    if events.len() > MAX_EVENTS as usize {
        return Err(("events", format!("above the limit of {MAX_EVENTS}")));
    }
    let keys: usize = float_tracks.iter().map(|t| t.times.len()).sum();
    if keys > MAX_FLOAT_KEYS as usize {
        return Err((
            "floatTracks",
            format!("{keys} float keys, above the limit of {MAX_FLOAT_KEYS}"),
        ));
    }
    let within = |t: f32| t.is_finite() && (0.0..=duration).contains(&t);
    for (i, t) in float_tracks.iter().enumerate() {
        if t.name.as_bytes().contains(&0) {
            return Err((
                "floatTracks",
                format!("float track {i}'s name contains a NUL byte"),
            ));
        }
        if !(1..=4).contains(&t.components) {
            return Err((
                "floatTracks",
                format!(
                    "float track \"{}\" has {} components, not 1 to 4",
                    t.name, t.components
                ),
            ));
        }
        if t.times.is_empty() || t.values.len() != t.times.len() * t.components as usize {
            return Err((
                "floatTracks",
                format!(
                    "float track \"{}\" has no keys or not components values per key",
                    t.name
                ),
            ));
        }
        let ascending = t.times.windows(2).all(|w| w[0] < w[1]);
        if !t.times.iter().all(|&x| within(x)) || !ascending {
            return Err(("floatTracks", format!("float track \"{}\": key times are not strictly ascending within [0, {duration}]", t.name)));
        }
        if !t.values.iter().all(|v| v.is_finite()) {
            return Err((
                "floatTracks",
                format!("float track \"{}\": a value is NaN or infinite", t.name),
            ));
        }
    }
    let mut prev = 0.0f32;
    for (i, e) in events.iter().enumerate() {
        if !within(e.time) || e.time < prev {
            return Err((
                "events",
                format!(
                    "event {i} (\"{}\") at {} is not in time order within [0, {duration}]",
                    e.name, e.time
                ),
            ));
        }
        prev = e.time;
        let nul = e.name.as_bytes().contains(&0)
            || e.payload
                .as_ref()
                .is_some_and(|p| p.as_bytes().contains(&0));
        if nul {
            return Err((
                "events",
                format!("event {i}'s name or payload contains a NUL byte"),
            ));
        }
    }
    Ok(())
}

/// [`check`] on clip `index` of `model`, as a [`WriteError`].
pub fn check_clip(model: &Model, index: usize) -> Result<(), WriteError> {
    let Some(clip) = model.clips.get(index) else {
        return Ok(());
    };
    let x = &clip.extras;
    check(&x.float_tracks, &x.events, clip.duration).map_err(|(field, reason)| {
        WriteError::Invalid {
            item: Item::Clip(index),
            name: clip.name.clone(),
            field,
            reason,
        }
    })
}

/// The `EVNT` payload of `float_tracks` and `events`; `id` gives a string's STR0
/// index. Layout in `docs/extensions.md` §6.2.
pub fn encode(float_tracks: &[FloatTrack], events: &[Event], id: impl Fn(&str) -> u32) -> Vec<u8> {
    let mut b = Vec::new();
    let u = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    u(&mut b, float_tracks.len() as u32);
    u(&mut b, events.len() as u32);
    u(&mut b, 0);
    u(&mut b, 0);
    for t in float_tracks {
        u(&mut b, id(&t.name));
        u(&mut b, t.components);
        u(&mut b, t.interpolation.code());
        u(&mut b, t.times.len() as u32);
        for v in t.times.iter().chain(&t.values) {
            u(&mut b, (v + 0.0).to_bits());
        }
    }
    for e in events {
        u(&mut b, (e.time + 0.0).to_bits());
        u(&mut b, id(&e.name));
        u(&mut b, e.payload.as_deref().map_or(NO_PAYLOAD, &id));
        u(&mut b, 0);
    }
    b
}

/// The strings an `EVNT` payload names, in the order [`encode`] writes them.
pub fn strings<'a>(float_tracks: &'a [FloatTrack], events: &'a [Event]) -> Vec<&'a str> {
    let mut v: Vec<&str> = float_tracks.iter().map(|t| t.name.as_str()).collect();
    for e in events {
        v.push(&e.name);
        if let Some(p) = &e.payload {
            v.push(p);
        }
    }
    v
}
