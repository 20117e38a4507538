//! STR0, the string table (D6): `stringCount, offsets[stringCount], dataSize, data`.
//!
//! Every string is checked once: a NUL inside `data` after its offset, valid UTF-8 up
//! to it. The work is linear in the table's size however the offsets overlap: strings
//! are visited in offset order and a string that ends at the same NUL as the previous
//! one only needs to start on a character boundary.

use super::cursor::{le32, Chunk};
use crate::error::{Place, ReadError, ReadErrorKind};

/// The checked string table.
#[derive(Debug, Clone, Default)]
pub(crate) struct Strings<'a> {
    offsets: &'a [u8],
    data: &'a [u8],
    /// Byte length of each string (up to its NUL).
    lens: Vec<u32>,
    /// File offset of `data`.
    pub data_offset: usize,
}

impl<'a> Strings<'a> {
    /// The number of strings.
    pub fn count(&self) -> u32 {
        self.lens.len() as u32
    }

    /// String `id`, or `None` when there is no such string.
    pub fn get(&self, id: u32) -> Option<&'a str> {
        let i = id as usize;
        let len = *self.lens.get(i)? as usize;
        let off = le32(self.offsets.get(4 * i..4 * i + 4)?) as usize;
        core::str::from_utf8(self.data.get(off..off + len)?).ok()
    }

    /// The byte length of string `id` (0 when there is none).
    pub fn len_of(&self, id: u32) -> u64 {
        self.lens.get(id as usize).map_or(0, |&l| u64::from(l))
    }
}

pub(crate) fn parse_str0<'a>(file: &'a [u8], c: &Chunk) -> Result<Strings<'a>, ReadError> {
    let mut cur = c.cur(file);
    let count = cur.u32("stringCount")?;
    let offsets_at = cur.pos;
    let offsets = cur.take(u64::from(count) * 4, "offsets")?;
    let data_size = cur.u32("dataSize")?;
    let data_offset = cur.pos;
    let data = cur.take(u64::from(data_size), "data")?;
    cur.finish("data")?;

    let n = count as usize;
    let mut lens = vec![0u32; n];
    let off = |i: usize| le32(&offsets[4 * i..]) as usize;
    let sorted = (1..n).all(|i| off(i - 1) <= off(i));
    let order: Vec<u32> = if sorted {
        Vec::new()
    } else {
        let mut o: Vec<u32> = (0..count).collect();
        o.sort_unstable_by_key(|&i| (off(i as usize), i));
        o
    };
    let bad = |i: usize, at: usize, reason| ReadError {
        offset: at as u64,
        place: Place::Chunk(c.fourcc),
        field: "data",
        kind: ReadErrorKind::BadString {
            index: i as u32,
            reason,
        },
    };
    // The NUL ending the previous string, when the previous string was valid.
    let mut seg_end: Option<usize> = None;
    let ids = (0..n).map(|k| if sorted { k } else { order[k] as usize });
    for i in ids {
        let o = off(i);
        if o >= data.len() {
            return Err(ReadError {
                offset: (offsets_at + 4 * i) as u64,
                place: Place::Chunk(c.fourcc),
                field: "offsets",
                kind: ReadErrorKind::BadString {
                    index: i as u32,
                    reason: "starts outside the string data",
                },
            });
        }
        let nul = match seg_end {
            Some(e) if o <= e => {
                // Same NUL as the previous, valid string: a suffix of valid UTF-8 is
                // valid exactly when it starts on a character boundary.
                if o < e && (data[o] & 0xC0) == 0x80 {
                    return Err(bad(i, data_offset + o, "is not valid UTF-8"));
                }
                e
            }
            _ => {
                let e = match data[o..].iter().position(|&b| b == 0) {
                    Some(p) => o + p,
                    None => {
                        return Err(bad(
                            i,
                            data_offset + o,
                            "has no terminating NUL inside the data",
                        ))
                    }
                };
                if let Err(err) = core::str::from_utf8(&data[o..e]) {
                    return Err(bad(
                        i,
                        data_offset + o + err.valid_up_to(),
                        "is not valid UTF-8",
                    ));
                }
                e
            }
        };
        seg_end = Some(nul);
        lens[i] = (nul - o) as u32;
    }
    Ok(Strings {
        offsets,
        data,
        lens,
        data_offset,
    })
}
