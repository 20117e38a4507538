//! Broken GOMT documents: each error names the exact line and column (hand-counted
//! below) and the right kind of problem; unknown top-level names are skipped.

use gom::gomt::{read, TextError, TextErrorKind};

/// A small valid document, one line per entry (line numbers are index + 1).
const TEMPLATE: [&str; 27] = [
    "GOMT0001",
    "Header = {",
    "  sourceHash = \"00000000000000000000000000000000000000000000000000000000000000ff\",",
    "  converterVersion = \"test\",",
    "  validationFlags = [],",
    "  coordinateSystem = \"CS_LH_YUP_METERS\",",
    "  matrixConvention = \"MC_ROW_MAJOR_ROW_VECTOR_RIGHT_MUL\",",
    "}",
    "Skeleton = {",
    "  boneCount = 1,",
    "  bones = [",
    "    { parent = -1, name = \"root\", path = \"root\", bindLocal = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]] },",
    "  ],",
    "}",
    "Meshes = [",
    "  {",
    "    name = \"tri\",",
    "    vertices = [",
    "      { p = [0, 0, 0], bi = [0, 0, 0, 0], bw = [1, 0, 0, 0] },",
    "      { p = [0, 1, 0], bi = [0, 0, 0, 0], bw = [1, 0, 0, 0] },",
    "      { p = [1, 0, 0], bi = [0, 0, 0, 0], bw = [1, 0, 0, 0] },",
    "    ],",
    "    indices = [0, 1, 2],",
    "    submeshes = [{ materialIndex = -1, indexStart = 0, indexCount = 3 }],",
    "    inverseBind = [[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]],",
    "  },",
    "]",
];

const CLIP_LINES: [&str; 3] = [
    "Animations = [",
    "  { name = \"a\", duration = 1, sampleRate = 30, tracks = [ { bone = 0, keys = [ { time = 0.25, t = [0,0,0], r = [0,0,0,1], s = [1,1,1] }, { time = 0.5, t = [0,0,0], r = [0,0,0,1], s = [1,1,1] } ] } ] },",
    "]",
];

/// The template with line `line` (1-based) replaced by `text`.
fn with_line(line: usize, text: &str) -> String {
    let mut lines: Vec<String> = TEMPLATE.iter().map(|s| s.to_string()).collect();
    lines[line - 1] = text.to_string();
    lines.join("\n") + "\n"
}

fn with_clip(clip_line: &str) -> String {
    let mut lines: Vec<&str> = TEMPLATE.to_vec();
    lines.extend([CLIP_LINES[0], clip_line, CLIP_LINES[2]]);
    lines.join("\n") + "\n"
}

fn fails_at(text: &str, line: u32, column: u32) -> TextError {
    match read(text) {
        Ok(_) => panic!("expected an error at {line}:{column}, the text was accepted:\n{text}"),
        Err(e) => {
            assert_eq!(
                (e.line, e.column),
                (line, column),
                "wrong position for: {e}"
            );
            // The Display form is a sentence naming the position.
            let shown = e.to_string();
            assert!(shown.starts_with(&format!("GOMT error at line {line}, column {column}: ")));
            assert!(shown.ends_with('.'));
            e
        }
    }
}

#[test]
fn template_and_clip_are_valid() {
    let m = read(&with_line(1, "GOMT0001")).unwrap();
    assert_eq!(m.skeleton.bones.len(), 1);
    assert_eq!(m.meshes[0].vertices.len(), 3);
    assert_eq!(m.meshes[0].indices, vec![0, 1, 2]);
    assert_eq!(m.header.source_hash[31], 0xff);
    let m = read(&with_clip(CLIP_LINES[1])).unwrap();
    assert_eq!(m.clips[0].tracks[0].keys[1].time, 0.5);
    // The bounds left out are computed: the triangle spans [0,1] x [0,1] x [0,0].
    let b = m.meshes[0].bounds.unwrap();
    assert_eq!((b.aabb_min, b.aabb_max), ([0.0; 3], [1.0, 1.0, 0.0]));
}

#[test]
fn wrong_magic() {
    let e = fails_at(&with_line(1, "GOMT0002"), 1, 1);
    assert_eq!(e.kind, TextErrorKind::Magic);
    let e = fails_at(&with_line(1, "GOMT0001 "), 1, 9);
    assert_eq!(e.kind, TextErrorKind::Magic);
    let e = fails_at("", 1, 1);
    assert_eq!(e.kind, TextErrorKind::Magic);
}

#[test]
fn byte_order_mark_is_refused() {
    let text = format!("\u{FEFF}{}", with_line(1, "GOMT0001"));
    let e = fails_at(&text, 1, 1);
    assert_eq!(e.kind, TextErrorKind::ByteOrderMark);
}

#[test]
fn missing_equals_sign() {
    let e = fails_at(&with_line(2, "Header {"), 2, 8);
    assert!(matches!(e.kind, TextErrorKind::Expected { found, .. } if found == "`{`"));
}

