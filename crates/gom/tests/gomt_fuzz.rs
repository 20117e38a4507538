//! Robustness of the text reader: thousands of seeded corruptions of canonical texts
//! give Ok or Err, never a panic; `read` never holds more than 8 bytes per input byte
//! (plus 4 KiB); and whatever the text reader accepts, the binary writer accepts too
//! and the text writer reproduces.
//!
//! Memory is measured with a counting global allocator (per thread, so that tests
//! running in parallel do not disturb each other).
#![allow(unsafe_code)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gom_test_support::rng::Rng;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn add(n: usize) {
    let _ = HELD.try_with(|h| {
        let v = h.get().saturating_add(n);
        h.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn sub(n: usize) {
    let _ = HELD.try_with(|h| h.set(h.get().saturating_sub(n)));
}

struct Counter;

// SAFETY: each method calls `System` with exactly the arguments it was given, so the
// caller's guarantees carry over unchanged; the counting only updates const-initialised
// thread-local cells, which neither allocate nor touch the returned memory.
unsafe impl GlobalAlloc for Counter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as `GlobalAlloc::alloc`, upheld by our caller.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` (every allocation goes through this type).
        unsafe { System.dealloc(ptr, layout) };
        sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` and `layout` came from `System`; our caller upholds the rest.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Both blocks may exist for a moment.
            add(new_size);
            sub(layout.size());
        }
        p
    }
}

#[global_allocator]
static COUNTER: Counter = Counter;

/// Reads `text`, returning the result and the peak of bytes held during the call.
fn measured_read(text: &str) -> (Result<gom::Model, gom::gomt::TextError>, usize) {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = gom::gomt::read(text);
    let peak = PEAK.with(Cell::get) - base;
    (r, peak)
}

const TOKENS: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    "=",
    "\"",
    "-",
    "1e39",
    "#",
    "\n",
    "\\u",
    "é",
    "0",
    "-1",
    "name",
    "Meshes",
    "1.5",
    "99999999999",
    "true",
    " ",
    "\\",
    "[[",
    "}}",
];

/// A random corruption of `text`: one to four deletions, insertions, line
/// duplications or line swaps, always on character boundaries.
fn corrupt(text: &str, rng: &mut Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..1 + rng.index(4) {
        let boundary = |s: &str, rng: &mut Rng| {
            let mut i = rng.index(s.len() + 1);
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        match rng.index(4) {
            0 => {
                let a = boundary(&s, rng);
                let mut b = (a + 1 + rng.index(16)).min(s.len());
                while !s.is_char_boundary(b) {
                    b += 1;
                }
                s.replace_range(a..b, "");
            }
            1 => {
                let a = boundary(&s, rng);
                s.insert_str(a, TOKENS[rng.index(TOKENS.len())]);
            }
            2 | 3 => {
                let mut lines: Vec<&str> = s.split_inclusive('\n').collect();
                if lines.len() > 2 {
                    let i = 1 + rng.index(lines.len() - 1);
                    let j = 1 + rng.index(lines.len() - 1);
                    if rng.index(2) == 0 {
                        lines.insert(j, lines[i]);
                    } else {
                        lines.swap(i, j);
                    }
                }
                s = lines.concat();
            }
            _ => unreachable!(),
        }
    }
    s
}

/// Reads one corrupted text and checks the promises of the module; returns whether
/// the text was accepted.
fn check(text: &str) -> bool {
    let (r, peak) = measured_read(text);
    assert!(
        peak <= 8 * text.len() + 4096,
        "read held {peak} bytes for {} input bytes",
        text.len()
    );
    if let Ok(model) = r {
        gom::validate::check_structure(&model)
            .expect("the text reader accepted what the rules refuse");
        gom::gomb::write(&model).expect("the binary writer refuses what the text reader accepted");
        let again = gom::gomt::write(&model).unwrap();
        let back = gom::gomt::read(&again).unwrap();
        // The canonical rewrite holds the same model, up to flags set where their checks
        // pass and bounds recomputed (a looser box given in the text is accepted).
        let mut expected = model.clone();
        expected.header.validation_flags = gom::validate::flags_for(&model);
        for m in &mut expected.meshes {
            m.bounds = Some(gom::bounds::compute_bounds(m));
        }
        assert_eq!(back, expected);
        return true;
    }
    false
}

#[test]
fn corrupted_generated_texts_never_panic_or_overallocate() {
    let mut runner = TestRunner::deterministic();
    let strategy = common::model();
    let mut rng = Rng::new(0x00C0_FFEE);
    let mut accepted = 0;
    for _ in 0..300 {
        let model = strategy.new_tree(&mut runner).unwrap().current();
        let text = gom::gomt::write(&model).unwrap();
        assert!(check(&text));
        for _ in 0..40 {
            accepted += usize::from(check(&corrupt(&text, &mut rng)));
        }
    }
    // Some corruptions (a changed digit, a swapped vertex line) leave a valid document,
    // so the accepted path is exercised too.
    assert!(
        accepted >= 100,
        "only {accepted} corrupted texts were accepted"
    );
}

#[test]
fn corrupted_demo_texts_never_panic_or_overallocate() {
    let text = gom::gomt::write(&gom_demo::build()).unwrap();
    let mut rng = Rng::new(0xDE30);
    let mut accepted = 0;
    for _ in 0..300 {
        accepted += usize::from(check(&corrupt(&text, &mut rng)));
    }
    assert!(
        accepted >= 5,
        "only {accepted} corrupted texts were accepted"
    );
}

#[test]
fn the_allocation_bound_holds_for_valid_texts() {
    let text = gom::gomt::write(&gom_demo::build()).unwrap();
    let (r, peak) = measured_read(&text);
    assert!(r.is_ok());
    assert!(peak > text.len() / 4, "the counter measures: {peak}");
    assert!(
        peak <= 8 * text.len(),
        "{peak} bytes held for {}",
        text.len()
    );
}
