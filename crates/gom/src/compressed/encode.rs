//! The encoder: deterministic (`f64` arithmetic with `+ − × ÷ √` only, no hash maps, no
//! threads), honouring an error bound measured on the skeleton as a whole.
//!
//! Per segment of [`SEGMENT_FRAMES`] frames it chooses one bit width per animated
//! channel. A first estimate bounds each joint's error by the sum, over the joint and
//! its ancestors, of each channel's local quantisation error times its reach (the
//! farthest distance from that ancestor to the joint's measuring points in the
//! segment), and lowers widths greedily while every joint stays within the bound
//! scaled by a factor `α`. The widths are then checked by decoding the segment and
//! running forward kinematics: the worst distance, over every frame, joint and
//! measuring point (the joint and three points `distance` out along its axes),
//! between source and decoded pose must be within the bound. `α` is searched upwards
//! from 1 while the measured error allows it (the sum bound is pessimistic) and
//! downwards when it does not, so the bound holds as measured, not only as estimated.

use super::decode::{component_widths, dequantize, frame_order, inv_qmax, restore, store};
use super::metric::{dist, fk, shell_error, World};
use super::{
    Kind, Trs, CLIP_FLAG_COMPRESSED, DATA_TAIL, FIXED_SIZE, SEGMENT_CHANNEL_BYTES, SEGMENT_FRAMES,
};
use crate::limits::MAX_COMPRESSED_BITS;
use crate::model::ClipFlags;

/// What the encoder must honour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The largest distance error allowed, in metres.
    pub tolerance: f32,
    /// How far from each joint the error is measured, in metres.
    pub distance: f32,
}

/// What the encoder compresses: a skeleton (parents before children, bind-local
/// transforms) and `frame_count` frames of every bone's local transform, frame-major.
#[derive(Debug, Clone, Copy)]
pub struct EncodeInput<'a> {
    /// Per bone, its parent (−1 for a root), parents before children.
    pub parents: &'a [i32],
    /// Per bone, its bind-local transform (what a default channel decodes to).
    pub bind: &'a [Trs],
    /// `frames[f * bones + b]`: bone `b` at frame `f`.
    pub frames: &'a [Trs],
}

/// Values closer than this to the bind value (or to the first frame's) make a channel
/// default (or constant); the measured check still counts what they change.
const SAME: f64 = 1e-6;

/// An animated channel: its bone and kind, its clip range, and per segment the
/// rotation component it drops.
struct Animated {
    bone: usize,
    kind: Kind,
    min: [f32; 3],
    ext: [f32; 3],
    drops: Vec<usize>,
}

/// Compresses a clip's frames into a `CLPZ` payload (`docs/extensions.md`).
pub fn encode(input: &EncodeInput<'_>, settings: Settings) -> Vec<u8> {
    let bones = input.parents.len();
    let frames = input.frames.len().checked_div(bones).unwrap_or(0).max(1);
    let seg_len = SEGMENT_FRAMES as usize;
    let value = |f: usize, b: usize, k: Kind| -> [f32; 4] {
        let t = input.frames.get(f * bones + b).copied();
        let t = t.unwrap_or_else(|| input.bind.get(b).copied().unwrap_or_default());
        let v = t.values(k);
        if k == Kind::Rotation {
            v.map(|x| x.clamp(-1.0, 1.0))
        } else {
            v
        }
    };
    // Classify every channel.
    let mut classes = vec![0u8; bones];
    let mut constants: Vec<[f32; 4]> = Vec::new();
    let mut animated: Vec<Animated> = Vec::new();
    for (b, class) in classes.iter_mut().enumerate() {
        let bind = input.bind.get(b).copied().unwrap_or_default();
        for k in Kind::ALL {
            let first = value(0, b, k);
            let dev = |r: [f32; 4]| {
                (0..frames)
                    .map(|f| max_abs(value(f, b, k), r))
                    .fold(0.0, f64::max)
            };
            let code = if dev(bind.values(k)) <= SAME {
                0
            } else if dev(first) <= SAME {
                constants.push(first);
                1
            } else {
                let drops: Vec<usize> = (0..frames)
                    .step_by(seg_len)
                    .map(|s| drop_choice(k, (s..(s + seg_len).min(frames)).map(|f| value(f, b, k))))
                    .collect();
                let stored: Vec<[f32; 3]> = (0..frames)
                    .map(|f| store(k, value(f, b, k), drops[f / seg_len]))
                    .collect();
                animated.push(clip_range(b, k, stored.into_iter(), drops));
                2
            };
            *class |= code << k.shift();
        }
    }
    let source = Poses::source(input, frames, bones);
    let tree = Tree::new(input.parents);
    let fixed = fixed_pose(input, &constants, &classes);
    let mut segments = Vec::new();
    for (s, start) in (0..frames).step_by(seg_len).enumerate() {
        let end = (start + seg_len).min(frames);
        let seg = Segment::new(&animated, s, start..end, &value);
        let bits = choose_bits(
            &seg,
            &animated,
            &source,
            &tree,
            input.parents,
            &fixed,
            settings,
        );
        segments.push(seg.record(&animated, s, &bits));
    }
    assemble(
        frames as u32,
        bones as u32,
        settings,
        &classes,
        &constants,
        &animated,
        &segments,
    )
}

