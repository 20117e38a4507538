//! TKL bytes: the reader (allocation held to 8× the input), the writer giving back the
//! same bytes, then the demo model converted to GOM with this keyframe library.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let read = gom_fuzz::bounded("Tkl::read", data, || jpog::Tkl::read(data));
    let Ok(tkl) = read else {
        return;
    };
    assert_eq!(
        tkl.write().ok().as_deref(),
        Some(data),
        "an unmodified parse writes back"
    );
    let (tmd, _, tml) = gom_fuzz::demo_jpog();
    gom_fuzz::convert_jpog(tmd, data, tml, false);
});
