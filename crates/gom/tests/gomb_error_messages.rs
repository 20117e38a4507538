//! Every kind of GOMB read error displays as its sentence, with the offset, place and
//! field where the sentence names them; the expected sentences are written out by hand.

use gom::error::{FourCc, Magic, Place, ReadError, ReadErrorKind};

/// An error at offset 40 of chunk `SKEL`, field `boneCount`, of the given kind.
fn skel(kind: ReadErrorKind) -> ReadError {
    ReadError {
        offset: 40,
        place: Place::Chunk(FourCc::SKEL),
        field: "boneCount",
        kind,
    }
}

#[test]
fn field_kinds_name_field_place_and_offset() {
    let cases = [
        (
            ReadErrorKind::Truncated {
                needed: 4,
                available: 3,
            },
            "field `boneCount` of chunk `SKEL` at offset 40 needs 4 bytes but only 3 remain",
        ),
        (
            ReadErrorKind::Value {
                value: 7,
                expected: "a multiple of 4",
            },
            "field `boneCount` of chunk `SKEL` at offset 40 is 7, expected a multiple of 4",
        ),
        (
            ReadErrorKind::UnknownEnum { value: 9 },
            "field `boneCount` of chunk `SKEL` at offset 40 holds the unknown value 9",
        ),
        (
            ReadErrorKind::Reserved,
            "reserved field `boneCount` of chunk `SKEL` at offset 40 is not zero",
        ),
        (
            ReadErrorKind::Padding,
            "padding `boneCount` of chunk `SKEL` at offset 40 is not zero",
        ),
        (
            ReadErrorKind::Limit {
                value: 4097,
                limit: 4096,
            },
            "field `boneCount` of chunk `SKEL` at offset 40 is 4097, above the limit of 4096",
        ),
        (
            ReadErrorKind::NotFinite,
            "field `boneCount` of chunk `SKEL` at offset 40 is not a finite number",
        ),
        (
            ReadErrorKind::Rule {
                reason: "bone 2 has parent 5".into(),
            },
            "field `boneCount` of chunk `SKEL` at offset 40: bone 2 has parent 5",
        ),
    ];
    for (kind, expected) in cases {
        assert_eq!(skel(kind).to_string(), expected);
    }
}

#[test]
fn chunk_kinds_name_the_chunk_first() {
    let cases = [
        (
            ReadErrorKind::Overrun {
                size: 64,
                available: 16,
            },
            "chunk `SKEL` at offset 40 needs 64 bytes for `boneCount` but only 16 remain in its container",
        ),
        (
            ReadErrorKind::Misplaced {
                where_: "inside ANIM",
            },
            "chunk `SKEL` at offset 40 may not stand inside ANIM",
        ),
        (
            ReadErrorKind::Duplicate,
            "chunk `SKEL` at offset 40 appears a second time in its boneCount",
        ),
        (
            ReadErrorKind::Missing,
            "the required chunk `boneCount` is missing from chunk `SKEL` (looked for at offset 40)",
        ),
        (
            ReadErrorKind::TableMismatch { index: 2 },
            "chunk table entry 2 at offset 40: field `boneCount` does not match the chunk in the file",
        ),
        (
            ReadErrorKind::Trailing { count: 12 },
            "chunk `SKEL` has 12 unexpected bytes at offset 40 after `boneCount`",
        ),
        (
            ReadErrorKind::BadString {
                index: 3,
                reason: "is not valid UTF-8",
            },
            "string 3 of chunk `SKEL` (field `boneCount`, at offset 40) is not valid UTF-8",
        ),
    ];
    for (kind, expected) in cases {
        assert_eq!(skel(kind).to_string(), expected);
    }
}

#[test]
fn header_kinds_name_the_header() {
    let at = |offset, field, kind| ReadError {
        offset,
        place: Place::Header,
        field,
        kind,
    };
    let magic = at(
        0,
        "magic",
        ReadErrorKind::Magic {
            found: Magic(*b"GOMT0001"),
        },
    );
    assert_eq!(
        magic.to_string(),
        "field `magic` of the header at offset 0 is \"GOMT0001\" (47 4F 4D 54 30 30 30 31), \
         expected the bytes `GOMB0001`"
    );
    let big = at(72, "endianness", ReadErrorKind::BigEndian);
    assert_eq!(
        big.to_string(),
        "field `endianness` of the header at offset 72 says big-endian: \
         big-endian is not supported in v1"
    );
    let claim = at(
        60,
        "validationFlags",
        ReadErrorKind::FlagClaim {
            flag: "weightsNormalized",
            finding: "vertex 0 weights sum to 0.5".into(),
        },
    );
    assert_eq!(
        claim.to_string(),
        "field `validationFlags` of the header at offset 60 sets weightsNormalized \
         but the check fails: vertex 0 weights sum to 0.5"
    );
}

#[test]
fn a_refused_file_reports_offset_place_field_and_kind() {
    // Nine bytes: the magic is right, the 512-byte header is cut short.
    let e = gom::gomb::read(b"GOMB0001\0").unwrap_err();
    let expected = ReadError {
        offset: 0,
        place: Place::Header,
        field: "header",
        kind: ReadErrorKind::Truncated {
            needed: 512,
            available: 9,
        },
    };
    assert_eq!(e, expected);
    assert_eq!(
        e.to_string(),
        "field `header` of the header at offset 0 needs 512 bytes but only 9 remain"
    );
}
