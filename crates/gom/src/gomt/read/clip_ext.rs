//! GOMT clip extensions (`docs/extensions.md` §5, §6): `additive = { reference =
//! "bindPose" }` or `additive = { clip = "NAME", time = T }`, `floatTracks` and
//! `events`.

use super::*;
use crate::additive::Reference;
use crate::events::{Event, FloatTrack, Interpolation};

/// The value of a clip's `additive` key.
pub(super) fn parse_additive(p: &mut Lexer) -> Result<Reference, TextError> {
    const T: &str = "an additive clip's reference";
    let mut bind = None;
    let mut clip = None;
    let mut time = None;
    let at = table(p, "`{` starting the additive reference", |p, key, kat| {
        match key {
            "reference" => {
                once(p, bind.is_some(), T, key, kat)?;
                let (text, sat) = p.string("\"bindPose\"")?;
                if text != "bindPose" {
                    return Err(p.expected_at(sat, "\"bindPose\" (or `clip` and `time`)"));
                }
                bind = Some(kat);
            }
            "clip" => {
                once(p, clip.is_some(), T, key, kat)?;
                clip = Some(p.string("the reference clip's name")?.0);
            }
            "time" => {
                once(p, time.is_some(), T, key, kat)?;
                time = Some(p.f32("a time in seconds")?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    match (bind, clip, time) {
        (Some(_), None, None) => Ok(Reference::BindPose),
        (None, Some(clip), Some(time)) => Ok(Reference::ClipFrame { clip, time }),
        (Some(k), _, _) => Err(p.expected_at(k, "either `reference` or `clip` and `time`")),
        (None, clip, _) => Err(p.error_at(
            at,
            TextErrorKind::MissingKey {
                table: T,
                key: if clip.is_none() { "clip" } else { "time" },
            },
        )),
    }
}

/// `[f, f, …]` of any length.
fn float_list(p: &mut Lexer, what: &'static str) -> Result<Vec<f32>, TextError> {
    list(p, "`[` starting a list of numbers", |p| p.f32(what))
}

/// A clip's `floatTracks = [ { name, components, interpolation, times, values } ]`
/// (`docs/extensions.md` §6.4); the rules are checked with the clip's.
pub(super) fn parse_float_tracks(p: &mut Lexer) -> Result<Vec<FloatTrack>, TextError> {
    const T: &str = "a float track";
    let mut out = Vec::new();
    array(p, "`[` starting the float tracks", |p| {
        let mut t = FloatTrack::default();
        let mut seen = 0u32;
        let at = table(p, "`{` starting a float track", |p, key, kat| {
            let bit = match key {
                "name" => 1,
                "components" => 2,
                "interpolation" => 4,
                "times" => 8,
                "values" => 16,
                _ => return Err(unknown(p, T, key, kat)),
            };
            once(p, seen & bit != 0, T, key, kat)?;
            seen |= bit;
            match key {
                "name" => t.name = p.string("a name")?.0,
                "components" => t.components = p.int("a component count", 1, 4, "1 to 4")? as u32,
                "interpolation" => {
                    let (text, sat) = p.string("\"linear\" or \"step\"")?;
                    t.interpolation = match text.as_str() {
                        "linear" => Interpolation::Linear,
                        "step" => Interpolation::Step,
                        _ => return Err(p.expected_at(sat, "\"linear\" or \"step\"")),
                    };
                }
                "times" => t.times = float_list(p, "a time in seconds")?,
                _ => t.values = float_list(p, "a value")?,
            }
            Ok(())
        })?;
        for (bit, key) in [(1, "name"), (2, "components"), (8, "times"), (16, "values")] {
            if seen & bit == 0 {
                return Err(p.error_at(at, TextErrorKind::MissingKey { table: T, key }));
            }
        }
        out.push(t);
        Ok(())
    })?;
    Ok(out)
}

/// A clip's `events = [ { time, name, payload } ]` (`payload` optional).
pub(super) fn parse_events(p: &mut Lexer) -> Result<Vec<Event>, TextError> {
    const T: &str = "an event";
    let mut out = Vec::new();
    array(p, "`[` starting the events", |p| {
        let (mut time, mut name, mut payload) = (None, None, None);
        let at = table(p, "`{` starting an event", |p, key, kat| {
            match key {
                "time" => {
                    once(p, time.is_some(), T, key, kat)?;
                    time = Some(p.f32("a time in seconds")?);
                }
                "name" => {
                    once(p, name.is_some(), T, key, kat)?;
                    name = Some(p.string("a name")?.0);
                }
                "payload" => {
                    once(p, payload.is_some(), T, key, kat)?;
                    payload = Some(p.string("a payload")?.0);
                }
                _ => return Err(unknown(p, T, key, kat)),
            }
            Ok(())
        })?;
        out.push(Event {
            time: required(p, time, T, "time", at)?,
            name: required(p, name, T, "name", at)?,
            payload,
        });
        Ok(())
    })?;
    Ok(out)
}
