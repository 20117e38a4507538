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

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
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
    let dir = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/jpog"
    ));
    for (kind, f) in [("tml", "tml_main.tml"), ("tmd", "tmd_static.tmd")] {
        if let Ok(b) = std::fs::read(dir.join(f)) {
            v.push((kind, b));
        }
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

fn corrupt(rng: &mut XorShift, base: &[u8]) -> Vec<u8> {
    let mut d = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        if d.is_empty() {
            break;
        }
        let at = rng.below(d.len());
        match rng.below(6) {
            0 => d[at] = rng.next() as u8,
            1 => d[at] ^= 1 << rng.below(8),
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
                    rng.next() as u32,
                ];
                let v = vals[rng.below(vals.len())].to_le_bytes();
                for (k, b) in v.iter().enumerate() {
                    if let Some(x) = d.get_mut(at + k) {
                        *x = *b;
                    }
                }
            }
            3 => {
                let at = at & !1;
                let v = (rng.next() as u16).to_le_bytes();
                for (k, b) in v.iter().enumerate() {
                    if let Some(x) = d.get_mut(at + k) {
                        *x = *b;
                    }
                }
            }
            4 => {
                d.remove(at);
            }
            _ => d.insert(at, rng.next() as u8),
        }
    }
    d
}

#[test]
fn seeded_corruptions_are_ok_or_err() {
    for (i, (kind, bytes)) in fixtures().into_iter().enumerate() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1));
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
