//! What every entry point does at the C boundary: catch panics, turn errors into codes
//! and `gom_error` records, and turn C pointers into checked slices.

use std::cell::RefCell;
use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::{
    GOM_E_ARGUMENT, GOM_E_COUNT, GOM_E_INTERNAL, GOM_E_INVALID, GOM_E_MISSING, GOM_E_NULL,
    GOM_E_READ, GOM_E_UNSUPPORTED, GOM_OK,
};

/// What went wrong: a `GOM_E_*` code, the byte offset in the file when the error
/// concerns file bytes (else 0), and a sentence in UTF-8, NUL-terminated, cut to fit.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gom_error {
    /// 0 (`GOM_OK`) when there was no error, else a `GOM_E_*` code.
    pub code: i32,
    /// The byte offset in the file the error concerns, 0 when it concerns none.
    pub offset: u64,
    /// The error as a sentence (UTF-8, NUL-terminated, at most 255 bytes).
    pub message: [c_char; 256],
}

/// An error on its way to C.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fail {
    pub code: i32,
    pub offset: u64,
    pub message: String,
}

impl Fail {
    pub(crate) fn new(code: i32, message: impl Into<String>) -> Self {
        Fail {
            code,
            offset: 0,
            message: message.into(),
        }
    }

    pub(crate) fn null(what: &str) -> Self {
        Fail::new(GOM_E_NULL, format!("`{what}` is NULL"))
    }

    pub(crate) fn count(what: &str, expected: usize, found: u32) -> Self {
        Fail::new(
            GOM_E_COUNT,
            format!("`{what}` is {found} but must be {expected}"),
        )
    }
}

impl From<gom_runtime::Error> for Fail {
    fn from(e: gom_runtime::Error) -> Self {
        use gom_runtime::Error as E;
        let (code, offset) = match &e {
            E::Read(r) => (GOM_E_READ, r.offset),
            E::BoneCount { .. } | E::BufferLength { .. } => (GOM_E_COUNT, 0),
            E::MissingAttribute { .. } => (GOM_E_MISSING, 0),
            E::Unsupported(_) => (GOM_E_UNSUPPORTED, 0),
            _ => (GOM_E_INVALID, 0),
        };
        Fail {
            code,
            offset,
            message: e.to_string(),
        }
    }
}

thread_local! {
    static LAST: RefCell<Option<Fail>> = const { RefCell::new(None) };
}

fn remember(fail: Option<Fail>) {
    // A thread being torn down has no last error to keep.
    let _ = LAST.try_with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            *l = fail;
        }
    });
}

/// Writes `fail` (or "no error") into `*err` when `err` is not NULL.
pub(crate) fn report(err: *mut gom_error, fail: Option<&Fail>) {
    if err.is_null() {
        return;
    }
    let mut record = gom_error {
        code: GOM_OK,
        offset: 0,
        message: [0; 256],
    };
    if let Some(f) = fail {
        record.code = f.code;
        record.offset = f.offset;
        let bytes = truncate_utf8(&f.message, record.message.len() - 1);
        for (d, &s) in record.message.iter_mut().zip(bytes) {
            *d = s as c_char;
        }
    }
    if err.align_offset(std::mem::align_of::<gom_error>()) != 0 {
        return;
    }
    // SAFETY: `err` is not NULL and aligned; the caller promises it points to a
    // writable `gom_error` (the header says so).
    unsafe { err.write(record) };
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary
/// and holds no NUL.
fn truncate_utf8(s: &str, max: usize) -> &[u8] {
    let s = s.split('\0').next().unwrap_or("");
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s.as_bytes()[..end]
}

/// Runs `f`, catching panics, and records the outcome as the thread's last error.
fn run<T>(f: impl FnOnce() -> Result<T, Fail>) -> Result<T, Fail> {
    let r = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Fail::new(
            GOM_E_INTERNAL,
            "internal error in libgom (a bug: please report it)",
        ))
    });
    remember(r.as_ref().err().cloned());
    r
}

/// An entry point returning a status: 0, or the error's code.
pub(crate) fn status(f: impl FnOnce() -> Result<(), Fail>) -> i32 {
    match run(f) {
        Ok(()) => GOM_OK,
        Err(e) => e.code,
    }
}

/// An entry point returning a value, `fallback` on error or panic.
pub(crate) fn value<T>(fallback: T, f: impl FnOnce() -> Option<T>) -> T {
    catch_unwind(AssertUnwindSafe(f))
        .ok()
        .flatten()
        .unwrap_or(fallback)
}

/// An entry point that creates an object and reports into a `gom_error`.
pub(crate) fn create<T>(err: *mut gom_error, f: impl FnOnce() -> Result<T, Fail>) -> *mut T {
    match run(f) {
        Ok(v) => {
            report(err, None);
            Box::into_raw(Box::new(v))
        }
        Err(e) => {
            report(err, Some(&e));
            std::ptr::null_mut()
        }
    }
}

/// Copies the calling thread's last error of an `int32_t`-returning call or a
/// creating call (`code` 0 when the last such call succeeded) into `*err`. Does
/// nothing when `err` is NULL. Any thread; each thread has its own last error.
#[no_mangle]
pub extern "C" fn gom_last_error(err: *mut gom_error) {
    let last = LAST
        .try_with(|l| l.try_borrow().ok().and_then(|l| l.clone()))
        .ok()
        .flatten();
    report(err, last.as_ref());
}

