//! A valid model built from the fuzzer's bytes (`gom_fuzz::model_gen`): written as GOMB
//! and read back, written as GOMT and read back, both equal to the model (with the
//! flags and bounds the writer derives); GOMB → GOMT → GOMB and GOMT → GOMB → GOMT give
//! the same bytes; the runtime opens the file and animates it.
#![no_main]

use arbitrary::Unstructured;
use gom::{gomb, gomt};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(model) = gom_fuzz::model_gen::model(&mut u) else {
        return;
    };
    gom::validate::check_structure(&model).expect("the generator built a model the rules refuse");
    let mut expected = model.clone();
    expected.header.validation_flags = gom::validate::flags_for(&model);
    for m in &mut expected.meshes {
        m.bounds = Some(gom::bounds::compute_bounds(m));
    }
    let bin = gomb::write(&model).expect("GOMB write");
    let read = gomb::read(&bin).expect("GOMB read of the writer's file");
    assert_eq!(read.model, expected, "model → GOMB → model differs");
    let text = gomt::write(&model).expect("GOMT write");
    let from_text = gomt::read(&text).expect("GOMT read of the writer's text");
    assert_eq!(from_text, expected, "model → GOMT → model differs");
    let via_text = gomt::write(&read.model).unwrap();
    assert_eq!(via_text, text, "GOMB → GOMT differs from the model's text");
    let bin2 = gomb::write(&gomt::read(&via_text).unwrap()).unwrap();
    assert_eq!(bin2, bin, "GOMB → GOMT → GOMB differs");
    let text2 = gomt::write(&gomb::read(&gomb::write(&from_text).unwrap()).unwrap().model).unwrap();
    assert_eq!(text2, text, "GOMT → GOMB → GOMT differs");
    let asset = gom_runtime::Asset::parse(&bin).expect("the runtime refuses a written model");
    gom_fuzz::exercise_asset(&asset);
});
