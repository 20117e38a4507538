//! The BVH grammar: `HIERARCHY`, one or more `ROOT` blocks of nested `JOINT` and
//! `End Site` blocks (each with an `OFFSET`, joints with a `CHANNELS` line), then
//! `MOTION`, `Frames: N`, `Frame Time: T` and one line of values per frame. Read
//! without recursion, so nesting depth costs no stack.

use super::error::{shown, BvhErrorKind};
use super::lexer::{Lexer, Word};

/// GOM's bone limit, which bounds both the nesting depth and the bone count.
const MAX_BONES: usize = gom::limits::MAX_BONES as usize;

/// One channel of a joint: a position or a rotation about an axis (0 = X, 1 = Y, 2 = Z).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    /// Added to the joint's `OFFSET` along the axis, in file units.
    Position(usize),
    /// A rotation about the axis, in degrees.
    Rotation(usize),
}

/// A `ROOT`, `JOINT` or `End Site` block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Joint {
    /// The joint's name (an End Site's is its parent's with `_End` appended).
    pub name: String,
    /// The enclosing block.
    pub parent: Option<usize>,
    /// `OFFSET`, in file units.
    pub offset: [f64; 3],
    /// Channels in file order.
    pub channels: Vec<Channel>,
    /// Index of the joint's first channel within a frame's values.
    pub first: usize,
    /// Whether the block is an `End Site`.
    pub end_site: bool,
}

/// A BVH file as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bvh {
    /// Blocks in file order (a parent precedes its children).
    pub joints: Vec<Joint>,
    /// Values in a frame.
    pub channels: usize,
    /// `Frames:`.
    pub frames: u64,
    /// `Frame Time:` in seconds.
    pub frame_time: f64,
    /// `Frame Time:`'s value as written, with its line and column.
    pub frame_time_word: (String, u32, u32),
    /// `frames × channels` values, frame after frame.
    pub values: Vec<f64>,
}

/// A grammar error and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct At {
    pub line: u32,
    pub column: u32,
    pub kind: BvhErrorKind,
}

fn at(w: &Word<'_>, kind: BvhErrorKind) -> At {
    At {
        line: w.line,
        column: w.column,
        kind,
    }
}

fn at_end(lx: &Lexer<'_>, kind: BvhErrorKind) -> At {
    let (line, column) = lx.end();
    At { line, column, kind }
}

/// The next word, or the error that the file ends where `expected` should be.
fn word<'a>(lx: &mut Lexer<'a>, expected: &'static str) -> Result<Word<'a>, At> {
    lx.next_word()
        .ok_or_else(|| at_end(lx, BvhErrorKind::UnexpectedEnd { expected }))
}

/// Consumes the word `keyword`, or fails naming `expected`.
fn keyword(lx: &mut Lexer<'_>, keyword: &[u8], expected: &'static str) -> Result<(), At> {
    let w = word(lx, expected)?;
    if w.text == keyword {
        return Ok(());
    }
    Err(at(
        &w,
        BvhErrorKind::Expected {
            expected,
            found: shown(w.text),
        },
    ))
}

/// A finite decimal number.
pub(crate) fn number(w: &Word<'_>) -> Result<f64, At> {
    std::str::from_utf8(w.text)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            at(
                w,
                BvhErrorKind::NotANumber {
                    found: shown(w.text),
                },
            )
        })
}

/// Reads a whole BVH file. End Sites count towards the bone limit only when
/// `end_sites_are_bones`.
pub(crate) fn parse(bytes: &[u8], end_sites_are_bones: bool) -> Result<Bvh, At> {
    let mut lx = Lexer::new(bytes);
    let (joints, channels) = hierarchy(&mut lx, end_sites_are_bones)?;
    motion(&mut lx, joints, channels, bytes.len())
}

/// An open block while the hierarchy is read.
struct Open {
    joint: usize,
    has_offset: bool,
    has_channels: bool,
}

