//! The option values the pipeline steps take, each readable from the text a command
//! line or a config file gives (`OLD=NEW`, `NAME:START-END[:NEWNAME]`, `y`, `-z`,
//! `cm`) and written back as the same text, so a config file and the options
//! fingerprint see one form.

use std::fmt;
use std::str::FromStr;

/// Serde through the text form: `TryFrom<String>` by `FromStr`, into `String` by
/// `Display`.
macro_rules! string_form {
    ($t:ty) => {
        impl TryFrom<String> for $t {
            type Error = String;
            fn try_from(s: String) -> Result<Self, String> {
                s.parse()
            }
        }

        impl From<$t> for String {
            fn from(v: $t) -> String {
                v.to_string()
            }
        }
    };
}

/// A clip renamed: `OLD=NEW`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ClipRename {
    /// The clip's name before.
    pub from: String,
    /// Its name after.
    pub to: String,
}

impl FromStr for ClipRename {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (from, to) = s
            .split_once('=')
            .ok_or_else(|| format!("'{s}': expected OLD=NEW"))?;
        if from.is_empty() || to.is_empty() {
            return Err(format!("'{s}': expected OLD=NEW with both names given"));
        }
        Ok(ClipRename {
            from: from.to_string(),
            to: to.to_string(),
        })
    }
}

impl fmt::Display for ClipRename {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.from, self.to)
    }
}

string_form!(ClipRename);

/// A clip made additive: `CLIP`, `CLIP=@bind`, `CLIP=@T`, `CLIP=REF` or
/// `CLIP=REF@T`: its deltas from the bind pose, or from clip `REF` (the clip itself
/// when not named) at `T` seconds (0 when not given).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AdditiveSpec {
    /// The clip made additive (its final name, after renames and ranges).
    pub clip: String,
    /// The reference clip, `None` for the bind pose.
    pub reference: Option<String>,
    /// The time in the reference clip, seconds.
    pub time: f32,
}

impl FromStr for AdditiveSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let syntax = || {
            format!("'{s}': expected CLIP, CLIP=@bind, CLIP=REF, CLIP=@SECONDS or CLIP=REF@SECONDS")
        };
        let (clip, reference) = match s.split_once('=') {
            Some((c, r)) => (c, Some(r)),
            None => (s, None),
        };
        if clip.is_empty() {
            return Err(syntax());
        }
        let (name, at) = match reference.map(|r| r.rsplit_once('@').unwrap_or((r, ""))) {
            None => (clip, ""),
            Some(("", "bind")) => {
                return Ok(AdditiveSpec {
                    clip: clip.to_string(),
                    reference: None,
                    time: 0.0,
                })
            }
            Some(("", at)) => (clip, at),
            Some((name, at)) => (name, at),
        };
        let time = match at {
            "" => 0.0,
            t => t
                .parse::<f32>()
                .ok()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(syntax)?,
        };
        Ok(AdditiveSpec {
            clip: clip.to_string(),
            reference: Some(name.to_string()),
            time,
        })
    }
}

impl fmt::Display for AdditiveSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reference {
            None => write!(f, "{}=@bind", self.clip),
            Some(r) => write!(f, "{}={r}@{}", self.clip, self.time),
        }
    }
}

string_form!(AdditiveSpec);

/// An event added to a clip: `CLIP@SECONDS=NAME` or `CLIP@SECONDS=NAME:PAYLOAD`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EventSpec {
    /// The clip (its final name, after renames and ranges).
    pub clip: String,
    /// Seconds from the clip's start.
    pub time: f32,
    /// The event's name.
    pub name: String,
    /// Its payload, if any.
    pub payload: Option<String>,
}

impl FromStr for EventSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let syntax = || format!("'{s}': expected CLIP@SECONDS=NAME or CLIP@SECONDS=NAME:PAYLOAD");
        let (at, event) = s.split_once('=').ok_or_else(syntax)?;
        let (clip, time) = at.rsplit_once('@').ok_or_else(syntax)?;
        let time: f32 = time
            .parse()
            .ok()
            .filter(|t: &f32| t.is_finite() && *t >= 0.0)
            .ok_or_else(syntax)?;
        let (name, payload) = match event.split_once(':') {
            Some((n, p)) => (n, Some(p.to_string())),
            None => (event, None),
        };
        if clip.is_empty() || name.is_empty() {
            return Err(syntax());
        }
        Ok(EventSpec {
            clip: clip.to_string(),
            time,
            name: name.to_string(),
            payload,
        })
    }
}

