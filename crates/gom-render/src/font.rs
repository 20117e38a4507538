//! A 5x7 bitmap font for printable ASCII (32–126), drawn into [`Image`]s for the names
//! under sheet cells and the times under filmstrip frames.

use crate::image::Image;

/// Width of a glyph in font pixels.
pub const GLYPH_WIDTH: u32 = 5;
/// Height of a glyph cell in font pixels: seven rows down to the baseline and two
/// below it for descenders.
pub const GLYPH_HEIGHT: u32 = 9;
/// The row (from the top) the letters stand on; only descenders reach below it.
pub const BASELINE_ROW: usize = 6;
/// Horizontal distance from one glyph to the next, in font pixels (one blank column).
pub const ADVANCE: u32 = 6;

/// The two rows below the baseline of the letters that reach there.
const DESCENDERS: [(char, [u8; 2]); 5] = [
    ('g', [0b00001, 0b01110]),
    ('j', [0b10010, 0b01100]),
    ('p', [0b10000, 0b10000]),
    ('q', [0b00001, 0b00001]),
    ('y', [0b00001, 0b01110]),
];

/// Rows of each glyph from the top down to the baseline; bit 4 is the leftmost column.
const GLYPHS: [[u8; 7]; 95] = [
    // ' '
    [
        0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000,
    ],
    // '!'
    [
        0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00100,
    ],
    // '"'
    [
        0b01010, 0b01010, 0b01010, 0b00000, 0b00000, 0b00000, 0b00000,
    ],
    // '#'
    [
        0b01010, 0b01010, 0b11111, 0b01010, 0b11111, 0b01010, 0b01010,
    ],
    // '$'
    [
        0b00100, 0b01111, 0b10100, 0b01110, 0b00101, 0b11110, 0b00100,
    ],
    // '%'
    [
        0b11000, 0b11001, 0b00010, 0b00100, 0b01000, 0b10011, 0b00011,
    ],
    // '&'
    [
        0b01100, 0b10010, 0b10100, 0b01000, 0b10101, 0b10010, 0b01101,
    ],
    // "'"
    [
        0b00100, 0b00100, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000,
    ],
    // '('
    [
        0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010,
    ],
    // ')'
    [
        0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000,
    ],
    // '*'
    [
        0b00000, 0b00100, 0b10101, 0b01110, 0b10101, 0b00100, 0b00000,
    ],
    // '+'
    [
        0b00000, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0b00000,
    ],
    // ','
    [
        0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b00100, 0b01000,
    ],
    // '-'
    [
        0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000,
    ],
    // '.'
    [
        0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100,
    ],
    // '/'
    [
        0b00000, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b00000,
    ],
    // '0'
    [
        0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110,
    ],
    // '1'
    [
        0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
    ],
    // '2'
    [
        0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111,
    ],
    // '3'
    [
        0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110,
    ],
    // '4'
    [
        0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010,
    ],
    // '5'
    [
        0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110,
    ],
    // '6'
    [
        0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110,
    ],
    // '7'
    [
        0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000,
    ],
    // '8'
    [
        0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110,
    ],
    // '9'
    [
        0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100,
    ],
    // ':'
    [
        0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000,
    ],
    // ';'
    [
        0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b00100, 0b01000,
    ],
    // '<'
    [
        0b00010, 0b00100, 0b01000, 0b10000, 0b01000, 0b00100, 0b00010,
    ],
    // '='
    [
        0b00000, 0b00000, 0b11111, 0b00000, 0b11111, 0b00000, 0b00000,
    ],
    // '>'
    [
        0b01000, 0b00100, 0b00010, 0b00001, 0b00010, 0b00100, 0b01000,
    ],
    // '?'
    [
        0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b00000, 0b00100,
    ],
    // '@'
    [
        0b01110, 0b10001, 0b00001, 0b01101, 0b10101, 0b10101, 0b01110,
    ],
    // 'A'
    [
        0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,
    ],
    // 'B'
    [
        0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110,
    ],
    // 'C'
    [
        0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110,
    ],
    // 'D'
    [
        0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100,
    ],
    // 'E'
    [
        0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111,
    ],
    // 'F'
    [
        0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000,
    ],
    // 'G'
    [
        0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111,
    ],
    // 'H'
    [
        0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,
    ],
    // 'I'
    [
        0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
    ],
    // 'J'
    [
        0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100,
    ],
    // 'K'
    [
        0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001,
    ],
    // 'L'
    [
        0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111,
    ],
    // 'M'
    [
        0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001,
    ],
    // 'N'
    [
        0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001,
    ],
    // 'O'
    [
        0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110,
    ],
    // 'P'
    [
        0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000,
    ],
    // 'Q'
    [
        0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101,
    ],
    // 'R'
    [
        0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001,
    ],
    // 'S'
    [
        0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110,
    ],
    // 'T'
    [
        0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100,
    ],
    // 'U'
    [
        0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110,
    ],
    // 'V'
    [
        0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100,
    ],
    // 'W'
    [
        0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010,
    ],
    // 'X'
    [
        0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001,
    ],
    // 'Y'
    [
        0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100,
    ],
    // 'Z'
    [
        0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111,
    ],
    // '['
    [
        0b01110, 0b01000, 0b01000, 0b01000, 0b01000, 0b01000, 0b01110,
    ],
    // '\\'
    [
        0b00000, 0b10000, 0b01000, 0b00100, 0b00010, 0b00001, 0b00000,
    ],
    // ']'
    [
        0b01110, 0b00010, 0b00010, 0b00010, 0b00010, 0b00010, 0b01110,
    ],
    // '^'
    [
        0b00100, 0b01010, 0b10001, 0b00000, 0b00000, 0b00000, 0b00000,
    ],
    // '_'
    [
        0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b11111,
    ],
    // '`'
    [
        0b01000, 0b00100, 0b00010, 0b00000, 0b00000, 0b00000, 0b00000,
    ],
    // 'a'
    [
        0b00000, 0b00000, 0b01110, 0b00001, 0b01111, 0b10001, 0b01111,
    ],
    // 'b'
    [
        0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b11110,
    ],
    // 'c'
    [
        0b00000, 0b00000, 0b01110, 0b10000, 0b10000, 0b10001, 0b01110,
    ],
    // 'd'
    [
        0b00001, 0b00001, 0b01101, 0b10011, 0b10001, 0b10001, 0b01111,
    ],
    // 'e'
    [
        0b00000, 0b00000, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110,
    ],
    // 'f'
    [
        0b00110, 0b01001, 0b01000, 0b11100, 0b01000, 0b01000, 0b01000,
    ],
    // 'g' (descender in DESCENDERS)
    [
        0b00000, 0b00000, 0b01111, 0b10001, 0b10001, 0b10001, 0b01111,
    ],
    // 'h'
    [
        0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001,
    ],
    // 'i'
    [
        0b00100, 0b00000, 0b01100, 0b00100, 0b00100, 0b00100, 0b01110,
    ],
    // 'j' (descender in DESCENDERS)
    [
        0b00010, 0b00000, 0b00110, 0b00010, 0b00010, 0b00010, 0b00010,
    ],
    // 'k'
    [
        0b10000, 0b10000, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010,
    ],
    // 'l'
    [
        0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
    ],
    // 'm'
    [
        0b00000, 0b00000, 0b11010, 0b10101, 0b10101, 0b10001, 0b10001,
    ],
    // 'n'
    [
        0b00000, 0b00000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001,
    ],
    // 'o'
    [
        0b00000, 0b00000, 0b01110, 0b10001, 0b10001, 0b10001, 0b01110,
    ],
    // 'p' (descender in DESCENDERS)
    [
        0b00000, 0b00000, 0b11110, 0b10001, 0b10001, 0b10001, 0b11110,
    ],
    // 'q' (descender in DESCENDERS)
    [
        0b00000, 0b00000, 0b01111, 0b10001, 0b10001, 0b10001, 0b01111,
    ],
    // 'r'
    [
        0b00000, 0b00000, 0b10110, 0b11001, 0b10000, 0b10000, 0b10000,
    ],
    // 's'
    [
        0b00000, 0b00000, 0b01110, 0b10000, 0b01110, 0b00001, 0b11110,
    ],
    // 't'
    [
        0b01000, 0b01000, 0b11100, 0b01000, 0b01000, 0b01001, 0b00110,
    ],
    // 'u'
    [
        0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b10011, 0b01101,
    ],
    // 'v'
    [
        0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100,
    ],
    // 'w'
    [
        0b00000, 0b00000, 0b10001, 0b10001, 0b10101, 0b10101, 0b01010,
    ],
    // 'x'
    [
        0b00000, 0b00000, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001,
    ],
    // 'y' (descender in DESCENDERS)
    [
        0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b10001, 0b01111,
    ],
    // 'z'
    [
        0b00000, 0b00000, 0b11111, 0b00010, 0b00100, 0b01000, 0b11111,
    ],
    // '{'
    [
        0b00010, 0b00100, 0b00100, 0b01000, 0b00100, 0b00100, 0b00010,
    ],
    // '|'
    [
        0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100,
    ],
    // '}'
    [
        0b01000, 0b00100, 0b00100, 0b00010, 0b00100, 0b00100, 0b01000,
    ],
    // '~'
    [
        0b00000, 0b00000, 0b01000, 0b10101, 0b00010, 0b00000, 0b00000,
    ],
];