/// The hierarchy up to and including `MOTION`: the blocks and the channel count.
fn hierarchy(lx: &mut Lexer<'_>, end_sites_are_bones: bool) -> Result<(Vec<Joint>, usize), At> {
    keyword(lx, b"HIERARCHY", "HIERARCHY")?;
    let mut joints: Vec<Joint> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut bones = 0usize;
    let mut channels = 0usize;
    loop {
        let expected = match stack.last() {
            None if joints.is_empty() => "ROOT",
            None => "ROOT or MOTION",
            Some(o) if joints[o.joint].end_site => "OFFSET or }",
            Some(_) => "OFFSET, CHANNELS, JOINT, End Site or }",
        };
        let w = word(lx, expected)?;
        let top = stack.last().map(|o| (o.joint, joints[o.joint].end_site));
        match (w.text, top) {
            (b"MOTION", None) if !joints.is_empty() => return Ok((joints, channels)),
            (b"ROOT", None) | (b"JOINT", Some((_, false))) | (b"End", Some((_, false))) => {
                let end_site = w.text == b"End";
                if stack.len() >= MAX_BONES {
                    let limit = MAX_BONES as u32;
                    return Err(at(&w, BvhErrorKind::TooDeep { limit }));
                }
                if !end_site || end_sites_are_bones {
                    bones += 1;
                }
                if bones > MAX_BONES {
                    let limit = MAX_BONES as u32;
                    return Err(at(&w, BvhErrorKind::TooManyBones { limit }));
                }
                let parent = top.map(|(p, _)| p);
                let name = if end_site {
                    keyword(lx, b"Site", "Site (after End)")?;
                    let p = parent.map_or("", |p| joints[p].name.as_str());
                    format!("{p}_End")
                } else {
                    joint_name(lx, &w)?
                };
                keyword(lx, b"{", "{")?;
                stack.push(Open {
                    joint: joints.len(),
                    has_offset: false,
                    has_channels: false,
                });
                joints.push(Joint {
                    name,
                    parent,
                    offset: [0.0; 3],
                    channels: Vec::new(),
                    first: channels,
                    end_site,
                });
            }
            (b"OFFSET", Some((j, _))) => {
                let open = stack.last_mut().filter(|o| !o.has_offset);
                let open = open.ok_or_else(|| at(&w, BvhErrorKind::Repeated { what: "OFFSET" }))?;
                open.has_offset = true;
                for v in &mut joints[j].offset {
                    *v = number(&word(lx, "an OFFSET value")?)?;
                }
            }
            (b"CHANNELS", Some((j, false))) => {
                let open = stack.last_mut().filter(|o| !o.has_channels);
                let open =
                    open.ok_or_else(|| at(&w, BvhErrorKind::Repeated { what: "CHANNELS" }))?;
                open.has_channels = true;
                let list = channel_list(lx, &joints[j].name)?;
                joints[j].first = channels;
                channels += list.len();
                joints[j].channels = list;
            }
            (b"}", Some((j, _))) => {
                if stack.pop().is_some_and(|o| !o.has_offset) {
                    let joint = joints[j].name.clone();
                    return Err(at(&w, BvhErrorKind::MissingOffset { joint }));
                }
            }
            _ => {
                let found = shown(w.text);
                return Err(at(&w, BvhErrorKind::Expected { expected, found }));
            }
        }
    }
}

/// A joint's name: the words after `ROOT` or `JOINT` on its line, up to a `{`, joined
/// by single spaces.
fn joint_name(lx: &mut Lexer<'_>, keyword: &Word<'_>) -> Result<String, At> {
    let mut name = String::new();
    while let Some(w) = lx
        .peek()
        .filter(|w| w.line == keyword.line && w.text != b"{")
    {
        lx.next_word();
        if let Some(&byte) = w.text.iter().find(|b| b.is_ascii_control()) {
            let kind = BvhErrorKind::ControlInName {
                found: shown(w.text),
                byte,
            };
            return Err(at(&w, kind));
        }
        if !name.is_empty() {
            name.push(' ');
        }
        name.push_str(&String::from_utf8_lossy(w.text));
    }
    if name.is_empty() {
        let found = lx
            .peek()
            .map_or_else(|| "end of line".into(), |w| shown(w.text));
        let (line, column) = match lx.peek() {
            Some(w) => (w.line, w.column),
            None => lx.end(),
        };
        let kind = BvhErrorKind::Expected {
            expected: "a joint name on the line of ROOT or JOINT",
            found,
        };
        return Err(At { line, column, kind });
    }
    Ok(name)
}

/// `n` and `n` channel names after `CHANNELS`.
fn channel_list(lx: &mut Lexer<'_>, joint: &str) -> Result<Vec<Channel>, At> {
    let w = word(lx, "a channel count")?;
    let what = "channel count from 0 to 6";
    let count: usize = whole(&w, what)?;
    if count > 6 {
        let found = shown(w.text);
        return Err(at(&w, BvhErrorKind::BadCount { what, found }));
    }
    let mut list = Vec::with_capacity(count);
    for _ in 0..count {
        let w = word(lx, "a channel name")?;
        let channel = channel(w.text).ok_or_else(|| {
            at(
                &w,
                BvhErrorKind::UnknownChannel {
                    found: shown(w.text),
                },
            )
        })?;
        if list.contains(&channel) {
            let kind = BvhErrorKind::DuplicateChannel {
                joint: joint.to_string(),
                channel: shown(w.text),
            };
            return Err(at(&w, kind));
        }
        list.push(channel);
    }
    Ok(list)
}

