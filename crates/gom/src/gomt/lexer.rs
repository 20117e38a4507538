//! The GOMT0001 lexer: whitespace and comments, punctuation, names, numbers and strings,
//! read straight from the text's bytes without allocating per token.

use super::error::{TextError, TextErrorKind};

/// How deep [`Lexer::skip_value`] follows nested tables and arrays.
pub(crate) const MAX_SKIP_DEPTH: usize = 128;

/// A cursor over a GOMT text.
pub(crate) struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

/// A number token: its text and whether it has a fraction or exponent part.
#[derive(Clone, Copy)]
pub(crate) struct Number<'a> {
    pub text: &'a str,
    pub integral: bool,
    pub pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    /// The current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to byte offset `pos` (a token start found by an earlier pass).
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.bytes.len());
    }

    /// Checks the first line, `GOMT0001`, and moves past it.
    pub fn magic(&mut self) -> Result<(), TextError> {
        if self.bytes.starts_with(b"\xEF\xBB\xBF") {
            return Err(self.error_at(0, TextErrorKind::ByteOrderMark));
        }
        let rest = match self.bytes.strip_prefix(b"GOMT0001") {
            Some(rest) => rest,
            None => return Err(self.error_at(0, TextErrorKind::Magic)),
        };
        let eol = if rest.starts_with(b"\n") {
            1
        } else if rest.starts_with(b"\r\n") {
            2
        } else if rest.is_empty() {
            0
        } else {
            return Err(self.error_at(8, TextErrorKind::Magic));
        };
        self.pos = 8 + eol;
        Ok(())
    }

    /// Skips whitespace and `#` comments.
    #[inline]
    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'#' => {
                    self.pos += 1;
                    while let Some(&c) = self.bytes.get(self.pos) {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// Whether only whitespace and comments remain.
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.bytes.len()
    }

    /// The next significant byte, without consuming it.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// Consumes `b` if it is the next significant byte.
    #[inline]
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `b` or fails with "expected `what`". Returns the byte offset of `b`.
    #[inline]
    pub fn expect(&mut self, b: u8, what: &'static str) -> Result<usize, TextError> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(self.pos - 1)
        } else {
            Err(self.expected(what))
        }
    }

    /// After an element of an array or table: consumes `,` and returns `true` when
    /// another element may follow, or consumes `close` and returns `false`.
    #[inline]
    pub fn separator(&mut self, close: u8, what: &'static str) -> Result<bool, TextError> {
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A name: `[A-Za-z_][A-Za-z0-9_]*`. Returns it with its byte offset.
    #[inline]
    pub fn name(&mut self, what: &'static str) -> Result<(&'a str, usize), TextError> {
        self.skip_ws();
        let start = self.pos;
        match self.bytes.get(start) {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
            _ => return Err(self.expected(what)),
        }
        let mut end = start + 1;
        while let Some(b) = self.bytes.get(end) {
            if b.is_ascii_alphanumeric() || *b == b'_' {
                end += 1;
            } else {
                break;
            }
        }
        self.pos = end;
        // The name is ASCII, so both ends are character boundaries.
        let name = self.text.get(start..end).unwrap_or("");
        Ok((name, start))
    }

    /// A number in JSON syntax: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    #[inline]
    pub fn number(&mut self, what: &'static str) -> Result<Number<'a>, TextError> {
        self.skip_ws();
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                i += 1;
                while matches!(b.get(i), Some(b'0'..=b'9')) {
                    i += 1;
                }
            }
            _ => {
                if i > start {
                    return Err(self.malformed_number(start, i));
                }
                return Err(self.expected(what));
            }
        }
        let mut integral = true;
        if b.get(i) == Some(&b'.') {
            integral = false;
            i += 1;
            if !matches!(b.get(i), Some(b'0'..=b'9')) {
                return Err(self.malformed_number(start, i));
            }
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            integral = false;
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(b.get(i), Some(b'0'..=b'9')) {
                return Err(self.malformed_number(start, i));
            }
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        // A number glued to a name character (`01`, `1x`, `1.5.2`) is malformed.
        if matches!(b.get(i), Some(c) if c.is_ascii_alphanumeric() || *c == b'.' || *c == b'_') {
            return Err(self.malformed_number(start, i));
        }
        self.pos = i;
        Ok(Number {
            text: self.text.get(start..i).unwrap_or(""),
            integral,
            pos: start,
        })
    }

    fn malformed_number(&self, start: usize, _at: usize) -> TextError {
        self.expected_at(start, "a number in JSON syntax")
    }

    /// A 32-bit float, correctly rounded from the decimal text; -0 becomes +0 (D13).
    #[inline]
    pub fn f32(&mut self, what: &'static str) -> Result<f32, TextError> {
        let n = self.number(what)?;
        match n.text.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(if v == 0.0 { 0.0 } else { v }),
            _ => Err(self.error_at(
                n.pos,
                TextErrorKind::OutOfRange {
                    text: n.text.to_string(),
                    field: what,
                    range: "a finite 32-bit float, |x| < 3.4028236e38",
                },
            )),
        }
    }

    /// An integer in `min..=max`; `range` describes the range in words.
    #[inline]
    pub fn int(
        &mut self,
        what: &'static str,
        min: i64,
        max: i64,
        range: &'static str,
    ) -> Result<i64, TextError> {
        let n = self.number(what)?;
        if !n.integral {
            return Err(self.error_at(
                n.pos,
                TextErrorKind::Expected {
                    expected: what,
                    found: format!("the non-integer number `{}`", n.text),
                },
            ));
        }
        let digits = n.text.as_bytes();
        let (neg, digits) = match digits.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, digits),
        };
        let mut v: i64 = 0;
        let mut overflow = false;
        for d in digits {
            match v
                .checked_mul(10)
                .and_then(|x| x.checked_add(i64::from(d - b'0')))
            {
                Some(x) => v = x,
                None => {
                    overflow = true;
                    break;
                }
            }
        }
        if neg {
            v = -v;
        }
        if overflow || v < min || v > max {
            return Err(self.error_at(
                n.pos,
                TextErrorKind::OutOfRange {
                    text: n.text.to_string(),
                    field: what,
                    range,
                },
            ));
        }
        Ok(v)
    }

    /// A string literal with escapes `\" \\ \n \t \uXXXX` (surrogate pairs joined).
    /// Raw control characters and NUL are refused.
    pub fn string(&mut self, what: &'static str) -> Result<(String, usize), TextError> {
        self.skip_ws();
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"') {
            return Err(self.expected(what));
        }
        let mut out = String::new();
        let mut i = start + 1;
        let mut run = i; // start of the current run of plain characters
        loop {
            let Some(&b) = self.bytes.get(i) else {
                return Err(self.error_at(
                    start,
                    TextErrorKind::BadString("the string is not closed before the end of the text"),
                ));
            };
            match b {
                b'"' => {
                    out.push_str(self.text.get(run..i).unwrap_or(""));
                    self.pos = i + 1;
                    return Ok((out, start));
                }
                b'\\' => {
                    out.push_str(self.text.get(run..i).unwrap_or(""));
                    let esc = self.bytes.get(i + 1).copied();
                    match esc {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'n') => out.push('\n'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let (c, len) = self.unicode_escape(i)?;
                            out.push(c);
                            i += len;
                            run = i;
                            continue;
                        }
                        _ => return Err(self.error_at(
                            i,
                            TextErrorKind::BadString(
                                "unknown escape; GOMT strings allow \\\" \\\\ \\n \\t and \\uXXXX",
                            ),
                        )),
                    }
                    i += 2;
                    run = i;
                }
                0x00..=0x1F | 0x7F => {
                    return Err(self.error_at(
                        i,
                        TextErrorKind::BadString(
                            "control characters in strings must be written as \\uXXXX escapes",
                        ),
                    ))
                }
                _ => i += 1,
            }
        }
    }

    /// Decodes `\uXXXX` (or a surrogate pair `\uXXXX\uXXXX`) at `at`; returns the
    /// character and the number of bytes consumed.
    fn unicode_escape(&self, at: usize) -> Result<(char, usize), TextError> {
        let hex4 = |p: usize| -> Option<u32> {
            let s = self.bytes.get(p..p + 4)?;
            let mut v = 0u32;
            for &h in s {
                v = v * 16 + char::from(h).to_digit(16)?;
            }
            Some(v)
        };
        let bad = |kind: &'static str| self.error_at(at, TextErrorKind::BadString(kind));
        let hi =
            hex4(at + 2).ok_or_else(|| bad("\\u must be followed by four hexadecimal digits"))?;
        let (code, len) = if (0xD800..0xDC00).contains(&hi) {
            let lo = if self.bytes.get(at + 6..at + 8) == Some(b"\\u") {
                hex4(at + 8)
            } else {
                None
            };
            match lo {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    (0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 12)
                }
                _ => return Err(bad("a high surrogate escape must be followed by a low one")),
            }
        } else {
            (hi, 6)
        };
        if code == 0 {
            return Err(bad("GOM strings cannot contain NUL (\\u0000)"));
        }
        match char::from_u32(code) {
            Some(c) => Ok((c, len)),
            None => Err(bad(
                "the escape names no Unicode scalar value (lone surrogate)",
            )),
        }
    }

    /// Skips any value (used for unknown top-level names), checking its syntax.
    pub fn skip_value(&mut self, depth: usize) -> Result<(), TextError> {
        if depth >= MAX_SKIP_DEPTH {
            // Point at the value that is one level too deep, not at the space before it.
            self.skip_ws();
            let p = self.pos;
            return Err(self.error_at(p, TextErrorKind::TooDeep(MAX_SKIP_DEPTH)));
        }
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                loop {
                    if self.eat(b'}') {
                        return Ok(());
                    }
                    self.name("a key or `}`")?;
                    self.expect(b'=', "`=`")?;
                    self.skip_value(depth + 1)?;
                    if !self.separator(b'}', "`,` or `}`")? {
                        return Ok(());
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                loop {
                    if self.eat(b']') {
                        return Ok(());
                    }
                    self.skip_value(depth + 1)?;
                    if !self.separator(b']', "`,` or `]`")? {
                        return Ok(());
                    }
                }
            }
            Some(b'"') => self.string("a value").map(|_| ()),
            Some(b'-' | b'0'..=b'9') => self.f32("a value").map(|_| ()),
            Some(b't' | b'f') => {
                let (n, p) = self.name("a value")?;
                if n == "true" || n == "false" {
                    Ok(())
                } else {
                    Err(self.expected_at(p, "a value"))
                }
            }
            _ => Err(self.expected("a value")),
        }
    }

    /// "expected `what`, found …" at the current significant position.
    pub fn expected(&mut self, what: &'static str) -> TextError {
        self.skip_ws();
        let p = self.pos;
        self.expected_at(p, what)
    }

    /// "expected `what`, found …" at byte offset `at`.
    pub fn expected_at(&self, at: usize, what: &'static str) -> TextError {
        self.error_at(
            at,
            TextErrorKind::Expected {
                expected: what,
                found: describe(self.text, at),
            },
        )
    }

    /// An error of `kind` at byte offset `at`, with its line and column.
    pub fn error_at(&self, at: usize, kind: TextErrorKind) -> TextError {
        let (line, column) = line_column(self.text, at);
        TextError {
            line,
            column,
            offset: at,
            kind,
        }
    }
}

/// 1-based line and column (in characters) of byte offset `at`.
pub(crate) fn line_column(text: &str, at: usize) -> (u32, u32) {
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = match text.get(line_start..at) {
        Some(s) => s.chars().count() + 1,
        None => at - line_start + 1,
    };
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// Describes the token at byte offset `at` for an error message.
fn describe(text: &str, at: usize) -> String {
    let rest = text.get(at..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return "the end of the text".to_string();
    };
    let token: String = if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
        rest.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.'))
            .take(40)
            .collect()
    } else if c == '"' {
        return "a string".to_string();
    } else if c == '\n' || c == '\r' {
        return "the end of the line".to_string();
    } else {
        c.to_string()
    };
    format!("`{token}`")
}
