//! Printing `f32` values in GOMT: the shortest decimal text that reads back to the same
//! bits, in JSON number syntax.

use std::fmt::Write;

/// Appends the shortest JSON number text that parses back to exactly `v`.
///
/// Zero (either sign) prints as `0` (D13 writes +0.0 for zero). Magnitudes in
/// `[1e-4, 1e7)` print in plain decimal (`0.5`, `-12.25`, `1000`); other magnitudes
/// print in whichever of the plain and the exponent form (`1e-30`, `3.4028235e38`,
/// `1e-45`) is shorter, plain on a tie. Both forms carry the fewest significant digits
/// that round-trip through a correctly rounded `f32` parse, so no text is longer than
/// 15 characters. The caller makes sure `v` is finite.
pub fn push_f32(out: &mut String, v: f32) {
    if v == 0.0 {
        out.push('0');
        return;
    }
    let a = v.abs();
    // Writing to a String cannot fail.
    if (1e-4..1e7).contains(&a) {
        let _ = write!(out, "{v}");
        return;
    }
    let start = out.len();
    let _ = write!(out, "{v}");
    let plain_len = out.len() - start;
    let mut exp = Small::default();
    let written = write!(exp, "{v:e}").is_ok();
    if let Some(e) = exp.as_str().filter(|e| written && e.len() < plain_len) {
        out.truncate(start);
        out.push_str(e);
    }
}

/// A stack buffer for one formatted float (at most 15 characters are ever kept).
#[derive(Default)]
struct Small {
    buf: [u8; 24],
    len: usize,
}

impl Small {
    fn as_str(&self) -> Option<&str> {
        core::str::from_utf8(self.buf.get(..self.len)?).ok()
    }
}

impl Write for Small {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(core::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The text [`push_f32`] appends for `v`.
pub fn format_f32(v: f32) -> String {
    let mut s = String::new();
    push_f32(&mut s, v);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_print_as_documented() {
        assert_eq!(format_f32(0.0), "0");
        assert_eq!(format_f32(-0.0), "0");
        assert_eq!(format_f32(1.0), "1");
        assert_eq!(format_f32(-2.5), "-2.5");
        assert_eq!(format_f32(0.1), "0.1");
        assert_eq!(format_f32(1e-30), "1e-30");
        assert_eq!(format_f32(f32::MAX), "3.4028235e38");
        assert_eq!(format_f32(f32::from_bits(1)), "1e-45");
        assert_eq!(format_f32(1e16), "1e16");
        assert_eq!(format_f32(1000.0), "1000");
        assert_eq!(format_f32(12345678.0), "12345678");
        assert_eq!(format_f32(5.482939e15), "5.482939e15");
        assert_eq!(format_f32(1e7), "1e7");
        assert_eq!(format_f32(-1.5e-6), "-1.5e-6");
        assert_eq!(format_f32(0.000015), "1.5e-5");
        assert_eq!(format_f32(0.0001), "0.0001");
        assert_eq!(format_f32(0.00001), "1e-5");
        assert_eq!(format_f32(0.0001), "0.0001");
    }
}
