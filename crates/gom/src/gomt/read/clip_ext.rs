//! GOMT clip extensions (`docs/extensions.md` §4): `additive = { reference = "bindPose" }`
//! or `additive = { clip = "NAME", time = T }`.

use super::*;
use crate::additive::Reference;

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
