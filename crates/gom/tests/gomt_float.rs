//! Float printing and parsing in GOMT: shortest round-trip text, valid JSON numbers,
//! correctly rounded parsing (no double rounding through f64), -0 read as +0.

use gom::gomt::{format_f32, read};
use gom_test_support::rng::Rng;

/// The significant digits and decimal exponent of a printed number:
/// value = digits × 10^exp.
fn decompose(s: &str) -> (String, i32) {
    let s = s.trim_start_matches('-');
    let (mantissa, exp) = match s.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits = format!("{int}{frac}");
    let mut exp = exp - frac.len() as i32;
    while digits.len() > 1 && digits.starts_with('0') {
        digits.remove(0);
    }
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
        exp += 1;
    }
    (digits, exp)
}

/// Whether a decimal with one significant digit fewer than `s` also reads back to
/// `v`: the two candidates bracketing `v` at that precision are tried (any shorter
/// decimal that reads back lies between one of them and `v`).
fn shorter_exists(s: &str, v: f32) -> bool {
    let (digits, exp) = decompose(s);
    if digits.len() <= 1 {
        return false;
    }
    let neg = v < 0.0;
    let head: u64 = digits[..digits.len() - 1].parse().unwrap();
    for cand in [head, head + 1] {
        let text = format!("{}{}e{}", if neg { "-" } else { "" }, cand, exp + 1);
        if text.parse::<f32>().ok().map(f32::to_bits) == Some(v.to_bits()) {
            return true;
        }
    }
    false
}

#[test]
fn the_shortness_check_catches_long_texts() {
    assert!(shorter_exists("0.100000001", 0.1));
    assert!(shorter_exists("0.30000001", 0.3));
    assert!(!shorter_exists("0.1", 0.1));
    assert!(!shorter_exists("3.4028235e38", f32::MAX));
}

#[test]
fn a_million_random_floats_print_shortest_and_read_back_exactly() {
    let mut rng = Rng::new(0x05EE_D0FF_10A7);
    let mut checked = 0u32;
    while checked < 1_000_000 {
        let bits = rng.next_u64() as u32;
        let v = f32::from_bits(bits);
        if !v.is_finite() {
            continue;
        }
        checked += 1;
        let s = format_f32(v);
        let back: f32 = s.parse().unwrap();
        let expected = if v == 0.0 { 0 } else { bits };
        assert_eq!(back.to_bits(), expected, "{v:e} printed as {s}");
        // JSON number syntax, checked by an independent JSON parser.
        assert!(
            serde_json::from_str::<serde_json::Number>(&s).is_ok(),
            "{s} is not a JSON number"
        );
        assert!(s.len() <= 15, "{s} is not compact");
        if checked.is_multiple_of(8) {
            assert!(
                !shorter_exists(&s, v),
                "{s} is not the shortest text for {v:e}"
            );
        }
    }
}

#[test]
fn special_values_print_compactly() {
    assert_eq!(format_f32(-0.0), "0");
    assert_eq!(format_f32(f32::from_bits(1)), "1e-45");
    assert_eq!(format_f32(f32::MIN_POSITIVE), "1.1754944e-38");
    assert_eq!(format_f32(-f32::MAX), "-3.4028235e38");
    assert_eq!(format_f32(1e-30), "1e-30");
    assert_eq!(format_f32(123456.5), "123456.5");
    assert_eq!(format_f32(0.1), "0.1");
}

/// A document whose single material factor is `[x, 0, 0, 1]`.
fn factor_of(x: &str) -> f32 {
    let text = format!(
        "GOMT0001\nHeader = {{ sourceHash = \"{}\", converterVersion = \"t\", \
         validationFlags = [], coordinateSystem = \"CS_LH_YUP_METERS\", \
         matrixConvention = \"MC_ROW_MAJOR_ROW_VECTOR_RIGHT_MUL\" }}\n\
         Skeleton = {{ bones = [] }}\n\
         Materials = [ {{ name = \"m\", baseColorFactor = [{x}, 0, 0, 1] }} ]\n",
        "0".repeat(64)
    );
    read(&text).unwrap().materials[0].base_color_factor[0]
}

#[test]
fn parsing_rounds_once_to_f32() {
    // Just above the midpoint between 1 and the next f32 (1 + 2^-23): the correct f32 is
    // 1 + 2^-23. Through f64 the excess is lost (the f64 is the exact midpoint), and
    // rounding that to f32 gives 1.0 (ties to even): double rounding.
    let x = "1.00000005960464477539062500000000001";
    assert_eq!(factor_of(x).to_bits(), 0x3F80_0001);
    assert_eq!((x.parse::<f64>().unwrap() as f32).to_bits(), 0x3F80_0000);
    // Just below the midpoint rounds down.
    assert_eq!(
        factor_of("1.00000005960464477539062499999").to_bits(),
        0x3F80_0000
    );
}

#[test]
fn negative_zero_reads_as_positive_zero() {
    assert_eq!(factor_of("-0").to_bits(), 0);
    assert_eq!(factor_of("-0.0e5").to_bits(), 0);
    // Underflow to zero is fine; overflow is an error (tested with positions elsewhere).
    assert_eq!(factor_of("1e-50").to_bits(), 0);
    assert_eq!(factor_of("1.4e-45").to_bits(), 1);
    assert_eq!(factor_of("3.4028235e38"), f32::MAX);
}
