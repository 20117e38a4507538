//! Float tracks and events from a glTF animation's `extras` (`docs/extensions.md`
//! §6.5): given as arrays or as JSON strings they become the clip's, events in time
//! order; extras that break the rules are dropped with a warning naming the field.

mod gltf_common;

use gltf_common::glb;
use gom::events::{Event, FloatTrack, Interpolation};
use gom_import::gltf::{import_slice, GltfOptions};
use serde_json::json;

/// One node turned by a 1 s animation (two keys) with `extras`.
fn animated_glb(extras: serde_json::Value) -> Vec<u8> {
    let mut bin = Vec::new();
    for t in [0.0f32, 1.0] {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    for q in [[0.0f32, 0.0, 0.0, 1.0], [0.0, 0.0, 0.6, 0.8]] {
        q.iter()
            .for_each(|x| bin.extend_from_slice(&x.to_le_bytes()));
    }
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "spinner"}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 32}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}
        ],
        "animations": [{
            "name": "spin",
            "samplers": [{"input": 0, "output": 1}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
            "extras": extras
        }]
    });
    glb(&doc, &bin)
}

fn import(extras: serde_json::Value) -> (gom::Model, Vec<String>) {
    let (model, report) = import_slice(
        &animated_glb(extras),
        "spin.glb",
        None,
        &GltfOptions::default(),
    )
    .expect("import");
    (model, report.report.warnings)
}

fn blink() -> FloatTrack {
    FloatTrack {
        name: "blink".into(),
        components: 1,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5, 1.0],
        values: vec![0.0, 1.0, 0.0],
    }
}

fn step_event() -> Event {
    Event {
        time: 0.25,
        name: "footstep".into(),
        payload: Some("left".into()),
    }
}

#[test]
fn animation_extras_become_float_tracks_and_events_in_time_order() {
    let (model, warnings) = import(json!({
        "floatTracks": [
            {"name": "blink", "times": [0.0, 0.5, 1.0], "values": [0.0, 1.0, 0.0]},
            {"name": "tint", "components": 2, "interpolation": "STEP",
             "times": [0.0, 0.6], "values": [1.0, 2.0, 3.0, 4.0]}
        ],
        "events": [
            {"time": 0.75, "name": "land"},
            {"time": 0.25, "name": "footstep", "payload": "left"}
        ]
    }));
    assert!(warnings.is_empty(), "{warnings:?}");
    let x = &model.clips[0].extras;
    let tint = FloatTrack {
        name: "tint".into(),
        components: 2,
        interpolation: Interpolation::Step,
        times: vec![0.0, 0.6],
        values: vec![1.0, 2.0, 3.0, 4.0],
    };
    assert_eq!(x.float_tracks, [blink(), tint]);
    let land = Event {
        time: 0.75,
        name: "land".into(),
        payload: None,
    };
    assert_eq!(x.events, [step_event(), land]);
    // The file writes and reads back with them (the EVNT chunk).
    let bytes = gom::gomb::write(&model).expect("write");
    let back = gom::gomb::read(&bytes).expect("read").model;
    assert_eq!(back.clips[0].extras, model.clips[0].extras);
}

#[test]
fn extras_given_as_json_strings_read_the_same() {
    let (model, warnings) = import(json!({
        "floatTracks": r#"[{"name": "blink", "times": [0, 0.5, 1], "values": [0, 1, 0]}]"#,
        "events": r#"[{"time": 0.25, "name": "footstep", "payload": "left"}]"#,
        "unrelated": 3
    }));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(model.clips[0].extras.float_tracks, [blink()]);
    assert_eq!(model.clips[0].extras.events, [step_event()]);
}

#[test]
fn extras_that_break_the_rules_are_dropped_with_a_warning() {
    for (extras, field) in [
        (json!({"events": [{"time": 2.5, "name": "late"}]}), "events"),
        (
            json!({"floatTracks": [{"name": "x", "times": [0.5, 0.1], "values": [0, 1]}]}),
            "floatTracks",
        ),
        (
            json!({"floatTracks": [{"name": "x", "times": [0], "values": [0], "interpolation": "cubic"}]}),
            "interpolation",
        ),
        (json!({"events": "not json"}), "extras.events"),
        (json!({"events": [{"name": "no time"}]}), "extras.events"),
    ] {
        let (model, warnings) = import(extras.clone());
        let x = &model.clips[0].extras;
        assert!(x.events.is_empty() && x.float_tracks.is_empty(), "{extras}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("animations[0]") && w.contains(field)),
            "{extras}: {warnings:?}"
        );
    }
}
