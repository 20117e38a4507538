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

    /// The report as lines for a person to read (warnings excluded: they are listed
    /// on their own): bones, each mesh part and clip, keys before and after reduction,
    /// dropped influences.
    pub fn summary(&self) -> Vec<String> {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut lines = vec![format!(
            "{}: {}",
            self.source,
            plural(self.bones, "bone", "bones")
        )];
        for m in &self.meshes {
            lines.push(format!(
                "  mesh \"{}\": {}, {}, {}{}",
                m.name,
                plural(m.vertices, "vertex", "vertices"),
                plural(m.triangles, "triangle", "triangles"),
                plural(m.submeshes, "submesh", "submeshes"),
                if m.skinned { ", skinned" } else { "" }
            ));
        }
        for c in &self.clips {
            lines.push(format!(
                "  clip \"{}\": {} s, {}, {} keys sampled, {} kept",
                c.name,
                c.duration,
                plural(c.tracks, "track", "tracks"),
                c.keys_before,
                c.keys_after
            ));
        }
        if !self.clips.is_empty() {
            lines.push(format!(
                "  keys: {} sampled, {} kept after reduction",
                self.keys_before(),
                self.keys_after()
            ));
        }
        let d = &self.dropped_influences;
        if d.vertices > 0 {
            lines.push(format!(
                "  influences: {} dropped on {} with more than four (largest dropped weight {:.4}, mean per vertex {:.4})",
                d.influences,
                plural(d.vertices as usize, "vertex", "vertices"),
                d.max_weight,
                d.mean_weight()
            ));
        }
        lines
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

    #[test]
    fn summary_names_every_part_clip_and_dropped_influence() {
        let mut r = Report {
            source: "x.fbx".into(),
            bones: 1,
            ..Default::default()
        };
        r.meshes.push(MeshReport {
            name: "body".into(),
            vertices: 12,
            triangles: 1,
            submeshes: 2,
            skinned: true,
        });
        r.clips.push(ClipReport {
            name: "walk".into(),
            duration: 1.5,
            tracks: 3,
            keys_before: 90,
            keys_after: 20,
        });
        r.dropped_influences = DroppedInfluences {
            vertices: 2,
            influences: 3,
            max_weight: 0.125,
            total_weight: 0.25,
        };
        assert_eq!(
            r.summary(),
            [
                "x.fbx: 1 bone",
                "  mesh \"body\": 12 vertices, 1 triangle, 2 submeshes, skinned",
                "  clip \"walk\": 1.5 s, 3 tracks, 90 keys sampled, 20 kept",
                "  keys: 90 sampled, 20 kept after reduction",
                "  influences: 3 dropped on 2 vertices with more than four (largest dropped weight 0.1250, mean per vertex 0.1250)",
            ]
        );
    }
}
