//! GOMT text of morph targets and weight tracks (`docs/extensions.md` §4.5).

use super::Writer;
use crate::model::{Clip, MeshPart};

impl Writer {
    /// `morphTargets = [...]`, one delta a line; nothing for a mesh without targets.
    pub(super) fn morph_targets(&mut self, m: &MeshPart) {
        if m.morph_targets.is_empty() {
            return;
        }
        self.s("    morphTargets = [\n");
        for t in &m.morph_targets {
            self.s("      {\n        name = ");
            self.string(&t.name);
            self.s(",\n        defaultWeight = ");
            self.f(t.default_weight);
            if t.indices.is_empty() {
                // No delta shows which lists the target has: say it.
                let lists: Vec<&str> = [(t.normals.is_some(), "n"), (t.tangents.is_some(), "t")]
                    .into_iter()
                    .filter_map(|(on, k)| on.then_some(k))
                    .collect();
                if !lists.is_empty() {
                    self.s(",\n        carries = [");
                    for (k, l) in lists.iter().enumerate() {
                        if k > 0 {
                            self.s(", ");
                        }
                        self.string(l);
                    }
                    self.s("]");
                }
                self.s(",\n        deltas = [],\n      },\n");
                continue;
            }
            self.s(",\n        deltas = [\n");
            for (k, &i) in t.indices.iter().enumerate() {
                self.s("          { i = ");
                self.u(u64::from(i));
                self.s(", p = ");
                self.floats(&t.positions[k]);
                if let Some(n) = &t.normals {
                    self.s(", n = ");
                    self.floats(&n[k]);
                }
                if let Some(d) = &t.tangents {
                    self.s(", t = ");
                    self.floats(&d[k]);
                }
                self.s(" },\n");
            }
            self.s("        ],\n      },\n");
        }
        self.s("    ],\n");
    }

    /// `,\n    weightTracks = [...]`, one key a line; nothing for a clip without.
    pub(super) fn weight_tracks(&mut self, c: &Clip) {
        if c.weight_tracks.is_empty() {
            return;
        }
        self.s(",\n    weightTracks = [\n");
        for t in &c.weight_tracks {
            self.s("      {\n        mesh = ");
            self.u(u64::from(t.mesh));
            self.s(",\n        target = ");
            self.u(u64::from(t.target));
            self.s(",\n        interpolation = ");
            self.string(t.interpolation.name());
            self.s(",\n        keys = [\n");
            for k in &t.keys {
                self.s("          { time = ");
                self.f(k.time);
                self.s(", w = ");
                self.f(k.weight);
                self.s(" },\n");
            }
            self.s("        ],\n      },\n");
        }
        self.s("    ]");
    }
}
