//! A clip's float tracks and events at run time (`docs/extensions.md` §6): sampling
//! a curve with the clip, and the events a playhead crossed between two frames.

use gom::events::Event;

use crate::clip::{Clip, Playback};

/// Most loop cycles [`events_between`] walks in one call: a span longer than this
/// many clip lengths reports the events of the last cycles only.
pub const MAX_CYCLES: u64 = 1 << 16;

impl Clip<'_> {
    /// The index of the float track named `name`.
    pub fn float_track(&self, name: &str) -> Option<usize> {
        self.extras.float_tracks.iter().position(|t| t.name == name)
    }

    /// Float track `index` at `time` (wrapped as `playback` says, then held outside
    /// its keys): its `components` values, the rest 0. `None` for no such track.
    pub fn sample_float_track(
        &self,
        index: usize,
        time: f32,
        playback: Playback,
    ) -> Option<[f32; 4]> {
        let t = self.extras.float_tracks.get(index)?;
        Some(t.sample(self.local_time(time, playback)))
    }

    /// The clip's events, in time order.
    pub fn events(&self) -> &[Event] {
        &self.extras.events
    }
}

/// Puts into `out` (cleared first) the events a playhead crosses going from `from`
/// to `to` (seconds of play, not wrapped), in the order it crosses them. An event is
/// a point of the timeline; forwards (`from < to`) the span is `(from, to]`,
/// backwards `[to, from)`, so consecutive calls, each `from` the previous `to`,
/// report every event exactly once whatever the directions and however the calls
/// cut the time. Nothing when `from == to` or either is not finite.
///
/// - [`Playback::Once`]: each event once, at its time (before the clip starts or
///   after it ends nothing more is crossed).
/// - [`Playback::Loop`]: each event once a lap, at `k · duration + time` for every
///   integer `k` (an event at the very end of the clip is the next lap's start);
///   at most [`MAX_CYCLES`] laps, the last ones the span covers.
///
/// An event at 0 fires when play starts before 0: start a clip's first call from a
/// negative time (`-1e-6`) to fire the events on its first frame.
pub fn events_between<'c>(
    clip: &'c Clip<'_>,
    from: f32,
    to: f32,
    playback: Playback,
    out: &mut Vec<&'c Event>,
) {
    out.clear();
    let events = clip.events();
    let d = f64::from(clip.duration());
    if events.is_empty() || !from.is_finite() || !to.is_finite() || from == to {
        return;
    }
    let (from, to) = (f64::from(from), f64::from(to));
    let forward = from < to;
    let crossed = |t: f64| {
        if forward {
            t > from && t <= to
        } else {
            t >= to && t < from
        }
    };
    if playback == Playback::Once || d <= 0.0 {
        let hit = events.iter().filter(|e| crossed(f64::from(e.time)));
        if forward {
            out.extend(hit);
        } else {
            out.extend(hit.rev());
        }
        return;
    }
    // Lap k holds the events at k·d + t, t in [0, d) (an event at d is t = 0).
    let lap_time = |e: &Event| {
        if f64::from(e.time) >= d {
            0.0
        } else {
            f64::from(e.time)
        }
    };
    let mut order: Vec<&Event> = events.iter().collect();
    order.sort_by(|a, b| lap_time(a).total_cmp(&lap_time(b)));
    let (lo, hi) = (from.min(to), from.max(to));
    let (k0, k1) = ((lo / d).floor(), (hi / d).floor());
    let first = k0.max(k1 - MAX_CYCLES as f64 + 1.0);
    let laps = (k1 - first) as u64 + 1;
    for i in 0..laps {
        let k = if forward {
            first + i as f64
        } else {
            k1 - i as f64
        };
        let base = k * d;
        let mut visit = |e: &'c Event| {
            if crossed(base + lap_time(e)) {
                out.push(e);
            }
        };
        if forward {
            order.iter().for_each(|e| visit(e));
        } else {
            order.iter().rev().for_each(|e| visit(e));
        }
    }
}