fn max_abs(a: [f32; 4], b: [f32; 4]) -> f64 {
    (0..4)
        .map(|k| (f64::from(a[k]) - f64::from(b[k])).abs())
        .fold(0.0, f64::max)
}

/// The rotation component a segment drops: the one whose smallest magnitude over the
/// segment is largest, so that restoring it (`√(1 − |v|²)`) stays precise.
fn drop_choice(kind: Kind, values: impl Iterator<Item = [f32; 4]>) -> usize {
    if kind != Kind::Rotation {
        return 0;
    }
    let mut least = [f32::INFINITY; 4];
    for v in values {
        for k in 0..4 {
            least[k] = least[k].min(v[k].abs());
        }
    }
    let mut best = 3;
    for k in [0, 1, 2] {
        if least[k] > least[best] {
            best = k;
        }
    }
    best
}

fn clip_range(
    bone: usize,
    kind: Kind,
    values: impl Iterator<Item = [f32; 3]>,
    drops: Vec<usize>,
) -> Animated {
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for v in values {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    let mut ext = [0.0f32; 3];
    for k in 0..3 {
        ext[k] = hi[k] - lo[k];
        // Round the extent up so that `min + ext` reaches the maximum.
        while lo[k] + ext[k] < hi[k] {
            ext[k] = f32::from_bits(ext[k].to_bits() + 1);
        }
    }
    Animated {
        bone,
        kind,
        min: lo,
        ext,
        drops,
    }
}

/// One segment: per animated channel its range bytes, its reduction byte and, per bit
/// width, the quantised values, what they decode to and the local error.
struct Segment {
    frames: std::ops::Range<usize>,
    /// Per channel: range bytes (lo xyz, hi xyz).
    ranges: Vec<[u8; 6]>,
    /// Per channel: the reduction byte (see [`reductions`]).
    reduce: Vec<u8>,
    /// Per channel, per width 0..=MAX: quantised values per frame and component.
    quant: Vec<Vec<Vec<[u32; 3]>>>,
    /// Per channel, per width: the worst local error (see [`local_error`]).
    error: Vec<Vec<f64>>,
    /// Per channel, per width: decoded values per frame (see [`Trs::values`]).
    decoded: Vec<Vec<Vec<[f32; 4]>>>,
}

impl Segment {
    fn new(
        animated: &[Animated],
        s: usize,
        frames: std::ops::Range<usize>,
        value: &dyn Fn(usize, usize, Kind) -> [f32; 4],
    ) -> Segment {
        let widths = MAX_COMPRESSED_BITS as usize + 1;
        let mut seg = Segment {
            frames: frames.clone(),
            ranges: Vec::with_capacity(animated.len()),
            reduce: Vec::with_capacity(animated.len()),
            quant: Vec::with_capacity(animated.len()),
            error: Vec::with_capacity(animated.len()),
            decoded: Vec::with_capacity(animated.len()),
        };
        for a in animated {
            let drop = a.drops[s];
            let src: Vec<[f32; 4]> = frames.clone().map(|f| value(f, a.bone, a.kind)).collect();
            let stored: Vec<[f32; 3]> = src.iter().map(|v| store(a.kind, *v, drop)).collect();
            let range = segment_range(a, &stored);
            let reduce = reductions(a, &range);
            let mut quant = Vec::with_capacity(widths);
            let mut error = Vec::with_capacity(widths);
            let mut decoded = Vec::with_capacity(widths);
            for bits in 0..widths as u32 {
                let (q, d): (Vec<[u32; 3]>, Vec<[f32; 4]>) = stored
                    .iter()
                    .map(|v| {
                        let widths = component_widths(bits as u8, reduce);
                        let (q, d) = quantize(a, &range, widths, *v);
                        (q, restore(a.kind, d, drop))
                    })
                    .unzip();
                let e = src
                    .iter()
                    .zip(&d)
                    .map(|(s, d)| local_error(a.kind, *s, *d))
                    .fold(0.0, f64::max);
                quant.push(q);
                error.push(e);
                decoded.push(d);
            }
            seg.ranges.push(range);
            seg.reduce.push(reduce);
            seg.quant.push(quant);
            seg.error.push(error);
            seg.decoded.push(decoded);
        }
        seg
    }

    /// The segment record: width bytes (with a rotation's dropped component in bits
    /// 5–6), reduction bytes, range bytes, then the packed frames, each in
    /// [`frame_order`].
    fn record(&self, animated: &[Animated], s: usize, bits: &[u32]) -> Vec<u8> {
        let a = bits.len();
        let mut out = Vec::with_capacity(a * SEGMENT_CHANNEL_BYTES);
        out.extend(
            bits.iter()
                .zip(animated)
                .map(|(&b, ch)| b as u8 | ((ch.drops[s] as u8) << 5)),
        );
        out.extend_from_slice(&self.reduce);
        for r in &self.ranges {
            out.extend_from_slice(r);
        }
        let channels: Vec<(u32, Kind)> = animated.iter().map(|a| (a.bone as u32, a.kind)).collect();
        let order = frame_order(&channels);
        let mut w = BitWriter::default();
        for f in 0..self.frames.len() {
            for &(c, k) in &order {
                let (c, k) = (c as usize, k as usize);
                let b = bits[c];
                let width = component_widths(b as u8, self.reduce[c])[k];
                w.push(self.quant[c][b as usize][f][k], width);
            }
        }
        out.extend(w.finish());
        out
    }
}

impl Segment {
    /// Bits of one frame of channel `c` at width `b`.
    fn frame_bits(&self, c: usize, b: usize) -> u32 {
        component_widths(b as u8, self.reduce[c]).iter().sum()
    }
}

/// The segment range bytes of one channel: the segment's minimum and maximum as
/// 255ths of the clip range, rounded outwards.
fn segment_range(a: &Animated, src: &[[f32; 3]]) -> [u8; 6] {
    let mut r = [0u8; 6];
    for k in 0..3 {
        if a.ext[k] == 0.0 {
            continue;
        }
        let (m, e) = (f64::from(a.min[k]), f64::from(a.ext[k]));
        let lo = src
            .iter()
            .map(|v| f64::from(v[k]))
            .fold(f64::INFINITY, f64::min);
        let hi = src
            .iter()
            .map(|v| f64::from(v[k]))
            .fold(f64::NEG_INFINITY, f64::max);
        r[k] = ((lo - m) / e * 255.0).floor().clamp(0.0, 255.0) as u8;
        r[3 + k] = ((hi - m) / e * 255.0).ceil().clamp(0.0, 255.0) as u8;
    }
    r
}

/// A channel's reduction byte in a segment: per component (two bits each, x first),
/// how many bits narrower than the channel's width it is stored, so that every
/// component's step is at most the widest one's: `k` such that the component's range
/// times `2^k` stays within the largest range of the channel (at most 3; 3 for a
/// component that does not move in the segment).
fn reductions(a: &Animated, r: &[u8; 6]) -> u8 {
    let span: [f64; 3] =
        std::array::from_fn(|k| f64::from(a.ext[k]) * (f64::from(r[3 + k]) - f64::from(r[k])));
    let widest = span.iter().copied().fold(0.0, f64::max);
    if widest <= 0.0 {
        return 0;
    }
    let mut out = 0u8;
    for (k, &s) in span.iter().enumerate() {
        let mut d = 0u8;
        while d < 3 && s * f64::from(2u8 << d) <= widest {
            d += 1;
        }
        out |= d << (2 * k);
    }
    out
}

/// The quantised value of `v` at component widths `widths` (the nearest of the
/// rounded value and its neighbours, decoded through [`dequantize`]) and what it
/// decodes to.
fn quantize(a: &Animated, r: &[u8; 6], widths: [u32; 3], v: [f32; 3]) -> ([u32; 3], [f32; 3]) {
    let (mut q, mut d) = ([0u32; 3], [0f32; 3]);
    for k in 0..3 {
        let bits = widths[k];
        let inv_q = inv_qmax(bits);
        let qmax = if bits == 0 { 0 } else { (1u64 << bits) - 1 };
        let (lo, hi) = (r[k], r[3 + k]);
        let guess = if qmax == 0 || hi == lo || a.ext[k] == 0.0 {
            0
        } else {
            let t = (f64::from(v[k]) - f64::from(a.min[k])) / f64::from(a.ext[k]) * 255.0;
            let u = (t - f64::from(lo)) / (f64::from(hi) - f64::from(lo));
            (u * qmax as f64).round().clamp(0.0, qmax as f64) as u64
        };
        let dec = |q: u64| dequantize(a.min[k], a.ext[k], lo, hi, q as u32, inv_q);
        let dist = |q: u64| (f64::from(dec(q)) - f64::from(v[k])).abs();
        let mut best = guess;
        for cand in [guess.saturating_sub(1), (guess + 1).min(qmax)] {
            if dist(cand) < dist(best) {
                best = cand;
            }
        }
        q[k] = best as u32;
        d[k] = dec(best);
    }
    (q, d)
}

/// A channel's local error as a distance per metre of reach (rotation: twice the
/// quaternion distance, which bounds the chord `2 sin(θ/2)`; scale: the length of the
/// scale difference) or as a distance (translation).
fn local_error(kind: Kind, src: [f32; 4], dec: [f32; 4]) -> f64 {
    let (a, b) = (src.map(f64::from), dec.map(f64::from));
    let minus: f64 = (0..4).map(|k| (a[k] - b[k]) * (a[k] - b[k])).sum();
    if kind != Kind::Rotation {
        return minus.sqrt();
    }
    let plus: f64 = (0..4).map(|k| (a[k] + b[k]) * (a[k] + b[k])).sum();
    2.0 * minus.min(plus).sqrt()
}

/// Children lists and, per bone, its subtree (itself first).
struct Tree {
    parents: Vec<Option<usize>>,
    subtree: Vec<Vec<usize>>,
}

impl Tree {
    fn new(parents: &[i32]) -> Tree {
        let parents: Vec<Option<usize>> = parents
            .iter()
            .enumerate()
            .map(|(i, &p)| usize::try_from(p).ok().filter(|&p| p < i))
            .collect();
        let mut subtree: Vec<Vec<usize>> = (0..parents.len()).map(|i| vec![i]).collect();
        for k in 0..parents.len() {
            let mut a = parents[k];
            while let Some(p) = a {
                subtree[p].push(k);
                a = parents[p];
            }
        }
        Tree { parents, subtree }
    }
}

/// Model-space joint frames (column-vector form: `m` columns are the scaled axes,
/// `p` the position) of every bone at every frame, in `f64`.
struct Poses {
    bones: usize,
    world: Vec<World>,
}

impl Poses {
    fn source(input: &EncodeInput<'_>, frames: usize, bones: usize) -> Poses {
        let mut world = vec![World::default(); frames * bones];
        for f in 0..frames {
            let local = |b: usize| {
                input
                    .frames
                    .get(f * bones + b)
                    .copied()
                    .unwrap_or_else(|| input.bind.get(b).copied().unwrap_or_default())
            };
            fk(
                input.parents,
                &local,
                &mut world[f * bones..(f + 1) * bones],
            );
        }
        Poses { bones, world }
    }

    fn at(&self, f: usize, b: usize) -> &World {
        &self.world[f * self.bones + b]
    }
}

/// Chooses the widths of one segment (see the module documentation).
fn choose_bits(
    seg: &Segment,
    animated: &[Animated],
    source: &Poses,
    tree: &Tree,
    parents: &[i32],
    fixed: &[Trs],
    settings: Settings,
) -> Vec<u32> {
    let tol = f64::from(settings.tolerance);
    let d = f64::from(settings.distance);
    let reach = Reach::new(seg, animated, source, tree, d);
    let measure = |bits: &[u32]| measured_error(seg, animated, bits, fixed, source, parents, d);
    let max_bits = vec![MAX_COMPRESSED_BITS; animated.len()];
    if animated.is_empty() {
        return max_bits;
    }
    // Upwards from α = 1 while the measured error allows it, then bisect.
    let mut best: Option<(f64, Vec<u32>)> = None;
    let mut alpha = 1.0;
    let mut fail: Option<f64> = None;
    for _ in 0..12 {
        let bits = greedy(seg, &reach, tree, animated, tol * alpha);
        if measure(&bits) <= tol {
            best = Some((alpha, bits));
            alpha *= 2.0;
            if alpha > 64.0 {
                break;
            }
        } else {
            fail = Some(alpha);
            if best.is_some() {
                break;
            }
            alpha /= 4.0;
            if alpha < 1e-4 {
                break;
            }
        }
    }
    let Some((mut lo, mut bits)) = best else {
        return max_bits;
    };
    if let Some(mut hi) = fail.filter(|&f| f > lo) {
        for _ in 0..3 {
            let mid = (lo * hi).sqrt();
            let cand = greedy(seg, &reach, tree, animated, tol * mid);
            if measure(&cand) <= tol {
                lo = mid;
                bits = cand;
            } else {
                hi = mid;
            }
        }
    }
    bits
}

/// Per animated channel, the joints its error reaches and by how much per unit of
/// local error: 1 for a translation; for a rotation or scale, the farthest distance in
/// the segment from the channel's joint to the joint measured plus `d` (its own
/// joint: `d`, as the rotation moves only the points around it).
struct Reach {
    joints: Vec<Vec<(usize, f64)>>,
}

impl Reach {
    fn new(seg: &Segment, animated: &[Animated], source: &Poses, tree: &Tree, d: f64) -> Reach {
        let joints = animated
            .iter()
            .map(|a| {
                tree.subtree[a.bone]
                    .iter()
                    .map(|&k| {
                        let w = match a.kind {
                            Kind::Translation => 1.0,
                            _ if k == a.bone => d,
                            _ => {
                                seg.frames
                                    .clone()
                                    .map(|f| dist(source.at(f, a.bone).p, source.at(f, k).p))
                                    .fold(0.0, f64::max)
                                    + d
                            }
                        };
                        (k, w)
                    })
                    .collect()
            })
            .collect();
        Reach { joints }
    }
}

/// Lowers widths from the maximum, one at a time, taking each time the channel whose
/// step consumes the smallest share of the tightest slack it touches, while every
/// joint's summed bound stays within `limit`.
fn greedy(
    seg: &Segment,
    reach: &Reach,
    tree: &Tree,
    animated: &[Animated],
    limit: f64,
) -> Vec<u32> {
    let n = tree.parents.len();
    let mut bits = vec![MAX_COMPRESSED_BITS; animated.len()];
    let mut bound = vec![0.0f64; n];
    for (c, js) in reach.joints.iter().enumerate() {
        let e = seg.error[c][bits[c] as usize];
        for &(k, w) in js {
            bound[k] += e * w;
        }
    }
    loop {
        let mut pick: Option<(f64, usize)> = None;
        for (c, js) in reach.joints.iter().enumerate() {
            let b = bits[c] as usize;
            if b == 0 || seg.frame_bits(c, b - 1) == seg.frame_bits(c, b) {
                continue;
            }
            let delta = seg.error[c][b - 1] - seg.error[c][b];
            let mut share = f64::NEG_INFINITY;
            for &(k, w) in js {
                let slack = limit - bound[k];
                let s = if delta * w <= 0.0 {
                    delta * w
                } else if slack <= 0.0 {
                    f64::INFINITY
                } else {
                    delta * w / slack
                };
                share = share.max(s);
            }
            if share <= 1.0 && pick.is_none_or(|(s, _)| share < s) {
                pick = Some((share, c));
            }
        }
        let Some((_, c)) = pick else { break };
        let b = bits[c] as usize;
        let delta = seg.error[c][b - 1] - seg.error[c][b];
        for &(k, w) in &reach.joints[c] {
            bound[k] += delta * w;
        }
        bits[c] -= 1;
    }
    bits
}

/// Every bone's transform as decoded where it does not depend on the frame: bind
/// values for default channels, stored values for constant ones.
fn fixed_pose(input: &EncodeInput<'_>, constants: &[[f32; 4]], classes: &[u8]) -> Vec<Trs> {
    let mut next = 0;
    classes
        .iter()
        .enumerate()
        .map(|(b, &class)| {
            let mut t = input.bind.get(b).copied().unwrap_or_default();
            for k in Kind::ALL {
                if (class >> k.shift()) & 3 == 1 {
                    t.set_values(k, constants[next]);
                    next += 1;
                }
            }
            t
        })
        .collect()
}

/// The worst shell error over the segment's frames with these widths.
fn measured_error(
    seg: &Segment,
    animated: &[Animated],
    bits: &[u32],
    fixed: &[Trs],
    source: &Poses,
    parents: &[i32],
    d: f64,
) -> f64 {
    let bones = fixed.len();
    let mut pose = fixed.to_vec();
    let mut world = vec![World::default(); bones];
    let mut worst = 0.0f64;
    for (i, f) in seg.frames.clone().enumerate() {
        for (c, a) in animated.iter().enumerate() {
            pose[a.bone].set_values(a.kind, seg.decoded[c][bits[c] as usize][i]);
        }
        fk(parents, &|b| pose[b], &mut world);
        for (b, w) in world.iter().enumerate() {
            worst = worst.max(shell_error(source.at(f, b), w, d));
        }
    }
    worst
}

/// Packs values least significant bit first.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn push(&mut self, v: u32, bits: u32) {
        if bits == 0 {
            return;
        }
        self.acc |= u64::from(v) << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

/// Lays out the payload (`docs/extensions.md`).
fn assemble(
    frames: u32,
    bones: u32,
    settings: Settings,
    classes: &[u8],
    constants: &[[f32; 4]],
    animated: &[Animated],
    segments: &[Vec<u8>],
) -> Vec<u8> {
    let data_size: usize = segments.iter().map(Vec::len).sum::<usize>() + DATA_TAIL;
    let mut out = Vec::with_capacity(FIXED_SIZE + classes.len() + 24 * animated.len() + data_size);
    let u32s = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    for v in [
        frames,
        SEGMENT_FRAMES,
        bones,
        animated.len() as u32,
        constants.len() as u32,
        frames.div_ceil(SEGMENT_FRAMES),
        settings.tolerance.to_bits(),
        settings.distance.to_bits(),
        data_size as u32,
        0,
        0,
        0,
    ] {
        u32s(&mut out, v);
    }
    out.extend_from_slice(classes);
    out.resize(out.len().next_multiple_of(4), 0);
    for c in constants {
        for v in c {
            out.extend_from_slice(&canonical(*v).to_le_bytes());
        }
    }
    for a in animated {
        for v in a.min.iter().chain(&a.ext) {
            out.extend_from_slice(&canonical(*v).to_le_bytes());
        }
    }
    let mut off = 0u32;
    for s in segments {
        u32s(&mut out, off);
        off += s.len() as u32;
    }
    for s in segments {
        out.extend_from_slice(s);
    }
    out.extend_from_slice(&[0; DATA_TAIL]);
    out
}

/// `+0.0` for zero (D13's canonical zero).
fn canonical(v: f32) -> f32 {
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// The `CLP0.flags` of a compressed clip with root motion or not.
pub fn clip_flags(root_motion: bool) -> ClipFlags {
    let motion = if root_motion {
        ClipFlags::HAS_ROOT_MOTION
    } else {
        ClipFlags::empty()
    };
    CLIP_FLAG_COMPRESSED | motion
}
