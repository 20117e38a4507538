//! Animation curves and values, evaluated as ufbx's `ufbx_evaluate_curve` does.

use super::{KeyTime, V3};
/// How a curve continues outside its keys (`ufbx_extrapolation`).
#[derive(Clone, Copy)]
pub(crate) struct Ext {
    pub(crate) mode: ufbx::ExtrapolationMode,
    /// Repetitions allowed (negative: unlimited).
    pub(crate) repeat_count: i32,
}

impl Ext {
    pub(crate) fn of(e: &ufbx::Extrapolation) -> Ext {
        Ext {
            mode: e.mode,
            repeat_count: e.repeat_count,
        }
    }
}

/// One animation curve, evaluated as `ufbx_evaluate_curve` does.
pub(crate) struct Curve<'a> {
    pub(crate) keys: &'a [ufbx::Keyframe],
    pre: Ext,
    post: Ext,
    min_time: f64,
    max_time: f64,
    /// KTime ticks per second (repeat extrapolation works in ticks).
    ktime_second: f64,
    /// Index of the first key after the previous evaluation's time.
    cursor: usize,
    /// [`Curve::is_well_formed`] and [`Curve::is_constant`], found once.
    well_formed: bool,
    constant: bool,
}

impl<'a> Curve<'a> {
    /// A curve over `keys` (sorted by time) with its extrapolation and time range.
    pub(crate) fn new(
        keys: &'a [ufbx::Keyframe],
        pre: Ext,
        post: Ext,
        min_time: f64,
        max_time: f64,
        ktime_second: f64,
    ) -> Curve<'a> {
        let (well_formed, constant) = shape(keys, pre, post);
        Curve {
            keys,
            pre,
            post,
            min_time,
            max_time,
            ktime_second,
            cursor: 0,
            well_formed,
            constant,
        }
    }

    pub(crate) fn of(curve: &'a ufbx::AnimCurve, ktime_second: f64) -> Curve<'a> {
        Curve::new(
            &curve.keyframes,
            Ext::of(&curve.pre_extrapolation),
            Ext::of(&curve.post_extrapolation),
            curve.min_time,
            curve.max_time,
            ktime_second,
        )
    }

    /// Whether the keys are in time order with finite times (what the cursor and
    /// ufbx's own search both assume).
    pub(crate) fn is_well_formed(&self) -> bool {
        self.well_formed
    }

    /// Whether the value is the same at every time: at most one key, or keys of one
    /// finite value joined by flat segments (constant, linear, or cubic with level
    /// tangents) and not extrapolated along a slope. (Evaluated, such a curve may differ
    /// from its value in the last bit where the interpolation rounds.)
    pub(crate) fn is_constant(&self) -> bool {
        self.constant
    }

    /// Appends every key time, each with whether the value jumps just before it (the
    /// previous key holds its value up to it, or has the same time: the later of two
    /// keys at one time gives the value there) and just after it (the key hands over to
    /// the next key's value at once).
    pub(crate) fn key_times(&self, out: &mut Vec<KeyTime>) {
        use ufbx::Interpolation::{ConstantNext, ConstantPrev};
        let keys = self.keys;
        for (i, k) in keys.iter().enumerate() {
            out.push(KeyTime {
                time: k.time,
                step_before: i > 0
                    && (keys[i - 1].interpolation == ConstantPrev || keys[i - 1].time == k.time),
                step_after: i + 1 < keys.len() && k.interpolation == ConstantNext,
            });
        }
    }

    /// Appends the spans of the timeline (open intervals, seconds) in which the value
    /// may change: between two keys unless the segment is flat (a step, or equal values
    /// joined by a straight or level-tangent segment), and before the first or after the
    /// last key unless the curve is extrapolated as a constant there. Between two
    /// consecutive keys (or beyond the last) outside these spans the value holds, up to
    /// the last bit of the interpolation's rounding; a jump at a key (a step, or two keys
    /// at one time) is not a span: the caller samples both sides of every key.
    pub(crate) fn varying_spans(&self, out: &mut Vec<(f64, f64)>) {
        let keys = self.keys;
        if keys.len() <= 1 {
            // No key gives the default, one key its value, at every time.
            return;
        }
        let constant = |e: Ext| {
            e.mode == ufbx::ExtrapolationMode::Constant
                || (e.mode != ufbx::ExtrapolationMode::Slope && e.repeat_count == 0)
        };
        if !constant(self.pre) {
            push_span(out, (f64::NEG_INFINITY, self.min_time));
        }
        if !constant(self.post) {
            push_span(out, (self.max_time, f64::INFINITY));
        }
        use ufbx::Interpolation as I;
        // Consecutive varying segments make one span.
        let mut open: Option<(f64, f64)> = None;
        for w in keys.windows(2) {
            let (p, n) = (&w[0], &w[1]);
            let flat = match p.interpolation {
                I::ConstantPrev | I::ConstantNext => true,
                I::Linear => p.value == n.value,
                I::Cubic => p.value == n.value && p.right.dy == 0.0 && n.left.dy == 0.0,
            };
            open = match (open, flat) {
                (Some((a, _)), false) => Some((a, n.time)),
                (None, false) => Some((p.time, n.time)),
                (Some(span), true) => {
                    push_span(out, span);
                    None
                }
                (None, true) => None,
            };
        }
        if let Some(span) = open {
            push_span(out, span);
        }
    }

    /// The value at `time`; `default` when the curve has no key.
    pub(crate) fn eval(&mut self, time: f64, default: f64) -> f64 {
        match self.keys {
            [] => return default,
            [k] => return k.value,
            _ => {}
        }
        if time < self.min_time || time > self.max_time {
            return self.extrapolate(time);
        }
        let next = self.seek(time);
        self.interpolate(next, time)
    }

    /// Index of the first key whose time is after `time`, from the cursor.
    pub(crate) fn seek(&mut self, time: f64) -> usize {
        let keys = self.keys;
        let mut i = self.cursor.min(keys.len());
        if i > 0 && keys[i - 1].time > time {
            i = keys.partition_point(|k| k.time <= time);
        }
        while i < keys.len() && keys[i].time <= time {
            i += 1;
        }
        self.cursor = i;
        i
    }

    /// The value at `time` between key `next - 1` and key `next`.
    pub(crate) fn interpolate(&self, next: usize, time: f64) -> f64 {
        let keys = self.keys;
        if next == 0 {
            return keys[0].value;
        }
        let Some(n) = keys.get(next) else {
            return keys[keys.len() - 1].value;
        };
        let p = &keys[next - 1];
        if p.time == time {
            return p.value;
        }
        let rcp_delta = 1.0 / (n.time - p.time);
        let t = (time - p.time) * rcp_delta;
        match p.interpolation {
            ufbx::Interpolation::ConstantPrev => p.value,
            ufbx::Interpolation::ConstantNext => n.value,
            ufbx::Interpolation::Linear => p.value * (1.0 - t) + n.value * t,
            ufbx::Interpolation::Cubic => {
                let x1 = f64::from(p.right.dx) * rcp_delta;
                let x2 = 1.0 - f64::from(n.left.dx) * rcp_delta;
                let t = cubic_bezier_t(x1, x2, t);
                let (t2, u) = (t * t, 1.0 - t);
                let (t3, u2) = (t2 * t, u * u);
                let u3 = u2 * u;
                let y0 = p.value;
                let y3 = n.value;
                let y1 = y0 + f64::from(p.right.dy);
                let y2 = y3 - f64::from(n.left.dy);
                u3 * y0 + 3.0 * (u2 * t * y1 + u * t2 * y2) + t3 * y3
            }
        }
    }

    /// The value outside `[min_time, max_time]` (`ufbxi_extrapolate_curve`).
    pub(crate) fn extrapolate(&self, real_time: f64) -> f64 {
        let keys = self.keys;
        let first = &keys[0];
        let last = &keys[keys.len() - 1];
        let pre = real_time < self.min_time;
        let (key, ext) = if pre {
            (first, self.pre)
        } else {
            (last, self.post)
        };
        match ext.mode {
            ufbx::ExtrapolationMode::Constant => return key.value,
            ufbx::ExtrapolationMode::Slope => {
                let tangent = if pre { key.right } else { key.left };
                return key.value
                    + f64::from(tangent.dy) * ((real_time - key.time) / f64::from(tangent.dx));
            }
            _ => {}
        }
        if ext.repeat_count == 0 {
            return key.value;
        }
        // In KTime ticks, to be frame exact.
        let scale = self.ktime_second;
        let min_time = (self.min_time * scale).round_ties_even();
        let max_time = (self.max_time * scale).round_ties_even();
        let time = real_time * scale;
        let delta = if pre {
            min_time - time
        } else {
            time - max_time
        };
        let duration = max_time - min_time;
        // At least one tick (a NaN duration fails this too).
        if duration.partial_cmp(&1.0).is_none_or(|o| o.is_lt()) {
            return key.value;
        }
        let rep = delta / duration;
        let mut rep_n = rep.floor();
        let mut rep_d = delta - rep_n * duration;
        if ext.repeat_count > 0 && rep_n >= f64::from(ext.repeat_count) {
            rep_n = f64::from(ext.repeat_count - 1);
            rep_d = duration;
        }
        if ext.mode == ufbx::ExtrapolationMode::Mirror {
            let parity = rep_n * 0.5 - (rep_n * 0.5).floor();
            if parity <= 0.25 {
                rep_d = duration - rep_d;
            }
        }
        if pre {
            rep_d = duration - rep_d;
        }
        let new_time = (min_time + rep_d) / scale;
        let next = keys.partition_point(|k| k.time <= new_time);
        let mut value = self.interpolate(next, new_time);
        if ext.mode == ufbx::ExtrapolationMode::RepeatRelative {
            let mut d = last.value - first.value;
            if pre {
                d = -d;
            }
            value += d * (rep_n + 1.0);
        }
        value
    }
}

