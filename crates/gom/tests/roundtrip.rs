//! The text and binary forms hold the same model: canonical text → model → text is
//! identical, binary → text → binary is byte-identical, and text → binary → text is
//! identical, for the demo model and for generated models.

mod common;

use gom::{gomb, gomt, Model};
use proptest::prelude::*;

/// Checks all three round trips for `model`, returning a description of the first
/// difference.
fn round_trips(model: &Model) -> Result<(), String> {
    // text → model → text
    let text = gomt::write(model).map_err(|e| format!("text write: {e}"))?;
    let from_text = gomt::read(&text).map_err(|e| format!("text read: {e}\n{text}"))?;
    let text2 = gomt::write(&from_text).map_err(|e| format!("second text write: {e}"))?;
    if text2 != text {
        return Err(format!(
            "text → model → text differs:\n{text}\n----\n{text2}"
        ));
    }
    // binary → text → binary
    let bin = gomb::write(model).map_err(|e| format!("binary write: {e}"))?;
    let read = gomb::read(&bin).map_err(|e| format!("binary read: {e}"))?;
    let via_text = gomt::write(&read.model).map_err(|e| format!("text write of binary: {e}"))?;
    let back = gomt::read(&via_text).map_err(|e| format!("text read of binary: {e}"))?;
    let bin2 = gomb::write(&back).map_err(|e| format!("binary write of text: {e}"))?;
    if bin2 != bin {
        return Err("binary → text → binary differs".into());
    }
    // text → binary → text
    let bin3 = gomb::write(&from_text).map_err(|e| format!("binary write of text: {e}"))?;
    let text3 = gomt::write(&gomb::read(&bin3).map_err(|e| e.to_string())?.model)
        .map_err(|e| e.to_string())?;
    if text3 != text {
        return Err(format!(
            "text → binary → text differs:\n{text}\n----\n{text3}"
        ));
    }
    // Both readers give the same model.
    if back != read.model {
        return Err("the text reader and the binary reader give different models".into());
    }
    Ok(())
}

#[test]
fn demo_round_trips_through_both_forms() {
    round_trips(&gom_demo::build()).unwrap();
}

#[test]
fn empty_model_round_trips() {
    round_trips(&Model::default()).unwrap();
}

#[test]
fn demo_text_and_binary_models_are_equal() {
    let demo = gom_demo::build();
    let from_text = gomt::read(&gomt::write(&demo).unwrap()).unwrap();
    let from_bin = gomb::read(&gomb::write(&demo).unwrap()).unwrap().model;
    assert_eq!(from_text, from_bin);
    // The readers fill in the bounds the writers computed; everything else is the demo.
    let mut stripped = from_text.clone();
    for m in &mut stripped.meshes {
        assert!(m.bounds.is_some());
        m.bounds = None;
    }
    assert_eq!(stripped, demo);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_models_round_trip(model in common::model()) {
        if let Err(e) = round_trips(&model) {
            prop_assert!(false, "{}", e);
        }
    }
}
