//! A clip's float tracks and events at the C boundary (`docs/extensions.md` §6):
//! names, sampling a curve at a time, and the events a playhead crossed.

use std::ffi::{c_char, CString};

use gom_runtime::{events_between, Clip, Playback};

use crate::asset::{c_str, c_string, clip_ref};
use crate::boundary::{deref, disjoint, slice_mut, status, to_usize, value, Fail, Region};
use crate::{gom_asset, GOM_E_COUNT, GOM_E_RANGE};

/// The C strings of one clip's extension data, made when the asset opens.
pub(crate) struct ClipNames {
    pub float_tracks: Vec<CString>,
    /// Per event, its name and payload.
    pub events: Vec<(CString, Option<CString>)>,
    /// An additive clip's reference clip name, when its reference is a clip frame.
    pub reference_clip: Option<CString>,
}

impl ClipNames {
    pub(crate) fn of(clip: &Clip<'_>) -> ClipNames {
        let x = clip.extras();
        ClipNames {
            float_tracks: x.float_tracks.iter().map(|t| c_string(&t.name)).collect(),
            events: x
                .events
                .iter()
                .map(|e| (c_string(&e.name), e.payload.as_deref().map(c_string)))
                .collect(),
            reference_clip: match &x.additive {
                Some(gom::additive::Reference::ClipFrame { clip, .. }) => Some(c_string(clip)),
                _ => None,
            },
        }
    }
}

/// One event of a clip, as `gom_clip_event` gives it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gom_event {
    /// Seconds from the clip's start.
    pub time: f32,
    /// Its name (UTF-8, owned by the asset).
    pub name: *const c_char,
    /// Its payload (UTF-8, owned by the asset), or NULL when it has none.
    pub payload: *const c_char,
}

/// `GOM_E_RANGE` naming `what` `index` and how many there are.
fn out_of_range(what: &str, index: u32, count: usize) -> Fail {
    Fail::new(
        GOM_E_RANGE,
        format!("{what} {index} is out of range: the clip has {count}"),
    )
}

/// The clip's name tables, or `None` for a NULL asset or a clip out of range.
fn names_of<'a>(a: *const gom_asset, clip: u32) -> Option<&'a ClipNames> {
    deref(a, "asset").ok()?.clip_extras.get(to_usize(clip))
}

fn playback(r#loop: i32) -> Playback {
    if r#loop != 0 {
        Playback::Loop
    } else {
        Playback::Once
    }
}

/// The number of float tracks of clip `clip` (0 when it has none, `a` is NULL or
/// `clip` is out of range). Any thread.
#[no_mangle]
pub extern "C" fn gom_clip_float_track_count(a: *const gom_asset, clip: u32) -> u32 {
    value(0, || Some(names_of(a, clip)?.float_tracks.len() as u32))
}

/// Float track `track`'s name of clip `clip` (owned by the asset), or NULL when an
/// index is out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_clip_float_track_name(
    a: *const gom_asset,
    clip: u32,
    track: u32,
) -> *const c_char {
    value(std::ptr::null(), || {
        Some(
            names_of(a, clip)?
                .float_tracks
                .get(to_usize(track))?
                .as_ptr(),
        )
    })
}

/// The index of clip `clip`'s float track named `name`, or -1 when there is none (or
/// `a` or `name` is NULL, or `clip` is out of range). Any thread.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn gom_clip_float_track_find(
    a: *const gom_asset,
    clip: u32,
    name: *const c_char,
) -> i32 {
    value(-1, || {
        let c = clip_ref(a, clip).ok()?;
        // SAFETY: the caller promises NULL or a NUL-terminated string.
        let name = unsafe { c_str(name) }?;
        i32::try_from(c.float_track(name)?).ok()
    })
}

/// The number of floats per key of float track `track` of clip `clip`, 1 to 4 (0
/// when an index is out of range). Any thread.
#[no_mangle]
pub extern "C" fn gom_clip_float_track_components(
    a: *const gom_asset,
    clip: u32,
    track: u32,
) -> u32 {
    value(0, || {
        let c = clip_ref(a, clip).ok()?;
        Some(c.extras().float_tracks.get(to_usize(track))?.components)
    })
}

