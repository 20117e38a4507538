//! BVH text as words: runs of bytes between ASCII whitespace, each with its line and
//! column. A line ends at LF, at CR LF, or at a CR alone, so files with any mix of line
//! endings read the same.

/// A word of the text and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    /// The bytes of the word (no whitespace).
    pub text: &'a [u8],
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

/// Splits BVH text into [`Word`]s, one at a time.
pub(crate) struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    peeked: Option<Option<Word<'a>>>,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Lexer<'a> {
        Lexer {
            bytes,
            pos: 0,
            line: 1,
            line_start: 0,
            peeked: None,
        }
    }

    /// The next word, or `None` at the end of the text.
    pub fn next_word(&mut self) -> Option<Word<'a>> {
        if let Some(w) = self.peeked.take() {
            return w;
        }
        self.scan()
    }

    /// The next word without consuming it.
    pub fn peek(&mut self) -> Option<Word<'a>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.scan());
        }
        self.peeked.flatten()
    }

    /// The line and column just past the last byte (for errors at the end).
    pub fn end(&self) -> (u32, u32) {
        let mut line = self.line;
        let mut start = self.line_start;
        let mut i = self.pos;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'\n' => {
                    line = line.saturating_add(1);
                    start = i + 1;
                }
                b'\r' if self.bytes.get(i + 1) != Some(&b'\n') => {
                    line = line.saturating_add(1);
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        (line, column(self.bytes.len() - start))
    }

    fn scan(&mut self) -> Option<Word<'a>> {
        let b = self.bytes;
        while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
            let c = b[self.pos];
            self.pos += 1;
            let ends_line = c == b'\n' || (c == b'\r' && b.get(self.pos) != Some(&b'\n'));
            if ends_line {
                self.line = self.line.saturating_add(1);
                self.line_start = self.pos;
            }
        }
        if self.pos >= b.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < b.len() && !b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        Some(Word {
            text: &b[start..self.pos],
            line: self.line,
            column: column(start - self.line_start),
        })
    }
}

/// A 1-based column from a 0-based byte count, saturated.
fn column(bytes_before: usize) -> u32 {
    u32::try_from(bytes_before)
        .unwrap_or(u32::MAX)
        .saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &[u8]) -> Vec<(String, u32, u32)> {
        let mut lexer = Lexer::new(text);
        std::iter::from_fn(|| lexer.next_word())
            .map(|w| {
                (
                    String::from_utf8_lossy(w.text).into_owned(),
                    w.line,
                    w.column,
                )
            })
            .collect()
    }

    #[test]
    fn lf_crlf_and_lone_cr_each_end_one_line() {
        let text = b"a b\nc\r\nd\re\t\x0cf\n\n  g";
        let want = [
            ("a", 1, 1),
            ("b", 1, 3),
            ("c", 2, 1),
            ("d", 3, 1),
            ("e", 4, 1),
            ("f", 4, 4),
            ("g", 6, 3),
        ];
        let got = words(text);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0.as_str(), g.1, g.2), w);
        }
    }

    #[test]
    fn the_end_position_follows_the_last_byte() {
        let mut lexer = Lexer::new(b"ab\r\ncd ");
        while lexer.next_word().is_some() {}
        assert_eq!(lexer.end(), (2, 4));
        let lexer = Lexer::new(b"ab\n");
        assert_eq!(lexer.end(), (2, 1));
    }
}
