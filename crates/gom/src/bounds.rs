//! BND0: bounds of a mesh part's bind-pose positions, computed so that every writer
//! produces the same bytes (D7), and the containment test a reader applies (D13).
//!
//! Positions are taken to model space in `f64` as `((x·g00 + y·g10) + z·g20) + g30`
//! (and likewise for y and z), with no fused multiply-add. The box is the f64 minimum
//! rounded down and the f64 maximum rounded up to `f32`; the sphere's centre is the f64
//! midpoint of the rounded box, rounded to nearest; its radius is the largest f64
//! distance from that centre to a position, rounded up. Zero is always written +0.0;
//! a mesh without vertices has all-zero bounds.

use crate::limits::BOUNDS_TOLERANCE;
use crate::model::{Bounds, Mat4, MeshPart};

/// The next `f32` above `f` (`f` itself for +∞ and NaN).
pub(crate) fn next_up(f: f32) -> f32 {
    if f.is_nan() || f == f32::INFINITY {
        return f;
    }
    if f == 0.0 {
        return f32::from_bits(1);
    }
    let b = f.to_bits();
    if f > 0.0 {
        f32::from_bits(b + 1)
    } else {
        f32::from_bits(b - 1)
    }
}

/// The next `f32` below `f` (`f` itself for −∞ and NaN).
pub(crate) fn next_down(f: f32) -> f32 {
    -next_up(-f)
}

fn plus_zero(f: f32) -> f32 {
    f + 0.0
}

/// The largest `f32` not above `x` (+0.0 for zero).
pub(crate) fn round_down(x: f64) -> f32 {
    let f = x as f32;
    let f = if f64::from(f) > x { next_down(f) } else { f };
    plus_zero(f)
}

/// The smallest `f32` not below `x` (+0.0 for zero).
pub(crate) fn round_up(x: f64) -> f32 {
    let f = x as f32;
    let f = if f64::from(f) < x { next_up(f) } else { f };
    plus_zero(f)
}

/// `p` taken to model space by `g` (when present), in `f64`.
#[inline]
pub(crate) fn to_model_space(p: [f32; 3], g: Option<&Mat4>) -> [f64; 3] {
    let [x, y, z] = p.map(f64::from);
    match g {
        None => [x, y, z],
        Some(m) => {
            let m = |i: usize| f64::from(m[i]);
            [
                x * m(0) + y * m(4) + z * m(8) + m(12),
                x * m(1) + y * m(5) + z * m(9) + m(13),
                x * m(2) + y * m(6) + z * m(10) + m(14),
            ]
        }
    }
}

/// The canonical bounds (D7) of `mesh`'s positions after its GBTM matrix.
pub fn compute_bounds(mesh: &MeshPart) -> Bounds {
    bounds_of(
        &mesh.vertices.positions,
        mesh.mesh_bind_geo_to_model.as_ref(),
    )
}

/// The canonical bounds (D7) of `positions` after `g` (when present).
pub fn bounds_of(positions: &[[f32; 3]], g: Option<&Mat4>) -> Bounds {
    if positions.is_empty() {
        return Bounds::default();
    }
    // Four independent accumulators per quantity (the minimum, maximum and largest
    // distance do not depend on the order in which positions are visited), compared
    // with `<`/`>`: a NaN position is skipped, as `f64::min` would skip it.
    const LANES: usize = 4;
    let mut lo = [[f64::INFINITY; 3]; LANES];
    let mut hi = [[f64::NEG_INFINITY; 3]; LANES];
    let mut chunks = positions.chunks_exact(LANES);
    for c in &mut chunks {
        for l in 0..LANES {
            let q = to_model_space(c[l], g);
            for a in 0..3 {
                lo[l][a] = if q[a] < lo[l][a] { q[a] } else { lo[l][a] };
                hi[l][a] = if q[a] > hi[l][a] { q[a] } else { hi[l][a] };
            }
        }
    }
    for &p in chunks.remainder() {
        let q = to_model_space(p, g);
        for a in 0..3 {
            lo[0][a] = if q[a] < lo[0][a] { q[a] } else { lo[0][a] };
            hi[0][a] = if q[a] > hi[0][a] { q[a] } else { hi[0][a] };
        }
    }
    let fold = |v: &[[f64; 3]; LANES], better: fn(f64, f64) -> bool| {
        let mut out = v[0];
        for lane in &v[1..] {
            for a in 0..3 {
                if better(lane[a], out[a]) {
                    out[a] = lane[a];
                }
            }
        }
        out
    };
    let lo = fold(&lo, |x, y| x < y);
    let hi = fold(&hi, |x, y| x > y);
    let aabb_min = lo.map(round_down);
    let aabb_max = hi.map(round_up);
    let mut sphere_center = [0.0f32; 3];
    for a in 0..3 {
        let mid = (f64::from(aabb_min[a]) + f64::from(aabb_max[a])) * 0.5;
        sphere_center[a] = plus_zero(mid as f32);
    }
    let c = sphere_center.map(f64::from);
    let dist2 = |p: [f32; 3]| {
        let q = to_model_space(p, g);
        (q[0] - c[0]) * (q[0] - c[0])
            + (q[1] - c[1]) * (q[1] - c[1])
            + (q[2] - c[2]) * (q[2] - c[2])
    };
    let mut r2 = [0.0f64; LANES];
    let mut chunks = positions.chunks_exact(LANES);
    for ch in &mut chunks {
        for l in 0..LANES {
            let d = dist2(ch[l]);
            r2[l] = if d > r2[l] { d } else { r2[l] };
        }
    }
    for &p in chunks.remainder() {
        let d = dist2(p);
        r2[0] = if d > r2[0] { d } else { r2[0] };
    }
    let r2 = r2.iter().fold(0.0f64, |m, &d| if d > m { d } else { m });
    Bounds {
        aabb_min,
        aabb_max,
        sphere_center,
        sphere_radius: round_up(r2.sqrt()),
    }
}

