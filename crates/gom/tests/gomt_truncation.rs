//! Truncations of the demo model's text: each one is either an error or, when it ends
//! exactly after a top-level value, the same as that shorter valid document; never a
//! panic.
//!
//! The full sweep (every one of the ~124,000 cuts, about 50 s in a debug build) is
//! `every_truncation_…` and runs with `--ignored`; the default test covers every cut in
//! the first and last 6,000 bytes, every cut within two bytes of a line break, and
//! every 97th cut in between.

use gom::gomt::{read, write};
use gom::Model;

struct Demo {
    text: String,
    full: Model,
    section_ends: Vec<usize>,
}

fn demo() -> Demo {
    let text = write(&gom_demo::build()).unwrap();
    let full = read(&text).unwrap();
    // Byte offsets just after each complete top-level value (a line "}" or "]").
    let mut section_ends = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        at += line.len();
        if line == "}\n" || line == "]\n" || line.ends_with("= []\n") {
            section_ends.push(at);
        }
    }
    assert_eq!(section_ends.len(), 5, "five top-level sections");
    Demo {
        text,
        full,
        section_ends,
    }
}

/// Reads the first `cut` bytes; returns whether they were accepted.
fn check_cut(d: &Demo, cut: usize) -> bool {
    if !d.text.is_char_boundary(cut) {
        return false;
    }
    let prefix = &d.text[..cut];
    let Ok(m) = read(prefix) else {
        return false;
    };
    // Only whitespace may follow the last complete section.
    let end = prefix.trim_end().len() + 1;
    assert!(
        d.section_ends.contains(&end),
        "a prefix of {cut} bytes that ends inside a value was accepted"
    );
    // Each section is either complete or absent (then empty).
    assert_eq!(m.header, d.full.header, "cut at {cut}");
    assert_eq!(m.skeleton, d.full.skeleton, "cut at {cut}");
    assert!(
        m.materials.is_empty() || m.materials == d.full.materials,
        "cut at {cut}"
    );
    assert!(
        m.meshes.is_empty() || m.meshes == d.full.meshes,
        "cut at {cut}"
    );
    assert!(
        m.clips.is_empty() || m.clips == d.full.clips,
        "cut at {cut}"
    );
    true
}

#[test]
fn truncations_of_the_demo_text_are_errors_or_shorter_documents() {
    let d = demo();
    let n = d.text.len();
    let mut cuts: Vec<usize> = (0..6000.min(n)).collect();
    cuts.extend(n.saturating_sub(6000)..=n);
    cuts.extend((0..n).step_by(97));
    for (i, b) in d.text.bytes().enumerate() {
        if b == b'\n' {
            cuts.extend(i.saturating_sub(2)..=(i + 2).min(n));
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let accepted: Vec<usize> = cuts.into_iter().filter(|&c| check_cut(&d, c)).collect();
    // Header + Skeleton is the shortest valid prefix; every later section end reads too,
    // with or without its newline, and so does the whole text.
    let mut expected = Vec::new();
    for &e in &d.section_ends[1..] {
        expected.extend([e - 1, e]);
    }
    assert_eq!(accepted, expected);
}

#[test]
#[ignore]
fn every_truncation_of_the_demo_text_is_an_error_or_a_shorter_document() {
    let d = demo();
    let accepted = (0..=d.text.len()).filter(|&c| check_cut(&d, c)).count();
    assert_eq!(accepted, 8);
}
