//! Why a BVH file could not be converted.

/// An error reading a BVH file. Text errors name the file, the line and the column
/// (1-based; the column counts bytes from the line's start).
#[derive(Debug, thiserror::Error)]
pub enum BvhError {
    /// The text breaks the BVH grammar or a limit at a place in the file.
    #[error("{file}: line {line}, column {column}: {kind}")]
    Syntax {
        /// The name given for the file.
        file: String,
        /// 1-based line.
        line: u32,
        /// 1-based column, in bytes.
        column: u32,
        /// What is wrong.
        kind: BvhErrorKind,
    },
    /// The text is well formed but its content does not fit GOM (a value that
    /// overflows `f32` once converted, more keys than a clip may hold).
    #[error("{file}: {record}: {problem}")]
    Invalid {
        /// The name given for the file.
        file: String,
        /// The record concerned (`joint "Hips" frame 12`, `clip "walk"`).
        record: String,
        /// What is wrong.
        problem: String,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
}

impl BvhError {
    /// The kind of a [`BvhError::Syntax`] error.
    pub fn kind(&self) -> Option<&BvhErrorKind> {
        match self {
            BvhError::Syntax { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// The line and column of a [`BvhError::Syntax`] error.
    pub fn line_column(&self) -> Option<(u32, u32)> {
        match self {
            BvhError::Syntax { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}

/// What is wrong at a place in a BVH file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BvhErrorKind {
    /// Another word was expected here.
    #[error("expected {expected}, found '{found}'")]
    Expected {
        /// What the grammar allows here.
        expected: &'static str,
        /// The word found (shortened to 40 bytes).
        found: String,
    },
    /// The file ends where the grammar needs more.
    #[error("the file ends where {expected} is expected")]
    UnexpectedEnd {
        /// What the grammar needs here.
        expected: &'static str,
    },
    /// A value that is not a finite decimal number.
    #[error("'{found}' is not a finite number")]
    NotANumber {
        /// The word found (shortened to 40 bytes).
        found: String,
    },
    /// A count (`CHANNELS n`, `Frames: n`) that is not a whole number in range.
    #[error("'{found}' is not a {what}")]
    BadCount {
        /// What the count counts.
        what: &'static str,
        /// The word found (shortened to 40 bytes).
        found: String,
    },
    /// A joint name with a control character (a NUL or other byte below 0x20, or
    /// 0x7F), which GOM's names may not hold.
    #[error("the joint name '{found}' holds the control character 0x{byte:02X}")]
    ControlInName {
        /// The name word (shortened to 40 bytes, lossy UTF-8).
        found: String,
        /// The first control byte.
        byte: u8,
    },
    /// A channel name other than `Xposition` … `Zrotation`.
    #[error("unknown channel '{found}' (a channel is Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation)")]
    UnknownChannel {
        /// The word found (shortened to 40 bytes).
        found: String,
    },
    /// A joint that names one channel twice.
    #[error("joint '{joint}' names the channel {channel} twice")]
    DuplicateChannel {
        /// The joint.
        joint: String,
        /// The channel named twice.
        channel: String,
    },
    /// A joint or End Site block with two `OFFSET`s or two `CHANNELS` lines.
    #[error("a second {what} in one block")]
    Repeated {
        /// `OFFSET` or `CHANNELS`.
        what: &'static str,
    },
    /// A block closed without its `OFFSET`.
    #[error("the block of '{joint}' ends without an OFFSET")]
    MissingOffset {
        /// The joint (or `End Site`).
        joint: String,
    },
    /// Joints nested deeper than GOM's bone limit.
    #[error("the hierarchy nests deeper than {limit} levels (GOM's limit of {limit} bones)")]
    TooDeep {
        /// The limit.
        limit: u32,
    },
    /// More joints (with the End Sites kept as bones) than a GOM skeleton may hold.
    #[error("more than {limit} bones (joints, and End Sites kept as bones): GOM's limit")]
    TooManyBones {
        /// The limit.
        limit: u32,
    },
    /// `Frame Time` that is not a positive finite number of seconds, or so small that
    /// two frames get the same `f32` time.
    #[error("frame time {found}: {problem}")]
    FrameTime {
        /// The value as written.
        found: String,
        /// Why it cannot be used.
        problem: &'static str,
    },
    /// The MOTION block ends before `Frames:` frames.
    #[error("the MOTION block is truncated: frame {frame} of {frames} has {values} of its {expected} values")]
    Truncated {
        /// The frame that is short (0-based).
        frame: u64,
        /// The frame count the file declares.
        frames: u64,
        /// The values the frame has.
        values: usize,
        /// The values a frame needs (the hierarchy's channel count).
        expected: usize,
    },
    /// A frame line with another number of values than the hierarchy has channels.
    #[error("frame {frame} has {found} values; the hierarchy has {expected} channels")]
    FrameLength {
        /// The frame (0-based).
        frame: u64,
        /// The values on its line.
        found: usize,
        /// The hierarchy's channel count.
        expected: usize,
    },
    /// Values after the last frame `Frames:` declares.
    #[error("values after the {frames} frames 'Frames:' declares")]
    ExtraFrames {
        /// The frame count the file declares.
        frames: u64,
    },
}

/// `word` as an error shows it: lossy UTF-8, at most 40 bytes.
pub(crate) fn shown(word: &[u8]) -> String {
    let cut = &word[..word.len().min(40)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if word.len() > 40 {
        s.push('…');
    }
    s
}
