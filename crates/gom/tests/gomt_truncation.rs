//! Every truncation of the demo model's text is either an error or, when it ends
//! exactly after a top-level value, the same as that shorter valid document; never a
//! panic.

use gom::gomt::{read, write};
use gom::Model;

#[test]
fn every_truncation_of_the_demo_text_is_an_error_or_a_shorter_document() {
    let demo = gom::demo::build();
    let text = write(&demo).unwrap();
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
    let mut accepted = 0;
    let mut cut = 0;
    while cut < text.len() {
        if text.is_char_boundary(cut) {
            let prefix = &text[..cut];
            if let Ok(m) = read(prefix) {
                accepted += 1;
                // Only whitespace may follow the last complete section.
                let end = prefix.trim_end().len() + 1;
                assert!(
                    section_ends.contains(&end) || section_ends.contains(&(end - 1)),
                    "a prefix of {cut} bytes that ends inside a value was accepted"
                );
                // Each section is either complete or absent (then empty).
                assert_shorter(&m, &full, cut);
            }
        }
        cut += 1;
    }
    // Header + Skeleton is the shortest valid prefix; it and every later section end
    // (with or without the newline) read.
    assert!(accepted >= 4, "{accepted} prefixes accepted");
}

fn assert_shorter(m: &Model, full: &Model, cut: usize) {
    assert_eq!(m.header, full.header, "cut at {cut}");
    assert_eq!(m.skeleton, full.skeleton, "cut at {cut}");
    assert!(m.materials.is_empty() || m.materials == full.materials, "cut at {cut}");
    assert!(m.meshes.is_empty() || m.meshes == full.meshes, "cut at {cut}");
    assert!(m.clips.is_empty() || m.clips == full.clips, "cut at {cut}");
}
