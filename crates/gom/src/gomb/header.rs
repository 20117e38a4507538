//! The 512-byte header (D3) and the chunk table (D5).

use super::cursor::{le32, Chunk};
use crate::error::{Magic, Place, ReadError, ReadErrorKind};
use crate::model::ValidationFlags;

/// The first eight bytes of every GOMB file.
pub const MAGIC: &[u8; 8] = b"GOMB0001";
/// The header's size in bytes; the first chunk starts here.
pub const HEADER_SIZE: usize = 512;

pub(crate) const OFF_HEADER_SIZE: usize = 8;
pub(crate) const OFF_FORMAT_VERSION: usize = 12;
pub(crate) const OFF_COORDINATE_SYSTEM: usize = 16;
pub(crate) const OFF_MATRIX_CONVENTION: usize = 20;
pub(crate) const OFF_SOURCE_HASH: usize = 24;
pub(crate) const OFF_CONVERTER_VERSION: usize = 56;
pub(crate) const OFF_VALIDATION_FLAGS: usize = 60;
pub(crate) const OFF_TABLE_OFFSET: usize = 64;
pub(crate) const OFF_TABLE_COUNT: usize = 68;
pub(crate) const OFF_ENDIANNESS: usize = 72;
pub(crate) const OFF_RESERVED: usize = 76;

/// The header fields that carry information.
pub(crate) struct Header {
    pub source_hash: [u8; 32],
    pub converter_version_str: u32,
    pub validation_flags: ValidationFlags,
    pub table_offset: u32,
    pub table_count: u32,
    /// Where the top-level chunks end: the chunk table, or the end of the file.
    pub chunks_end: usize,
}

fn value(offset: usize, field: &'static str, value: u32, expected: &'static str) -> ReadError {
    ReadError {
        offset: offset as u64,
        place: Place::Header,
        field,
        kind: ReadErrorKind::Value {
            value: u64::from(value),
            expected,
        },
    }
}

