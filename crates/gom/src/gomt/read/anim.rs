//! GOMT animations: clips, tracks and keys.

use super::*;

pub(super) fn parse_clip(
    p: &mut Lexer,
    spans: &mut Vec<(usize, Vec<(&'static str, usize)>)>,
) -> Result<Clip, TextError> {
    const KEYS: [&str; 11] = [
        "weightTracks",
        "name",
        "duration",
        "sampleRate",
        "rootBoneIndex",
        "flags",
        "compressed",
        "tracks",
        "additive",
        "floatTracks",
        "events",
    ];
    let mut key_spans = Vec::new();
    const T: &str = "a clip";
    let mut name = None;
    let mut duration = None;
    let mut rate = None;
    let mut root = None;
    let mut flags: Option<ClipFlags> = None;
    let mut tracks: Option<Vec<Track>> = None;
    let mut compressed: Option<Vec<u8>> = None;
    let mut weight_tracks = None;
    let mut extras = crate::ClipExtras::default();
    let at = table(p, "`{` starting a clip", |p, key, kat| {
        record(&mut key_spans, &KEYS, key, kat);
        match key {
            "name" => {
                once(p, name.is_some(), T, key, kat)?;
                name = Some(p.string("a string")?.0);
            }
            "duration" => {
                once(p, duration.is_some(), T, key, kat)?;
                duration = Some(p.f32("a duration in seconds")?);
            }
            "sampleRate" => {
                once(p, rate.is_some(), T, key, kat)?;
                rate = Some(p.f32("a sample rate")?);
            }
            "rootBoneIndex" => {
                once(p, root.is_some(), T, key, kat)?;
                root = Some(p.int(
                    "a root bone index",
                    -1,
                    i64::from(i32::MAX),
                    "-1 or a bone index",
                )? as i32);
            }
            "flags" => {
                once(p, flags.is_some(), T, key, kat)?;
                flags = Some(flag_set(
                    p,
                    "a clip flag name",
                    "clip flag",
                    names::clip_flag,
                    "the only flag is HasRootMotion",
                )?);
            }
            "compressed" => {
                once(p, compressed.is_some(), T, key, kat)?;
                compressed = Some(parse_compressed(p)?);
            }
            "weightTracks" => {
                once(p, weight_tracks.is_some(), T, key, kat)?;
                weight_tracks = Some(super::morph::parse_weight_tracks(p)?);
            }
            "tracks" => {
                once(p, tracks.is_some(), T, key, kat)?;
                tracks = Some(list(p, "`[` starting the track list", |p| parse_track(p))?);
            }
            "additive" => {
                once(p, extras.additive.is_some(), T, key, kat)?;
                extras.additive = Some(super::clip_ext::parse_additive(p)?);
            }
            "floatTracks" => {
                once(p, !extras.float_tracks.is_empty(), T, key, kat)?;
                extras.float_tracks = super::clip_ext::parse_float_tracks(p)?;
            }
            "events" => {
                once(p, !extras.events.is_empty(), T, key, kat)?;
                extras.events = super::clip_ext::parse_events(p)?;
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    spans.push((at, key_spans));
    Ok(Clip {
        name: required(p, name, T, "name", at)?,
        duration: required(p, duration, T, "duration", at)?,
        sample_rate: required(p, rate, T, "sampleRate", at)?,
        root_bone_index: root.unwrap_or(-1),
        flags: flags.unwrap_or_default(),
        tracks: required(p, tracks, T, "tracks", at)?,
        compressed,
        weight_tracks: weight_tracks.unwrap_or_default(),
        extras,
    })
}

/// `compressed = { toleranceMm, distanceCm, frames, data }`: the settings are shown
/// for people and checked against the payload by the structure check; `data` is the
/// payload in hexadecimal.
fn parse_compressed(p: &mut Lexer) -> Result<Vec<u8>, TextError> {
    const T: &str = "a compressed clip's table";
    let mut data: Option<Vec<u8>> = None;
    let mut seen: Vec<&str> = Vec::new();
    let at = table(p, "`{` starting the compression table", |p, key, kat| {
        match key {
            "toleranceMm" | "distanceCm" => {
                once(p, seen.contains(&key), T, key, kat)?;
                seen.push(if key == "toleranceMm" {
                    "toleranceMm"
                } else {
                    "distanceCm"
                });
                p.f32("a number")?;
            }
            "frames" => {
                once(p, seen.contains(&"frames"), T, key, kat)?;
                seen.push("frames");
                p.int("a frame count", 1, i64::from(u32::MAX), "a frame count")?;
            }
            "data" => {
                once(p, data.is_some(), T, key, kat)?;
                let (text, sat) = p.string("the payload in hexadecimal")?;
                data = Some(hex(p, &text, sat)?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    required(p, data, T, "data", at)
}

/// Bytes from pairs of hexadecimal digits.
fn hex(p: &Lexer, text: &str, at: usize) -> Result<Vec<u8>, TextError> {
    let digits = text.as_bytes();
    let value = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    if !digits.len().is_multiple_of(2) {
        return Err(p.expected_at(at, "an even number of hexadecimal digits"));
    }
    digits
        .chunks_exact(2)
        .map(|pair| match (value(pair[0]), value(pair[1])) {
            (Some(h), Some(l)) => Ok(h << 4 | l),
            _ => Err(p.expected_at(at, "hexadecimal digits")),
        })
        .collect()
}

fn parse_track(p: &mut Lexer) -> Result<Track, TextError> {
    const T: &str = "a track";
    let mut bone = None;
    let mut keys: Option<Vec<Key>> = None;
    let at = table(p, "`{` starting a track", |p, key, kat| {
        match key {
            "bone" => {
                once(p, bone.is_some(), T, key, kat)?;
                bone =
                    Some(p.int("a bone index", 0, i64::from(i32::MAX), "0 to 2147483647")? as u32);
            }
            "keys" => {
                once(p, keys.is_some(), T, key, kat)?;
                keys = Some(list(p, "`[` starting the key list", |p| parse_key(p))?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    Ok(Track {
        bone: required(p, bone, T, "bone", at)?,
        keys: required(p, keys, T, "keys", at)?,
    })
}

fn parse_key(p: &mut Lexer) -> Result<Key, TextError> {
    const T: &str = "a key";
    let mut seen = 0u32;
    let mut k = Key::default();
    let at = table(p, "`{` starting a key", |p, key, kat| {
        let bit = match key {
            "time" => 1,
            "t" => 2,
            "r" => 4,
            "s" => 8,
            _ => return Err(unknown(p, T, key, kat)),
        };
        once(p, seen & bit != 0, T, key, kat)?;
        seen |= bit;
        match bit {
            1 => k.time = p.f32("a time in seconds")?,
            2 => k.translation = floats(p, "a translation component")?,
            4 => k.rotation = floats(p, "a quaternion component")?,
            _ => k.scale = floats(p, "a scale component")?,
        }
        Ok(())
    })?;
    for (bit, name) in [(1, "time"), (2, "t"), (4, "r"), (8, "s")] {
        if seen & bit == 0 {
            return Err(p.error_at(
                at,
                TextErrorKind::MissingKey {
                    table: T,
                    key: name,
                },
            ));
        }
    }
    Ok(k)
}
