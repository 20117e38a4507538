//! What `gom info` says of blend shapes: each mesh's morph targets and each clip's
//! weight tracks (docs/extensions.md §4).

use serde::Serialize;

/// One morph target: its name, default weight and the vertices it moves.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetSummary<'a> {
    name: &'a str,
    default_weight: f32,
    vertices: usize,
}

/// One weight track: the mesh and target it keys, how and how often.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WeightTrackSummary<'a> {
    mesh: u32,
    target: u32,
    name: &'a str,
    interpolation: &'static str,
    keys: usize,
}

/// The targets of `m`.
pub fn targets(m: &gom::MeshPart) -> Vec<TargetSummary<'_>> {
    m.morph_targets
        .iter()
        .map(|t| TargetSummary {
            name: &t.name,
            default_weight: t.default_weight,
            vertices: t.indices.len(),
        })
        .collect()
}

/// The weight tracks of `c`, with the names of the targets they key.
pub fn tracks<'a>(model: &'a gom::Model, c: &'a gom::Clip) -> Vec<WeightTrackSummary<'a>> {
    c.weight_tracks
        .iter()
        .map(|t| WeightTrackSummary {
            mesh: t.mesh,
            target: t.target,
            name: model
                .meshes
                .get(t.mesh as usize)
                .and_then(|m| m.morph_targets.get(t.target as usize))
                .map_or("", |x| x.name.as_str()),
            interpolation: t.interpolation.name(),
            keys: t.keys.len(),
        })
        .collect()
}

/// The text lines of a mesh's targets (none without).
pub fn print_targets(m: &gom::MeshPart) {
    if m.morph_targets.is_empty() {
        return;
    }
    let list: Vec<String> = targets(m)
        .iter()
        .map(|t| {
            format!(
                "{} ({} vertices, default {})",
                t.name, t.vertices, t.default_weight
            )
        })
        .collect();
    println!("    morph targets: {}", list.join(", "));
}

/// The text lines of a clip's weight tracks (none without).
pub fn print_tracks(model: &gom::Model, c: &gom::Clip) {
    if c.weight_tracks.is_empty() {
        return;
    }
    let list: Vec<String> = tracks(model, c)
        .iter()
        .map(|t| {
            let mesh = model
                .meshes
                .get(t.mesh as usize)
                .map_or("", |m| m.name.as_str());
            format!("{mesh}/{} {} {} keys", t.name, t.interpolation, t.keys)
        })
        .collect();
    println!("    weight tracks: {}", list.join(", "));
}