/// Checks every fixed value of the header and the placement of the chunk table.
pub(crate) fn parse_header(file: &[u8]) -> Result<Header, ReadError> {
    if file.len() >= 8 && &file[..8] != MAGIC {
        let mut m = [0u8; 8];
        m.copy_from_slice(&file[..8]);
        return Err(ReadError {
            offset: 0,
            place: Place::Header,
            field: "magic",
            kind: ReadErrorKind::Magic { found: Magic(m) },
        });
    }
    let h = match file.get(..HEADER_SIZE) {
        Some(h) => h,
        None => {
            return Err(ReadError {
                offset: 0,
                place: Place::Header,
                field: if file.len() < 8 { "magic" } else { "header" },
                kind: ReadErrorKind::Truncated {
                    needed: HEADER_SIZE as u64,
                    available: file.len() as u64,
                },
            })
        }
    };
    let at = |o: usize| le32(&h[o..]);
    match at(OFF_ENDIANNESS) {
        0 | 1 => {}
        2 => {
            return Err(ReadError {
                offset: OFF_ENDIANNESS as u64,
                place: Place::Header,
                field: "endianness",
                kind: ReadErrorKind::BigEndian,
            })
        }
        v => {
            return Err(ReadError {
                offset: OFF_ENDIANNESS as u64,
                place: Place::Header,
                field: "endianness",
                kind: ReadErrorKind::UnknownEnum { value: v },
            })
        }
    }
    if at(OFF_HEADER_SIZE) != 512 {
        return Err(value(
            OFF_HEADER_SIZE,
            "headerSize",
            at(OFF_HEADER_SIZE),
            "512",
        ));
    }
    if at(OFF_FORMAT_VERSION) != 1 {
        return Err(value(
            OFF_FORMAT_VERSION,
            "formatVersion",
            at(OFF_FORMAT_VERSION),
            "1",
        ));
    }
    for (off, field) in [
        (OFF_COORDINATE_SYSTEM, "coordinateSystem"),
        (OFF_MATRIX_CONVENTION, "matrixConvention"),
    ] {
        if at(off) != 1 {
            return Err(ReadError {
                offset: off as u64,
                place: Place::Header,
                field,
                kind: ReadErrorKind::UnknownEnum { value: at(off) },
            });
        }
    }
    let Some(validation_flags) = ValidationFlags::from_bits(at(OFF_VALIDATION_FLAGS)) else {
        return Err(ReadError {
            offset: OFF_VALIDATION_FLAGS as u64,
            place: Place::Header,
            field: "validationFlags",
            kind: ReadErrorKind::Reserved,
        });
    };
    if let Some(k) = h[OFF_RESERVED..].iter().position(|&b| b != 0) {
        return Err(ReadError {
            offset: (OFF_RESERVED + k) as u64,
            place: Place::Header,
            field: "reserved",
            kind: ReadErrorKind::Reserved,
        });
    }
    let table_offset = at(OFF_TABLE_OFFSET);
    let table_count = at(OFF_TABLE_COUNT);
    let len = file.len() as u64;
    let chunks_end = if table_offset == 0 {
        if table_count != 0 {
            return Err(value(
                OFF_TABLE_COUNT,
                "chunkTableCount",
                table_count,
                "0 when chunkTableOffset is 0",
            ));
        }
        file.len()
    } else {
        let t = u64::from(table_offset);
        if t % 16 != 0 || t < HEADER_SIZE as u64 || t > len {
            return Err(value(
                OFF_TABLE_OFFSET,
                "chunkTableOffset",
                table_offset,
                "a multiple of 16 from 512 to the end of the file",
            ));
        }
        let need = u64::from(table_count) * 16;
        let have = len - t;
        if need > have {
            return Err(ReadError {
                offset: t,
                place: Place::ChunkTable,
                field: "entries",
                kind: ReadErrorKind::Truncated {
                    needed: need,
                    available: have,
                },
            });
        }
        if need < have {
            return Err(ReadError {
                offset: t + need,
                place: Place::ChunkTable,
                field: "the last entry",
                kind: ReadErrorKind::Trailing { count: have - need },
            });
        }
        table_offset as usize
    };
    let mut source_hash = [0u8; 32];
    source_hash.copy_from_slice(&h[OFF_SOURCE_HASH..OFF_SOURCE_HASH + 32]);
    Ok(Header {
        source_hash,
        converter_version_str: at(OFF_CONVERTER_VERSION),
        validation_flags,
        table_offset,
        table_count,
        chunks_end,
    })
}

/// Checks chunk table entry `index` against the top-level chunk `c` (D5).
pub(crate) fn check_entry(file: &[u8], h: &Header, index: u32, c: &Chunk) -> Result<(), ReadError> {
    let at = h.table_offset as usize + 16 * index as usize;
    let e = file.get(at..at + 16).ok_or(ReadError {
        offset: at as u64,
        place: Place::ChunkTable,
        field: "entries",
        kind: ReadErrorKind::Truncated {
            needed: 16,
            available: 0,
        },
    })?;
    let mismatch = |k: usize, field| ReadError {
        offset: (at + k) as u64,
        place: Place::ChunkTable,
        field,
        kind: ReadErrorKind::TableMismatch { index },
    };
    if e[..4] != c.fourcc.0 {
        return Err(mismatch(0, "fourcc"));
    }
    if le32(&e[4..]) as usize != c.offset {
        return Err(mismatch(4, "offset"));
    }
    if le32(&e[8..]) != c.size {
        return Err(mismatch(8, "size"));
    }
    if le32(&e[12..]) != 0 {
        return Err(ReadError {
            offset: (at + 12) as u64,
            place: Place::ChunkTable,
            field: "reserved",
            kind: ReadErrorKind::Reserved,
        });
    }
    Ok(())
}
