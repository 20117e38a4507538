//! GOMT morph targets (in a mesh) and weight tracks (in a clip),
//! `docs/extensions.md` §4.5. The structural rules are checked afterwards, on the
//! model, by the shared checks.

use super::*;
use crate::morph::{MorphTarget, WeightInterpolation, WeightKey, WeightTrack};

/// `morphTargets = [ { name, defaultWeight, deltas = [ { i, p, n?, t? } ] } ]`.
pub(super) fn parse_targets(p: &mut Lexer) -> Result<Vec<MorphTarget>, TextError> {
    list(p, "`[` starting the morph target list", |p| parse_target(p))
}

fn parse_target(p: &mut Lexer) -> Result<MorphTarget, TextError> {
    const T: &str = "a morph target";
    let mut name = None;
    let mut weight = None;
    let mut deltas: Option<MorphTarget> = None;
    let mut carries: Option<(Vec<String>, usize)> = None;
    let at = table(p, "`{` starting a morph target", |p, key, kat| {
        match key {
            "name" => {
                once(p, name.is_some(), T, key, kat)?;
                name = Some(p.string("a string")?.0);
            }
            "defaultWeight" => {
                once(p, weight.is_some(), T, key, kat)?;
                weight = Some(p.f32("a weight")?);
            }
            "deltas" => {
                once(p, deltas.is_some(), T, key, kat)?;
                deltas = Some(parse_deltas(p)?);
            }
            "carries" => {
                once(p, carries.is_some(), T, key, kat)?;
                let mut lists = Vec::new();
                array(p, "`[` starting the delta lists", |p| {
                    lists.push(p.string("\"n\" or \"t\"")?.0);
                    Ok(())
                })?;
                carries = Some((lists, kat));
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    let mut target = required(p, deltas, T, "deltas", at)?;
    if let Some((lists, kat)) = carries {
        with_empty_lists(p, &mut target, &lists, kat)?;
    }
    Ok(MorphTarget {
        name: required(p, name, T, "name", at)?,
        default_weight: weight.unwrap_or(0.0),
        ..target
    })
}

/// `carries = ["n", "t"]`: which delta lists a target without deltas has (no delta
/// shows it); only for such a target, each list once.
fn with_empty_lists(
    p: &Lexer,
    t: &mut MorphTarget,
    lists: &[String],
    at: usize,
) -> Result<(), TextError> {
    let bad = |why: &str| Err(p.error_at(at, TextErrorKind::InvalidValue(why.into())));
    if !t.indices.is_empty() {
        return bad("carries is only for a target without deltas (its deltas show their lists)");
    }
    for l in lists {
        let list = match l.as_str() {
            "n" => &mut t.normals,
            "t" => &mut t.tangents,
            _ => return bad("carries lists \"n\" and \"t\" only"),
        };
        if list.replace(Vec::new()).is_some() {
            return bad("carries names a list twice");
        }
    }
    Ok(())
}

/// The delta list; every delta must carry the same keys (`n`, `t`) as the first.
fn parse_deltas(p: &mut Lexer) -> Result<MorphTarget, TextError> {
    const T: &str = "a morph delta";
    let mut t = MorphTarget::default();
    let (mut normals, mut tangents) = (Vec::new(), Vec::new());
    let mut first_keys: Option<u32> = None;
    array(p, "`[` starting the delta list", |p| {
        let mut keys = 0u32;
        let (mut i, mut dp, mut dn, mut dt) = (0u32, [0.0; 3], [0.0; 3], [0.0; 3]);
        let at = table(p, "`{` starting a delta", |p, key, kat| {
            let bit = match key {
                "i" => 1,
                "p" => 2,
                "n" => 4,
                "t" => 8,
                _ => return Err(unknown(p, T, key, kat)),
            };
            once(p, keys & bit != 0, T, key, kat)?;
            keys |= bit;
            match bit {
                1 => i = p.int("a vertex index", 0, i64::from(u32::MAX), "0 to 4294967295")? as u32,
                2 => dp = floats(p, "a position delta component")?,
                4 => dn = floats(p, "a normal delta component")?,
                _ => dt = floats(p, "a tangent delta component")?,
            }
            Ok(())
        })?;
        for (bit, name) in [(1, "i"), (2, "p")] {
            if keys & bit == 0 {
                return Err(p.error_at(
                    at,
                    TextErrorKind::MissingKey {
                        table: T,
                        key: name,
                    },
                ));
            }
        }
        if *first_keys.get_or_insert(keys) != keys {
            return Err(p.error_at(
                at,
                TextErrorKind::InvalidValue(
                    "every delta of a target carries the same keys (n and t) as the first".into(),
                ),
            ));
        }
        t.indices.push(i);
        t.positions.push(dp);
        normals.push(dn);
        tangents.push(dt);
        Ok(())
    })?;
    let keys = first_keys.unwrap_or(0);
    t.normals = (keys & 4 != 0).then_some(normals);
    t.tangents = (keys & 8 != 0).then_some(tangents);
    Ok(t)
}

/// `weightTracks = [ { mesh, target, interpolation, keys = [ { time, w } ] } ]`.
pub(super) fn parse_weight_tracks(p: &mut Lexer) -> Result<Vec<WeightTrack>, TextError> {
    list(p, "`[` starting the weight track list", |p| {
        parse_weight_track(p)
    })
}

fn parse_weight_track(p: &mut Lexer) -> Result<WeightTrack, TextError> {
    const T: &str = "a weight track";
    let (mut mesh, mut target, mut interp, mut keys) = (None, None, None, None);
    let at = table(p, "`{` starting a weight track", |p, key, kat| {
        let index = |p: &mut Lexer, what| {
            p.int(what, 0, i64::from(u32::MAX), "0 to 4294967295")
                .map(|v| v as u32)
        };
        match key {
            "mesh" => {
                once(p, mesh.is_some(), T, key, kat)?;
                mesh = Some(index(p, "a mesh index")?);
            }
            "target" => {
                once(p, target.is_some(), T, key, kat)?;
                target = Some(index(p, "a target index")?);
            }
            "interpolation" => {
                once(p, interp.is_some(), T, key, kat)?;
                let (s, sat) = p.string("an interpolation name")?;
                interp = Some(WeightInterpolation::from_name(&s).ok_or_else(|| {
                    p.error_at(
                        sat,
                        TextErrorKind::InvalidValue(format!(
                            "unknown interpolation \"{s}\"; the interpolations are linear and step"
                        )),
                    )
                })?);
            }
            "keys" => {
                once(p, keys.is_some(), T, key, kat)?;
                keys = Some(list(p, "`[` starting the key list", |p| {
                    parse_weight_key(p)
                })?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    Ok(WeightTrack {
        mesh: required(p, mesh, T, "mesh", at)?,
        target: required(p, target, T, "target", at)?,
        interpolation: interp.unwrap_or_default(),
        keys: required(p, keys, T, "keys", at)?,
    })
}

fn parse_weight_key(p: &mut Lexer) -> Result<WeightKey, TextError> {
    const T: &str = "a weight key";
    let (mut time, mut weight) = (None, None);
    let at = table(p, "`{` starting a weight key", |p, key, kat| {
        match key {
            "time" => {
                once(p, time.is_some(), T, key, kat)?;
                time = Some(p.f32("a time in seconds")?);
            }
            "w" => {
                once(p, weight.is_some(), T, key, kat)?;
                weight = Some(p.f32("a weight")?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    Ok(WeightKey {
        time: required(p, time, T, "time", at)?,
        weight: required(p, weight, T, "w", at)?,
    })
}
