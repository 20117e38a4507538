//! FBX bytes (binary or ASCII) through ufbx from memory and the whole conversion
//! (curve evaluation, sampling, key reduction, skin weights, mesh optimisation). Inputs
//! over 256 KiB are skipped: ufbx's own parse time grows with the file, and the
//! conversion, not ufbx, is what this target is for.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The largest input converted.
const MAX_INPUT: usize = 256 * 1024;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let options = gom_import::fbx::FbxOptions::default();
    if let Ok((model, _report)) = gom_import::fbx::convert(data, "fuzz.fbx", &options) {
        gom_fuzz::check_imported(&model);
    }
});