impl fmt::Display for EventSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}={}", self.clip, self.time, self.name)?;
        match &self.payload {
            Some(p) => write!(f, ":{p}"),
            None => Ok(()),
        }
    }
}

string_form!(EventSpec);

/// One end of a [`ClipRange`]: a frame number (at the clip's sample rate) or a time
/// in seconds (written with an `s` suffix).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RangeBound {
    /// A frame number at the clip's sample rate; may be fractional.
    Frame(f32),
    /// A time in seconds.
    Seconds(f32),
}

impl RangeBound {
    /// The time in seconds this bound stands for in a clip sampled at `rate` Hz.
    pub fn seconds(self, rate: f32) -> f32 {
        match self {
            RangeBound::Frame(f) => f / rate,
            RangeBound::Seconds(s) => s,
        }
    }
}

impl FromStr for RangeBound {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (number, seconds) = match s.strip_suffix('s') {
            Some(n) => (n, true),
            None => (s, false),
        };
        let value: f32 = number
            .parse()
            .ok()
            .filter(|v: &f32| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                format!("'{s}': expected a frame number or seconds such as 1.5s, not negative")
            })?;
        Ok(if seconds {
            RangeBound::Seconds(value)
        } else {
            RangeBound::Frame(value)
        })
    }
}

impl fmt::Display for RangeBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RangeBound::Frame(v) => write!(f, "{v}"),
            RangeBound::Seconds(v) => write!(f, "{v}s"),
        }
    }
}

/// A range cut out of a clip: `NAME:START-END[:NEWNAME]`, the bounds in frames at
/// the clip's sample rate or, with an `s` suffix, in seconds (`take:1.5s-3s:jump`).
/// Without `NEWNAME` the clip is trimmed in place; with it, the range becomes a new
/// clip and the clip it came from stays (drop it with a clip filter).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ClipRange {
    /// The clip to cut from.
    pub clip: String,
    /// Where the range starts.
    pub start: RangeBound,
    /// Where it ends (inclusive: a key at the end is kept).
    pub end: RangeBound,
    /// The name of the new clip, or `None` to trim the clip in place.
    pub new_name: Option<String>,
}

impl FromStr for ClipRange {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let expected = || format!("'{s}': expected NAME:START-END or NAME:START-END:NEWNAME");
        let parts: Vec<&str> = s.split(':').collect();
        // A clip name may hold ':' itself; the range is the last part, or the one
        // before a new name.
        let try_at = |i: usize| -> Option<(RangeBound, RangeBound)> {
            let (a, b) = parts.get(i)?.split_once('-')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        };
        let n = parts.len();
        let (at, new_name) = if n >= 2 && try_at(n - 1).is_some() {
            (n - 1, None)
        } else if n >= 3 && try_at(n - 2).is_some() && !parts[n - 1].is_empty() {
            (n - 2, Some(parts[n - 1].to_string()))
        } else {
            return Err(expected());
        };
        let (start, end) = try_at(at).ok_or_else(expected)?;
        let clip = parts[..at].join(":");
        if clip.is_empty() {
            return Err(expected());
        }
        Ok(ClipRange {
            clip,
            start,
            end,
            new_name,
        })
    }
}

impl fmt::Display for ClipRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}-{}", self.clip, self.start, self.end)?;
        if let Some(n) = &self.new_name {
            write!(f, ":{n}")?;
        }
        Ok(())
    }
}

string_form!(ClipRange);

/// A signed coordinate axis of a source file: `x`, `-x`, `y`, `-y`, `z`, `-z` (a
/// leading `+` is allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Axis {
    /// +X.
    PosX,
    /// −X.
    NegX,
    /// +Y.
    PosY,
    /// −Y.
    NegY,
    /// +Z.
    PosZ,
    /// −Z.
    NegZ,
}

impl Axis {
    /// The unit vector along this axis.
    pub fn vector(self) -> glam::Vec3 {
        match self {
            Axis::PosX => glam::Vec3::X,
            Axis::NegX => glam::Vec3::NEG_X,
            Axis::PosY => glam::Vec3::Y,
            Axis::NegY => glam::Vec3::NEG_Y,
            Axis::PosZ => glam::Vec3::Z,
            Axis::NegZ => glam::Vec3::NEG_Z,
        }
    }

    /// The axis along the unit vector `v`, if `v` is one of the six.
    pub fn of_vector(v: glam::Vec3) -> Option<Axis> {
        [
            Axis::PosX,
            Axis::NegX,
            Axis::PosY,
            Axis::NegY,
            Axis::PosZ,
            Axis::NegZ,
        ]
        .into_iter()
        .find(|a| a.vector().abs_diff_eq(v, 1e-4))
    }
}

