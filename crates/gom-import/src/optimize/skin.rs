//! Skin influences: merge, sort and limit to the four GOM v1 allows (D7), or to the
//! eight of the `SKNX` extension (`docs/extensions.md` §3).

use gom::SkinWeights;

/// What limiting influences per vertex (to four, or eight) dropped, over a whole
/// conversion.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DroppedInfluences {
    /// Vertices that had more non-zero influences than the limit.
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

/// Turns raw `(bone, weight)` influences of one vertex into GOM skin weights (four
/// slots); see [`limit_influences_to`].
pub fn limit_influences(
    influences: &[(u16, f64)],
    stats: &mut DroppedInfluences,
) -> Option<SkinWeights> {
    limit_influences_to(influences, 4, stats).map(|i| i.first)
}

/// Up to eight influences of one vertex: slots 0..4 (VB0's skin, D7) and 4..8 (the
/// `SKNX` extension), unused slots bone 0 weight 0.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Influences {
    /// Slots 0..4.
    pub first: SkinWeights,
    /// Slots 4..8.
    pub extra: SkinWeights,
}

impl Influences {
    /// Whether any of slots 4..8 is used.
    pub fn uses_extra(&self) -> bool {
        self.extra.weights[0] > 0.0
    }
}

/// Influences of the vertices of one mesh split into GOM's streams: the first four
/// slots, and slots 4..8 when some vertex uses more than four (else `None`).
pub fn split_influences(v: &[Influences]) -> (Vec<SkinWeights>, Option<Vec<SkinWeights>>) {
    let first = v.iter().map(|i| i.first).collect();
    let extra = v
        .iter()
        .any(Influences::uses_extra)
        .then(|| v.iter().map(|i| i.extra).collect());
    (first, extra)
}

/// Turns raw `(bone, weight)` influences of one vertex into GOM skin weights of at
/// most `max` (4 or 8) slots.
///
/// Influences of the same bone are summed, non-positive and non-finite weights are
/// ignored, the rest is normalised; when more than `max` remain the `max` largest are
/// kept and renormalised (the dropped weight is recorded in `stats`). The result is
/// sorted by weight descending, ties by bone index ascending, unused slots 0 / 0.0.
/// Returns `None` when no positive weight is left.
pub fn limit_influences_to(
    influences: &[(u16, f64)],
    max: usize,
    stats: &mut DroppedInfluences,
) -> Option<Influences> {
    let max = max.clamp(1, gom::limits::MAX_SKIN_INFLUENCES);
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
        return Some(Influences {
            first: SkinWeights {
                bones: [*bone, 0, 0, 0],
                weights: [1.0, 0.0, 0.0, 0.0],
            },
            extra: SkinWeights::default(),
        });
    }
    for e in merged.iter_mut() {
        e.1 /= total;
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if merged.len() > max {
        stats.vertices += 1;
        for &(_, w) in &merged[max..] {
            stats.influences += 1;
            stats.max_weight = stats.max_weight.max(w);
            stats.total_weight += w;
        }
    }
    let kept_slots = &merged[..merged.len().min(max)];
    let kept: f64 = kept_slots.iter().map(|e| e.1).sum();
    let mut out = [(0u16, 0.0f32); 8];
    for (o, &(b, w)) in out.iter_mut().zip(kept_slots) {
        *o = (b, (w / kept) as f32);
    }
    let out = &mut out[..kept_slots.len()];
    // Rounding to f32 keeps the order but can create ties: apply the tie rule again.
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut i = Influences::default();
    for (slot, &(b, w)) in out.iter().enumerate() {
        let sw = if slot < 4 { &mut i.first } else { &mut i.extra };
        sw.bones[slot % 4] = b;
        sw.weights[slot % 4] = w;
    }
    Some(i)
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
    fn keeps_eight_in_order_when_asked_and_drops_the_ninth() {
        let mut stats = DroppedInfluences::default();
        // Nine bones 9..1 with weights 1..9 (of 45): the lightest, bone 9, goes.
        let infl: Vec<(u16, f64)> = (1..=9u16).map(|k| (10 - k, f64::from(k))).collect();
        let i = limit_influences_to(&infl, 8, &mut stats).unwrap();
        assert_eq!(i.first.bones, [1, 2, 3, 4]);
        assert_eq!(i.extra.bones, [5, 6, 7, 8]);
        let all: Vec<f32> = i.first.weights.into_iter().chain(i.extra.weights).collect();
        for (k, w) in all.iter().enumerate() {
            let want = (9 - k) as f64 / 44.0;
            assert!((f64::from(*w) - want).abs() < 1e-7, "slot {k}: {w}");
        }
        assert_eq!((stats.vertices, stats.influences), (1, 1));
        assert!(i.uses_extra());
        let (first, extra) = split_influences(&[i, Influences::default()]);
        assert_eq!(first.len(), 2);
        assert_eq!(extra.unwrap()[0], i.extra);
        // Five influences within eight: nothing dropped, slot 4 used.
        let five = limit_influences_to(&infl[4..], 8, &mut stats).unwrap();
        assert_eq!(five.extra.weights[1], 0.0);
        assert!(five.extra.weights[0] > 0.0);
        assert_eq!((stats.vertices, stats.influences), (1, 1));
        // Four slots only: the first four as before, nothing extra.
        let (first, extra) =
            split_influences(&[limit_influences_to(&infl, 4, &mut stats).unwrap()]);
        assert_eq!(first[0].bones, [1, 2, 3, 4]);
        assert!(extra.is_none());
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
