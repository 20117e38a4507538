//! The decoding arithmetic, written once: the encoder measures its error through these
//! functions and every reader decodes through them, in `f32` with `+ − × ÷ √` only, in
//! this order, so that the values are the same bits on every platform.

use super::{ChannelClass, Kind, Layout, SEGMENT_CHANNEL_BYTES};

/// The width part of a segment's width byte; bits 5–6 name a rotation's dropped
/// component, bit 7 is zero.
pub const WIDTH_MASK: u8 = 0x1F;

/// The bits of a segment's reduction byte that are used: two per component (x in bits
/// 0–1, y in 2–3, z in 4–5); bits 6–7 are zero.
pub const REDUCE_MASK: u8 = 0x3F;

/// The widths of a channel's three components in a segment: its width (the low bits
/// of its width byte) less each component's reduction (two bits of its reduction
/// byte), at least 0.
#[inline(always)]
pub fn component_widths(width_byte: u8, reduce: u8) -> [u32; 3] {
    let b = u32::from(width_byte & WIDTH_MASK);
    [0, 1, 2].map(|k| b.saturating_sub(u32::from(reduce >> (2 * k)) & 3))
}

/// `1 / 255`: a segment range byte is a fraction of the clip range in 255ths.
pub const INV_255: f32 = 1.0 / 255.0;

/// `1 / (2^bits − 1)` for every width up to 31, and 0 for 0 bits (the value is then
/// the segment's low end).
const INV_QMAX: [f32; 32] = {
    let mut t = [0.0f32; 32];
    let mut b = 1;
    while b < 32 {
        t[b] = 1.0 / ((1u64 << b) - 1) as f32;
        b += 1;
    }
    t
};

/// The table of [`inv_qmax`], indexed by width (for decoders that look up several
/// widths at once).
pub fn inv_qmax_table() -> &'static [f32; 32] {
    &INV_QMAX
}

/// `1 / (2^bits − 1)`, and 0 for 0 bits (the value is then the segment's low end).
#[inline(always)]
pub fn inv_qmax(bits: u32) -> f32 {
    INV_QMAX[(bits & 31) as usize]
}

/// One component: clip minimum `min` and extent `ext`, segment range bytes `lo ≤ hi`,
/// the quantised value `q` and `inv_qmax(bits)`: `offset + step · q` with the two
/// coefficients of [`coefficients`].
#[inline(always)]
pub fn dequantize(min: f32, ext: f32, lo: u8, hi: u8, q: u32, inv_q: f32) -> f32 {
    let (offset, step) = coefficients(min, ext, lo, hi, inv_q);
    offset + step * q as f32
}

/// The segment's offset `min + ext · (lo / 255)` and step
/// `ext · ((hi − lo) / 255) · inv_q` of one component, in that order of operations.
#[inline(always)]
pub fn coefficients(min: f32, ext: f32, lo: u8, hi: u8, inv_q: f32) -> (f32, f32) {
    let offset = min + ext * (f32::from(lo) * INV_255);
    let step = ext * ((f32::from(hi) - f32::from(lo)) * INV_255) * inv_q;
    (offset, step)
}

/// The three stored floats of a channel's four (see [`super::Trs::values`]):
/// translation and scale keep (x, y, z); a rotation drops component `drop` after
/// turning the quaternion so that it is ≥ 0, and keeps the other three in order.
#[inline(always)]
pub fn store(kind: Kind, v: [f32; 4], drop: usize) -> [f32; 3] {
    if kind != Kind::Rotation {
        return [v[0], v[1], v[2]];
    }
    let v = if v[drop & 3] < 0.0 { v.map(|x| -x) } else { v };
    let mut out = [0.0; 3];
    let mut n = 0;
    for (i, x) in v.iter().enumerate() {
        if i != drop & 3 && n < 3 {
            out[n] = *x;
            n += 1;
        }
    }
    out
}

/// The four floats of a channel from its three stored ones: a rotation gets its
/// dropped component back as `√(1 − |v|²)`, or, when `|v|² ≥ 1` (which quantisation
/// can produce), `v` normalised with 0 there. Stored values are bounded
/// (`Layout::parse`), so the result is always finite.
#[inline(always)]
pub fn restore(kind: Kind, v: [f32; 3], drop: usize) -> [f32; 4] {
    if kind != Kind::Rotation {
        return [v[0], v[1], v[2], 0.0];
    }
    let n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let (v, c) = if n < 1.0 {
        (v, (1.0 - n).sqrt())
    } else {
        let s = 1.0 / n.sqrt();
        ([v[0] * s, v[1] * s, v[2] * s], 0.0)
    };
    match drop & 3 {
        0 => [c, v[0], v[1], v[2]],
        1 => [v[0], c, v[1], v[2]],
        2 => [v[0], v[1], c, v[2]],
        _ => [v[0], v[1], v[2], c],
    }
}

