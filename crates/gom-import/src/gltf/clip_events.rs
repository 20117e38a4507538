//! Float tracks and events of a clip from its glTF animation's `extras`
//! (`docs/extensions.md` §6.5): `extras.floatTracks` and `extras.events`, each an
//! array as GOMT writes them, or a string holding that array as JSON (what a
//! string custom property of a Blender action exports as).

use gom::events::{Event, FloatTrack, Interpolation};
use serde::Deserialize;

/// A float track as the extras give it.
#[derive(Deserialize)]
struct TrackIn {
    name: String,
    #[serde(default = "one")]
    components: u32,
    #[serde(default)]
    interpolation: Option<String>,
    times: Vec<f32>,
    values: Vec<f32>,
}

/// An event as the extras give it.
#[derive(Deserialize)]
struct EventIn {
    time: f32,
    name: String,
    #[serde(default)]
    payload: Option<String>,
}

fn one() -> u32 {
    1
}

/// `extras[key]` as `T`: the value itself, or a string holding it as JSON; `None`
/// when absent. A value of the wrong shape is an error message.
fn entry<T: serde::de::DeserializeOwned>(
    extras: &serde_json::Value,
    key: &str,
) -> Option<Result<T, String>> {
    let v = extras.get(key)?;
    let parsed = match v {
        serde_json::Value::String(s) => serde_json::from_str(s),
        other => serde_json::from_value(other.clone()),
    };
    Some(parsed.map_err(|e| format!("extras.{key}: {e}")))
}

/// The float tracks and events of `animation` for a clip of `duration` seconds, or
/// none (with a warning in `warnings` naming the animation, the field and the
/// problem) when the extras break the rules of `gom::events::check`. Events are put
/// in time order.
pub(crate) fn read(
    animation: &gltf::Animation<'_>,
    duration: f32,
    warnings: &mut Vec<String>,
) -> (Vec<FloatTrack>, Vec<Event>) {
    let Some(extras) = animation
        .extras()
        .as_ref()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
    else {
        return (Vec::new(), Vec::new());
    };
    let object = format!("animations[{}]", animation.index());
    match parse(&extras, duration) {
        Ok(out) => out,
        Err(problem) => {
            warnings.push(format!(
                "{object}: {problem}; its float tracks and events are dropped"
            ));
            (Vec::new(), Vec::new())
        }
    }
}

/// The float tracks and events `extras` holds, checked.
fn parse(
    extras: &serde_json::Value,
    duration: f32,
) -> Result<(Vec<FloatTrack>, Vec<Event>), String> {
    let tracks: Vec<TrackIn> = entry(extras, "floatTracks")
        .transpose()?
        .unwrap_or_default();
    let events: Vec<EventIn> = entry(extras, "events").transpose()?.unwrap_or_default();
    let tracks = tracks
        .into_iter()
        .map(|t| {
            let interpolation = match t.interpolation.as_deref() {
                None => Interpolation::Linear,
                Some(i) if i.eq_ignore_ascii_case("linear") => Interpolation::Linear,
                Some(i) if i.eq_ignore_ascii_case("step") => Interpolation::Step,
                Some(i) => {
                    return Err(format!(
                        "float track \"{}\": interpolation \"{i}\" (linear or step)",
                        t.name
                    ))
                }
            };
            Ok(FloatTrack {
                name: t.name,
                components: t.components,
                interpolation,
                times: t.times,
                values: t.values,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut events: Vec<Event> = events
        .into_iter()
        .map(|e| Event {
            time: e.time,
            name: e.name,
            payload: e.payload,
        })
        .collect();
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    gom::events::check(&tracks, &events, duration)
        .map_err(|(field, problem)| format!("extras: {field}: {problem}"))?;
    Ok((tracks, events))
}
