//! Errors of the text form: where in the text a problem lies and what was expected.

/// A GOMT0001 text that cannot be read: the 1-based line and column of the problem and
/// what is wrong there.
///
/// Columns count characters (Unicode scalar values), not bytes, so they match what an
/// editor shows for text without tabs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("GOMT error at line {line}, column {column}: {kind}.")]
pub struct TextError {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte offset of the problem in the text.
    pub offset: usize,
    /// What is wrong.
    pub kind: TextErrorKind,
}

/// What is wrong in a GOMT0001 text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TextErrorKind {
    /// The first line is not exactly `GOMT0001`.
    #[error("the text must begin with the line `GOMT0001`")]
    Magic,
    /// The bytes are not valid UTF-8 (reported at the first invalid byte).
    #[error("the text is not valid UTF-8")]
    InvalidUtf8,
    /// The text starts with a UTF-8 byte order mark, which GOMT forbids.
    #[error("the text starts with a byte order mark; GOMT is UTF-8 without BOM")]
    ByteOrderMark,
    /// A token other than the expected one.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows here.
        expected: &'static str,
        /// A description of what stands there instead.
        found: String,
    },
    /// A key that the enclosing table does not define.
    #[error("unknown key `{key}` in {table}")]
    UnknownKey {
        /// The table, e.g. `a mesh`.
        table: &'static str,
        /// The key as written.
        key: String,
    },
    /// A key given twice in one table, or a top-level name given twice.
    #[error("`{key}` is given twice in {table}")]
    DuplicateKey {
        /// The table, e.g. `a bone`, or `the document`.
        table: &'static str,
        /// The repeated key.
        key: String,
    },
    /// A required key missing from a table (reported at the table's opening brace),
    /// or a required top-level name missing (reported at the end of the text).
    #[error("{table} lacks the required key `{key}`")]
    MissingKey {
        /// The table, e.g. `a clip`.
        table: &'static str,
        /// The missing key.
        key: &'static str,
    },
    /// A number outside the range of the field it is given for, or not finite as f32.
    #[error("the number `{text}` is out of range for {field} ({range})")]
    OutOfRange {
        /// The number as written.
        text: String,
        /// The field, e.g. `an index`.
        field: &'static str,
        /// The allowed range, in words.
        range: &'static str,
    },
    /// A syntactically correct value that the field does not allow.
    #[error("{0}")]
    InvalidValue(String),
    /// A malformed string literal: bad escape, raw control character, or NUL.
    #[error("{0}")]
    BadString(&'static str),
    /// Values nested deeper than a reader follows (in a skipped unknown value).
    #[error("values are nested more than {0} levels deep")]
    TooDeep(usize),
    /// The document parses but breaks a structural rule of GOM v1 (D7, D9, D13).
    #[error("{0}")]
    Structure(String),
}