/// The `bits`-bit value starting at bit `pos` of `packed` (little-endian bit order).
/// Reads eight bytes; a checked layout keeps them inside (its data end with
/// [`super::DATA_TAIL`] bytes), and bytes past `packed` read as zero.
#[inline(always)]
pub fn read_bits(packed: &[u8], pos: u64, bits: u32) -> u32 {
    let byte = (pos >> 3) as usize;
    let word = match packed.get(byte..byte + 8) {
        Some(s) => u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]),
        None => tail_word(packed, byte),
    };
    ((word >> (pos & 7)) & ((1u64 << bits) - 1)) as u32
}

#[cold]
fn tail_word(packed: &[u8], byte: usize) -> u64 {
    let mut b = [0u8; 8];
    for (k, slot) in b.iter_mut().enumerate() {
        *slot = packed.get(byte + k).copied().unwrap_or(0);
    }
    u64::from_le_bytes(b)
}

/// The order of the stored components within a packed frame: by group of four bones
/// (`bone / 4`), then kind (translation, rotation, scale), then component (0–2), then
/// bone; as `(channel, component)`, the channel numbered among `animated`, the
/// animated channels' bones and kinds in channel order. Consecutive components of a
/// group's four bones are then consecutive bits, in the order of a structure-of-arrays
/// pose.
pub fn frame_order(animated: &[(u32, Kind)]) -> Vec<(u32, u32)> {
    let kind_rank = |k: Kind| match k {
        Kind::Translation => 0u32,
        Kind::Rotation => 1,
        Kind::Scale => 2,
    };
    let mut order: Vec<(u32, u32)> = (0..animated.len() as u32)
        .flat_map(|c| (0..3).map(move |k| (c, k)))
        .collect();
    order.sort_by_key(|&(c, k)| {
        let (bone, kind) = animated[c as usize];
        (bone / 4, kind_rank(kind), k, bone % 4)
    });
    order
}

/// The first bit of each animated channel's components within a packed frame, and the
/// frame's bits, from the segment's width and reduction bytes and the
/// [`frame_order`] (entries naming a channel past either byte slice are skipped).
pub fn component_bits(bits: &[u8], reduce: &[u8], order: &[(u32, u32)]) -> (Vec<[u64; 3]>, u64) {
    let mut pos = vec![[0u64; 3]; bits.len().min(reduce.len())];
    let mut p = 0u64;
    for &(c, k) in order {
        let c = c as usize;
        let (Some(&b), Some(&r), Some(slot)) = (bits.get(c), reduce.get(c), pos.get_mut(c)) else {
            continue;
        };
        slot[k as usize % 3] = p;
        p += u64::from(component_widths(b, r)[k as usize % 3]);
    }
    (pos, p)
}

/// The clip ranges of a layout's animated channels, read once: per channel the
/// minimum and extent of each component.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoder {
    layout: Layout,
    ranges: Vec<[[f32; 3]; 2]>,
    kinds: Vec<Kind>,
    order: Vec<(u32, u32)>,
}

impl Decoder {
    /// Reads the ranges of a checked layout (O(animated channels)).
    pub fn new(layout: &Layout, payload: &[u8]) -> Decoder {
        let ranges = (0..layout.animated_count)
            .map(|i| {
                let (m, e) = layout.range(payload, i);
                [m, e]
            })
            .collect();
        let animated: Vec<(u32, Kind)> = layout
            .channels(payload)
            .iter()
            .filter(|c| c.class == ChannelClass::Animated)
            .map(|c| (c.bone, c.kind))
            .collect();
        Decoder {
            layout: layout.clone(),
            ranges,
            kinds: animated.iter().map(|c| c.1).collect(),
            order: frame_order(&animated),
        }
    }

    /// The layout decoded.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Decodes frame `frame` (clamped to the last) of every animated channel into
    /// `out[i]` (see [`super::Trs::values`]), for `i` below `out.len()` and the
    /// animated count. Costs one pass over the channels of one segment, whatever the
    /// frame: a seek costs what a forward step costs.
    pub fn decode_frame(&self, payload: &[u8], frame: u32, out: &mut [[f32; 4]]) {
        self.decode(payload, frame, None, out, &mut []);
    }

