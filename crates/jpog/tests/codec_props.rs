//! Property tests of the texture codecs and the strip decoder.

use jpog::scene::decode_strip;
use jpog::texture::{decode, encode, CodecOptions, Order4444, Order8888};
use jpog::Image;
use proptest::prelude::*;

fn opts(argb: bool, blow: bool) -> CodecOptions {
    CodecOptions {
        order_8888: if argb {
            Order8888::Argb
        } else {
            Order8888::Rgba
        },
        order_4444: if blow {
            Order4444::BLow
        } else {
            Order4444::RLow
        },
    }
}

proptest! {
    /// Format 0 is lossless in both byte orders.
    #[test]
    fn format0_round_trips(w in 1u16..6, h in 1u16..6, seed in any::<u64>(), argb in any::<bool>()) {
        let n = w as usize * h as usize * 4;
        let rgba: Vec<u8> = (0..n).map(|i| (seed.rotate_left(i as u32 % 64) as u8) ^ i as u8).collect();
        let img = Image::from_rgba8(u32::from(w), u32::from(h), rgba).unwrap();
        let o = opts(argb, false);
        let data = encode(0, &img, o, None, "t").unwrap();
        prop_assert_eq!(decode(0, w, h, &data, o, "t").unwrap(), img);
    }

    /// Formats 2 and 7: stored bytes decode and re-encode to the same bytes (every stored
    /// value is reachable, and quantisation of an expanded value gives it back).
    #[test]
    fn packed_formats_are_stable(words in proptest::collection::vec(any::<u16>(), 1..20), f7 in any::<bool>(), blow in any::<bool>()) {
        let format = if f7 { 7 } else { 2 };
        let data: Vec<u8> = words.iter().flat_map(|v| v.to_le_bytes()).collect();
        let o = opts(false, blow);
        let img = decode(format, words.len() as u16, 1, &data, o, "t").unwrap();
        prop_assert_eq!(encode(format, &img, o, None, "t").unwrap(), data);
    }

    /// Every strip window is either a triangle or a stitch, and triangles use the window's
    /// three indices.
    #[test]
    fn strip_windows_are_triangles_or_stitches(strip in proptest::collection::vec(0u16..6, 0..40)) {
        let t = decode_strip(&strip);
        prop_assert_eq!(t.triangles.len() + t.stitches, strip.len().saturating_sub(2));
        for tri in &t.triangles {
            prop_assert!(tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]);
        }
    }
}
