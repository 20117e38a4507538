//! Skin influences: merge, sort and limit to the four GOM allows (D7).

use gom::SkinWeights;

/// What limiting influences to four per vertex dropped, over a whole conversion.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DroppedInfluences {
    /// Vertices that had more than four non-zero influences.
    pub vertices: u64,
    /// Influences dropped in total.
    pub influences: u64,
    /// The largest single normalised weight that was dropped.
    pub max_weight: f64,
    /// Sum of the normalised weight dropped, over the affected vertices.
    pub total_weight: f64,
}

impl DroppedInfluences {
    /// Mean normalised weight dropped per affected vertex (0 when none was).
    pub fn mean_weight(&self) -> f64 {
        if self.vertices == 0 {
            0.0
        } else {
            self.total_weight / self.vertices as f64
        }
    }

    /// Adds the statistics of `other` to these.
    pub fn merge(&mut self, other: &DroppedInfluences) {
        self.vertices += other.vertices;
        self.influences += other.influences;
        self.max_weight = self.max_weight.max(other.max_weight);
        self.total_weight += other.total_weight;
    }
}

/// Turns raw `(bone, weight)` influences of one vertex into GOM skin weights.
///
/// Influences of the same bone are summed, non-positive and non-finite weights are
/// ignored, the rest is normalised; when more than four remain the four largest are
/// kept and renormalised (the dropped weight is recorded in `stats`). The result is
/// sorted by weight descending, ties by bone index ascending, unused slots 0 / 0.0.
/// Returns `None` when no positive weight is left.
pub fn limit_influences(
    influences: &[(u16, f64)],
    stats: &mut DroppedInfluences,
) -> Option<SkinWeights> {
    // Merged influences: on the stack for the usual handful, else on the heap.
    let mut local = [(0u16, 0.0f64); 8];
    let mut heap = Vec::new();
    let buf: &mut [(u16, f64)] = if influences.len() <= local.len() {
        &mut local
    } else {
        heap.resize(influences.len(), (0, 0.0));
        &mut heap
    };
    let mut m = 0;
    for &(bone, w) in influences {
        if !(w.is_finite() && w > 0.0) {
            continue;
        }
        match buf[..m].iter_mut().find(|(b, _)| *b == bone) {
            Some(entry) => entry.1 += w,
            None => {
                buf[m] = (bone, w);
                m += 1;
            }
        }
    }
    let merged = &mut buf[..m];
    let total: f64 = merged.iter().map(|e| e.1).sum();
    if merged.is_empty() || total <= 0.0 || !total.is_finite() {
        return None;
    }
    if let [(bone, _)] = merged {
        // One bone (a rigid vertex): its normalised weight is exactly 1.
        return Some(SkinWeights {
            bones: [*bone, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        });
    }
    for e in merged.iter_mut() {
        e.1 /= total;
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if merged.len() > 4 {
        stats.vertices += 1;
        for &(_, w) in &merged[4..] {
            stats.influences += 1;
            stats.max_weight = stats.max_weight.max(w);
            stats.total_weight += w;
        }
    }
    let kept_slots = &merged[..merged.len().min(4)];
    let kept: f64 = kept_slots.iter().map(|e| e.1).sum();
    let mut out = [(0u16, 0.0f32); 4];
    for (o, &(b, w)) in out.iter_mut().zip(kept_slots) {
        *o = (b, (w / kept) as f32);
    }
    let out = &mut out[..kept_slots.len()];
    // Rounding to f32 keeps the order but can create ties: apply the tie rule again.
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut sw = SkinWeights::default();
    for (slot, &(b, w)) in out.iter().enumerate() {
        sw.bones[slot] = b;
        sw.weights[slot] = w;
    }
    Some(sw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_four_largest_and_renormalises() {
        let mut stats = DroppedInfluences::default();
        let infl = [(5, 0.1), (1, 0.3), (2, 0.2), (3, 0.2), (4, 0.15), (6, 0.05)];
        let sw = limit_influences(&infl, &mut stats).unwrap();
        // Kept: 0.3, 0.2 (bone 2), 0.2 (bone 3), 0.15: sum 0.85.
        assert_eq!(sw.bones, [1, 2, 3, 4]);
        let expect = [0.3 / 0.85, 0.2 / 0.85, 0.2 / 0.85, 0.15 / 0.85];
        for (w, e) in sw.weights.iter().zip(expect) {
            assert!((f64::from(*w) - e).abs() < 1e-6);
        }
        assert_eq!(stats.vertices, 1);
        assert_eq!(stats.influences, 2);
        assert!((stats.max_weight - 0.1).abs() < 1e-12);
        assert!((stats.mean_weight() - 0.15).abs() < 1e-12);
    }

    #[test]
    fn merges_duplicate_bones_and_ignores_bad_weights() {
        let mut stats = DroppedInfluences::default();
        let infl = [(7, 0.25), (3, f64::NAN), (7, 0.25), (2, -1.0), (1, 0.5)];
        let sw = limit_influences(&infl, &mut stats).unwrap();
        // Bones 1 and 7 tie at 0.5: the lower index comes first.
        assert_eq!(sw.bones, [1, 7, 0, 0]);
        assert_eq!(sw.weights, [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(stats, DroppedInfluences::default());
        assert!(limit_influences(&[(1, 0.0)], &mut stats).is_none());
    }
}
