//! Every truncation and 100,000 seeded corruptions per fixture: the readers return Ok or
//! Err, never panic, and never allocate more than 8× the input plus a small constant
//! (measured by a counting global allocator, per thread).
//!
//! The allocator is the one place the project needs `unsafe`: `GlobalAlloc` is an unsafe
//! trait. It only forwards to `System` and counts.
#![allow(unsafe_code)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gom_test_support::rng::Rng;
use jpog::texture::CodecOptions;
use jpog::{Tkl, Tmd, Tml};

struct Counting;

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn add(n: usize) {
    let _ = CURRENT.try_with(|c| {
        let v = c.get() + n;
        c.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn sub(n: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get().saturating_sub(n)));
}

// SAFETY: forwards every call to the system allocator unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            add(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            add(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        sub(l.size());
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            // counts the old and new blocks together for the moment of the copy
            add(new);
            sub(l.size());
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Headroom for error messages and small bookkeeping.
const SLACK: usize = 16 * 1024;

/// Peak bytes allocated while running `f`, above what was live before.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (r, PEAK.with(Cell::get) - base)
}

/// Parses `data` as `kind`, exercising the derived views on success; checks the
/// allocation bound of the parse. Returns (parsed ok, peak bytes allocated by the parse).
fn exercise(kind: &str, data: &[u8]) -> (bool, usize) {
    let (ok, peak) = peak_of(|| match kind {
        "tml" => Tml::read(data).map(Parsed::Tml),
        "tkl" => Tkl::read(data).map(Parsed::Tkl),
        _ => Tmd::read(data).map(|t| Parsed::Tmd(Box::new(t))),
    });
    assert!(
        peak <= 8 * data.len() + SLACK,
        "{kind}: parsing {} bytes allocated {peak} bytes at peak",
        data.len()
    );
    let parsed = ok.is_ok();
    match ok {
        Ok(Parsed::Tml(t)) => {
            for i in 0..t.textures.len() {
                let _ = t.decode_texture(i, CodecOptions::default());
            }
            let _ = jpog::ops::list_tml(&t).to_json();
            let _ = t.open_fields();
            assert_eq!(
                t.write().ok().as_deref(),
                Some(data),
                "tml: an unmodified parse writes back"
            );
        }
        Ok(Parsed::Tkl(t)) => {
            assert_eq!(
                t.write().ok().as_deref(),
                Some(data),
                "tkl: an unmodified parse writes back"
            );
        }
        Ok(Parsed::Tmd(t)) => {
            let _ = t.skeleton();
            for l in 0..t.mesh.lods.len() {
                let _ = t.lod_geometry(l);
            }
            let _ = jpog::ops::tmd_info(&t).to_json();
            let _ = t.validate();
            assert_eq!(
                t.write().ok().as_deref(),
                Some(data),
                "tmd: an unmodified parse writes back"
            );
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    (parsed, peak)
}

#[test]
fn the_counting_allocator_counts() {
    let (v, peak) = peak_of(|| vec![7u8; 100_000]);
    assert_eq!(v.len(), 100_000);
    assert!(peak >= 100_000);
}

enum Parsed {
    Tml(Tml),
    Tkl(Tkl),
    Tmd(Box<Tmd>),
}

fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&'static str, Vec<u8>)> = common::all()
        .into_iter()
        .map(|(l, b)| (if l.starts_with("tmd") { "tmd" } else { l }, b))
        .collect();
    let Some(dir) = gom_test_support::shared_data("jpog") else {
        return v;
    };
    for (kind, f) in [("tml", "tml_main.tml"), ("tmd", "tmd_static.tmd")] {
        let path = dir.join(f);
        v.push((
            kind,
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        ));
    }
    v
}

#[test]
fn every_truncation_is_ok_or_err() {
    for (kind, bytes) in fixtures() {
        for n in 0..bytes.len() {
            exercise(kind, &bytes[..n]);
        }
    }
}

fn corrupt(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut d = base.to_vec();
    for _ in 0..1 + rng.index(4) {
        if d.is_empty() {
            break;
        }
        let at = rng.index(d.len());
        match rng.index(6) {
            0 => d[at] = rng.next_u64() as u8,
            1 => d[at] ^= 1 << rng.index(8),
            2 => {
                let at = at & !3;
                let vals = [
                    0u32,
                    1,
                    2,
                    0xFFFF,
                    0x7FFF_FFFF,
                    0xFFFF_FFFF,
                    d.len() as u32,
                    rng.next_u64() as u32,
                ];
                let v = vals[rng.index(vals.len())].to_le_bytes();
                for (k, b) in v.iter().enumerate() {
                    if let Some(x) = d.get_mut(at + k) {
                        *x = *b;
                    }
                }
            }
            3 => {
                let at = at & !1;
                let v = (rng.next_u64() as u16).to_le_bytes();
                for (k, b) in v.iter().enumerate() {
                    if let Some(x) = d.get_mut(at + k) {
                        *x = *b;
                    }
                }
            }
            4 => {
                d.remove(at);
            }
            _ => d.insert(at, rng.next_u64() as u8),
        }
    }
    d
}

#[test]
fn seeded_corruptions_are_ok_or_err() {
    for (i, (kind, bytes)) in fixtures().into_iter().enumerate() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1));
        let (mut oks, mut worst) = (0, 0f64);
        for _ in 0..100_000 {
            let d = corrupt(&mut rng, &bytes);
            let (ok, peak) = exercise(kind, &d);
            oks += usize::from(ok);
            worst = worst.max(peak as f64 / d.len().max(1) as f64);
        }
        eprintln!("fixture {i} ({kind}, {} bytes): {oks} of 100000 corruptions parsed; worst peak/size {worst:.2}", bytes.len());
    }
}

