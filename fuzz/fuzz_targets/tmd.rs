//! TMD bytes: the reader (allocation held to 8× the input), every derived view, the
//! writer giving back the same bytes, then the conversion to GOM with the demo model's
//! keyframe and material libraries.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let read = gom_fuzz::bounded("Tmd::read", data, || jpog::Tmd::read(data));
    let Ok(tmd) = read else {
        return;
    };
    let _ = tmd.skeleton();
    for l in 0..tmd.mesh.lods.len() {
        let _ = tmd.lod_geometry(l);
    }
    let _ = jpog::ops::tmd_info(&tmd).to_json();
    let _ = tmd.validate();
    assert_eq!(
        tmd.write().ok().as_deref(),
        Some(data),
        "an unmodified parse writes back"
    );
    let (_, tkl, tml) = gom_fuzz::demo_jpog();
    gom_fuzz::convert_jpog(data, tkl, tml, false);
});