/// A containment test against one [`Bounds`], with the tolerances of D13 prepared:
/// on each axis `min − ε ≤ p ≤ max + ε` with `ε = 1e-5 · max(|min|, |max|)`, and
/// `|p − c| ≤ r + 1e-5 · (r + max|cᵢ|)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Containment {
    lo: [f64; 3],
    hi: [f64; 3],
    c: [f64; 3],
    r2: f64,
    /// The box as `f32`: the smallest `f32` not below `lo`, the largest not above `hi`.
    lo32: [f32; 3],
    hi32: [f32; 3],
    c32: [f32; 3],
    /// `r2` shrunk by 10⁻⁶ (relative) and rounded down; −1 when `r2` is below 10⁻³⁰.
    r2_32: f32,
}

impl Containment {
    /// Prepares the test for `b`.
    pub fn new(b: &Bounds) -> Containment {
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        let mut cmax = 0.0f64;
        for a in 0..3 {
            let (mn, mx) = (f64::from(b.aabb_min[a]), f64::from(b.aabb_max[a]));
            let eps = BOUNDS_TOLERANCE * mn.abs().max(mx.abs());
            lo[a] = mn - eps;
            hi[a] = mx + eps;
            cmax = cmax.max(f64::from(b.sphere_center[a]).abs());
        }
        let r = f64::from(b.sphere_radius);
        let rr = r + BOUNDS_TOLERANCE * (r.abs() + cmax);
        let r2 = if rr < 0.0 { -1.0 } else { rr * rr };
        Containment {
            lo,
            hi,
            c: b.sphere_center.map(f64::from),
            r2,
            lo32: lo.map(round_up),
            hi32: hi.map(round_down),
            c32: b.sphere_center,
            r2_32: if r2 < 1e-30 {
                -1.0
            } else {
                round_down(r2 * (1.0 - 1e-6))
            },
        }
    }

    /// A quick test of an untransformed point in `f32` arithmetic: true only when
    /// [`in_box`](Self::in_box) and [`in_sphere`](Self::in_sphere) both hold for it.
    /// The box test is exact (`p ≥ lo` for an `f32` `p` is `p ≥` the smallest `f32`
    /// not below `lo`); the sphere's squared distance in `f32` is within 6·2⁻²⁴ of
    /// the exact one (plus 2⁻¹⁴⁷ from underflow), which the 10⁻⁶ margin of `r2_32`
    /// covers; a point it refuses may still be inside.
    #[inline]
    pub fn surely_inside(&self, p: [f32; 3]) -> bool {
        let mut ok = true;
        let mut d = 0.0f32;
        for (a, &x) in p.iter().enumerate() {
            ok &= (x >= self.lo32[a]) & (x <= self.hi32[a]);
            let e = x - self.c32[a];
            d += e * e;
        }
        ok & (d <= self.r2_32)
    }

    /// Whether the model-space point `q` lies inside the box (within tolerance).
    #[inline]
    pub fn in_box(&self, q: [f64; 3]) -> bool {
        q[0] >= self.lo[0]
            && q[0] <= self.hi[0]
            && q[1] >= self.lo[1]
            && q[1] <= self.hi[1]
            && q[2] >= self.lo[2]
            && q[2] <= self.hi[2]
    }