/// A whole number, or the error that `w` is not a `what`.
fn whole<T: std::str::FromStr>(w: &Word<'_>, what: &'static str) -> Result<T, At> {
    std::str::from_utf8(w.text)
        .ok()
        .and_then(|s| s.parse::<T>().ok())
        .ok_or_else(|| {
            let found = shown(w.text);
            at(w, BvhErrorKind::BadCount { what, found })
        })
}

/// A channel name (ASCII case ignored): `Xposition` … `Zrotation`.
fn channel(name: &[u8]) -> Option<Channel> {
    let (&axis, kind) = name.split_first()?;
    let axis = match axis.to_ascii_uppercase() {
        b'X' => 0,
        b'Y' => 1,
        b'Z' => 2,
        _ => return None,
    };
    if kind.eq_ignore_ascii_case(b"position") {
        Some(Channel::Position(axis))
    } else if kind.eq_ignore_ascii_case(b"rotation") {
        Some(Channel::Rotation(axis))
    } else {
        None
    }
}

/// The MOTION block after its keyword: frame count, frame time and the values, one
/// frame a line.
fn motion(
    lx: &mut Lexer<'_>,
    joints: Vec<Joint>,
    channels: usize,
    input_len: usize,
) -> Result<Bvh, At> {
    keyword(lx, b"Frames:", "Frames:")?;
    let w = word(lx, "a frame count")?;
    let frames: u64 = whole(&w, "frame count")?;
    keyword(lx, b"Frame", "Frame Time:")?;
    keyword(lx, b"Time:", "Frame Time:")?;
    let w = word(lx, "a frame time")?;
    let frame_time = number(&w)?;
    if frame_time <= 0.0 {
        let kind = BvhErrorKind::FrameTime {
            found: shown(w.text),
            problem: "not a positive number of seconds",
        };
        return Err(at(&w, kind));
    }
    let frame_time_word = (shown(w.text), w.line, w.column);
    // Every value takes at least two bytes of the input (a digit and a separator).
    let wanted = usize::try_from(frames)
        .unwrap_or(usize::MAX)
        .saturating_mul(channels);
    let mut values = Vec::with_capacity(wanted.min(input_len / 2 + 1));
    let mut frame = 0u64;
    while let Some(first) = lx.next_word() {
        if frame == frames || channels == 0 {
            return Err(at(&first, BvhErrorKind::ExtraFrames { frames }));
        }
        let found = frame_line(lx, first, channels, &mut values)?;
        if found > channels {
            let kind = BvhErrorKind::FrameLength {
                frame,
                found,
                expected: channels,
            };
            return Err(at(&first, kind));
        }
        if found < channels {
            if lx.peek().is_none() {
                let values = found;
                let kind = BvhErrorKind::Truncated {
                    frame,
                    frames,
                    values,
                    expected: channels,
                };
                return Err(at_end(lx, kind));
            }
            let kind = BvhErrorKind::FrameLength {
                frame,
                found,
                expected: channels,
            };
            return Err(at(&first, kind));
        }
        frame += 1;
    }
    if frame < frames && channels > 0 {
        let kind = BvhErrorKind::Truncated {
            frame,
            frames,
            values: 0,
            expected: channels,
        };
        return Err(at_end(lx, kind));
    }
    Ok(Bvh {
        joints,
        channels,
        frames,
        frame_time,
        frame_time_word,
        values,
    })
}

/// Reads the values of the line that starts with `first` into `values` (at most
/// `channels`; the words past them are only counted). Returns the line's word count.
fn frame_line(
    lx: &mut Lexer<'_>,
    first: Word<'_>,
    channels: usize,
    values: &mut Vec<f64>,
) -> Result<usize, At> {
    let mut w = first;
    let mut count = 0usize;
    loop {
        if count < channels {
            values.push(number(&w)?);
        }
        count += 1;
        match lx.peek() {
            Some(next) if next.line == first.line => w = next,
            _ => return Ok(count),
        }
        lx.next_word();
    }
}
