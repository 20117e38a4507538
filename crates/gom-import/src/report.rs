//! The conversion report: what an importer produced, reduced, dropped or could not
//! represent. Every importer fills one; `gom` prints it or saves it as JSON.

use serde_json::{json, Value};

use crate::optimize::skin::DroppedInfluences;

/// One converted mesh part.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshReport {
    /// Mesh part name.
    pub name: String,
    /// Vertices after welding.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
    /// Submeshes (materials used).
    pub submeshes: usize,
    /// Whether the part is skinned (including rigid binding to a moving node).
    pub skinned: bool,
}

/// One converted clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipReport {
    /// Clip name.
    pub name: String,
    /// Duration in seconds.
    pub duration: f32,
    /// Tracks written.
    pub tracks: usize,
    /// Keys sampled, before reduction (over the tracks written).
    pub keys_before: u64,
    /// Keys written, after reduction.
    pub keys_after: u64,
}

/// What a conversion did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The source name given to the converter.
    pub source: String,
    /// Skeleton bones.
    pub bones: usize,
    /// Mesh parts.
    pub meshes: Vec<MeshReport>,
    /// Clips.
    pub clips: Vec<ClipReport>,
    /// Influences dropped to keep at most four per vertex.
    pub dropped_influences: DroppedInfluences,
    /// Warnings of the source loader (for FBX: ufbx's own warnings).
    pub loader_warnings: Vec<String>,
    /// Everything the source holds that GOM v1 cannot, or that was changed to fit it.
    pub warnings: Vec<String>,
}

impl Report {
    /// Keys sampled over all clips, before reduction.
    pub fn keys_before(&self) -> u64 {
        self.clips.iter().map(|c| c.keys_before).sum()
    }

    /// Keys written over all clips, after reduction.
    pub fn keys_after(&self) -> u64 {
        self.clips.iter().map(|c| c.keys_after).sum()
    }

    /// Adds a warning.
    pub fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(message.into());
    }

    /// The report as JSON (fields in a fixed order).
    pub fn to_json(&self) -> Value {
        json!({
            "source": self.source,
            "bones": self.bones,
            "meshes": self.meshes.iter().map(|m| json!({
                "name": m.name,
                "vertices": m.vertices,
                "triangles": m.triangles,
                "submeshes": m.submeshes,
                "skinned": m.skinned,
            })).collect::<Vec<_>>(),
            "clips": self.clips.iter().map(|c| json!({
                "name": c.name,
                "duration": c.duration,
                "tracks": c.tracks,
                "keysBefore": c.keys_before,
                "keysAfter": c.keys_after,
            })).collect::<Vec<_>>(),
            "keysBefore": self.keys_before(),
            "keysAfter": self.keys_after(),
            "droppedInfluences": {
                "vertices": self.dropped_influences.vertices,
                "influences": self.dropped_influences.influences,
                "maxWeight": self.dropped_influences.max_weight,
                "meanWeight": self.dropped_influences.mean_weight(),
            },
            "loaderWarnings": self.loader_warnings,
            "warnings": self.warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_sums_keys_over_clips() {
        let mut r = Report {
            source: "x.fbx".into(),
            bones: 2,
            ..Default::default()
        };
        r.clips.push(ClipReport {
            name: "a".into(),
            keys_before: 10,
            keys_after: 4,
            ..Default::default()
        });
        r.clips.push(ClipReport {
            name: "b".into(),
            keys_before: 5,
            keys_after: 2,
            ..Default::default()
        });
        r.warn("w");
        let j = r.to_json();
        assert_eq!(j["keysBefore"], 15);
        assert_eq!(j["keysAfter"], 6);
        assert_eq!(j["warnings"][0], "w");
        assert_eq!(j["clips"][1]["name"], "b");
    }
}
