//! Bounds-checked little-endian reading inside one region of the file, and the walk
//! over a sequence of chunks (D4).

use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::validate::finite_bits;

/// The little-endian u32 at the start of `s` (`s` has at least 4 bytes).
#[inline(always)]
pub(crate) fn le32(s: &[u8]) -> u32 {
    u32::from_le_bytes([s[0], s[1], s[2], s[3]])
}

/// The little-endian f32 at the start of `s` (`s` has at least 4 bytes).
#[inline(always)]
pub(crate) fn lef32(s: &[u8]) -> f32 {
    f32::from_bits(le32(s))
}

/// Reads fields one after the other inside `[pos, end)` of the file.
pub(crate) struct Cur<'a> {
    pub file: &'a [u8],
    pub pos: usize,
    pub end: usize,
    pub place: Place,
}

impl<'a> Cur<'a> {
    pub fn new(file: &'a [u8], pos: usize, end: usize, place: Place) -> Cur<'a> {
        Cur {
            file,
            pos,
            end,
            place,
        }
    }

    pub fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }

    /// The next `n` bytes, or an error naming `field` when fewer remain.
    pub fn take(&mut self, n: u64, field: &'static str) -> Result<&'a [u8], ReadError> {
        let avail = self.remaining();
        let s = usize::try_from(n)
            .ok()
            .filter(|&n| n <= avail)
            .and_then(|n| self.file.get(self.pos..self.pos + n));
        match s {
            Some(s) => {
                self.pos += s.len();
                Ok(s)
            }
            None => Err(ReadError {
                offset: self.pos as u64,
                place: self.place,
                field,
                kind: ReadErrorKind::Truncated {
                    needed: n,
                    available: avail as u64,
                },
            }),
        }
    }

    pub fn u32(&mut self, field: &'static str) -> Result<u32, ReadError> {
        self.take(4, field).map(le32)
    }

    /// A u32 count that must not exceed `limit` (D12); the error names its offset.
    pub fn u32_at_most(&mut self, field: &'static str, limit: u32) -> Result<u32, ReadError> {
        let at = self.pos;
        let value = self.u32(field)?;
        if value > limit {
            return Err(ReadError {
                offset: at as u64,
                place: self.place,
                field,
                kind: ReadErrorKind::Limit {
                    value: u64::from(value),
                    limit: u64::from(limit),
                },
            });
        }
        Ok(value)
    }

    pub fn i32(&mut self, field: &'static str) -> Result<i32, ReadError> {
        self.u32(field).map(|v| v as i32)
    }

    /// A finite f32.
    pub fn f32(&mut self, field: &'static str) -> Result<f32, ReadError> {
        let at = self.pos;
        let bits = self.u32(field)?;
        if !finite_bits(bits) {
            return Err(ReadError {
                offset: at as u64,
                place: self.place,
                field,
                kind: ReadErrorKind::NotFinite,
            });
        }
        Ok(f32::from_bits(bits))
    }

    /// `n` finite f32 values as raw bytes.
    pub fn floats(&mut self, n: u64, field: &'static str) -> Result<&'a [u8], ReadError> {
        let at = self.pos;
        let s = self.take(n.saturating_mul(4), field)?;
        check_finite(s, at, self.place, field)?;
        Ok(s)
    }

    /// `n` bytes that must be zero (a reserved field).
    pub fn reserved(&mut self, n: u64, field: &'static str) -> Result<(), ReadError> {
        let at = self.pos;
        let s = self.take(n, field)?;
        if let Some(k) = s.iter().position(|&b| b != 0) {
            return Err(ReadError {
                offset: (at + k) as u64,
                place: self.place,
                field,
                kind: ReadErrorKind::Reserved,
            });
        }
        Ok(())
    }

    /// The region must be used up exactly.
    pub fn finish(&self, after: &'static str) -> Result<(), ReadError> {
        if self.pos < self.end {
            return Err(ReadError {
                offset: self.pos as u64,
                place: self.place,
                field: after,
                kind: ReadErrorKind::Trailing {
                    count: (self.end - self.pos) as u64,
                },
            });
        }
        Ok(())
    }
}

/// Every 4-byte word of `s` is a finite f32.
pub(crate) fn check_finite(
    s: &[u8],
    at: usize,
    place: Place,
    field: &'static str,
) -> Result<(), ReadError> {
    for (k, w) in s.chunks_exact(4).enumerate() {
        if !finite_bits(le32(w)) {
            return Err(ReadError {
                offset: (at + 4 * k) as u64,
                place,
                field,
                kind: ReadErrorKind::NotFinite,
            });
        }
    }
    Ok(())
}

/// One chunk header (D4) whose payload and padding lie inside its container.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chunk {
    pub fourcc: FourCc,
    /// File offset of the chunk header.
    pub offset: usize,
    pub size: u32,
    pub version: u32,
    pub flags: u32,
}

impl Chunk {
    pub fn payload(&self) -> usize {
        self.offset + 16
    }
    pub fn payload_end(&self) -> usize {
        self.offset + 16 + self.size as usize
    }
    pub fn place(&self) -> Place {
        Place::Chunk(self.fourcc)
    }
    /// A cursor over the payload.
    pub fn cur<'a>(&self, file: &'a [u8]) -> Cur<'a> {
        Cur::new(file, self.payload(), self.payload_end(), self.place())
    }
}

