//! GOMT bytes: the text reader (allocation held to 8× the input); an accepted model
//! passes the structural rules, is written as GOMB and read back equal (up to the flags
//! and bounds the writer derives), and its canonical text reads back to the same model.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let read = gom_fuzz::bounded("gomt::read_bytes", data, || gom::gomt::read_bytes(data));
    let Ok(model) = read else {
        return;
    };
    gom::validate::check_structure(&model).expect("the text reader accepted what the rules refuse");
    let mut expected = model.clone();
    expected.header.validation_flags = gom::validate::flags_for(&model);
    for m in &mut expected.meshes {
        m.bounds = Some(gom::bounds::compute_bounds(m));
    }
    let bytes =
        gom::gomb::write(&model).expect("the binary writer refuses what the text reader accepted");
    let from_binary = gom::gomb::read(&bytes).expect("the binary reader refuses its writer's file");
    assert_eq!(from_binary.model, expected, "GOMT → GOMB → model differs");
    let text = gom::gomt::write(&model).unwrap();
    assert_eq!(
        gom::gomt::read(&text).unwrap(),
        expected,
        "GOMT → GOMT → model differs"
    );
});