#[test]
fn missing_comma_between_keys() {
    let e = fails_at(&with_line(4, "  converterVersion = \"test\""), 5, 3);
    assert!(matches!(
        e.kind,
        TextErrorKind::Expected {
            expected: "`,` or `}`",
            ..
        }
    ));
}

#[test]
fn unknown_key_in_a_known_table() {
    let e = fails_at(&with_line(4, "  converterVersoin = \"test\","), 4, 3);
    assert_eq!(
        e.kind,
        TextErrorKind::UnknownKey {
            table: "the Header",
            key: "converterVersoin".into()
        }
    );
}

#[test]
fn leading_zero_is_not_json() {
    fails_at(&with_line(10, "  boneCount = 01,"), 10, 15);
}

#[test]
fn bone_count_must_match_the_bones() {
    let e = fails_at(&with_line(10, "  boneCount = 2,"), 10, 15);
    assert!(matches!(e.kind, TextErrorKind::InvalidValue(_)));
}

#[test]
fn parent_below_minus_one() {
    let line = "    { parent = -2, name = \"root\", path = \"root\", bindLocal = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]] },";
    let e = fails_at(&with_line(12, line), 12, 16);
    assert!(matches!(e.kind, TextErrorKind::OutOfRange { .. }));
}

#[test]
fn unknown_escape() {
    let e = fails_at(&with_line(17, "    name = \"tri\\q\","), 17, 16);
    assert!(matches!(e.kind, TextErrorKind::BadString(_)));
}

#[test]
fn raw_newline_in_string() {
    let e = fails_at(&with_line(17, "    name = \"tri,"), 17, 17);
    assert!(matches!(e.kind, TextErrorKind::BadString(_)));
}

#[test]
fn fixed_length_array_too_long() {
    let line = "      { p = [0, 0, 0, 0], bi = [0, 0, 0, 0], bw = [1, 0, 0, 0] },";
    let e = fails_at(&with_line(19, line), 19, 23);
    assert!(matches!(e.kind, TextErrorKind::Expected { found, .. } if found == "`0`"));
}

#[test]
fn vertices_must_share_their_keys() {
    let e = fails_at(&with_line(20, "      { p = [0, 1, 0] },"), 20, 7);
    assert!(matches!(e.kind, TextErrorKind::InvalidValue(_)));
}

#[test]
fn float_beyond_f32_is_an_error() {
    let line = "      { p = [1, 0, 1e39], bi = [0, 0, 0, 0], bw = [1, 0, 0, 0] },";
    let e = fails_at(&with_line(21, line), 21, 20);
    assert!(matches!(e.kind, TextErrorKind::OutOfRange { ref text, .. } if text == "1e39"));
}

#[test]
fn non_integer_index() {
    let e = fails_at(&with_line(23, "    indices = [0, 1, 1.5],"), 23, 22);
    assert!(matches!(e.kind, TextErrorKind::Expected { .. }));
}

#[test]
fn index_out_of_range_points_at_the_index() {
    let e = fails_at(&with_line(23, "    indices = [0, 1, 3],"), 23, 22);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("index 2 is 3")));
}

#[test]
fn flag_claiming_a_failed_check() {
    let mut lines: Vec<&str> = TEMPLATE.to_vec();
    lines[4] = "  validationFlags = [\"weightsPass\"],";
    lines[19] = "      { p = [0, 1, 0], bi = [0, 0, 0, 0], bw = [0.5, 0, 0, 0] },";
    let text = lines.join("\n");
    let e = fails_at(&text, 5, 3);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("weightsPass")));
    // Without the claim, the same model reads (the check just fails).
    lines[4] = "  validationFlags = [],";
    assert!(read(&lines.join("\n")).is_ok());
}

#[test]
fn duplicate_key() {
    let e = fails_at(&with_line(17, "    name = \"tri\", name = \"x\","), 17, 19);
    assert!(matches!(e.kind, TextErrorKind::DuplicateKey { .. }));
}