impl FromStr for Axis {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        Ok(match t.strip_prefix('+').unwrap_or(&t) {
            "x" => Axis::PosX,
            "-x" => Axis::NegX,
            "y" => Axis::PosY,
            "-y" => Axis::NegY,
            "z" => Axis::PosZ,
            "-z" => Axis::NegZ,
            _ => return Err(format!("'{s}': expected an axis: x, -x, y, -y, z or -z")),
        })
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::PosX => "x",
            Axis::NegX => "-x",
            Axis::PosY => "y",
            Axis::NegY => "-y",
            Axis::PosZ => "z",
            Axis::NegZ => "-z",
        })
    }
}

string_form!(Axis);

/// The length one unit of a source file stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LengthUnit {
    /// Centimetres.
    Cm,
    /// Metres.
    M,
    /// Inches.
    In,
}

impl LengthUnit {
    /// The unit's length in metres.
    pub fn metres(self) -> f64 {
        match self {
            LengthUnit::Cm => 0.01,
            LengthUnit::M => 1.0,
            LengthUnit::In => 0.0254,
        }
    }
}

impl FromStr for LengthUnit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "cm" => LengthUnit::Cm,
            "m" => LengthUnit::M,
            "in" => LengthUnit::In,
            _ => return Err(format!("'{s}': expected a unit: cm, m or in")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_ranges_read_frames_seconds_and_names_with_colons() {
        let r: ClipRange = "take:10-40:walk".parse().unwrap();
        assert_eq!(r.clip, "take");
        assert_eq!(r.start, RangeBound::Frame(10.0));
        assert_eq!(r.end, RangeBound::Frame(40.0));
        assert_eq!(r.new_name.as_deref(), Some("walk"));
        let r: ClipRange = "mixamo:take:1.5s-3s".parse().unwrap();
        assert_eq!(r.clip, "mixamo:take");
        assert_eq!(r.start, RangeBound::Seconds(1.5));
        assert_eq!(r.end, RangeBound::Seconds(3.0));
        assert_eq!(r.new_name, None);
        assert_eq!(r.to_string(), "mixamo:take:1.5s-3s");
        for bad in [
            "take",
            "take:1-",
            ":1-2",
            "take:-1-2",
            "take:a-b:c",
            "take:1-2:",
        ] {
            assert!(bad.parse::<ClipRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn renames_axes_and_units_read_their_text() {
        let r: ClipRename = "Take 001=walk".parse().unwrap();
        assert_eq!((r.from.as_str(), r.to.as_str()), ("Take 001", "walk"));
        assert!("walk".parse::<ClipRename>().is_err());
        let spec = |s: &str| {
            s.parse::<AdditiveSpec>()
                .map(|a| (a.clip, a.reference, a.time))
        };
        let some = |s: &str| Some(s.to_string());
        assert_eq!(spec("aim"), Ok(("aim".into(), some("aim"), 0.0)));
        assert_eq!(spec("aim=@bind"), Ok(("aim".into(), None, 0.0)));
        assert_eq!(spec("aim=@0.5"), Ok(("aim".into(), some("aim"), 0.5)));
        assert_eq!(spec("aim=idle"), Ok(("aim".into(), some("idle"), 0.0)));
        assert_eq!(spec("aim=a@b@2"), Ok(("aim".into(), some("a@b"), 2.0)));
        assert!(spec("=idle").is_err() && spec("aim=idle@-1").is_err());
        let e: EventSpec = "walk@0.5=footstep:left".parse().unwrap();
        assert_eq!(
            (e.clip.as_str(), e.time, e.name.as_str()),
            ("walk", 0.5, "footstep")
        );
        assert_eq!(e.payload.as_deref(), Some("left"));
        assert_eq!(e.to_string().parse::<EventSpec>(), Ok(e));
        assert!(
            "walk=x".parse::<EventSpec>().is_err() && "walk@-1=x".parse::<EventSpec>().is_err()
        );
        let back: AdditiveSpec = "aim=idle@0.25".parse().unwrap();
        assert_eq!(back.to_string().parse::<AdditiveSpec>(), Ok(back));
        assert_eq!("-Z".parse::<Axis>(), Ok(Axis::NegZ));
        assert_eq!("+y".parse::<Axis>(), Ok(Axis::PosY));
        assert!("w".parse::<Axis>().is_err());
        assert_eq!("in".parse::<LengthUnit>(), Ok(LengthUnit::In));
        let json = serde_json::to_string(&LengthUnit::Cm).unwrap();
        assert_eq!(json, "\"cm\"");
    }
}