    /// Decodes frames `f0` and `f1` (each clamped to the last) into `out0` and `out1`;
    /// when both lie in one segment its coefficients are computed once.
    pub fn decode_pair(
        &self,
        payload: &[u8],
        f0: u32,
        f1: u32,
        out0: &mut [[f32; 4]],
        out1: &mut [[f32; 4]],
    ) {
        let last = self.layout.frame_count - 1;
        let sf = self.layout.segment_frames;
        if f0.min(last) / sf == f1.min(last) / sf {
            self.decode(payload, f0, Some(f1), out0, out1);
        } else {
            self.decode(payload, f0, None, out0, &mut []);
            self.decode(payload, f1, None, out1, &mut []);
        }
    }

    /// Decodes `f0`, and `f1` of the same segment when given.
    fn decode(
        &self,
        payload: &[u8],
        f0: u32,
        f1: Option<u32>,
        out0: &mut [[f32; 4]],
        out1: &mut [[f32; 4]],
    ) {
        let l = &self.layout;
        let f0 = f0.min(l.frame_count - 1);
        let seg = f0 / l.segment_frames;
        let rec = l.segment(payload, seg);
        let a = self.ranges.len();
        let Some(bits) = rec.get(..a) else { return };
        let Some(reduce) = rec.get(a..2 * a) else {
            return;
        };
        let Some(ranges) = rec.get(2 * a..a * SEGMENT_CHANNEL_BYTES) else {
            return;
        };
        let packed = rec.get(a * SEGMENT_CHANNEL_BYTES..).unwrap_or(&[]);
        let (first, frame_bits) = component_bits(bits, reduce, &self.order);
        let base0 = u64::from(f0 % l.segment_frames) * frame_bits;
        let second = f1.map(|f| f.min(l.frame_count - 1) % l.segment_frames);
        let base1 = u64::from(second.unwrap_or(0)) * frame_bits;
        let n = a.min(out0.len()).min(first.len());
        let (out0, bits, cr, kinds) = (
            &mut out0[..n],
            &bits[..n],
            &self.ranges[..n],
            &self.kinds[..n],
        );
        let ranges = &ranges[..6 * n];
        for c in 0..n {
            let byte = bits[c];
            let widths = component_widths(byte, reduce[c]);
            let r = &ranges[6 * c..6 * c + 6];
            let mut coef = [(0.0f32, 0.0f32); 3];
            for (k, slot) in coef.iter_mut().enumerate() {
                let inv_q = inv_qmax(widths[k]);
                *slot = coefficients(cr[c][0][k], cr[c][1][k], r[k], r[3 + k], inv_q);
            }
            let drop = usize::from(byte >> 5);
            let v = read_channel(packed, base0, first[c], widths, &coef);
            out0[c] = restore(kinds[c], v, drop);
            if second.is_some() {
                let v = read_channel(packed, base1, first[c], widths, &coef);
                if let Some(o) = out1.get_mut(c) {
                    *o = restore(kinds[c], v, drop);
                }
            }
        }
    }
}

/// The three stored components of a channel in the frame whose first bit is `base`,
/// component `k` at bit `base + first[k]`: `offset + step · q` with each component's
/// coefficients.
#[inline(always)]
fn read_channel(
    packed: &[u8],
    base: u64,
    first: [u64; 3],
    widths: [u32; 3],
    coef: &[(f32, f32); 3],
) -> [f32; 3] {
    std::array::from_fn(|k| {
        coef[k].0 + coef[k].1 * read_bits(packed, base + first[k], widths[k]) as f32
    })
}

/// Every frame of a compressed clip, every bone, frame-major: default channels from
/// `bind`, the others from the payload. For tools and tests; the runtime samples
/// without decoding the whole clip.
pub fn decode_all(layout: &Layout, payload: &[u8], bind: &[super::Trs]) -> Vec<super::Trs> {
    let bones = layout.bone_count as usize;
    let channels = layout.channels(payload);
    let mut base: Vec<super::Trs> = (0..bones)
        .map(|b| bind.get(b).copied().unwrap_or_default())
        .collect();
    for c in channels
        .iter()
        .filter(|c| c.class == ChannelClass::Constant)
    {
        base[c.bone as usize].set_values(c.kind, layout.constant(payload, c.index));
    }
    let dec = Decoder::new(layout, payload);
    let mut values = vec![[0.0f32; 4]; layout.animated_count as usize];
    let mut out = Vec::with_capacity(bones * layout.frame_count as usize);
    for f in 0..layout.frame_count {
        dec.decode_frame(payload, f, &mut values);
        let mut pose = base.clone();
        for c in channels
            .iter()
            .filter(|c| c.class == ChannelClass::Animated)
        {
            pose[c.bone as usize].set_values(c.kind, values[c.index as usize]);
        }
        out.extend(pose);
    }
    out
}
