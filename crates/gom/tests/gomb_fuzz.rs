//! Robustness of the strict reader (D12): every truncation of a real file is an error;
//! 100,000+ seeded corruptions give Ok or Err, never a panic, and never make `read`
//! allocate more than 8× the file's size; counts above the limits are refused before
//! anything is allocated for them.
//!
//! A counting global allocator (per thread, so that tests running in parallel do not
//! see each other) measures the peak bytes held during each `read`.
#![allow(unsafe_code)]

mod gomb_support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gom::error::{FourCc, Place, ReadError, ReadErrorKind};
use gom::gomb;
use gomb_support::{assemble, minimal_model, rd, rich_model, split, wr, Raw, Rng};

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    let _ = CURRENT.try_with(|c| {
        let v = c.get() + delta;
        c.set(v);
        let _ = PEAK.try_with(|p| {
            if v > p.get() {
                p.set(v)
            }
        });
    });
}

struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees hold; the bookkeeping only touches const-initialised
// thread-locals (no allocation, no re-entry) and never the memory itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc_zeroed`'s contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (all our methods forward).
        unsafe { System.dealloc(ptr, layout) };
        track(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr`/`layout` come from `System` through this allocator; the caller
        // upholds `realloc`'s contract for `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Count the moment both blocks may exist, then release the old one.
            track(new_size as isize);
            track(-(layout.size() as isize));
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the peak number of bytes it held at once.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    let peak = PEAK.with(Cell::get) - base;
    (r, peak.max(0) as usize)
}

/// Reads `bytes`, checking the allocation bound, and when the file is accepted, that
/// the model it gives is writable (and the result readable) and that `validate`
/// agrees with the reader's findings (one rule set, two paths).
fn read_checked(bytes: &[u8]) -> Result<(), ReadError> {
    let (r, peak) = peak_of(|| gomb::read(bytes));
    assert!(
        peak <= 8 * bytes.len(),
        "read of {} bytes held {peak} bytes at once ({:?})",
        bytes.len(),
        r.as_ref().err()
    );
    let r = r?;
    assert_eq!(gom::validate::validate(&r.model), r.findings);
    match gomb::write(&r.model) {
        Ok(again) => assert!(gomb::read(&again).is_ok(), "the rewritten file is refused"),
        Err(e) => panic!("the reader accepted a model the writer refuses: {e}"),
    }
    Ok(())
}

fn files() -> Vec<Vec<u8>> {
    vec![
        gomb::write(&minimal_model()).unwrap(),
        gomb::write(&rich_model(3)).unwrap(),
    ]
}

#[test]
fn every_truncation_is_an_error() {
    for f in files() {
        for len in 0..f.len() {
            let cut = &f[..len];
            assert!(
                read_checked(cut).is_err(),
                "a file cut at {len} of {} was accepted",
                f.len()
            );
        }
        assert!(read_checked(&f).is_ok());
    }
}

/// Offsets of every count and size field of a canonical file, found with the test's
/// own walker.
fn count_fields(f: &[u8]) -> Vec<usize> {
    let mut out = vec![64, 68];
    let mut walk = vec![(512usize, rd(f, 64) as usize)];
    while let Some((mut at, end)) = walk.pop() {
        while at < end {
            let size = rd(f, at + 4) as usize;
            let p = at + 16;
            out.push(at + 4);
            match &f[at..at + 4] {
                b"STR0" => {
                    out.push(p);
                    out.push(p + 4 + 4 * rd(f, p) as usize);
                }
                b"SKEL" | b"MATL" | b"SUB0" | b"IBND" | b"ANIM" => out.push(p),
                b"VB0 " | b"IB0 " => out.extend([p, p + 4]),
                b"MSH0" => {
                    out.extend([p + 8, p + 12, p + 16]);
                    walk.push((p + 32, p + size));
                }
                b"CLP0" => {
                    out.push(p + 20);
                    let mut t = p + 24;
                    for _ in 0..rd(f, p + 20) {
                        out.push(t + 4);
                        t += 8 + 44 * rd(f, t + 4) as usize;
                    }
                }
                _ => {}
            }
            if &f[at..at + 4] == b"ANIM" {
                walk.push((p + 16, p + size));
            }
            at += (16 + size + 15) & !15;
        }
    }
    out
}