/// The rows of the glyph for `c`, baseline and descender rows included; characters
/// outside 32–126 draw as `?`.
pub fn glyph(c: char) -> [u8; GLYPH_HEIGHT as usize] {
    let code = u32::from(c);
    let index = if (32..=126).contains(&code) {
        code - 32
    } else {
        u32::from(b'?') - 32
    };
    let mut rows = [0u8; GLYPH_HEIGHT as usize];
    rows[..=BASELINE_ROW].copy_from_slice(&GLYPHS[index as usize]);
    if let Some((_, below)) = DESCENDERS.iter().find(|(d, _)| *d == c) {
        rows[BASELINE_ROW + 1..].copy_from_slice(below);
    }
    rows
}

/// Width in image pixels of `text` drawn at `scale` (no trailing blank column).
pub fn text_width(text: &str, scale: u32) -> u32 {
    let n = text.chars().count() as u32;
    if n == 0 {
        0
    } else {
        (n * ADVANCE - 1).saturating_mul(scale)
    }
}

/// Draws `text` with its top-left corner at (`x`, `y`), each font pixel a
/// `scale`×`scale` square of `color`. Pixels outside the image are skipped.
pub fn draw_text(image: &mut Image, x: i64, y: i64, text: &str, scale: u32, color: [u8; 4]) {
    let s = i64::from(scale.max(1));
    let mut pen = x;
    for c in text.chars() {
        let rows = glyph(c);
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..GLYPH_WIDTH {
                if bits & (1 << (GLYPH_WIDTH - 1 - col)) != 0 {
                    let px = pen + i64::from(col) * s;
                    let py = y + row as i64 * s;
                    image.fill_rect(px, py, s, s, color);
                }
            }
        }
        pen += i64::from(ADVANCE) * s;
    }
}