use gom_test_support::png::crc32;

/// A PNG of the given header with one IDAT chunk of `idat` bytes, built by hand.
fn png_with_header(width: u32, height: u32, color_type: u8, idat: &[u8]) -> Vec<u8> {
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, color_type, 0, 0, 0]);
    gom_test_support::png::file(&[(b"IHDR", &ihdr), (b"IDAT", idat), (b"IEND", &[])])
}

#[test]
fn the_png_builder_matches_the_png_crate() {
    // "IEND" with no data has the well-known CRC AE 42 60 82.
    assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    // A 1×1 RGBA image: zlib stream of the filter byte 0 and one pixel, stored.
    let raw = [0u8, 10, 20, 30, 40];
    let mut z = vec![0x78, 0x01, 0x01, 5, 0, !5u8, 0xFF];
    z.extend_from_slice(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let img = jpog::png_io::decode_png(&png_with_header(1, 1, 6, &z)).unwrap();
    assert_eq!(img.data(), [10, 20, 30, 40]);
}

#[test]
fn a_png_claiming_a_huge_image_is_refused_before_its_pixels_are_allocated() {
    // 4096 × 2^31−1 RGBA (a row fits the decoder's own limit; the image is 35 TB)
    // from a file of about 60 bytes.
    let png = png_with_header(4096, 0x7FFF_FFFF, 6, &[0x78, 0x01]);
    let (r, peak) = peak_of(|| jpog::png_io::decode_png(&png));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("4096x2147483647"), "{e}");
    // the decoder's own state (inflate window, one row) is about 85 kB
    assert!(peak <= 1 << 20, "peak {peak} bytes");
}

/// A library of `n` empty format-99 textures that all carry id 0, and one material
/// "Skin" using id 0: the shape of a hostile file (ids must be unique for the game).
fn tml_with_repeated_ids(n: u32) -> Vec<u8> {
    let mut b = common::B::default();
    b.raw(b"TML1").u32(0).u32(n);
    for _ in 0..n {
        b.u32(0).u32(0).u16(0).i16(0).u32(0);
        b.u16(99).u16(1).u16(1).u16(0xFFFF).u32(0x4300_0000);
    }
    b.u32(1).name::<32>(b"Skin");
    b.u32(0).u16(0).u16(1).u32(0);
    b.v
}

#[test]
fn repeated_texture_ids_name_and_list_in_linear_time() {
    // 20,000 textures in 560 kB: before, every name rescanned all earlier names for
    // every suffix tried (cubic: about 10^12 comparisons) and the listing repeated the
    // material under every texture.
    let n = 20_000;
    let t = Tml::read(&tml_with_repeated_ids(n)).unwrap();
    let started = std::time::Instant::now();
    let names = jpog::ops::texture_file_names(&t);
    let listing = jpog::ops::list_tml(&t);
    assert!(
        started.elapsed().as_secs() < 20,
        "took {:?}",
        started.elapsed()
    );
    // The material's id 0 is the first texture with that id (as `texture_index` finds).
    assert_eq!(t.texture_index(0), Some(0));
    assert_eq!(names[0], "Skin.png");
    assert_eq!(listing.textures[0].materials, vec!["Skin".to_string()]);
    // The others have no user: `texture-<id>` stems, suffixed in order.
    assert_eq!(names[1], "texture-0.png");
    assert_eq!(names[2], "texture-0-2.png");
    assert_eq!(names[19_999], "texture-0-19999.png");
    assert!(listing.textures[1..].iter().all(|x| x.materials.is_empty()));
    let unique: std::collections::BTreeSet<String> =
        names.iter().map(|s| s.to_ascii_lowercase()).collect();
    assert_eq!(unique.len(), n as usize);
}
