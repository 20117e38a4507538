//! PNG bytes into a material library, as `gom tml pack` and `gom tml replace` take
//! them: decoded (any colour type and depth), packed in each texture format (8888,
//! 5551, 4444, DXT3 and DXT5 with and without mipmaps), the library written, read back
//! and the texture decoded at the image's size; then the PNG replacing the texture of
//! each packed library. Inputs over 64 KiB and images over 256×256 are skipped to keep
//! each run short (PNG legitimately expands, up to 1032× by deflate's limit, which
//! `decode_png` enforces).
#![no_main]

use jpog::ops::{PackMaterial, PackTexture, ReplaceOptions};
use jpog::{CodecOptions, DdsOptions, Dxt};
use libfuzzer_sys::fuzz_target;

const MAX_INPUT: usize = 64 * 1024;
const MAX_PIXELS: u64 = 256 * 256;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(image) = jpog::png_io::decode_png(data) else {
        return;
    };
    assert_eq!(
        image.data().len() as u64,
        u64::from(image.width()) * u64::from(image.height()) * 4
    );
    if u64::from(image.width()) * u64::from(image.height()) > MAX_PIXELS {
        return;
    }
    let formats = [
        (0, None),
        (2, None),
        (7, None),
        (
            6,
            Some(DdsOptions {
                dxt: Dxt::Dxt3,
                mipmaps: false,
            }),
        ),
        (
            6,
            Some(DdsOptions {
                dxt: Dxt::Dxt5,
                mipmaps: true,
            }),
        ),
    ];
    for (format, dds) in formats {
        let material = PackMaterial {
            name: "fuzz".into(),
            flags: 0,
            textures: vec![PackTexture {
                image: image.clone(),
                format,
                flags: 0,
                dds,
            }],
        };
        let Ok(mut tml) = jpog::ops::pack_tml(&[material], CodecOptions::default()) else {
            continue;
        };
        let bytes = tml.write().expect("the writer refuses a packed library");
        let back = jpog::Tml::read(&bytes).expect("the reader refuses a packed library");
        let decoded = back
            .decode_texture(0, CodecOptions::default())
            .expect("a packed texture does not decode");
        assert_eq!((decoded.width(), decoded.height()), (image.width(), image.height()));
        if format == 0 {
            assert_eq!(decoded.data(), image.data(), "8888 is lossless");
        }
        let options = ReplaceOptions {
            allow_resize: true,
            ..Default::default()
        };
        jpog::ops::replace_texture_png(&mut tml, "fuzz", 0, data, options)
            .expect("replacing a texture by the image it was packed from fails");
        let bytes = tml.write().expect("the writer refuses a replaced texture");
        jpog::Tml::read(&bytes).expect("the reader refuses a replaced texture");
    }
});
