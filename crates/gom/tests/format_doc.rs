//! The worked example of docs/format.md §6 shows the bytes of
//! `tests/fixtures/minimal.gomb`: every hex row it prints equals the file at that
//! offset, together the rows and the stated zero range cover the whole file, and the
//! sizes and offsets the section names in words match the file.

const DOC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/format.md"));
const FIXTURE: &[u8] = include_bytes!("fixtures/minimal.gomb");

/// The worked example: from its heading to the next `## ` heading.
fn example() -> &'static str {
    let start = DOC.find("## 6. Worked example").expect("section 6");
    let len = DOC[start + 3..].find("\n## ").expect("a next section") + 3;
    &DOC[start..start + len]
}

/// Every `oooooooo: wwwwwwww wwwwwwww wwwwwwww wwwwwwww` row: offset and 16 bytes.
fn rows() -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    for line in example().lines() {
        let Some((off, rest)) = line.split_once(": ") else {
            continue;
        };
        if off.len() != 8 || !off.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let off = usize::from_str_radix(off, 16).unwrap();
        let words: Vec<&str> = rest.split_whitespace().take(4).collect();
        assert!(
            words.iter().all(|w| w.len() == 8),
            "row {off:08x}: {words:?}"
        );
        let bytes = words
            .iter()
            .flat_map(|w| {
                (0..4).map(move |k| u8::from_str_radix(&w[2 * k..2 * k + 2], 16).unwrap())
            })
            .collect();
        out.push((off, bytes));
    }
    out
}

#[test]
fn every_row_of_the_worked_example_is_the_fixture() {
    let rows = rows();
    // 92 rows of 16 bytes, less the 27 rows of the zero range 0x50..0x200.
    assert_eq!(rows.len(), 92 - 27);
    let mut shown = vec![false; FIXTURE.len() / 16];
    for (off, bytes) in &rows {
        assert_eq!(off % 16, 0, "row {off:08x}");
        assert_eq!(&FIXTURE[*off..off + 16], &bytes[..], "row {off:08x}");
        assert!(!shown[off / 16], "row {off:08x} shown twice");
        shown[off / 16] = true;
    }
    // The one range the page states in words instead of rows.
    assert!(example().contains("00000050–000001ff: zero"));
    assert!(FIXTURE[0x50..0x200].iter().all(|&b| b == 0));
    for (row, s) in shown.iter().enumerate() {
        assert!(
            *s || (0x50..0x200).contains(&(row * 16)),
            "row {:08x} missing",
            row * 16
        );
    }
}

#[test]
fn the_sizes_and_offsets_named_in_words_are_the_fixtures() {
    let e = example();
    assert!(e.contains(&format!("({} bytes)", "1,472")));
    assert_eq!(FIXTURE.len(), 1472);
    // "NAME (offset)" headings and the chunk table agree with the file.
    for (name, off) in [
        ("STR0 (512)", 512usize),
        ("SKEL (608)", 608),
        ("MATL (704)", 704),
        ("MSH0 (752)", 752),
        ("VB0 (800)", 800),
        ("IB0 (976)", 976),
        ("SUB0 (1024)", 1024),
        ("IBND (1056)", 1056),
        ("BND0 (1152)", 1152),
        ("ANIM (1216)", 1216),
        ("CLP0 (1248)", 1248),
        ("Chunk table (1392)", 1392),
    ] {
        assert!(e.contains(name), "{name}");
        if let Some(f) = name.split_whitespace().next().filter(|f| f.len() >= 3) {
            if f != "Chunk" {
                assert_eq!(&FIXTURE[off..off + f.len()], f.as_bytes(), "{name}");
            }
        }
    }
    assert_eq!(
        u32::from_le_bytes(FIXTURE[64..68].try_into().unwrap()),
        1392
    );
}
