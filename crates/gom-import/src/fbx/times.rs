//! The sample times of an animation stack: at its keys and in between at about the
//! sample rate where something moves ([`key_sample_times`]), or on a regular grid
//! ([`sample_times`]).

use super::eval::KeyTime;

/// `grid` with the times of the keys of the curves animating property `prop` of the
/// element `element_id` in `stack` (relative to its start, within `[0, duration]`),
/// sorted, without repeats.
pub(crate) fn with_prop_keys(
    grid: &[f64],
    stack: &ufbx::AnimStack,
    element_id: u32,
    prop: &str,
    duration: f64,
) -> Vec<f64> {
    let mut times = grid.to_vec();
    for layer in stack.anim.layers.iter() {
        let props = layer.anim_props.iter();
        for p in props.filter(|p| p.element.element_id == element_id && &*p.prop_name == prop) {
            for curve in p.anim_value.curves.iter().flatten() {
                times.extend(
                    curve
                        .keyframes
                        .iter()
                        .map(|k| k.time - stack.time_begin)
                        .filter(|t| t.is_finite() && (0.0..=duration).contains(t)),
                );
            }
        }
    }
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

/// Sample times `0, 1/rate, …` up to and including `duration`, at most `max_samples`
/// of them (evenly spread when the rate would give more).
pub(crate) fn sample_times(duration: f64, rate: f64, max_samples: usize) -> Vec<f64> {
    if duration.is_nan() || duration <= 0.0 {
        return vec![0.0];
    }
    let max_samples = max_samples.max(2);
    let intervals = (duration * rate - 1e-6).ceil().max(1.0);
    let capped = intervals >= max_samples as f64;
    let n = if capped {
        max_samples - 1
    } else {
        intervals as usize
    };
    let step = duration / n as f64;
    let exact = (duration * rate - n as f64).abs() < 1e-6;
    (0..=n)
        .map(|k| {
            if k == n {
                duration
            } else if exact || capped {
                k as f64 * step
            } else {
                k as f64 / rate
            }
        })
        .collect()
}

/// The f32 just below `x` (`x > 0`), or `None` at zero.
fn f32_below(x: f32) -> Option<f32> {
    (x > 0.0 && x.is_finite()).then(|| f32::from_bits(x.to_bits() - 1))
}

/// The f32 just above `x` (`x >= 0`).
fn f32_above(x: f32) -> Option<f32> {
    (0.0..f32::MAX)
        .contains(&x)
        .then(|| f32::from_bits((x + 0.0).to_bits() + 1))
}

/// Spans of the timeline in which some moving node's transform may change: sorted,
/// disjoint open intervals (from [`super::eval::NodeEval::varying_spans`]).
pub(crate) struct Varying(Vec<(f64, f64)>);

impl Varying {
    /// The union of `spans` (empty and NaN spans dropped).
    pub(crate) fn new(mut spans: Vec<(f64, f64)>) -> Varying {
        spans.retain(|&(a, b)| a < b);
        spans.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let mut merged: Vec<(f64, f64)> = Vec::with_capacity(spans.len());
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a < last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Varying(merged)
    }

    /// Everything may change (no knowledge of where the transforms are constant).
    #[cfg(test)]
    pub(crate) fn everywhere() -> Varying {
        Varying(vec![(f64::NEG_INFINITY, f64::INFINITY)])
    }

    /// Whether some span meets the open interval `(a, b)`.
    pub(crate) fn meets(&self, a: f64, b: f64) -> bool {
        let i = self.0.partition_point(|s| s.1 <= a);
        self.0.get(i).is_some_and(|s| s.0 < b)
    }
}

/// The sample times of a clip: every source key inside `[0, duration]` (key times are
/// relative to the stack start `begin`), the clip's ends, and between two consecutive
/// such times evenly spaced samples `1 / rate` apart or as near to it as the gap
/// allows (a gap of `g` seconds gets `max(1, round(g * rate))` intervals) where a
/// transform may change in the gap (`varying`); a gap in which nothing moves (a hold
/// between keys, or the constant extrapolation after the last key) needs no sample
/// inside: its two ends give the same transform. So every
/// source key is a sample, curves between keys are sampled at about the rate, and a
/// file whose keys are already that dense keeps its keys. A step (constant
/// interpolation) gets a second sample one `f32` step before or after its key, so that
/// the jump stays a jump. Times that round to the same `f32` are one sample. `None`
/// when that would be more than `max_samples` samples.
///
/// Each sample comes as (time relative to `begin`, time on the scene timeline): a
/// source key's sample is its own key time on the timeline (not `begin` plus its
/// relative time, which may round to a neighbour), so its value is the key's value.
pub(crate) fn key_sample_times(
    keys: &[KeyTime],
    varying: &Varying,
    begin: f64,
    duration: f64,
    rate: f64,
    max_samples: usize,
) -> Option<Vec<(f64, f64)>> {
    if duration.is_nan() || duration <= 0.0 {
        return Some(vec![(0.0, begin)]);
    }
    if keys.len() > max_samples {
        return None;
    }
    let mut anchors: Vec<(f64, f64)> = vec![(0.0, begin), (duration, begin + duration)];
    for k in keys {
        let t = k.time - begin;
        if !(t.is_finite() && t >= 0.0 && t <= duration) {
            continue;
        }
        anchors.push((t, k.time));
        let t32 = t as f32;
        let step = |x: f32| (f64::from(x), begin + f64::from(x));
        if k.step_before {
            anchors.extend(f32_below(t32).map(step));
        }
        if k.step_after {
            anchors.extend(f32_above(t32).map(step));
        }
    }
    anchors.retain(|&(t, _)| (0.0..=duration).contains(&t));
    // Equal pairs are identical values: an unstable sort is deterministic here.
    anchors.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // The anchors' times on the timeline before merging (sorted, as the anchors are):
    // a gap that holds one inside (two anchors closer than one `f32` step are one
    // sample time) is sampled as a varying one.
    let all_at: Vec<f64> = anchors.iter().map(|a| a.1).collect();
    anchors.dedup_by(|b, a| (a.0 as f32) == (b.0 as f32));
    let key_inside = |a: f64, b: f64| {
        let i = all_at.partition_point(|&t| t <= a);
        all_at.get(i).is_some_and(|&t| t < b)
    };
    let intervals = |a: (f64, f64), b: (f64, f64)| {
        if varying.meets(a.1, b.1) || key_inside(a.1, b.1) {
            ((b.0 - a.0) * rate).round().max(1.0)
        } else {
            1.0
        }
    };
    let total: f64 = anchors.windows(2).map(|w| intervals(w[0], w[1])).sum();
    if total + 1.0 > max_samples as f64 {
        return None;
    }
    let mut times = Vec::with_capacity(total as usize + 1);
    for w in anchors.windows(2) {
        let (a, b) = (w[0], w[1]);
        let n = intervals(a, b) as usize;
        times.push(a);
        times.extend((1..n).map(|k| {
            let f = k as f64 / n as f64;
            (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)
        }));
    }
    times.extend(anchors.last());
    times.dedup_by(|b, a| (a.0 as f32) == (b.0 as f32));
    Some(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_gaps_are_sampled_at_their_ends_only() {
        // Keys at 0 and 0.8 s of a 3.3 s stack; the curves vary between them and hold
        // after the last key.
        let keys: Vec<KeyTime> = [0.0, 0.8]
            .iter()
            .map(|&time| KeyTime {
                time,
                step_before: false,
                step_after: false,
            })
            .collect();
        let varying = Varying::new(vec![(0.0, 0.8), (0.0, 0.4), (0.5, 0.8)]);
        let t = key_sample_times(&keys, &varying, 0.0, 3.3, 30.0, 10_000).unwrap();
        // 24 intervals in [0, 0.8], one for the hold.
        assert_eq!(t.len(), 26);
        assert_eq!(t[24], (0.8, 0.8));
        assert_eq!(t[25], (3.3, 3.3));
        assert!((t[1].0 - 0.8 / 24.0).abs() < 1e-15);
        // Varying everywhere: the hold is sampled at the rate too.
        let t = key_sample_times(&keys, &Varying::everywhere(), 0.0, 3.3, 30.0, 10_000);
        assert_eq!(t.unwrap().len(), 100);
        // A span that only touches a gap's end does not make it vary.
        let v = Varying::new(vec![(f64::NEG_INFINITY, 0.0), (3.3, f64::INFINITY)]);
        assert!(!v.meets(0.0, 3.3) && v.meets(-1.0, 0.5) && v.meets(3.0, 4.0));
        assert!(Varying::new(vec![(1.0, 2.0), (1.5, 3.0)]).meets(2.5, 2.6));
    }

    #[test]
    fn sample_times_cover_the_stack_and_end_exactly() {
        let t = sample_times(19.0 / 24.0, 30.0, 1000);
        // 0.79166 s at 30 Hz: 24 intervals (the last one shorter), 25 samples.
        assert_eq!(t.len(), 25);
        assert_eq!(t[0], 0.0);
        assert!((t[1] - 1.0 / 30.0).abs() < 1e-15);
        assert_eq!(*t.last().unwrap(), 19.0 / 24.0);
        assert!(t.windows(2).all(|w| w[1] > w[0]));
        let t = sample_times(1.0, 30.0, 1000);
        assert_eq!(t.len(), 31);
        assert_eq!(sample_times(0.0, 30.0, 1000), vec![0.0]);
        // Capped: 10 samples spread evenly over the whole duration.
        let t = sample_times(100.0, 30.0, 10);
        assert_eq!(t.len(), 10);
        assert_eq!(t[9], 100.0);
        assert!((t[1] - 100.0 / 9.0).abs() < 1e-12);
    }

    fn key(time: f64) -> KeyTime {
        KeyTime {
            time,
            step_before: false,
            step_after: false,
        }
    }

    #[test]
    fn key_sample_times_hit_every_key_and_fill_gaps_at_the_rate() {
        // Stack from 1 s to 3 s; keys at 24 fps over [1, 1.5], one at 2.9 s.
        let mut keys: Vec<KeyTime> = (0..=12).map(|f| key(1.0 + f64::from(f) / 24.0)).collect();
        keys.push(key(2.9));
        keys.push(key(7.0)); // outside the stack: ignored
        let pairs =
            key_sample_times(&keys, &Varying::everywhere(), 1.0, 2.0, 30.0, 10_000).unwrap();
        let t: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        // Every key inside the stack is a sample (to f32, as clip times are stored),
        // evaluated at the key's own time on the timeline.
        for k in keys.iter().filter(|k| k.time <= 3.0) {
            let want = (k.time - 1.0) as f32;
            assert!(
                pairs
                    .iter()
                    .any(|&(x, at)| x as f32 == want && at == k.time),
                "key {} missing",
                k.time
            );
        }
        // Every other sample is evaluated at its relative time after the start.
        assert!(pairs.iter().all(|&(x, at)| (at - 1.0 - x).abs() < 1e-12));
        assert_eq!(t[0], 0.0);
        assert_eq!(*t.last().unwrap(), 2.0);
        assert!(t.windows(2).all(|w| (w[0] as f32) < (w[1] as f32)));
        // Keys 1/24 s apart are not subdivided at 30 Hz (round(1.25) = 1 interval).
        assert_eq!(t.iter().filter(|&&x| x < 0.5 + 1e-9).count(), 13);
        // The 1.4 s gap from 0.5 s to 1.9 s gets round(42) = 42 intervals of 1/30 s.
        let gap: Vec<f64> = t
            .iter()
            .copied()
            .filter(|&x| x > 0.5 + 1e-9 && x < 1.9 - 1e-9)
            .collect();
        assert_eq!(gap.len(), 41);
        assert!((gap[0] - 0.5 - 1.4 / 42.0).abs() < 1e-12);
        // Too many samples: none returned (the caller falls back to the capped grid).
        assert!(key_sample_times(&keys, &Varying::everywhere(), 1.0, 2.0, 30.0, 50).is_none());
        // No duration: one sample.
        assert_eq!(
            key_sample_times(&keys, &Varying::everywhere(), 1.0, 0.0, 30.0, 50),
            Some(vec![(0.0, 1.0)])
        );
    }

    #[test]
    fn steps_get_a_sample_one_f32_step_away() {
        let keys = [
            KeyTime {
                time: 0.5,
                step_before: true,
                step_after: false,
            },
            KeyTime {
                time: 0.75,
                step_before: false,
                step_after: true,
            },
        ];
        let t = key_sample_times(&keys, &Varying::everywhere(), 0.0, 1.0, 30.0, 1000).unwrap();
        let t32: Vec<f32> = t.iter().map(|&(x, _)| x as f32).collect();
        let below = f32::from_bits(0.5f32.to_bits() - 1);
        let above = f32::from_bits(0.75f32.to_bits() + 1);
        assert!(t32.contains(&below) && t32.contains(&0.5));
        assert!(t32.contains(&0.75) && t32.contains(&above));
    }
}