#[test]
fn missing_required_key_points_at_the_table() {
    let line = "    { parent = -1, name = \"root\", path = \"root\" },";
    let e = fails_at(&with_line(12, line), 12, 5);
    assert_eq!(
        e.kind,
        TextErrorKind::MissingKey {
            table: "a bone",
            key: "bindLocal"
        }
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let e = fails_at(&with_line(17, "    name = \"é€😀\", bogus = 1,"), 17, 19);
    assert!(matches!(e.kind, TextErrorKind::UnknownKey { ref key, .. } if key == "bogus"));
}

#[test]
fn unknown_top_level_names_are_skipped() {
    let text = with_line(1, "GOMT0001")
        + "Extra = { a = [1, { b = \"x\\u00e9\" }, true, false], c = -0.5e3, }\n"
        + "Thumbnail = \"ignored\"\n";
    let m = read(&text).unwrap();
    assert_eq!(m.meshes.len(), 1);
    assert_eq!(m.meshes[0].name, "tri");
}

#[test]
fn errors_inside_skipped_values_are_still_reported() {
    let text = with_line(1, "GOMT0001") + "Extra = [1, 2\n";
    let e = fails_at(&text, 29, 1);
    assert!(
        matches!(e.kind, TextErrorKind::Expected { ref found, .. } if found == "the end of the text")
    );
}

#[test]
fn missing_header_is_reported_at_the_end() {
    let e = fails_at("GOMT0001\nSkeleton = { bones = [] }\n", 3, 1);
    assert_eq!(
        e.kind,
        TextErrorKind::MissingKey {
            table: "the document",
            key: "Header"
        }
    );
}

#[test]
fn comments_count_as_lines() {
    let text =
        with_line(1, "GOMT0001\n# a comment = { not parsed [").replace("Header = {", "Header {");
    fails_at(&text, 3, 8);
}

#[test]
fn crlf_line_endings_read_alike() {
    let text = with_line(4, "  converterVersoin = \"test\",").replace('\n', "\r\n");
    fails_at(&text, 4, 3);
    let ok = with_line(1, "GOMT0001").replace('\n', "\r\n");
    assert_eq!(read(&ok).unwrap(), read(&with_line(1, "GOMT0001")).unwrap());
}

#[test]
fn keys_out_of_order_point_at_the_key() {
    let bad = CLIP_LINES[1].replace("time = 0.5", "time = 0.125");
    let e = fails_at(&with_clip(&bad), 29, 138);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("ascending")));
}

#[test]
fn non_unit_quaternion_points_at_the_key() {
    let bad = CLIP_LINES[1].replacen("r = [0,0,0,1]", "r = [0,0,0,2]", 1);
    let e = fails_at(&with_clip(&bad), 29, 80);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("rotation")));
}

#[test]
fn track_of_a_missing_bone_points_at_the_track() {
    let bad = CLIP_LINES[1].replace("bone = 0", "bone = 1");
    // The track's `{` stands at column 59.
    let e = fails_at(&with_clip(&bad), 29, 59);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("names no bone")));
}

#[test]
fn skin_bone_beyond_the_skeleton_points_at_the_vertex() {
    let line = "      { p = [0, 0, 0], bi = [3, 0, 0, 0], bw = [1, 0, 0, 0] },";
    let e = fails_at(&with_line(19, line), 19, 7);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("vertex 0")));
}

#[test]
fn submesh_not_a_multiple_of_three_points_at_the_submesh() {
    let line = "    submeshes = [{ materialIndex = -1, indexStart = 0, indexCount = 2 }],";
    let e = fails_at(&with_line(24, line), 24, 18);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("multiple of 3")));
}

#[test]
fn root_motion_without_root_bone_points_at_the_flags() {
    let bad = CLIP_LINES[1].replace("tracks =", "flags = [\"HasRootMotion\"], tracks =");
    // `flags` now stands where `tracks` stood.
    let e = fails_at(&with_clip(&bad), 29, 48);
    assert!(matches!(e.kind, TextErrorKind::Structure(ref m) if m.contains("HasRootMotion")));
}

#[test]
fn trailing_commas_and_comments_are_allowed() {
    let text = with_line(23, "    indices = [0, 1, 2,], # the only triangle");
    assert!(read(&text).is_ok());
}

#[test]
fn surrogate_pairs_join_and_lone_surrogates_fail() {
    let m = read(&with_line(
        17,
        "    name = \"\\ud83d\\ude00\\t\\\"\\\\\\n\",",
    ))
    .unwrap();
    assert_eq!(m.meshes[0].name, "😀\t\"\\\n");
    let e = fails_at(&with_line(17, "    name = \"\\ud83d\","), 17, 13);
    assert!(matches!(e.kind, TextErrorKind::BadString(_)));
    let e = fails_at(&with_line(17, "    name = \"a\\u0000\","), 17, 14);
    assert!(matches!(e.kind, TextErrorKind::BadString(_)));
}

#[test]
fn invalid_utf8_is_reported_at_the_bad_byte() {
    let mut bytes = with_line(17, "    name = \"tri\",").into_bytes();
    // Line 17 is `    name = "tri",`; put a lone continuation byte over the `r`.
    let line_start = TEMPLATE[..16].iter().map(|l| l.len() + 1).sum::<usize>();
    bytes[line_start + 13] = 0x80;
    let e = gom::gomt::read_bytes(&bytes).unwrap_err();
    assert_eq!((e.line, e.column), (17, 14));
    assert_eq!(e.kind, TextErrorKind::InvalidUtf8);
    assert!(gom::gomt::read_bytes(with_line(1, "GOMT0001").as_bytes()).is_ok());
}
