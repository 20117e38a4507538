//! glTF bytes: a `.glb` when they start with `glTF`, else `.gltf` JSON (buffers and
//! images as data URIs; no base folder, so no file is read). An imported model passes
//! the rules, is written as GOMB and opens and animates in the runtime.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let name = if data.starts_with(b"glTF") {
        "fuzz.glb"
    } else {
        "fuzz.gltf"
    };
    let options = gom_import::gltf::GltfOptions::default();
    if let Ok((model, _report)) = gom_import::gltf::import_slice(data, name, None, &options) {
        gom_fuzz::check_imported(&model);
    }
});