#[test]
fn seeded_corruptions_never_panic_nor_overallocate() {
    let files = files();
    let fields: Vec<Vec<usize>> = files.iter().map(|f| count_fields(f)).collect();
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut err) = (0u32, 0u32);
    let mut buf = Vec::new();
    for i in 0..100_000u32 {
        let which = (i % 2) as usize;
        let f = &files[which];
        buf.clear();
        buf.extend_from_slice(f);
        for _ in 0..1 + rng.below(3) {
            match rng.below(4) {
                0 => {
                    let at = rng.below(buf.len() as u64) as usize;
                    buf[at] ^= 1 << rng.below(8);
                }
                1 => {
                    let at = rng.below(buf.len() as u64) as usize;
                    buf[at] = rng.next_u64() as u8;
                }
                _ => {
                    let fs = &fields[which];
                    let at = fs[rng.below(fs.len() as u64) as usize];
                    let old = rd(&buf, at);
                    let v = match rng.below(8) {
                        0 => u32::MAX,
                        1 => 0x7FFF_FFFF,
                        2 => 4097,
                        3 => 10_000_001,
                        4 => old.wrapping_add(1 + rng.below(64) as u32),
                        5 => old.wrapping_mul(2 + rng.below(1000) as u32),
                        6 => old.wrapping_sub(1 + rng.below(16) as u32),
                        _ => rng.next_u64() as u32,
                    };
                    wr(&mut buf, at, v);
                }
            }
        }
        match read_checked(&buf) {
            Ok(()) => ok += 1,
            Err(e) => {
                // Every error names a place and a field and reads as a sentence.
                assert!(!e.field.is_empty());
                assert!(e.offset <= buf.len() as u64, "{e}");
                err += 1;
            }
        }
    }
    assert_eq!(ok + err, 100_000);
    assert!(err > 50_000, "only {err} corruptions were caught");
}

/// A file whose SKEL claims `n` bones and holds their bytes (all zero).
fn skeleton_claiming(n: u32, bytes_for: u32) -> Vec<u8> {
    let f = gomb::write(&gom::Model::default()).unwrap();
    let (h, mut chunks) = split(&f);
    let mut p = n.to_le_bytes().to_vec();
    p.resize(4 + 76 * bytes_for as usize, 0);
    chunks[1] = Raw::new(b"SKEL", p);
    assemble(&h, &chunks, true)
}

#[test]
fn too_many_bones_is_refused_before_allocating() {
    for bytes_for in [0, 4097] {
        let f = skeleton_claiming(4097, bytes_for);
        let (r, peak) = peak_of(|| gomb::read(&f));
        match r {
            Err(ReadError {
                place: Place::Chunk(FourCc::SKEL),
                field: "boneCount",
                offset,
                kind:
                    ReadErrorKind::Limit {
                        value: 4097,
                        limit: 4096,
                    },
            }) => {
                assert_eq!(offset as usize, gomb_support::offset_of(&f, b"SKEL") + 16)
            }
            other => panic!("{other:?}"),
        }
        assert!(peak < 1024, "{peak} bytes allocated");
    }
    // 4096 bones pass the limit and reach the next check (bone 0's parent 0 is not -1).
    let f = skeleton_claiming(4096, 4096);
    let skel = gomb_support::offset_of(&f, b"SKEL");
    match gomb::read(&f) {
        Err(ReadError {
            field: "parent",
            offset,
            kind: ReadErrorKind::Rule { .. },
            ..
        }) => assert_eq!(offset as usize, skel + 20),
        other => panic!("{other:?}"),
    }
}

#[test]
fn too_many_vertices_is_refused_before_allocating() {
    let f = gomb::write(&minimal_model()).unwrap();
    let msh = gomb_support::offset_of(&f, b"MSH0");
    for (field_at, field, value, limit) in [
        (8, "vertexCount", 10_000_001u64, 10_000_000u64),
        (12, "indexCount", 30_000_003, 30_000_000),
    ] {
        let mut g = f.clone();
        wr(&mut g, msh + 16 + field_at, value as u32);
        let (r, peak) = peak_of(|| gomb::read(&g));
        match r {
            Err(ReadError {
                place: Place::Chunk(FourCc::MSH0),
                field: fd,
                offset,
                kind: ReadErrorKind::Limit { value: v, limit: l },
            }) => {
                assert_eq!(
                    (fd, v, l, offset as usize),
                    (field, value, limit, msh + 16 + field_at)
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(peak < 8 * g.len(), "{peak} bytes allocated");
    }
    // Just below the limit, the count is checked against the bytes present instead.
    let mut g = f.clone();
    wr(&mut g, msh + 24, 10_000_000);
    let vb0 = gomb_support::child_offset(&g, msh, 32, b"VB0 ");
    wr(&mut g, vb0 + 16, 10_000_000);
    let (r, peak) = peak_of(|| gomb::read(&g));
    assert!(
        matches!(
            r,
            Err(ReadError {
                field: "data",
                kind: ReadErrorKind::Truncated { .. },
                ..
            })
        ),
        "{r:?}"
    );
    assert!(peak < 8 * g.len(), "{peak} bytes allocated");
}

#[test]
fn huge_counts_in_every_count_field_are_refused_cheaply() {
    for f in files() {
        for at in count_fields(&f) {
            for v in [u32::MAX, 0x1000_0000, 4097, 1025, 8193, 10_000_001] {
                let mut g = f.clone();
                wr(&mut g, at, v);
                let _ = read_checked(&g);
            }
        }
    }
}