/// Shortens `text` to at most `max_chars` characters, ending it with `~` when cut.
pub fn fit_text(text: &str, max_chars: usize) -> String {
    let n = text.chars().count();
    if n <= max_chars {
        return text.to_string();
    }
    if max_chars == 0 {
        return String::new();
    }
    let mut s: String = text.chars().take(max_chars - 1).collect();
    s.push('~');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_printable_character_has_a_glyph_and_only_space_is_blank() {
        for code in 32u8..=126 {
            let g = glyph(char::from(code));
            let blank = g.iter().all(|r| *r == 0);
            assert_eq!(blank, code == b' ', "glyph {code}");
            assert!(g.iter().all(|r| *r < 32), "glyph {code} is wider than 5");
        }
    }

    #[test]
    fn letter_h_draws_its_two_columns_and_crossbar() {
        let mut img = Image::new(5, 7, [0, 0, 0, 255]).unwrap();
        draw_text(&mut img, 0, 0, "H", 1, [255, 255, 255, 255]);
        let on = |x, y| img.pixel(x, y) == Some([255, 255, 255, 255]);
        for y in 0..7 {
            assert!(on(0, y) && on(4, y), "row {y}");
            assert_eq!(on(2, y), y == 3, "row {y}");
        }
    }

    #[test]
    fn only_g_j_p_q_y_have_ink_below_the_baseline() {
        for code in 32u8..=126 {
            let c = char::from(code);
            let g = glyph(c);
            let below = g[BASELINE_ROW + 1..].iter().any(|r| *r != 0);
            assert_eq!(below, "gjpqy".contains(c), "glyph '{c}'");
            // Every descender letter also has its bowl or stem down to the baseline.
            if below {
                assert_ne!(g[BASELINE_ROW], 0, "glyph '{c}' floats above the baseline");
            }
        }
        // 'g' no longer reads as '9': its bowl closes on the baseline, below the
        // digit's own bottom row.
        assert_ne!(glyph('g'), glyph('9'));
        assert_eq!(glyph('g')[BASELINE_ROW], 0b01111);
    }

    #[test]
    fn fit_text_cuts_long_names_with_a_marker() {
        assert_eq!(fit_text("raptor", 10), "raptor");
        assert_eq!(fit_text("velociraptor", 6), "veloc~");
        assert_eq!(text_width("ab", 2), 22);
    }
}