/// [`Curve::is_well_formed`] and [`Curve::is_constant`] of a curve, in one pass over
/// its keys.
fn shape(keys: &[ufbx::Keyframe], pre: Ext, post: Ext) -> (bool, bool) {
    let Some(first) = keys.first() else {
        return (true, true);
    };
    let v = first.value;
    let slope = ufbx::ExtrapolationMode::Slope;
    let mut well_formed = first.time.is_finite();
    let mut constant =
        keys.len() == 1 || (v.is_finite() && pre.mode != slope && post.mode != slope);
    for w in keys.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        well_formed &= b.time.is_finite() && a.time <= b.time;
        constant &= b.value == v
            && (a.interpolation != ufbx::Interpolation::Cubic
                || (a.right.dy == 0.0 && b.left.dy == 0.0));
    }
    (well_formed, constant)
}

/// Appends `span` unless the last span holds it (the curves of one property usually
/// share their keys, and so their spans).
fn push_span(out: &mut Vec<(f64, f64)>, span: (f64, f64)) {
    if !out.last().is_some_and(|l| l.0 <= span.0 && span.1 <= l.1) {
        out.push(span);
    }
}

/// The curve parameter whose x is `x0`, for a Bézier with x control points
/// `0, p1, p2, 1` (Newton–Raphson, as ufbx does).
pub(crate) fn cubic_bezier_t(p1: f64, p2: f64, x0: f64) -> f64 {
    let p1_3 = p1 * 3.0;
    let p2_3 = p2 * 3.0;
    let a = p1_3 - p2_3 + 1.0;
    let b = p2_3 - p1_3 - p1_3;
    let c = p1_3;
    let a_3 = 3.0 * a;
    let b_2 = 2.0 * b;
    let mut t = x0;
    // One Newton step; returns the residual before the step.
    let step = |t: &mut f64| {
        let t2 = *t * *t;
        let t3 = t2 * *t;
        let x1 = a * t3 + b * t2 + c * *t - x0;
        *t -= x1 / (a_3 * t2 + b_2 * *t + c);
        x1
    };
    step(&mut t);
    step(&mut t);
    let mut x = step(&mut t);
    // 4 ULP from 1.0.
    const EPS: f64 = 8.881784197001252e-16;
    if x.abs() <= EPS {
        return t;
    }
    for _ in 0..4 {
        step(&mut t);
        x = step(&mut t);
        if x.abs() <= EPS {
            return t;
        }
    }
    t
}

/// An animation value: up to three curves over a default (`ufbx_anim_value`).
pub(crate) struct AnimValue<'a> {
    default: V3,
    curves: [Option<Curve<'a>>; 3],
}

impl<'a> AnimValue<'a> {
    pub(crate) fn of(v: &'a ufbx::AnimValue, ktime_second: f64) -> AnimValue<'a> {
        AnimValue {
            default: [v.default_value.x, v.default_value.y, v.default_value.z],
            curves: [0, 1, 2].map(|k| v.curves[k].as_deref().map(|c| Curve::of(c, ktime_second))),
        }
    }

    pub(crate) fn eval(&mut self, time: f64) -> V3 {
        let mut r = self.default;
        for (k, c) in self.curves.iter_mut().enumerate() {
            if let Some(c) = c {
                r[k] = c.eval(time, r[k]);
            }
        }
        r
    }

    pub(crate) fn curves(&self) -> impl Iterator<Item = &Curve<'a>> {
        self.curves.iter().flatten()
    }
}
