//! The conversion report: what an importer produced, reduced, dropped or could not
//! represent. Every importer fills one; `gom` prints it or saves it as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::optimize::skin::DroppedInfluences;

/// One converted mesh part.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
///
/// In JSON (through [`ReportJson`]) the report also carries the key totals over all
/// clips and the mean dropped weight; reading it back recomputes the dropped total
/// weight from that mean.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(into = "ReportJson", from = "ReportJson")]
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
    /// The space the importer took the file to be in, when the file declares one
    /// (not part of the JSON form).
    pub source_space: Option<crate::pipeline::units::SourceSpace>,
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

    /// The one rule of every importer for an animation that moves no node (it
    /// animates only what GOM drops: morph or blend-shape weights, lights, cameras,
    /// material properties): no clip is written for it, with this warning. An
    /// animation that moves a node is a clip, even when every track it keeps holds
    /// the rest pose.
    pub fn clip_moves_no_node(&mut self, kind: &str, name: &str) {
        self.warn(format!("{kind} \"{name}\" moves no node: no clip written"));
    }

    /// Warns when nothing the file holds is content GOM keeps (no triangle mesh, bone
    /// or clip): the output is a valid, explicitly empty model.
    pub fn warn_if_empty(&mut self, model: &gom::Model) {
        if model.meshes.is_empty() && model.skeleton.bones.is_empty() && model.clips.is_empty() {
            self.warn(
                "nothing in the file is content GOM holds (no triangle mesh, bone or clip): the output is an empty model",
            );
        }
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
            let (before, after) = (self.keys_before(), self.keys_after());
            lines.push(if after < before {
                format!("  keys: {before} sampled, {after} kept after reduction")
            } else {
                format!("  keys: {before} sampled, every one kept (no reduction)")
            });
        }
        let d = &self.dropped_influences;
        if d.vertices > 0 {
            lines.push(format!(
                "  influences: {} dropped on {} with more than eight (largest dropped weight {:.4}, mean per vertex {:.4})",
                d.influences,
                plural(d.vertices as usize, "vertex", "vertices"),
                d.max_weight,
                d.mean_weight()
            ));
        }
        lines
    }

    /// The report as JSON (fields in declaration order of [`ReportJson`]).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The JSON form of a [`Report`]: its fields, camel-cased, with the totals a reader
/// would otherwise add up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportJson {
    /// [`Report::source`].
    pub source: String,
    /// [`Report::bones`].
    pub bones: usize,
    /// [`Report::meshes`].
    pub meshes: Vec<MeshReport>,
    /// [`Report::clips`].
    pub clips: Vec<ClipReport>,
    /// [`Report::keys_before`].
    pub keys_before: u64,
    /// [`Report::keys_after`].
    pub keys_after: u64,
    /// [`Report::dropped_influences`].
    pub dropped_influences: DroppedInfluencesJson,
    /// [`Report::loader_warnings`].
    pub loader_warnings: Vec<String>,
    /// [`Report::warnings`].
    pub warnings: Vec<String>,
}

/// The JSON form of [`DroppedInfluences`]: the mean in place of the total.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedInfluencesJson {
    /// Vertices that had more than eight non-zero influences.
    pub vertices: u64,
    /// Influences dropped in total.
    pub influences: u64,
    /// The largest single normalised weight that was dropped.
    pub max_weight: f64,
    /// [`DroppedInfluences::mean_weight`].
    pub mean_weight: f64,
}

impl From<Report> for ReportJson {
    fn from(r: Report) -> Self {
        let d = r.dropped_influences;
        ReportJson {
            keys_before: r.keys_before(),
            keys_after: r.keys_after(),
            source: r.source,
            bones: r.bones,
            meshes: r.meshes,
            clips: r.clips,
            dropped_influences: DroppedInfluencesJson {
                vertices: d.vertices,
                influences: d.influences,
                max_weight: d.max_weight,
                mean_weight: d.mean_weight(),
            },
            loader_warnings: r.loader_warnings,
            warnings: r.warnings,
        }
    }
}

impl From<ReportJson> for Report {
    fn from(j: ReportJson) -> Self {
        let d = j.dropped_influences;
        Report {
            source: j.source,
            bones: j.bones,
            meshes: j.meshes,
            clips: j.clips,
            dropped_influences: DroppedInfluences {
                vertices: d.vertices,
                influences: d.influences,
                max_weight: d.max_weight,
                total_weight: d.mean_weight * d.vertices as f64,
            },
            loader_warnings: j.loader_warnings,
            warnings: j.warnings,
            source_space: None,
        }
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
    fn json_keeps_names_with_quotes_and_control_characters_and_reads_back() {
        let name = "a \"quoted\" \\ back\u{1}slash\n\u{e9}\u{1F996}";
        let mut r = Report {
            source: name.into(),
            bones: 3,
            ..Default::default()
        };
        r.meshes.push(MeshReport {
            name: name.into(),
            vertices: 3,
            triangles: 1,
            submeshes: 1,
            skinned: false,
        });
        r.dropped_influences = DroppedInfluences {
            vertices: 4,
            influences: 5,
            max_weight: 0.5,
            total_weight: 1.0,
        };
        r.warn(name);
        let text = serde_json::to_string(&r).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["source"], name);
        assert_eq!(v["meshes"][0]["name"], name);
        assert_eq!(v["droppedInfluences"]["meanWeight"], 0.25);
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
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
                "  influences: 3 dropped on 2 vertices with more than eight (largest dropped weight 0.1250, mean per vertex 0.1250)",
            ]
        );
        // Keys kept as sampled (no tolerance, or clips compressed) are not "reduced".
        r.clips[0].keys_after = 90;
        assert_eq!(
            r.summary()[3],
            "  keys: 90 sampled, every one kept (no reduction)"
        );
    }
}