/// A shared reference from a C pointer, or `GOM_E_NULL`.
pub(crate) fn deref<'a, T>(p: *const T, what: &str) -> Result<&'a T, Fail> {
    if p.is_null() {
        return Err(Fail::null(what));
    }
    if p.align_offset(std::mem::align_of::<T>()) != 0 {
        return Err(Fail::new(GOM_E_ARGUMENT, format!("`{what}` is misaligned")));
    }
    // SAFETY: not NULL and aligned; the caller promises it points to a live `T` made
    // by this library (the header says so), not mutated during the call.
    Ok(unsafe { &*p })
}

/// The byte range `[start, end)` a slice of `len` `T`s at `p` covers.
fn span<T>(p: *const T, len: usize, what: &str) -> Result<(usize, usize), Fail> {
    let bytes = len
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Fail::new(GOM_E_ARGUMENT, format!("`{what}` is too large")))?;
    let start = p as usize;
    let end = start
        .checked_add(bytes)
        .ok_or_else(|| Fail::new(GOM_E_ARGUMENT, format!("`{what}` wraps around memory")))?;
    Ok((start, end))
}

fn check_pointer<T>(p: *const T, len: usize, what: &str) -> Result<bool, Fail> {
    if len == 0 {
        return Ok(false);
    }
    if p.is_null() {
        return Err(Fail::null(what));
    }
    if p.align_offset(std::mem::align_of::<T>()) != 0 {
        return Err(Fail::new(GOM_E_ARGUMENT, format!("`{what}` is misaligned")));
    }
    span(p, len, what)?;
    Ok(true)
}

/// `len` `T`s at `p` as a slice (empty, and `p` may be NULL, when `len` is 0).
pub(crate) fn slice<'a, T>(p: *const T, len: usize, what: &str) -> Result<&'a [T], Fail> {
    if !check_pointer(p, len, what)? {
        return Ok(&[]);
    }
    // SAFETY: not NULL, aligned, the size fits in isize; the caller promises `len`
    // readable `T`s at `p` that nothing writes during the call (the header says so);
    // outputs of the same call are checked not to overlap it (`disjoint`).
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// `len` `T`s at `p` as a mutable slice (empty, and `p` may be NULL, when `len` is 0).
pub(crate) fn slice_mut<'a, T>(p: *mut T, len: usize, what: &str) -> Result<&'a mut [T], Fail> {
    if !check_pointer(p, len, what)? {
        return Ok(&mut []);
    }
    // SAFETY: as in `slice`; the caller promises `len` writable `T`s at `p`, and the
    // call checks with `disjoint` that no other buffer it uses overlaps them.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// A named buffer of a call: where it is and how many bytes.
#[derive(Clone, Copy)]
pub(crate) struct Region<'n> {
    pub name: &'n str,
    pub start: usize,
    pub end: usize,
}

impl<'n> Region<'n> {
    /// The region of `len` `T`s at `p` (empty when `p` is NULL or `len` is 0).
    pub(crate) fn of<T>(name: &'n str, p: *const T, len: usize) -> Self {
        let (start, end) = if p.is_null() {
            (0, 0)
        } else {
            span(p, len, name).unwrap_or((0, 0))
        };
        Region { name, start, end }
    }

    fn overlaps(&self, o: &Region) -> bool {
        self.start < self.end && o.start < o.end && self.start < o.end && o.start < self.end
    }
}

/// An error when an output region overlaps any other region of the call (outputs
/// first in `outputs`, then inputs and the asset's bytes in `inputs`).
pub(crate) fn disjoint(outputs: &[Region], inputs: &[Region]) -> Result<(), Fail> {
    for (i, o) in outputs.iter().enumerate() {
        for other in outputs.iter().skip(i + 1).chain(inputs) {
            if o.overlaps(other) {
                return Err(Fail::new(
                    GOM_E_ARGUMENT,
                    format!("`{}` overlaps `{}`", o.name, other.name),
                ));
            }
        }
    }
    Ok(())
}

/// A C count as `usize` (always fits on the platforms Rust supports).
pub(crate) fn to_usize(n: u32) -> usize {
    n as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_cut_on_a_character_boundary() {
        // 'é' is two bytes: 3 bytes of "aéb" cut at 2 would split it.
        assert_eq!(truncate_utf8("aéb", 2), b"a");
        assert_eq!(truncate_utf8("aéb", 3), "aé".as_bytes());
        assert_eq!(truncate_utf8("a\0b", 10), b"a");
    }

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let code = status(|| panic!("boom"));
        assert_eq!(code, GOM_E_INTERNAL);
        let mut e = gom_error {
            code: 0,
            offset: 7,
            message: [1; 256],
        };
        gom_last_error(&mut e);
        assert_eq!(e.code, GOM_E_INTERNAL);
        assert_eq!(e.offset, 0);
        assert_eq!(value(-1, || -> Option<i32> { panic!("boom") }), -1);
    }

    #[test]
    fn overlapping_outputs_are_refused() {
        let buf = [0f32; 8];
        let a = Region::of("a", buf.as_ptr(), 4);
        let b = Region::of("b", buf[3..].as_ptr(), 4);
        let c = Region::of("c", buf[4..].as_ptr(), 4);
        assert_eq!(disjoint(&[a], &[b]).unwrap_err().code, GOM_E_ARGUMENT);
        let a = Region::of("a", buf.as_ptr(), 4);
        assert!(disjoint(&[a], &[c]).is_ok());
    }
}
