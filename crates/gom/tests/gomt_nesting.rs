//! Deeply nested values cannot overflow the GOMT reader's stack: 100,000 nested `[` or
//! `{` wherever a value may stand give an error with its position, never a crash.
//!
//! The reader follows the schema, so a known table or array nests only as deep as the
//! format does; only skipped values (unknown top-level names) nest freely, and those
//! are followed to 128 levels.

use gom::gomt::{read, TextErrorKind};

const HEADER: &str = "GOMT0001\nHeader = { sourceHash = \"0000000000000000000000000000000000000000000000000000000000000000\", converterVersion = \"t\", validationFlags = [], coordinateSystem = \"CS_LH_YUP_METERS\", matrixConvention = \"MC_ROW_MAJOR_ROW_VECTOR_RIGHT_MUL\" }\nSkeleton = { bones = [] }\n";

const DEPTH: usize = 100_000;

/// `prefix` followed by `DEPTH` copies of `open` (and no closing brackets).
fn nested(prefix: &str, open: &str) -> String {
    let mut s = String::with_capacity(prefix.len() + DEPTH * open.len());
    s.push_str(prefix);
    for _ in 0..DEPTH {
        s.push_str(open);
    }
    s
}

/// Reads `text` on a thread with a small stack (256 KiB), so that unbounded recursion
/// would overflow it, and returns the error.
fn read_on_small_stack(text: String) -> gom::gomt::TextError {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || read(&text).expect_err("the nested text was accepted"))
        .expect("spawn")
        .join()
        .expect("the reader crashed")
}

#[test]
fn a_hundred_thousand_nested_brackets_in_a_skipped_value_are_too_deep() {
    for open in ["[", "{ a = ", "[{ a = "] {
        let prefix = format!("{HEADER}Extra = ");
        let text = nested(&prefix, open);
        // The 129th opening bracket: one level more than a skipped value may nest.
        let bracket_129 = text
            .char_indices()
            .skip(prefix.len())
            .filter(|(_, c)| matches!(c, '[' | '{'))
            .nth(128)
            .map(|(i, _)| i)
            .unwrap();
        let e = read_on_small_stack(text);
        assert_eq!(e.kind, TextErrorKind::TooDeep(128), "{open}: {e}");
        assert_eq!((e.line, e.offset), (4, bracket_129), "{open}: {e}");
    }
    // 127 nested arrays around a number are still fine.
    let mut ok = format!("{HEADER}Extra = ");
    ok.push_str(&"[".repeat(127));
    ok.push('1');
    ok.push_str(&"]".repeat(127));
    assert!(read(&ok).is_ok());
}

#[test]
fn a_hundred_thousand_nested_brackets_in_known_values_are_syntax_errors() {
    // Each place expects something other than a nested array or table at a fixed
    // depth: the error stands at the first bracket too many.
    let cases: [(&str, &str, &str); 6] = [
        ("Meshes = ", "[", "`{` starting a mesh"),
        (
            "Meshes = [{ name = \"m\", indices = ",
            "[",
            "a vertex index",
        ),
        (
            "Meshes = [{ name = \"m\", vertices = [{ p = ",
            "[",
            "a position coordinate",
        ),
        (
            "Animations = [{ tracks = [{ keys = ",
            "[",
            "`{` starting a key",
        ),
        (
            "Materials = [{ baseColorFactor = ",
            "[",
            "a colour component",
        ),
        ("Skeleton2 = 1\nMeshes = [{ name = ", "{", "a string"),
    ];
    for (place, open, expected) in cases {
        let prefix = format!("{HEADER}{place}");
        let e = read_on_small_stack(nested(&prefix, open));
        match &e.kind {
            TextErrorKind::Expected { expected: x, .. } => assert_eq!(*x, expected, "{e}"),
            other => panic!("{place}: {other:?}"),
        }
        assert!(e.offset <= prefix.len() + 2, "{place}: {e}");
    }
}
