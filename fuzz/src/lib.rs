//! What the fuzz targets share: a counting global allocator (the peak bytes a reader
//! holds, checked against 8× its input), the runtime pass over an accepted asset, the
//! demo model's game files and a generator of valid models from fuzzer bytes.
//!
//! The targets live in `fuzz_targets/`; `fuzz/run` builds and runs them (see
//! `docs/reliability.md`).
#![allow(unsafe_code)]

pub mod model_gen;
pub mod seeds;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::OnceLock;

use gom_runtime::{Asset, Playback};

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn add(n: usize) {
    let _ = CURRENT.try_with(|c| {
        let v = c.get().saturating_add(n);
        c.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn sub(n: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get().saturating_sub(n)));
}

/// Forwards to the system allocator and counts the bytes held by the current thread.
pub struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees hold; the bookkeeping only touches const-initialised
// thread-locals (no allocation, no re-entry) and never the memory itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            add(l.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc_zeroed`'s contract.
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            add(l.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by `System` with `l` (every method forwards).
        unsafe { System.dealloc(p, l) };
        sub(l.size());
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: `p`/`l` come from `System` through this allocator; the caller
        // upholds `realloc`'s contract for `new`.
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            // Both blocks may exist for the moment of the copy.
            add(new);
            sub(l.size());
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Called when a target starts: with `GOM_FUZZ_SEEDS=DIR` in the environment, writes
/// the demo's inputs for every target into `DIR/<target>/` ([`seeds::write_all`]) and
/// exits instead of fuzzing (a target binary is the one program built with the
/// instrumentation's runtime, so `fuzz/run` asks one of them).
pub fn init() {
    if let Some(dir) = std::env::var_os("GOM_FUZZ_SEEDS") {
        seeds::write_all(std::path::Path::new(&dir));
        std::process::exit(0);
    }
}

/// Headroom for error messages and small bookkeeping, as in the readers' own tests.
pub const SLACK: usize = 16 * 1024;

/// Runs `f` and returns its result with the peak number of bytes it held at once
/// (on this thread, above what was held before).
pub fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (r, PEAK.with(Cell::get).saturating_sub(base))
}

/// Runs the reader `f` over `input` and panics (a finding) when it held more than
/// 8× the input plus [`SLACK`] at once.
pub fn bounded<R>(what: &str, input: &[u8], f: impl FnOnce() -> R) -> R {
    let (r, peak) = peak_of(f);
    assert!(
        peak <= 8 * input.len() + SLACK,
        "{what}: {} input bytes, {peak} bytes held at once",
        input.len()
    );
    r
}

/// Everything a game does with an accepted asset: every clip sampled at a few times
/// (inside, at the ends, outside, looped), the bones taken to model space, palettes
/// built and every mesh skinned.
pub fn exercise_asset(asset: &Asset<'_>) {
    let mut poses = vec![asset.model_pose(None, 0.0, Playback::Once)];
    for (c, clip) in asset.clips().iter().enumerate() {
        let d = clip.duration();
        for (t, playback) in [
            (0.0, Playback::Once),
            (d * 0.37, Playback::Once),
            (d, Playback::Once),
            (-1.5, Playback::Once),
            (d * 2.5 + 0.1, Playback::Loop),
            (-0.25, Playback::Loop),
        ] {
            poses.push(asset.model_pose(Some(c), t, playback));
        }
    }
    for pose in poses.into_iter().flatten() {
        if let Ok(skinned) = gom_runtime::skin_all(asset.meshes(), &pose) {
            for (mesh, s) in asset.meshes().iter().zip(&skinned) {
                assert_eq!(s.positions.len(), mesh.vertex_count());
            }
        }
    }
}

/// The demo model as the game's three files (`.tmd`, `.tkl`, `.tml`), exported once:
/// the companions the JPOG targets convert a fuzzed file with.
pub fn demo_jpog() -> &'static (Vec<u8>, Vec<u8>, Vec<u8>) {
    static FILES: OnceLock<(Vec<u8>, Vec<u8>, Vec<u8>)> = OnceLock::new();
    FILES.get_or_init(|| {
        let options = gom_import::jpog::export::ExportOptions {
            name: "demo".into(),
            ..Default::default()
        };
        gom_import::jpog::export::export(&gom_demo::build(), &options)
            .and_then(|e| e.write())
            .expect("the demo model exports to the game's files")
    })
}

/// Converts game files into a model with the importer, and, when it is accepted, checks
/// it as [`check_imported`] does. The textures are decoded into PNG side files only
/// when `textures` is set (the material library is the input being fuzzed).
pub fn convert_jpog(tmd: &[u8], tkl: &[u8], tml: &[u8], textures: bool) {
    let options = gom_import::jpog::JpogOptions {
        texture_files: textures,
        ..Default::default()
    };
    if let Ok(c) = gom_import::jpog::convert(
        tmd,
        "fuzz.tmd",
        Some((tkl, "fuzz.tkl")),
        Some((tml, "fuzz.tml")),
        &options,
    ) {
        check_imported(&c.model);
    }
}

/// A model an importer produced: structurally valid, writable as GOMB, and the written
/// file opens in the runtime, every clip poses (at its middle) and every mesh skins.
/// Lighter than [`exercise_asset`]: the importer, not the runtime, is under test here.
pub fn check_imported(model: &gom::Model) {
    gom::validate::check_structure(model).expect("an importer produced a model the rules refuse");
    let bytes = gom::gomb::write(model).expect("the writer refuses an imported model");
    let asset = Asset::parse(&bytes).expect("the runtime refuses a written imported model");
    for (c, clip) in asset.clips().iter().enumerate() {
        let pose = asset.model_pose(Some(c), clip.duration() * 0.5, Playback::Once);
        let pose = pose.expect("an imported clip does not pose");
        gom_runtime::skin_all(asset.meshes(), &pose).expect("an imported mesh does not skin");
    }
}
