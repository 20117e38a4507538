//! GOMB bytes: the strict reader (allocation held to 8× the input), validation agreeing
//! with the reader's findings, the accepted model written and read again, then the
//! runtime on the same bytes: every clip sampled, palettes built, every mesh skinned.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let read = gom_fuzz::bounded("gomb::read", data, || gom::gomb::read(data));
    let Ok(read) = read else {
        return;
    };
    assert_eq!(gom::validate::validate(&read.model), read.findings);
    let again = gom::gomb::write(&read.model).expect("the writer refuses what the reader accepted");
    let back = gom::gomb::read(&again).expect("the rewritten file is refused");
    assert_eq!(
        gom::gomb::write(&back.model).unwrap(),
        again,
        "rewriting is not stable"
    );
    let asset =
        gom_runtime::Asset::parse(data).expect("the runtime refuses what the reader accepted");
    gom_fuzz::exercise_asset(&asset);
});
