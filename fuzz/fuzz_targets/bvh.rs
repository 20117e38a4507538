//! BVH text: the importer (`gom_import::bvh::convert`) with End Sites kept and dropped;
//! an imported model passes the rules, is written as GOMB and opens and animates in the
//! runtime.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    for end_sites in [true, false] {
        let options = gom_import::bvh::BvhOptions {
            end_sites,
            ..Default::default()
        };
        if let Ok((model, _report)) = gom_import::bvh::convert(data, "fuzz.bvh", &options) {
            gom_fuzz::check_imported(&model);
        }
    }
});
