//! TML bytes: the reader (allocation held to 8× the input), every texture decoded, the
//! listing and open fields, the writer giving back the same bytes, then the demo model
//! converted to GOM with this material library (its textures decoded to PNG).
#![no_main]

use jpog::texture::CodecOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let read = gom_fuzz::bounded("Tml::read", data, || jpog::Tml::read(data));
    let Ok(tml) = read else {
        return;
    };
    for i in 0..tml.textures.len() {
        let _ = tml.decode_texture(i, CodecOptions::default());
    }
    let _ = jpog::ops::list_tml(&tml).to_json();
    let _ = tml.open_fields();
    let _ = tml.validate();
    assert_eq!(
        tml.write().ok().as_deref(),
        Some(data),
        "an unmodified parse writes back"
    );
    let (tmd, tkl, _) = gom_fuzz::demo_jpog();
    gom_fuzz::convert_jpog(tmd, tkl, data, true);
});
