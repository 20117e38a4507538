//! Printing `f32` values in GOMT: the shortest decimal text that reads back to the same
//! bits, in JSON number syntax.

use std::fmt::Write;

/// Appends the shortest JSON number text that parses back to exactly `v`.
///
/// Zero (either sign) prints as `0` (D13 writes +0.0 for zero). Magnitudes in
/// `[1e-5, 1e16)` print in plain decimal (`0.5`, `-12.25`, `1000`), all others with an
/// exponent (`1e-30`, `3.4028235e38`, `1e-45`). Both forms carry the fewest significant
/// digits that round-trip through a correctly rounded `f32` parse. The caller makes sure
/// `v` is finite.
pub fn push_f32(out: &mut String, v: f32) {
    if v == 0.0 {
        out.push('0');
        return;
    }
    let a = v.abs();
    // Writing to a String cannot fail.
    let _ = if (1e-5..1e16).contains(&a) {
        write!(out, "{v}")
    } else {
        write!(out, "{v:e}")
    };
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
        assert_eq!(format_f32(0.00001), "0.00001");
    }
}
