//! Float tracks sampled with their clip, and `events_between`: forwards, backwards,
//! across loops, each event exactly once however the time is cut.

mod common;

use common::*;
use gom::events::{Event, FloatTrack, Interpolation};
use gom_runtime::{events_between, Asset, Clip, Playback};

/// One bone; "walk" lasts 1 s with events at 0, 0.25, 0.5 and 1 and two float tracks.
fn bytes() -> Vec<u8> {
    let mut walk = clip("walk", 1.0, vec![]);
    let event = |time: f32, name: &str| Event {
        time,
        name: name.into(),
        payload: None,
    };
    walk.extras.events = vec![
        event(0.0, "start"),
        event(0.25, "a"),
        event(0.5, "b"),
        event(1.0, "end"),
    ];
    walk.extras.float_tracks = vec![
        FloatTrack {
            name: "blink".into(),
            components: 1,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5, 1.0],
            values: vec![0.0, 1.0, 0.0],
        },
        FloatTrack {
            name: "flag".into(),
            components: 2,
            interpolation: Interpolation::Step,
            times: vec![0.2, 0.6],
            values: vec![1.0, 2.0, 3.0, 4.0],
        },
    ];
    let m = model(chain_of(1), vec![], vec![walk]);
    gom::gomb::write(&m).unwrap()
}

fn names(clip: &Clip, from: f32, to: f32, playback: Playback) -> Vec<String> {
    let mut out = Vec::new();
    events_between(clip, from, to, playback, &mut out);
    out.iter().map(|e| e.name.clone()).collect()
}

#[test]
fn float_tracks_are_sampled_linearly_or_held() {
    let b = bytes();
    let asset = Asset::parse(&b).unwrap();
    let c = &asset.clips()[0];
    let blink = c.float_track("blink").unwrap();
    let flag = c.float_track("flag").unwrap();
    let at = |i, t, p| c.sample_float_track(i, t, p).unwrap();
    assert_eq!(at(blink, 0.25, Playback::Once), [0.5, 0.0, 0.0, 0.0]);
    assert_eq!(at(blink, 0.75, Playback::Once), [0.5, 0.0, 0.0, 0.0]);
    assert_eq!(at(blink, 1.25, Playback::Loop), [0.5, 0.0, 0.0, 0.0]);
    assert_eq!(at(blink, 5.0, Playback::Once), [0.0; 4]);
    assert_eq!(at(flag, 0.0, Playback::Once), [1.0, 2.0, 0.0, 0.0]);
    assert_eq!(at(flag, 0.59, Playback::Once), [1.0, 2.0, 0.0, 0.0]);
    assert_eq!(at(flag, 0.6, Playback::Once), [3.0, 4.0, 0.0, 0.0]);
    assert!(c.sample_float_track(2, 0.0, Playback::Once).is_none());
    assert!(c.float_track("nope").is_none());
}

#[test]
fn events_forwards_and_backwards_once() {
    let b = bytes();
    let asset = Asset::parse(&b).unwrap();
    let c = &asset.clips()[0];
    let once = Playback::Once;
    assert_eq!(names(c, -1e-6, 0.3, once), ["start", "a"]);
    assert_eq!(names(c, 0.0, 0.3, once), ["a"], "the span is (from, to]");
    assert_eq!(names(c, 0.3, 5.0, once), ["b", "end"]);
    assert_eq!(names(c, 5.0, 6.0, once), Vec::<String>::new());
    assert_eq!(
        names(c, 5.0, 0.25, once),
        ["end", "b", "a"],
        "[to, from), latest first"
    );
    assert_eq!(names(c, 0.25, -1.0, once), ["start"]);
    assert_eq!(names(c, 0.5, 0.5, once), Vec::<String>::new());
    assert_eq!(names(c, f32::NAN, 0.5, once), Vec::<String>::new());
}

#[test]
fn events_across_loops_fire_once_a_lap_in_order() {
    let b = bytes();
    let asset = Asset::parse(&b).unwrap();
    let c = &asset.clips()[0];
    let lp = Playback::Loop;
    // "start" and "end" are the same point of the loop: both fire at each lap.
    assert_eq!(
        names(c, 0.9, 2.3, lp),
        ["start", "end", "a", "b", "start", "end", "a"]
    );
    assert_eq!(
        names(c, 2.3, 0.9, lp),
        ["a", "end", "start", "b", "a", "end", "start"]
    );
    assert_eq!(names(c, -0.6, -0.4, lp), ["b"]);
}

/// The events of one call over `[from, to]` equal those of consecutive calls over
/// any cut of it, so each is reported exactly once.
#[test]
fn consecutive_calls_report_each_event_exactly_once() {
    let b = bytes();
    let asset = Asset::parse(&b).unwrap();
    let c = &asset.clips()[0];
    let mut rng = Rng::new(17);
    for playback in [Playback::Once, Playback::Loop] {
        for (from, to) in [(-0.5f32, 3.7f32), (3.7, -0.5), (0.0, 2.0)] {
            let whole = names(c, from, to, playback);
            let mut cuts: Vec<f32> = (0..12)
                .map(|_| rng.range(from.min(to), from.max(to)))
                .collect();
            // Cuts exactly on events and lap ends too.
            cuts.extend([0.25, 1.0, 2.0, 2.5]);
            cuts.sort_by(f32::total_cmp);
            if from > to {
                cuts.reverse();
            }
            let mut pieces = Vec::new();
            let mut at = from;
            for t in cuts.into_iter().chain([to]) {
                if (from < to && (t < at || t > to)) || (from > to && (t > at || t < to)) {
                    continue;
                }
                pieces.extend(names(c, at, t, playback));
                at = t;
            }
            assert_eq!(pieces, whole, "{playback:?} {from} → {to}");
        }
    }
    // Forwards then back over the same span: crossed twice, reported twice.
    assert_eq!(names(c, 0.1, 0.6, Playback::Once).len(), 2);
    assert_eq!(names(c, 0.6, 0.1, Playback::Once).len(), 2);
}