/// Rounds up to a multiple of 16.
pub(crate) fn align16(x: u64) -> u64 {
    (x + 15) & !15
}

/// Walks the chunks of `[pos, end)`, checking that each chunk's payload and padding
/// fit and that the padding is zero.
pub(crate) struct Chunks<'a> {
    pub file: &'a [u8],
    pub pos: usize,
    pub end: usize,
    /// The container, for errors about a header that does not fit.
    pub parent: Place,
    pub failed: bool,
}

impl<'a> Chunks<'a> {
    pub fn new(file: &'a [u8], pos: usize, end: usize, parent: Place) -> Chunks<'a> {
        Chunks {
            file,
            pos,
            end,
            parent,
            failed: false,
        }
    }

    fn step(&mut self) -> Result<Chunk, ReadError> {
        let at = self.pos;
        let avail = self.end - at;
        if avail < 16 {
            let place = match self.file.get(at..at + 4) {
                Some(f) if avail >= 4 => Place::Chunk(FourCc([f[0], f[1], f[2], f[3]])),
                _ => self.parent,
            };
            return Err(ReadError {
                offset: at as u64,
                place,
                field: "chunk header",
                kind: ReadErrorKind::Truncated {
                    needed: 16,
                    available: avail as u64,
                },
            });
        }
        let h = self.file.get(at..at + 16).ok_or(ReadError {
            offset: at as u64,
            place: self.parent,
            field: "chunk header",
            kind: ReadErrorKind::Truncated {
                needed: 16,
                available: 0,
            },
        })?;
        let fourcc = FourCc([h[0], h[1], h[2], h[3]]);
        let size = le32(&h[4..]);
        let c = Chunk {
            fourcc,
            offset: at,
            size,
            version: le32(&h[8..]),
            flags: le32(&h[12..]),
        };
        let payload_end = at as u64 + 16 + u64::from(size);
        if payload_end > self.end as u64 {
            return Err(ReadError {
                offset: at as u64 + 4,
                place: c.place(),
                field: "size",
                kind: ReadErrorKind::Overrun {
                    size: u64::from(size),
                    available: (avail - 16) as u64,
                },
            });
        }
        let padded = align16(payload_end);
        if padded > self.end as u64 {
            return Err(ReadError {
                offset: payload_end,
                place: c.place(),
                field: "padding",
                kind: ReadErrorKind::Truncated {
                    needed: padded - payload_end,
                    available: self.end as u64 - payload_end,
                },
            });
        }
        let pad = self
            .file
            .get(payload_end as usize..padded as usize)
            .unwrap_or(&[]);
        if let Some(k) = pad.iter().position(|&b| b != 0) {
            return Err(ReadError {
                offset: payload_end + k as u64,
                place: c.place(),
                field: "chunk padding",
                kind: ReadErrorKind::Padding,
            });
        }
        self.pos = padded as usize;
        Ok(c)
    }
}

impl Iterator for Chunks<'_> {
    type Item = Result<Chunk, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.end {
            return None;
        }
        let r = self.step();
        if r.is_err() {
            self.failed = true;
        }
        Some(r)
    }
}

/// A known chunk has version 1 and header flags 0 (D4).
/// A broken rule of field `field` at file offset `at`.
pub(crate) fn rule(at: usize, place: Place, field: &'static str, reason: String) -> ReadError {
    ReadError {
        offset: at as u64,
        place,
        field,
        kind: ReadErrorKind::Rule { reason },
    }
}

/// Field `field` at file offset `at` holds `v`, outside what `expected` says.
pub(crate) fn value(
    at: usize,
    place: Place,
    field: &'static str,
    v: u32,
    expected: &'static str,
) -> ReadError {
    ReadError {
        offset: at as u64,
        place,
        field,
        kind: ReadErrorKind::Value {
            value: u64::from(v),
            expected,
        },
    }
}

pub(crate) fn check_known(c: &Chunk) -> Result<(), ReadError> {
    if c.version != 1 {
        return Err(ReadError {
            offset: c.offset as u64 + 8,
            place: c.place(),
            field: "version",
            kind: ReadErrorKind::Value {
                value: u64::from(c.version),
                expected: "1",
            },
        });
    }
    if c.flags != 0 {
        return Err(ReadError {
            offset: c.offset as u64 + 12,
            place: c.place(),
            field: "flags",
            kind: ReadErrorKind::Reserved,
        });
    }
    Ok(())
}