/// Float track `track` of clip `clip` at `time` into `out_values`;
/// `component_count` must be `gom_clip_float_track_components`. Times wrap into
/// `[0, duration)` when `loop` is nonzero; a track holds its first and last keys
/// outside them; a non-finite time samples 0. Returns 0, or `GOM_E_NULL`,
/// `GOM_E_RANGE`, `GOM_E_COUNT`. Any thread, on a shared asset.
///
/// # Safety
/// `out_values` must be NULL or `component_count` writable floats.
#[no_mangle]
pub unsafe extern "C" fn gom_sample_float_track(
    a: *const gom_asset,
    clip: u32,
    track: u32,
    time: f32,
    r#loop: i32,
    out_values: *mut f32,
    component_count: u32,
) -> i32 {
    status(|| {
        let c = clip_ref(a, clip)?;
        let tracks = &c.extras().float_tracks;
        let t = tracks
            .get(to_usize(track))
            .ok_or_else(|| out_of_range("float track", track, tracks.len()))?;
        let n =
            crate::asset::expect_count("component_count", t.components as usize, component_count)?;
        let out = slice_mut(out_values, n, "out_values")?;
        let v = c
            .sample_float_track(to_usize(track), time, playback(r#loop))
            .unwrap_or_default();
        out.copy_from_slice(&v[..n]);
        Ok(())
    })
}

/// The number of events of clip `clip` (0 when it has none or is out of range). Any
/// thread.
#[no_mangle]
pub extern "C" fn gom_clip_event_count(a: *const gom_asset, clip: u32) -> u32 {
    value(0, || Some(names_of(a, clip)?.events.len() as u32))
}

/// Event `event` of clip `clip` (events are in time order) into `*out`: its time,
/// name and payload (NULL when none), the strings owned by the asset. Returns 0, or
/// `GOM_E_NULL`, `GOM_E_RANGE`. Any thread.
///
/// # Safety
/// `out` must be NULL or a writable `gom_event`.
#[no_mangle]
pub unsafe extern "C" fn gom_clip_event(
    a: *const gom_asset,
    clip: u32,
    event: u32,
    out: *mut gom_event,
) -> i32 {
    status(|| {
        let c = clip_ref(a, clip)?;
        let names = &deref(a, "asset")?.clip_extras[to_usize(clip)];
        let events = c.events();
        let (e, (name, payload)) = events
            .get(to_usize(event))
            .zip(names.events.get(to_usize(event)))
            .ok_or_else(|| out_of_range("event", event, events.len()))?;
        slice_mut(out, 1, "out")?[0] = gom_event {
            time: e.time,
            name: name.as_ptr(),
            payload: payload.as_ref().map_or(std::ptr::null(), |p| p.as_ptr()),
        };
        Ok(())
    })
}

/// The events a playhead crosses going from `from` to `to` seconds of play (not
/// wrapped) in clip `clip`, in the order it crosses them, as indices for
/// `gom_clip_event`. Forwards the span is `(from, to]`, backwards `[to, from)`, so
/// that consecutive calls, each `from` the previous `to`, report every event exactly
/// once; with `loop` nonzero each event fires once a lap (at most 65,536 laps, the
/// last ones). Start a clip's first call from a negative time (`-1e-6`) to fire the
/// events at 0.
///
/// The count-query pattern: `*out_count` always receives how many events were
/// crossed; `out_indices` receives the first `capacity` of them. With `capacity` 0
/// (`out_indices` may then be NULL) it returns 0 after counting; with a smaller
/// nonzero capacity it fills what fits and returns `GOM_E_COUNT`. Returns 0, or
/// `GOM_E_NULL` (asset, `out_count`, or `out_indices` with `capacity` > 0),
/// `GOM_E_RANGE`, `GOM_E_COUNT`, `GOM_E_ARGUMENT` (overlapping buffers). Any thread,
/// on a shared asset.
///
/// # Safety
/// `out_indices` must be NULL or `capacity` writable `uint32_t`s; `out_count` NULL
/// or a writable `uint32_t`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gom_events_between(
    a: *const gom_asset,
    clip: u32,
    from: f32,
    to: f32,
    r#loop: i32,
    out_indices: *mut u32,
    capacity: u32,
    out_count: *mut u32,
) -> i32 {
    status(|| {
        let c = clip_ref(a, clip)?;
        let cap = to_usize(capacity);
        disjoint(
            &[
                Region::of("out_indices", out_indices, cap),
                Region::of("out_count", out_count, 1),
            ],
            &[],
        )?;
        let count = slice_mut(out_count, 1, "out_count")?;
        let out = slice_mut(out_indices, cap, "out_indices")?;
        let events = c.events();
        let mut crossed = Vec::new();
        events_between(c, from, to, playback(r#loop), &mut crossed);
        // Each crossed event is an element of `events`: its index is its offset.
        let size = std::mem::size_of::<gom::events::Event>().max(1);
        let base = events.as_ptr() as usize;
        let index = |e: &&gom::events::Event| ((*e as *const _ as usize - base) / size) as u32;
        count[0] = u32::try_from(crossed.len()).unwrap_or(u32::MAX);
        for (o, e) in out.iter_mut().zip(&crossed) {
            *o = index(e);
        }
        if cap > 0 && cap < crossed.len() {
            return Err(Fail::new(
                GOM_E_COUNT,
                format!(
                    "`capacity` is {capacity} but {} events were crossed (the first {capacity} were written)",
                    crossed.len()
                ),
            ));
        }
        Ok(())
    })
}