    /// Whether the model-space point `q` lies inside the sphere (within tolerance).
    #[inline]
    pub fn in_sphere(&self, q: [f64; 3]) -> bool {
        let d = (q[0] - self.c[0]) * (q[0] - self.c[0])
            + (q[1] - self.c[1]) * (q[1] - self.c[1])
            + (q[2] - self.c[2]) * (q[2] - self.c[2]);
        d <= self.r2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_brackets_the_value() {
        let x = 0.1f64; // not representable in f32
        let (d, u) = (round_down(x), round_up(x));
        assert!(f64::from(d) < x && x < f64::from(u));
        assert_eq!(next_up(d), u);
        assert_eq!(round_down(-0.0).to_bits(), 0);
        assert_eq!(round_up(-0.0).to_bits(), 0);
        assert_eq!(round_down(1.5), 1.5);
        assert_eq!(round_up(1.5), 1.5);
        assert_eq!(round_down(-1e-50).to_bits(), 0x8000_0001);
        assert_eq!(round_up(1e-50).to_bits(), 1);
        assert_eq!(round_down(1e39), f32::MAX);
    }

    #[test]
    fn gbtm_product_is_exact_then_rounded_outwards() {
        // f32(1/3) = 11184811 · 2^-25; times 3 (GBTM scale) = 1 + 2^-25 exactly in f64,
        // which no f32 holds: the box is [1, next_up(1)] on x, the centre their
        // midpoint 1 + 2^-24 rounded to nearest-even = 1, the radius 2^-25.
        let mut g = crate::model::IDENTITY;
        g[0] = 3.0;
        let b = bounds_of(&[[1.0 / 3.0, 0.0, 0.0]], Some(&g));
        assert_eq!(b.aabb_min, [1.0, 0.0, 0.0]);
        assert_eq!(b.aabb_max, [next_up(1.0), 0.0, 0.0]);
        assert_eq!(b.sphere_center, [1.0, 0.0, 0.0]);
        assert_eq!(b.sphere_radius, 2f32.powi(-25));
        let c = Containment::new(&b);
        let q = to_model_space([1.0 / 3.0, 0.0, 0.0], Some(&g));
        assert!(c.in_box(q) && c.in_sphere(q));
        assert!(!c.in_box([1.001, 0.0, 0.0]));
    }

    #[test]
    fn unit_square_bounds() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]];
        let b = bounds_of(&p, None);
        assert_eq!(b.aabb_min, [0.0, 0.0, 0.0]);
        assert_eq!(b.aabb_max, [1.0, 2.0, 0.0]);
        assert_eq!(b.sphere_center, [0.5, 1.0, 0.0]);
        // sqrt(0.25 + 1) = 1.118033988749895, rounded up to f32.
        let r = 1.25f64.sqrt();
        assert!(f64::from(b.sphere_radius) >= r);
        assert!(f64::from(next_down(b.sphere_radius)) < r);
    }

    /// The definition written out plainly (D7): one pass for the box, one for the
    /// radius, in the order the positions come.
    fn plain_bounds(positions: &[[f32; 3]], g: Option<&Mat4>) -> Bounds {
        let q: Vec<[f64; 3]> = positions.iter().map(|&p| to_model_space(p, g)).collect();
        let lo = [0, 1, 2].map(|a| q.iter().map(|v| v[a]).fold(f64::INFINITY, f64::min));
        let hi = [0, 1, 2].map(|a| q.iter().map(|v| v[a]).fold(f64::NEG_INFINITY, f64::max));
        let (aabb_min, aabb_max) = (lo.map(round_down), hi.map(round_up));
        let sphere_center = [0, 1, 2]
            .map(|a| plus_zero(((f64::from(aabb_min[a]) + f64::from(aabb_max[a])) * 0.5) as f32));
        let c = sphere_center.map(f64::from);
        let r2 = q
            .iter()
            .map(|v| (0..3).map(|a| (v[a] - c[a]) * (v[a] - c[a])).sum::<f64>())
            .fold(0.0, f64::max);
        Bounds {
            aabb_min,
            aabb_max,
            sphere_center,
            sphere_radius: round_up(r2.sqrt()),
        }
    }

    proptest::proptest! {
        #[test]
        fn bounds_equal_the_plain_definition(
            positions in proptest::collection::vec(proptest::array::uniform3(-1e4f32..1e4), 1..40),
            scale in 0.01f32..10.0,
            shift in proptest::array::uniform3(-100f32..100.0),
        ) {
            let mut g = crate::model::IDENTITY;
            g[0] = scale;
            g[5] = -scale;
            g[9] = 0.5;
            g[12..15].copy_from_slice(&shift);
            for g in [None, Some(&g)] {
                proptest::prop_assert_eq!(bounds_of(&positions, g), plain_bounds(&positions, g));
            }
        }
    }
}
