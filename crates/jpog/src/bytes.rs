//! Bounds-checked little-endian reading and writing.

use crate::error::{Error, FileKind, Result};

/// A read cursor over a byte slice that names the file kind and current record in errors.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    kind: FileKind,
    /// The record being read, for error messages.
    pub record: String,
}

impl<'a> Reader<'a> {
    /// A cursor at offset 0.
    pub fn new(data: &'a [u8], kind: FileKind) -> Self {
        Reader {
            data,
            pos: 0,
            kind,
            record: String::from("header"),
        }
    }

    /// The current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left after the current offset.
    pub fn left(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// Moves to `pos`, which must lie inside the input (the end is allowed).
    pub fn seek(&mut self, pos: usize, field: &'static str) -> Result<()> {
        if pos > self.data.len() {
            return Err(self.err_at(
                field,
                pos,
                format!(
                    "offset {pos} lies beyond the end of the file ({} bytes)",
                    self.data.len()
                ),
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// An error at `offset` for the current record.
    pub fn err_at(&self, field: &'static str, offset: usize, problem: impl Into<String>) -> Error {
        Error::malformed(self.kind, self.record.clone(), field, offset, problem)
    }

    /// An error at the current offset.
    pub fn err(&self, field: &'static str, problem: impl Into<String>) -> Error {
        self.err_at(field, self.pos, problem)
    }

    /// Takes `n` bytes.
    pub fn bytes(&mut self, n: usize, field: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.err(
                field,
                format!("needs {n} bytes but only {} are left", self.left()),
            )),
        }
    }

    /// Takes a fixed-size array.
    pub fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N]> {
        let s = self.bytes(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// Reads a `u8`.
    pub fn u8(&mut self, field: &'static str) -> Result<u8> {
        Ok(self.array::<1>(field)?[0])
    }

    /// Reads a little-endian `u16`.
    pub fn u16(&mut self, field: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    /// Reads a little-endian `i16`.
    pub fn i16(&mut self, field: &'static str) -> Result<i16> {
        Ok(i16::from_le_bytes(self.array(field)?))
    }

    /// Reads a little-endian `u32`.
    pub fn u32(&mut self, field: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    /// Reads a little-endian `i32`.
    pub fn i32(&mut self, field: &'static str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(field)?))
    }

    /// Reads a little-endian `f32`.
    pub fn f32(&mut self, field: &'static str) -> Result<f32> {
        Ok(f32::from_le_bytes(self.array(field)?))
    }

    /// Reads `N` little-endian `f32`s.
    pub fn f32s<const N: usize>(&mut self, field: &'static str) -> Result<[f32; N]> {
        let mut a = [0f32; N];
        for v in &mut a {
            *v = self.f32(field)?;
        }
        Ok(a)
    }

    /// Checks that `count` items of `size` bytes fit in the bytes left, before allocating.
    pub fn check_count(&self, count: usize, size: usize, field: &'static str) -> Result<()> {
        match count.checked_mul(size) {
            Some(n) if n <= self.left() => Ok(()),
            _ => Err(self.err(
                field,
                format!(
                    "count {count} × {size} bytes does not fit in the {} bytes left",
                    self.left()
                ),
            )),
        }
    }
}

/// A little-endian byte writer; in hashing mode it keeps only an FNV-1a hash and a length.
#[derive(Default)]
pub(crate) struct Writer {
    /// The bytes written so far (empty in hashing mode).
    pub buf: Vec<u8>,
    hash: Option<(u64, usize)>,
}

impl Writer {
    /// A writer that only hashes what it is given.
    pub fn hasher() -> Self {
        Writer {
            buf: Vec::new(),
            hash: Some((0xcbf2_9ce4_8422_2325, 0)),
        }
    }

    /// Whether this writer only hashes.
    pub fn is_hasher(&self) -> bool {
        self.hash.is_some()
    }

    /// The hash (hashing mode) or the hash of the buffer.
    pub fn digest(&self) -> u64 {
        match self.hash {
            Some((h, n)) => h ^ (n as u64).rotate_left(32),
            None => {
                let mut w = Writer::hasher();
                w.bytes(&self.buf);
                w.digest()
            }
        }
    }

    /// Appends bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        match &mut self.hash {
            Some((h, n)) => {
                for &x in b {
                    *h = (*h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
                }
                *n += b.len();
            }
            None => self.buf.extend_from_slice(b),
        }
    }
    /// Appends a `u8`.
    pub fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }
    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends an `i16`.
    pub fn i16(&mut self, v: i16) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends an `i32`.
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends an `f32`.
    pub fn f32(&mut self, v: f32) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends `f32`s.
    pub fn f32s(&mut self, v: &[f32]) {
        for &x in v {
            self.f32(x);
        }
    }
}

/// The text of a fixed-size name field up to its first NUL (lossy for non-UTF-8 bytes).
pub(crate) fn field_text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// The bytes of a fixed-size name field up to its first NUL.
pub(crate) fn field_bytes(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// Converts a count or size to `u32`, refusing values that do not fit.
pub(crate) fn to_u32(kind: FileKind, n: usize, record: &str, field: &'static str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::refused(kind, record, field, "does not fit in 32 bits"))
}

/// A 16-byte name field holding `name` followed by NULs; refused when `name` has more
/// than 15 bytes or a NUL (the field must keep a terminating NUL).
pub(crate) fn name_field16(
    kind: FileKind,
    name: &str,
    record: &str,
    field: &'static str,
) -> Result<[u8; 16]> {
    let b = name.as_bytes();
    if b.len() > 15 || b.contains(&0) {
        return Err(Error::refused(
            kind,
            record,
            field,
            "holds at most 15 bytes and no NUL",
        ));
    }
    let mut f = [0u8; 16];
    f[..b.len()].copy_from_slice(b);
    Ok(f)
}

/// Refuses a 16-byte name field whose name (the bytes before the first NUL) has more
/// than 15 bytes, i.e. one without a terminating NUL.
pub(crate) fn check_name_field16(
    kind: FileKind,
    f: &[u8; 16],
    record: &str,
    field: &'static str,
) -> Result<()> {
    if field_bytes(f).len() > 15 {
        return Err(Error::refused(
            kind,
            record,
            field,
            "holds at most 15 bytes and a NUL",
        ));
    }
    Ok(())
}
